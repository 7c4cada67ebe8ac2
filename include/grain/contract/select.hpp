// Which algorithms apply to a call, and Auto's choice among them (docs/contractions.md describes
// the model's table; `grain contract explain` prints it for one shape).
//
// Applicability (asking for an algorithm outside it raises grain::Error; Auto never picks it):
//   serial, flat, team-depth-1, team-stride, team-small-k   every kernel
//   team-depth-2                                            Vector and Tensor kernels
//   slice, adaptive-slice                                   DataField and FieldField
//   tile                                                    FieldField
//   block                                                   DataField and FieldField
//   blas                                                    FieldField on Cuda, LayoutRight
//                                                           left/right/out (cuBLAS needs
//                                                           unit-stride rows)
//   mma                                                     FieldField on Cuda, LayoutLeft
//                                                           left/right/out (cells are the
//                                                           unit-stride index) or LayoutRight
//                                                           ones (rows unit-stride along K)
//
// Auto: a measured winner for the device, back end and shape class where there is one that
// applies (a plan measured in this process, or the tuning file of `grain tune`: tuning.hpp), else
// the model (model.hpp, src/contract/model.cpp).
#pragma once

#include <string>

#include "grain/contract/model.hpp"
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/tuning.hpp"  // the measured winners of `grain tune`

namespace grain::impl {

// nullptr when `a` applies, else the reason (a static string: Auto asks this on every call).
template <class T>
const char* contract_inapplicable_reason(const ContractProblem<T>& p, ContractAlgorithm a, ContractExec e) {
  const ContractFamily family = contract_kernel_family(p.kernel);
  switch (a) {
    case ContractAlgorithm::TeamDepth2:
      if (contract_kernel_contracted(p.kernel) < 2)
        return "team-depth-2 maps threads onto two contracted indices; Scalar kernels have one";
      return nullptr;
    case ContractAlgorithm::Slice:
      if (family == ContractFamily::DataData)
        return "slice stages a left row for several right fields; DataData kernels have one output per cell "
               "and no reuse";
      return nullptr;
    case ContractAlgorithm::AdaptiveSlice:
      if (family == ContractFamily::DataData)
        return "adaptive-slice stages a left row for several right fields; DataData kernels have one output "
               "per cell and no reuse";
      return nullptr;
    case ContractAlgorithm::Tile:
      if (family != ContractFamily::FieldField) return "tile needs left and right fields (FieldField kernels only)";
      return nullptr;
    case ContractAlgorithm::Block:
      if (family == ContractFamily::DataData)
        return "block blocks a cell's outputs; DataData kernels have one output per cell";
      return nullptr;
    case ContractAlgorithm::Blas:
      if (family != ContractFamily::FieldField) return "blas is a batched GEMM: FieldField kernels only";
      if (e != ContractExec::Cuda)
        return "blas (cuBLAS strided-batched GEMM) runs on the GPU only: pass CudaSpace Views";
      if (!(p.k_unit() && (p.L <= 1 || p.a_l >= p.K) && (p.R <= 1 || p.b_r >= p.K) &&
            (p.o_r == 1 || p.R <= 1)))
        return "blas needs LayoutRight left, right and out (cuBLAS takes matrices with "
               "unit-stride rows; in LayoutLeft the cells are the unit-stride index)";
      return nullptr;
    case ContractAlgorithm::Mma:
      if (family != ContractFamily::FieldField) return "mma runs each cell's GEMM on tensor cores: FieldField kernels only";
      if (e != ContractExec::Cuda) return "mma (tensor cores) runs on the GPU only: pass CudaSpace Views";
      // LayoutLeft (cells unit-stride), or LayoutRight: rows unit-stride along K and the output's
      // fields unit-stride (src/contract/mma_cuda.cu picks the kernel that reads them).
      if (!(p.cells_unit() && (p.o_c == 1 || p.C <= 1)) && !p.rows_along_k())
        return "mma needs LayoutLeft left, right and out (cells unit-stride) or LayoutRight ones (rows "
               "unit-stride along the contracted indices)";
      return nullptr;
    default:
      return nullptr;
  }
}

// Empty string when `a` applies, else the reason.
template <class T>
std::string contract_not_applicable(const ContractProblem<T>& p, ContractAlgorithm a, ContractExec e) {
  const char* why = contract_inapplicable_reason(p, a, e);
  return why ? std::string(why) : std::string();
}

// Bit (1 << int(a)) set for each algorithm `a` that applies (the model's `applicable`).
template <class T>
unsigned contract_applicable_mask(const ContractProblem<T>& p, ContractExec e) {
  unsigned mask = 0;
  for (ContractAlgorithm a : kAllContractAlgorithms)
    if (!contract_inapplicable_reason(p, a, e)) mask |= 1u << static_cast<unsigned>(a);
  return mask;
}

// The model's pick for `p` on `e` (the table of model.hpp), never consulting measurements.
template <class T>
ContractAlgorithm contract_model_algorithm(const ContractProblem<T>& p, ContractExec e) {
  return contract_model_pick(contract_facts(p, e), contract_applicable_mask(p, e));
}

// Auto: a measured winner for this shape class where there is one that applies (a plan measured
// in this process, else the tuning file: tuning.hpp), else the model.
template <class T>
ContractAlgorithm contract_auto_algorithm(const ContractProblem<T>& p, ContractExec e) {
  if (const ContractAlgorithm tuned = contract_tuned_algorithm(p, e);
      tuned != ContractAlgorithm::Auto && !contract_inapplicable_reason(p, tuned, e))
    return tuned;
  return contract_model_algorithm(p, e);
}

}  // namespace grain::impl
