// CUDA builds: the dense products of CP-ALS through cuBLAS and its R x R solves through cuSOLVER
// (src/cp/dense_cuda.cu). Plain device pointers, row-major; called by ktensor.hpp's gram() and
// times_matrix() and by cp_als.hpp for Exec = Cuda. Everything runs on the stream of the cuBLAS
// handle (the default stream, as grain's kernels), so it is ordered with them without fences.
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

// The R x R solves (double, whatever T is: R x R is small next to the products that use it).
// `work` is device scratch of spd_solve_workspace(V, R) doubles, shared by both solves; V is any
// device array of R x R doubles (cuSOLVER's size queries take one and read nothing through it).
index_type spd_solve_workspace(double* V, index_type R);
// Enqueues the inverse of the symmetric R x R matrix V (device; overwritten by its Cholesky
// factor) through cuSOLVER's potrf and potri, written to Winv (R x R, T), and sets *flag (device)
// to 1 when V is not numerically positive definite (potrf's info > 0, or a pivot L_jj^2 at most
// `floor`; Winv is then meaningless), else 0. It runs on the solves' own stream, beside work on
// the default stream: V, Winv and flag must not be in use there (V written by a finished copy);
// spd_solve_join() orders later default-stream work after it. No host synchronization.
void spd_inverse_cuda(double* V, index_type R, double floor, float* Winv, float* flag, double* work);
void spd_inverse_cuda(double* V, index_type R, double floor, double* Winv, double* flag, double* work);
// Makes the default stream wait for the solves enqueued so far.
void spd_solve_join();
// Winv = the Moore-Penrose pseudo-inverse of the symmetric V (device; overwritten) from cuSOLVER's
// syevd, eigenvalues of magnitude at most spd_relative_floor(R) times the largest treated as zero.
// Synchronizes to read syevd's info; raises grain::Error when it reports a failure.
void spd_pseudo_inverse_cuda(double* V, index_type R, float* Winv, double* work);
void spd_pseudo_inverse_cuda(double* V, index_type R, double* Winv, double* work);

}  // namespace grain::cp::impl
