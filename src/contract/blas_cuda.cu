// Algorithm::Blas — FieldField as one cuBLAS strided-batched GEMM per call (CUDA builds only).
//
// With LayoutRight, cell c holds left as an L x K row-major matrix (= K x L column-major, lda =
// a_l), right as R x K row-major (= K x R column-major, ldb = b_r) and out as L x R row-major
// (= R x L column-major, ldc = o_l). In column-major terms out_c^T = right_c^T * left_c, i.e.
// gemm(op(B) = T, op(A) = N, m = R, n = L, k = K). sum_into is beta = 1; otherwise beta = 0 and
// cuBLAS does not read out (a NaN-poisoned out is fine).
#include <cublas_v2.h>

#include <limits>
#include <mutex>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_runtime.hpp"
#include "grain/core/error.hpp"

namespace grain::impl {
namespace {

const char* cublas_status_text(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "not supported";
    default: return "unknown status";
  }
}

void cublas_check(cublasStatus_t s, const char* fn, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw_error(fn, ": algorithm 'blas': ", what, " failed: ", cublas_status_text(s));
}

cublasHandle_t cublas_handle(const char* fn) {
  static std::once_flag once;
  static cublasHandle_t handle = nullptr;
  static cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  std::call_once(once, [] { status = cublasCreate(&handle); });
  cublas_check(status, fn, "cublasCreate");
  return handle;
}

int as_int(index_type v, const char* fn, const char* what) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw_error(fn, ": algorithm 'blas': ", what, " = ", v, " does not fit cuBLAS's int arguments");
  return static_cast<int>(v);
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
               fn, "cublasGemmStridedBatched");
}

}  // namespace

void contract_blas_cuda(const ContractProblem<float>& p) { run_blas(p, cublasSgemmStridedBatched); }
void contract_blas_cuda(const ContractProblem<double>& p) { run_blas(p, cublasDgemmStridedBatched); }

}  // namespace grain::impl
