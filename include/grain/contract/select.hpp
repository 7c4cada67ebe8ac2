// Which algorithms apply to a call, and the Auto rule.
//
// Applicability (asking for an algorithm outside it raises grain::Error; Auto never picks it):
//   serial, flat, team-depth-1, team-stride, team-small-k   every kernel
//   team-depth-2                                            Vector and Tensor kernels
//   slice, adaptive-slice                                   DataField and FieldField
//   tile                                                    FieldField
//   blas                                                    FieldField on Cuda, LayoutRight
//                                                           left/right/out (cuBLAS needs
//                                                           unit-stride rows)
//
// Auto (a first, documented rule; issue 4 replaces it with a measured cost model):
//   CPU (Serial, OpenMP): flat — vectorized across cells (LayoutLeft) or along K (LayoutRight),
//       split over every output so all cores work.
//   GPU, cells the unit-stride index (LayoutLeft, the GPU default): flat — a warp takes 32
//       consecutive cells, every load coalesces.
//   GPU, LayoutRight: FieldField with L, R >= 16 -> tile; otherwise K <= 32 -> team-small-k,
//       else team-stride (threads walk contiguous K, so loads coalesce).
#pragma once

#include <string>

#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/tuning.hpp"  // issue 4: the measured winners of `grain tune`

namespace grain::impl {

// Empty string when `a` applies, else the reason.
template <class T>
std::string contract_not_applicable(const ContractProblem<T>& p, ContractAlgorithm a,
                                    ContractExec e) {
  const int family = contract_kernel_family(p.kernel);
  switch (a) {
    case ContractAlgorithm::TeamDepth2:
      if (contract_kernel_contracted(p.kernel) < 2)
        return "team-depth-2 maps threads onto two contracted indices; Scalar kernels have one";
      return {};
    case ContractAlgorithm::Slice:
    case ContractAlgorithm::AdaptiveSlice:
      if (family == 0)
        return std::string(contract_algorithm_name(a)) +
               " stages a left row for several right fields; DataData kernels have one output "
               "per cell and no reuse";
      return {};
    case ContractAlgorithm::Tile:
      if (family != 2) return "tile needs left and right fields (FieldField kernels only)";
      return {};
    case ContractAlgorithm::Blas:
      if (family != 2) return "blas is a batched GEMM: FieldField kernels only";
      if (e != ContractExec::Cuda)
        return "blas (cuBLAS strided-batched GEMM) runs on the GPU only: pass CudaSpace Views";
      if (!(p.k_unit() && (p.L <= 1 || p.a_l >= p.K) && (p.R <= 1 || p.b_r >= p.K) &&
            (p.o_r == 1 || p.R <= 1)))
        return "blas needs LayoutRight left, right and out (cuBLAS takes matrices with "
               "unit-stride rows; in LayoutLeft the cells are the unit-stride index)";
      return {};
    default:
      return {};
  }
}

template <class T>
ContractAlgorithm contract_auto_algorithm(const ContractProblem<T>& p, ContractExec e) {
  // [issue 4: tuning file] The winner `grain tune` measured for this device, back end and shape
  // class, when the file has one that applies; else the model below (contract/tuning.hpp).
  if (const ContractAlgorithm tuned = contract_tuned_algorithm(p, e);
      tuned != ContractAlgorithm::Auto && contract_not_applicable(p, tuned, e).empty())
    return tuned;
  if (e != ContractExec::Cuda) return ContractAlgorithm::Flat;
  if (p.cells_fastest()) return ContractAlgorithm::Flat;
  if (contract_kernel_family(p.kernel) == 2 && p.L >= 16 && p.R >= 16) return ContractAlgorithm::Tile;
  if (p.K <= 32) return ContractAlgorithm::TeamSmallK;
  return ContractAlgorithm::TeamStride;
}

}  // namespace grain::impl
