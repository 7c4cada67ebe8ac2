// Algorithm::Blas — FieldField as one cuBLAS strided-batched GEMM per call (CUDA builds only).
//
// With LayoutRight, cell c holds left as an L x K row-major matrix (= K x L column-major, lda =
// a_l), right as R x K row-major (= K x R column-major, ldb = b_r) and out as L x R row-major
// (= R x L column-major, ldc = o_l). In column-major terms out_c^T = right_c^T * left_c, i.e.
// gemm(op(B) = T, op(A) = N, m = R, n = L, k = K). sum_into is beta = 1; otherwise beta = 0 and
// cuBLAS does not read out (a NaN-poisoned out is fine).
#include <algorithm>
#include <string>

#include "../core/cublas_common.hpp"
#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_runtime.hpp"

namespace grain::impl {
namespace {

int as_int(index_type v, const char* fn, const char* what) {
  return cublas_int(v, fn, (std::string("algorithm 'blas': ") + what).c_str());
}

template <class T, class Gemm>
void run_blas(const ContractProblem<T>& p, Gemm gemm) {
  const char* fn = p.function;
  if (p.C == 0 || p.L == 0 || p.R == 0) return;
  cublasHandle_t h = cublas_handle(fn);
  const T alpha = T(1), beta = p.sum_into ? T(1) : T(0);
  const int m = as_int(p.R, fn, "R"), n = as_int(p.L, fn, "L"), k = as_int(p.K, fn, "K");
  const int lda = as_int(std::max<index_type>(p.a_l, p.K), fn, "left row stride");
  const int ldb = as_int(std::max<index_type>(p.b_r, p.K), fn, "right row stride");
  const int ldc = as_int(std::max<index_type>(p.o_l, p.R), fn, "out row stride");
  const int batch = as_int(p.C, fn, "C");
  cublas_check(gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, p.b, ldb,
                    static_cast<long long>(p.b_c), p.a, lda, static_cast<long long>(p.a_c), &beta,
                    p.out, ldc, static_cast<long long>(p.o_c), batch),
               fn, "algorithm 'blas': cublasGemmStridedBatched");
}

}  // namespace

void contract_blas_cuda(const ContractProblem<float>& p) { run_blas(p, cublasSgemmStridedBatched); }
void contract_blas_cuda(const ContractProblem<double>& p) { run_blas(p, cublasDgemmStridedBatched); }

}  // namespace grain::impl
