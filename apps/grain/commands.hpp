// The grain tool's runners: plain values in, the work done, 0 returned (grain::Error on failure).
// The CLI11 option definitions that fill them live in the *_cli.cpp files (cli.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grain/sparse/generate.hpp"

namespace grain::cp {
struct CpAlsResult;
}

namespace grain::cli {

int run_info(bool bandwidth);  // info.cpp

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
  std::string init, output, json;
  std::vector<long long> dims;  // empty: inferred from the file
  // --checkpoint FILE: the state after every checkpoint_every-th iteration, the last one, and an
  // interrupted one (SIGINT, SIGTERM). --resume FILE: continue from one (the rank, element type
  // and unset options come from it: cp_cli.cpp).
  std::string checkpoint, resume;
  int checkpoint_every = 1;
  bool compact = false;         // map each mode's used indices to a dense range
};
int run_cp_als(const CpAlsCommand& c);  // cp_commands.cpp

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
};
void write_cp_als_json(const std::string& path, const CpAlsRunInfo& run, const cp::CpAlsResult& res);

}  // namespace grain::cli
