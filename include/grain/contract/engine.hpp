// The one engine behind the nine contractions. Its kernels are compiled once, in the library
// (src/contract/engine_*.cpp, as CUDA in CUDA builds), for float and double on every enabled
// back end; this header only declares the entry point, so a host-compiled program can run
// contractions on CudaSpace Views.
#pragma once

#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"

namespace grain::impl {

// Runs `p` with algorithm `a` (Auto resolved here) on back end `e` (already resolved: Serial,
// OpenMP or Cuda). Raises grain::Error naming p.function when `a` does not apply or `e` is not
// built in. Returns the algorithm that ran.
ContractAlgorithm contract_run(const ContractProblem<float>& p, ContractAlgorithm a, ContractExec e);
ContractAlgorithm contract_run(const ContractProblem<double>& p, ContractAlgorithm a, ContractExec e);

#if defined(GRAIN_ENABLE_CUDA)
// cuBLAS strided-batched GEMM (src/contract/blas_cuda.cu). Preconditions checked by the engine.
void contract_blas_cuda(const ContractProblem<float>& p);
void contract_blas_cuda(const ContractProblem<double>& p);
// Tensor cores (src/contract/mma_cuda.cu): DMMA in double, 3xTF32 in float, over cells-fastest
// operands or rows unit-stride along K (tests force its configurations: testing.hpp).
void contract_mma_cuda(const ContractProblem<double>& p);
void contract_mma_cuda(const ContractProblem<float>& p);
// Whether mma's warpgroup kernel takes p's rows through its TMA row copies on the current device:
// LayoutRight operands (rows unit-stride along K, K a multiple of 4, 16-byte aligned) on compute
// capability 9.0. False where there is no device (Auto's model asks it; see select.hpp).
bool contract_mma_k_rows(const ContractProblem<float>& p);
// Whether mma runs p on its double rows kernel (64 x 64 tiles of cells whose rows are unit-stride
// along K: LayoutRight, L, R > 32) on the current device: compute capability 9.0 and newer. False
// where there is no device (Auto's model asks it; see select.hpp).
bool contract_mma_rows(const ContractProblem<double>& p);
#endif

}  // namespace grain::impl
