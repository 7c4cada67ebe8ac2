// See grain/cp/dense_cuda.hpp. Row-major I x R is column-major R x I with leading dimension R,
// so:  A^T A (row-major)  = M M^T with M = A as column-major R x I  -> gemm(N, T, R, R, I);
//      B W   (row-major)  = (W^T B^T)^T; as column-major W^T is W's storage, B^T is B's
//                            storage                               -> gemm(N, N, R, I, R).
#include <algorithm>

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
cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const float* a, int lda, long long sa, const float* b, int ldb, long long sb, float* c,
                            int ldc, long long sc, int batch) {
  const float one = 1, zero = 0;
  return cublasSgemmStridedBatched(h, ta, tb, m, n, k, &one, a, lda, sa, b, ldb, sb, &zero, c, ldc, sc, batch);
}
cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const double* a, int lda, long long sa, const double* b, int ldb, long long sb,
                            double* c, int ldc, long long sc, int batch) {
  const double one = 1, zero = 0;
  return cublasDgemmStridedBatched(h, ta, tb, m, n, k, &one, a, lda, sa, b, ldb, sb, &zero, c, ldc, sc, batch);
}

// Rows per slice of gram_cuda: at least 256 (shorter slices only add partial sums), and about
// 128 slices for tall matrices, capped so the partials stay within 4M elements.
index_type gram_rows_per_slice(index_type I, index_type R) {
  const index_type max_slices = std::max<index_type>(1, std::min<index_type>(128, (index_type{1} << 22) / std::max<index_type>(1, R * R)));
  index_type rows = std::max<index_type>(256, (I + max_slices - 1) / max_slices);
  return std::max<index_type>(1, std::min(rows, I));
}

template <class T>
void gram_impl(const T* A, index_type I, index_type R, T* parts) {
  const char* fn = "grain::cp::gram";
  const int r = cublas_int(R, fn, "rank");  // I itself may exceed int: only a slice reaches cuBLAS
  if (r == 0) return;
  cublasHandle_t h = cublas_handle(fn);
  const index_type rows = gram_rows_per_slice(I, R);
  const index_type full = I / rows, rest = I - full * rows;
  const int k = cublas_int(rows, fn, "rows per slice");
  // cuBLAS runs on the default stream, like grain's kernels: ordered with them, no fence needed.
  if (full > 0)
    cublas_check(gemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_T, r, r, k, A, r, rows * R, A, r, rows * R, parts, r, R * R,
                              cublas_int(full, fn, "slices")),
                 fn, "cuBLAS strided-batched gemm (A^T A by row slices)");
  if (rest > 0 || full == 0)  // the short last slice (or an empty A: a zero G)
    cublas_check(gemm(h, CUBLAS_OP_N, CUBLAS_OP_T, r, r, static_cast<int>(rest), A + full * rows * R, r,
                      A + full * rows * R, r, parts + full * R * R, r),
                 fn, "cuBLAS gemm (A^T A, last slice)");
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

index_type gram_slices(index_type I, index_type R) {
  const index_type rows = gram_rows_per_slice(I, R);
  return I == 0 ? 1 : (I + rows - 1) / rows;
}
void gram_cuda(const float* A, index_type I, index_type R, float* parts) { gram_impl(A, I, R, parts); }
void gram_cuda(const double* A, index_type I, index_type R, double* parts) { gram_impl(A, I, R, parts); }
void times_matrix_cuda(const float* B, const float* W, index_type I, index_type R, float* out) {
  times_impl(B, W, I, R, out);
}
void times_matrix_cuda(const double* B, const double* W, index_type I, index_type R, double* out) {
  times_impl(B, W, I, R, out);
}

}  // namespace grain::cp::impl
