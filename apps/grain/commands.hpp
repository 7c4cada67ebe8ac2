// The grain tool's runners: plain values in, the work done, 0 returned (grain::Error on failure).
// The CLI11 option definitions that fill them live in the *_cli.cpp files (cli.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grain/sparse/generate.hpp"

namespace grain::cp {
struct CpAlsResult;
struct GcpSgdResult;
}

namespace grain::cli {

int run_info(bool bandwidth);  // info.cpp

// --json FILE: created (empty) now, so that a path that cannot be written fails before the work,
// not after it; "-" and "" need nothing (cp_json.cpp).
void check_json_path(const std::string& json);

struct CpAlsCommand {
  std::string file;
  int rank = 0;
  int maxiters = 50;
  double tol = 1e-4;
  std::uint64_t seed = 1;
  std::string mttkrp = "auto";
  std::string solve = "auto";  // where a GPU run solves its R x R systems: auto, host, device
  std::string backend;  // "": default_backend()
  std::string dtype = "double";
  // --init: "random" (also when empty), "nvecs", or the PREFIX of factor files.
  std::string init, output, json;
  int starts = 1;            // --starts K: seeds seed .. seed + K - 1, the best fit kept
  bool nonnegative = false;  // --nonnegative: HALS updates, every factor entry >= 0
  std::vector<long long> dims;  // empty: inferred from the file
  // --checkpoint FILE: the state after every checkpoint_every-th iteration, the last one, and an
  // interrupted one (SIGINT, SIGTERM). --resume FILE: continue from one (the rank, element type
  // and unset options come from it: cp_cli.cpp).
  std::string checkpoint, resume;
  int checkpoint_every = 1;
  bool compact = false;         // map each mode's used indices to a dense range
  // --generate KIND: the tensor is generated (each rank its share) instead of read from `file`.
  bool generated = false;
  GenerateOptions gen;
  double comm_timeout = 600;  // across ranks: seconds a collective may wait before every rank stops
  int gpus = 0;               // --gpus N: one process over GPUs 0..N-1 (NCCL); 0: one GPU, or one per rank
};
int run_cp_als(const CpAlsCommand& c);  // cp_commands.cpp

// `grain score A B`: the factor match score of two Ktensors' factor files (score.cpp).
struct ScoreCommand {
  std::string a, b, json;
  bool ignore_weights = false;
};
int run_score(const ScoreCommand& c);

// `grain gcp`: GCP by stochastic gradients (gcp_commands.cpp; options in gcp_cli.cpp).
struct GcpCommand {
  std::string file;
  int rank = 0;
  std::string loss = "gaussian";
  int epochs = 50, iters = 1000, max_fails = 10;
  long long samples = 0, loss_samples = 0;  // per stratum; 0: the library's defaults
  double rate = 1e-3;
  std::uint64_t seed = 1;
  std::string backend, dtype = "double", output, json;
  std::vector<long long> dims;
};
int run_gcp(const GcpCommand& c);

struct GenerateCommand {
  GenerateOptions gen;
  std::string output;
  std::string dtype = "double";
};
int run_generate(const GenerateCommand& c);  // cp_commands.cpp

// What `grain cp-als --json` records besides the result (cp_json.cpp).
struct CpAlsRunInfo {
  std::string file, backend, dtype;
  std::vector<long long> dims;
  long long nnz = 0;
  int rank = 0;
  std::uint64_t seed = 0;
  int resumed_from = 0;        // the checkpoint's iteration (0: a fresh start)
  std::string checkpoint;      // --checkpoint FILE ("" when none)
  std::string interrupted_by;  // "SIGINT" or "SIGTERM" when a signal stopped the run
  std::string init;            // "random", "nvecs" or "file"
  bool nonnegative = false;
  // Each start's seed, final fit, iterations and seconds (its nvecs included); the result is the
  // one of best_seed.
  struct Start {
    std::uint64_t seed = 0;
    double fit = 0, seconds = 0;
    int iterations = 0;
  };
  std::vector<Start> starts;
  std::uint64_t best_seed = 0;
  int ranks = 1;  // processes (or GPUs of one process) sharing the nonzeros
  std::string comm_engine = "self";  // what moves the data between them: mpi, nccl
};
void write_cp_als_json(const std::string& path, const CpAlsRunInfo& run, const cp::CpAlsResult& res);

// What `grain gcp --json` records besides the result (cp_json.cpp).
struct GcpRunInfo {
  std::string file, loss, backend, dtype, interrupted_by;
  std::vector<long long> dims;
  long long nnz = 0;
  int rank = 0;
  std::uint64_t seed = 0;
};
void write_gcp_json(const std::string& path, const GcpRunInfo& run, const cp::GcpSgdResult& res);

}  // namespace grain::cli
