// CUDA builds: the two dense products of CP-ALS through cuBLAS (src/cp/dense_cuda.cu). Plain
// device pointers, row-major; called by ktensor.hpp's gram() and times_matrix() for Exec = Cuda.
#pragma once

#include "grain/core/policy.hpp"

namespace grain::cp::impl {

// G (R x R, full) = A^T A for A (I x R).
void gram_cuda(const float* A, index_type I, index_type R, float* G);
void gram_cuda(const double* A, index_type I, index_type R, double* G);
// out (I x R) = B (I x R) * W (R x R). out must not alias B or W.
void times_matrix_cuda(const float* B, const float* W, index_type I, index_type R, float* out);
void times_matrix_cuda(const double* B, const double* W, index_type I, index_type R, double* out);

}  // namespace grain::cp::impl
