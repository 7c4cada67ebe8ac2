// Options of the nine contractions: which algorithm, which back end, overwrite or accumulate.
//
//   grain::ContractOptions opt;                          // overwrite, Auto, back end from the Views
//   opt.sum_into = true;                                 // out += result
//   opt.algorithm = grain::ContractAlgorithm::Tile;      // force one algorithm
//   opt.exec = grain::ContractExec::Serial;              // run host Views on one thread
#pragma once

#include <string>

#include "grain/core/error.hpp"

namespace grain {

// The algorithms of the study (Collins et al. 2015, "Parallelizing Intrepid Tensor Contractions
// Using Kokkos", chapter 3; the § numbers below are its sections), each written once for the
// engine out[c,l,r] = sum_k left[c,l,k] * right[c,r,k]. Names follow KokkosBatched's habit of
// systematic siblings: Team* are team reductions, *Slice stage rows in scratch.
enum class ContractAlgorithm {
  Auto,           // chosen per call from shape, layout and back end (contract/select.hpp)
  Serial,         // reference loops on one thread: the oracle (never a contender)
  Flat,           // one thread per output entry (per block of cells on the CPU), §3.1
  TeamDepth1,     // one team per output, threads over the last contracted index, §3.2.1
  TeamDepth2,     // one team per output, threads over the last two contracted indices, §3.2.2
  TeamStride,     // one team (32 threads) per output, threads stride over flattened K, §3.2.3
  TeamSmallK,     // several outputs per team, vector lanes reduce a short K, §3.2.4
  Slice,          // a team stages one left row in scratch, one thread per right field, §3.3
  AdaptiveSlice,  // a team stages several left rows so it has enough threads, §3.3
  Tile,           // square tiles of left and right through scratch, any remainder, §3.4
  Block,          // one thread per TM x TN block of a cell's outputs, register accumulators
  Blas,           // cuBLAS strided-batched GEMM (FieldField, CUDA, LayoutRight)
  Mma             // tensor cores: DMMA in double, 3xTF32 in float (FieldField, CUDA, LayoutLeft or
                  // LayoutRight; src/contract/mma_cuda.cu)
};

// Where the contraction runs. Auto follows the Views' memory space: host Views run on OpenMP
// when it is enabled (else Serial), CudaSpace Views on Cuda. Serial may be forced on host Views.
enum class ContractExec { Auto, Serial, OpenMP, Cuda };

struct ContractOptions {
  bool sum_into = false;  // add the result into out instead of overwriting it
  ContractAlgorithm algorithm = ContractAlgorithm::Auto;
  ContractExec exec = ContractExec::Auto;
};

inline constexpr ContractAlgorithm kAllContractAlgorithms[] = {
    ContractAlgorithm::Serial,     ContractAlgorithm::Flat,        ContractAlgorithm::TeamDepth1,
    ContractAlgorithm::TeamDepth2, ContractAlgorithm::TeamStride,  ContractAlgorithm::TeamSmallK,
    ContractAlgorithm::Slice,      ContractAlgorithm::AdaptiveSlice, ContractAlgorithm::Tile,
    ContractAlgorithm::Block,      ContractAlgorithm::Blas,        ContractAlgorithm::Mma};

// Stable names (used on the command line and in benchmark JSON).
inline const char* contract_algorithm_name(ContractAlgorithm a) {
  switch (a) {
    case ContractAlgorithm::Auto: return "auto";
    case ContractAlgorithm::Serial: return "serial";
    case ContractAlgorithm::Flat: return "flat";
    case ContractAlgorithm::TeamDepth1: return "team-depth-1";
    case ContractAlgorithm::TeamDepth2: return "team-depth-2";
    case ContractAlgorithm::TeamStride: return "team-stride";
    case ContractAlgorithm::TeamSmallK: return "team-small-k";
    case ContractAlgorithm::Slice: return "slice";
    case ContractAlgorithm::AdaptiveSlice: return "adaptive-slice";
    case ContractAlgorithm::Tile: return "tile";
    case ContractAlgorithm::Block: return "block";
    case ContractAlgorithm::Blas: return "blas";
    case ContractAlgorithm::Mma: return "mma";
  }
  return "?";
}

inline ContractAlgorithm parse_contract_algorithm(const std::string& s) {
  if (s == "auto") return ContractAlgorithm::Auto;
  for (ContractAlgorithm a : kAllContractAlgorithms)
    if (s == contract_algorithm_name(a)) return a;
  impl::throw_error("grain: unknown contraction algorithm '", s,
                    "' (auto, serial, flat, team-depth-1, team-depth-2, team-stride, team-small-k, "
                    "slice, adaptive-slice, tile, block, blas, mma)");
}

inline const char* contract_exec_name(ContractExec e) {
  switch (e) {
    case ContractExec::Auto: return "auto";
    case ContractExec::Serial: return "serial";
    case ContractExec::OpenMP: return "openmp";
    case ContractExec::Cuda: return "cuda";
  }
  return "?";
}

}  // namespace grain
