// CUDA builds: the two dense products of CP-ALS through cuBLAS (src/cp/dense_cuda.cu). Plain
// device pointers, row-major; called by ktensor.hpp's gram() and times_matrix() for Exec = Cuda.
#pragma once

#include "grain/core/policy.hpp"

namespace grain::cp::impl {

// A^T A for A (I x R) as gram_slices(I, R) partial R x R products (full, row-major), one per
// consecutive slice of rows, written one after another to `parts` (slices * R * R elements); the
// caller sums them. One GEMM with K = I would give cuBLAS an R x R output, a handful of thread
// blocks each walking all I rows (it would dominate CP-ALS's dense work at R >= 64);
// slicing the rows gives it slices times as many blocks, in one strided-batched call.
index_type gram_slices(index_type I, index_type R);
void gram_cuda(const float* A, index_type I, index_type R, float* parts);
void gram_cuda(const double* A, index_type I, index_type R, double* parts);
// out (I x R) = B (I x R) * W (R x R). out must not alias B or W.
void times_matrix_cuda(const float* B, const float* W, index_type I, index_type R, float* out);
void times_matrix_cuda(const double* B, const double* W, index_type I, index_type R, double* out);

}  // namespace grain::cp::impl
