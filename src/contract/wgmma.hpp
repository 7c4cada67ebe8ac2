// Algorithm::Mma's warpgroup (wgmma) kernel in float, compiled for sm_90a alone
// (src/contract/wgmma_cuda.cu); mma_cuda.cu calls it on compute capability 9.0 devices only.
#pragma once

#include "grain/contract/problem.hpp"

namespace grain::impl {

// out (+)= the FieldField contraction of p, cells unit-stride in both inputs; out_vec: how many
// neighbouring cells one result store may write (1, 2 or 4, as mma_cuda.cu's out_cells_vector);
// tma: copy the stages with the TMA where the cells allow it; force_split: share each tile's
// stages between 2 blocks wherever the output allows it (tests; else chosen by the grid's rounds);
// lead: TMA stages in flight, 2 or 3 (tests), or 0: chosen by the stages a block runs.
void contract_wgmma_float(const ContractProblem<float>& p, int out_vec, bool tma, bool force_split, int lead = 0);

// Whether the warpgroup kernel's row copies apply: operands with rows unit-stride along K
// (LayoutRight; cells not unit-stride), one K level, row and cell strides and bases that a tensor
// map takes (16-byte multiples: K a multiple of 4), the output's fields unit-stride. Such
// operands run only through those copies.
bool wgmma_k_rows(const ContractProblem<float>& p);

}  // namespace grain::impl
