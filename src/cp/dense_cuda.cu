// See grain/cp/dense_cuda.hpp. Row-major I x R is column-major R x I with leading dimension R,
// so:  A^T A (row-major)  = M M^T with M = A as column-major R x I  -> gemm(N, T, R, R, I);
//      B W   (row-major)  = (W^T B^T)^T; as column-major W^T is W's storage, B^T is B's
//                            storage                               -> gemm(N, N, R, I, R).
#include "../core/cublas_common.hpp"
#include "grain/cp/dense_cuda.hpp"

namespace grain::cp::impl {
namespace {

using grain::impl::cublas_check;
using grain::impl::cublas_handle;
using grain::impl::cublas_int;

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const float* a, int lda, const float* b, int ldb, float* c, int ldc) {
  const float one = 1, zero = 0;
  return cublasSgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const double* a, int lda, const double* b, int ldb, double* c, int ldc) {
  const double one = 1, zero = 0;
  return cublasDgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}

template <class T>
void gram_impl(const T* A, index_type I, index_type R, T* G) {
  const char* fn = "grain::cp::gram";
  const int r = cublas_int(R, fn, "rank"), i = cublas_int(I, fn, "rows");
  if (r == 0) return;
  cublasHandle_t h = cublas_handle(fn);
  // cuBLAS runs on the default stream, like grain's kernels: ordered with them, no fence needed.
  cublas_check(gemm(h, CUBLAS_OP_N, CUBLAS_OP_T, r, r, i, A, r, A, r, G, r), fn, "cuBLAS gemm (A^T A)");
}

template <class T>
void times_impl(const T* B, const T* W, index_type I, index_type R, T* out) {
  const char* fn = "grain::cp::times_matrix";
  const int r = cublas_int(R, fn, "rank"), i = cublas_int(I, fn, "rows");
  if (r == 0 || i == 0) return;
  cublasHandle_t h = cublas_handle(fn);
  cublas_check(gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, r, i, r, W, r, B, r, out, r), fn, "cuBLAS gemm (B W)");
}

}  // namespace

void gram_cuda(const float* A, index_type I, index_type R, float* G) { gram_impl(A, I, R, G); }
void gram_cuda(const double* A, index_type I, index_type R, double* G) { gram_impl(A, I, R, G); }
void times_matrix_cuda(const float* B, const float* W, index_type I, index_type R, float* out) {
  times_impl(B, W, I, R, out);
}
void times_matrix_cuda(const double* B, const double* W, index_type I, index_type R, double* out) {
  times_impl(B, W, I, R, out);
}

}  // namespace grain::cp::impl
