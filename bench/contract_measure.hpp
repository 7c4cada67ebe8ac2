// The contraction suite's measurements (bench/contract_measure.cpp), for its driver
// (bench/contract_bench.cpp): one shape's rows (every requested algorithm and peer, timed and
// checked against a host reference) and the ceilings of the run. Internal to the suite.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "grain/contract/measure.hpp"

namespace grain::bench {

// The peers: called as a user would call a BLAS (bench/contract_peers.hpp).
inline constexpr const char* kPeerOpenBLAS = "openblas-gemm";
inline constexpr const char* kPeerCublas = "cublas-strided-batched";
inline bool is_contract_peer(const std::string& name) { return name == kPeerOpenBLAS || name == kPeerCublas; }

// A shape of the suite: its name in the rows' "case" and the budget that set its cell count.
struct SuiteShape : impl::ContractShape {
  std::string case_name;
  double budget_mib = 0;
};
SuiteShape suite_shape(ContractKernel kernel, const std::string& case_name, std::int64_t fields,
                       std::int64_t P, double budget_mib, const std::string& dtype);

// What to measure for one shape.
struct ShapeRequest {
  std::vector<std::string> algorithms;  // grain algorithm names, "auto", and peer names
  bool verify = true;
  int reps = 10;
  // Host suite: the copy bandwidth now (HostCopyProbe), taken just before and just after each
  // timed row; empty on the GPU, whose copy holds steady, and in the sweep.
  std::function<double()> copy_probe;
  // The held-out sweep: also Auto under the model alone and under measurement (a Tuning::Measure
  // plan made afresh: the plan cache is emptied first). Each row gets "model_pick" and
  // "measure_pick" (1 for the algorithm each chose, else 0) and "planning_ms" (the plan's cost).
  bool auto_plans = false;
};

// The rows of one shape on `backend` (serial, openmp, cuda) in `dtype` (float, double), Auto's
// pick marked `selected`. An algorithm that does not apply, or fails (a line on standard error),
// has no row; a wrong result is `verified: false` with a WRONG RESULT line on standard error.
std::vector<Row> measure_contract_shape(const std::string& backend, const SuiteShape& s,
                                        const std::string& dtype, bool layout_left,
                                        const ShapeRequest& plan);

// Bytes per buffer of the copy that sets the bandwidth ceiling (measure_contract_ceilings, and
// the CPU suite's copies around each row).
std::size_t ceiling_copy_bytes(const std::string& backend, double budget_mib);

// Ceilings of the run: copy bandwidth of the back end's memory and the vendor GEMM peak. The
// first call sets them; later calls (`again`) measure once more, the copy alone unless `gemm`,
// and keep the highest (Report::raise_ceilings): the suite re-measures the copy after every shape
// and both at the end, because on a shared machine one early measurement may fall in a slow
// moment and understate the ceiling by a large factor.
void measure_contract_ceilings(Report& rep, const std::string& backend, double budget_mib,
                               bool again = false, bool gemm = true);

}  // namespace grain::bench
