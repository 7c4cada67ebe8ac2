// `grain bench mttkrp`: every MTTKRP algorithm per mode on a tensor file or a generated one, each
// checked against a serial reference, and CP-ALS iterations, beside the copy bandwidth.
#pragma once

#include <string>
#include <vector>

#include "grain/sparse/generate.hpp"

namespace grain::bench {

struct MttkrpBenchOptions {
  std::string file;         // a tensor file; empty: generate one from `gen`
  GenerateOptions gen;
  std::vector<long long> dims;  // for a .tns whose largest indices are not the sizes
  std::string name;         // the case's name in the report; empty: from the file or generator
  std::vector<int> ranks{16, 64};
  int reps = 10;
  int cp_als_iters = 10;    // 0: no CP-ALS rows
  long long tiled_rows = 0; // the tiled algorithm's tile height (0: from its L2 budget)
  int lanes = 0;            // vector lanes per nonzero of perm and tiled on the GPU (0: the rule)
  bool verify = true;
  bool all = false;         // include privatized on the GPU
  std::string backend;      // "": default_backend()
  std::string dtype = "double";
  std::string json;         // "" none, "-" standard output (the tables then go to standard error)
};

void run_mttkrp_bench(const MttkrpBenchOptions& opt);

}  // namespace grain::bench
