// The GPU peer of the FieldField contractions: cuBLAS strided-batched GEMM over all cells, called
// directly as a user would (grain's own Algorithm::Blas makes a similar call; this row is the
// library used without grain).
#include <cublas_v2.h>

#include "contract_peers.hpp"
#include "grain/core/error.hpp"

namespace grain::bench {

namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    impl::throw_error("cublas-strided-batched: ", what, " failed with status ", static_cast<int>(s));
}

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created;
    check(cublasCreate(&created), "cublasCreate");
    return created;
  }();
  return h;
}

void check_sizes(std::int64_t C, std::int64_t L, std::int64_t R, std::int64_t K) {
  const std::int64_t lim = 2147483647;
  if (C > lim || L > lim || R > lim || K > lim)
    impl::throw_error("cublas-strided-batched: extents exceed cuBLAS's 32-bit int arguments");
}

}  // namespace

// Row-major out_c (L x R) = left_c (L x K) * right_c^T is, in cuBLAS's column-major terms,
// out_c^T (R x L, ld R) = right_c^T (op T of the K x R matrix, ld K) * left_c (K x L, ld K).
void cublas_strided_batched(const double* left, const double* right, double* out, std::int64_t C,
                            std::int64_t L, std::int64_t R, std::int64_t K) {
  check_sizes(C, L, R, K);
  const double one = 1, zero = 0;
  check(cublasDgemmStridedBatched(handle(), CUBLAS_OP_T, CUBLAS_OP_N, int(R), int(L), int(K), &one,
                                  right, int(K), R * K, left, int(K), L * K, &zero, out, int(R),
                                  L * R, int(C)),
        "cublasDgemmStridedBatched");
}

void cublas_strided_batched(const float* left, const float* right, float* out, std::int64_t C,
                            std::int64_t L, std::int64_t R, std::int64_t K) {
  check_sizes(C, L, R, K);
  const float one = 1, zero = 0;
  check(cublasSgemmStridedBatched(handle(), CUBLAS_OP_T, CUBLAS_OP_N, int(R), int(L), int(K), &one,
                                  right, int(K), R * K, left, int(K), L * K, &zero, out, int(R),
                                  L * R, int(C)),
        "cublasSgemmStridedBatched");
}

}  // namespace grain::bench
