// The contraction suite (`grain bench contract`): the nine contractions on the docs/benchmarks.md
// cases, every applicable algorithm timed beside the copy bandwidth and GEMM peak of the same run,
// checked against a host reference, with the peers a user would otherwise call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grain::bench {

// The names each list option accepts ("all" is accepted too, and means every one; for the
// algorithms, every one but serial, the oracle, which the suite also times on small CPU cases).
std::vector<std::string> contract_suite_kernels();     // DataDataScalar, ...
std::vector<std::string> contract_suite_cases();       // Q1, Q2, Q3, Q4
std::vector<std::string> contract_suite_algorithms();  // grain's algorithms, then the peers

struct ContractSuiteOptions {
  std::string backend;                        // serial, openmp, cuda, or all (each available one
                                              // but serial); "": default_backend()
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> cases{"all"};
  std::vector<std::string> dtypes;            // float, double, all; empty: all (double with sweep)
  std::vector<std::string> algorithms{"all"};
  std::string layout;                         // left, right; empty: left on cuda, right on the CPU
  double budget_mib = 0;                      // 0: 512 on cuda, 128 on the CPU
  int reps = 0;                               // 0: 20 on cuda, 10 on the CPU
  bool verify = true;
  bool quiet = false;                         // no per-row lines (the tables still print)
  std::string json;                           // "" none, "-" standard output (not with backend
                                              // all), else a file (all: FILE-<backend>.json)
  // The sweep: speedup over serial across points x budget.
  bool sweep = false;
  std::vector<std::string> sweep_kernels;     // empty: `kernels` where it is not {"all"}, else
                                              // the three Scalar kernels
  std::vector<double> sweep_p{8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<double> sweep_budgets;          // empty: 8,32,128 on cuda, 1,4,16 on the CPU
  long long sweep_fields = 8;
  // The held-out sweep: `count` random finite-element shapes drawn from `seed` instead of the
  // cases (shapes "random"): fields 1-300 (L = R or not), points 1-400, D 1-3, none of Q1-Q4, the
  // cells filling the budget; every applicable algorithm timed beside Auto under the model and
  // under measurement, and the distribution of Auto / fastest printed and written.
  std::string shapes = "cases";  // cases | random
  int count = 100;
  std::uint64_t seed = 1;
};

// Runs the suite; the human-readable tables go to standard output, or to standard error when the
// JSON goes to standard output. Raises grain::Error before measuring anything on a bad option
// value (an unknown name, a negative budget or repetition count, a sweep list with a value <= 0)
// or an unavailable back end, and after it on an output file that cannot be written. A
// grain::Progress counts the shapes (shown where the tool enables progress).
void run_contract_suite(const ContractSuiteOptions& opt);

}  // namespace grain::bench
