// Definition of the engine's dispatch (included by src/contract/engine_*.cpp only).
#pragma once

#include <type_traits>

#include "grain/contract/algorithms/block.hpp"
#include "grain/contract/algorithms/flat.hpp"
#include "grain/contract/algorithms/serial.hpp"
#include "grain/contract/algorithms/slice.hpp"
#include "grain/contract/algorithms/team_reduce.hpp"
#include "grain/contract/algorithms/tile.hpp"
#include "grain/contract/engine.hpp"
#include "grain/contract/select.hpp"
#include "grain/core/backend/cuda.hpp"
#include "grain/core/backend/host.hpp"

namespace grain::impl {

// K = 0 (P = 0 or a zero component extent): every output is an empty sum.
template <class T>
struct ContractZeroKernel {
  ContractProblem<T> p;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, l, r;
    split_output(p, p.cells_fastest(), o, c, l, r);
    *p.out_at(c, l, r) = T(0);
  }
};

template <class Exec, class T>
void contract_run_on(const ContractProblem<T>& p, ContractAlgorithm a) {
  if (p.K == 0) {
    if (!p.sum_into) parallel_for(RangePolicy<Exec>(0, p.C * p.L * p.R), ContractZeroKernel<T>{p});
    return;
  }
  switch (a) {
    case ContractAlgorithm::Serial: contract_serial<Exec>(p); break;
    case ContractAlgorithm::Flat: contract_flat<Exec>(p); break;
    case ContractAlgorithm::TeamDepth1: contract_team_depth<Exec, T, 1>(p); break;
    case ContractAlgorithm::TeamDepth2: contract_team_depth<Exec, T, 2>(p); break;
    case ContractAlgorithm::TeamStride: contract_team_stride<Exec>(p); break;
    case ContractAlgorithm::TeamSmallK: contract_team_small_k<Exec>(p); break;
    case ContractAlgorithm::Slice: contract_slice<Exec>(p, false); break;
    case ContractAlgorithm::AdaptiveSlice: contract_slice<Exec>(p, true); break;
    case ContractAlgorithm::Tile: contract_tile<Exec>(p); break;
    case ContractAlgorithm::Block: contract_block<Exec>(p); break;
    default: throw_error(p.function, ": internal error: algorithm '", contract_algorithm_name(a), "' has no portable kernel");
  }
}

template <class T>
ContractAlgorithm contract_run_impl(const ContractProblem<T>& p, ContractAlgorithm a,
                                    ContractExec e) {
  if (a == ContractAlgorithm::Auto) a = contract_auto_algorithm(p, e);
  const std::string why = contract_not_applicable(p, a, e);
  if (!why.empty())
    throw_error(p.function, ": algorithm '", contract_algorithm_name(a), "' does not apply to ",
                contract_kernel_name(p.kernel), " on ", contract_exec_name(e), ": ", why);
  if (p.C == 0 || p.L == 0 || p.R == 0) return a;
  switch (e) {
    case ContractExec::Serial: contract_run_on<Serial>(p, a); break;
    case ContractExec::OpenMP:
#if defined(GRAIN_ENABLE_OPENMP)
      contract_run_on<OpenMP>(p, a);
      break;
#else
      throw_error(p.function, ": the OpenMP back end is not enabled in this build of grain");
#endif
    case ContractExec::Cuda:
#if GRAIN_CUDA_LAUNCH_AVAILABLE
      if (a == ContractAlgorithm::Blas && p.K > 0) {
        contract_blas_cuda(p);
      } else if (a == ContractAlgorithm::Mma && p.K > 0) {
        contract_mma_cuda(p);
      } else {
        contract_run_on<Cuda>(p, a);
      }
      break;
#else
      throw_error(p.function, ": the CUDA back end is not enabled in this build of grain");
#endif
    default: throw_error(p.function, ": internal error: unresolved back end");
  }
  return a;
}

}  // namespace grain::impl
