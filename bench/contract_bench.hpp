// The contraction suite (`grain bench contract`): the nine contractions on the docs/benchmarks.md
// cases, every applicable algorithm timed beside the copy bandwidth and GEMM peak of the same run,
// checked against a host reference, with the peers a user would otherwise call.
#pragma once

#include <string>
#include <vector>

namespace grain::bench {

// The names each list option accepts ("all" is accepted too, and means every one).
std::vector<std::string> contract_suite_kernels();     // DataDataScalar, ...
std::vector<std::string> contract_suite_cases();       // Q1, Q2, Q3, Q4
std::vector<std::string> contract_suite_algorithms();  // grain's algorithms, then the peers

struct ContractSuiteOptions {
  std::string backend;                        // serial, openmp, cuda, or all (each available one)
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> cases{"all"};
  std::vector<std::string> dtypes;            // float, double, all; empty: all (double with sweep)
  std::vector<std::string> algorithms{"all"};
  std::string layout;                         // left, right; empty: left on cuda, right on the CPU
  double budget_mib = 0;                      // 0: 512 on cuda, 128 on the CPU
  int reps = 0;                               // 0: 20 on cuda, 10 on the CPU
  bool verify = true;
  bool quiet = false;                         // no per-row lines (the tables still print)
  std::string json;                           // "" none, "-" standard output, else a file
  // The sweep: speedup over serial across points x budget.
  bool sweep = false;
  std::vector<std::string> sweep_kernels;     // empty: --kernel's, or the three scalar kernels
  std::vector<double> sweep_p{8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<double> sweep_budgets;          // empty: 8,32,128 on cuda, 1,4,16 on the CPU
  long long sweep_fields = 8;
};

// Runs the suite; the human-readable tables go to standard output, or to standard error when the
// JSON goes to standard output. Raises grain::Error on a bad option value or a failed check.
void run_contract_suite(const ContractSuiteOptions& opt);

}  // namespace grain::bench
