// See grain/cp/dense_cuda.hpp. Row-major I x R is column-major R x I with leading dimension R,
// so:  A^T A (row-major)  = M M^T with M = A as column-major R x I  -> gemm(N, T, R, R, I);
//      B W   (row-major)  = (W^T B^T)^T; as column-major W^T is W's storage, B^T is B's
//                            storage                               -> gemm(N, N, R, I, R).
// The R x R systems are symmetric: their row-major storage is their column-major storage, and
// cuSOLVER's lower triangle (column-major) is the row-major upper triangle.
#include <cusolverDn.h>

#include <algorithm>
#include <mutex>

#include "../core/cublas_common.hpp"
#include "grain/core/backend/cuda_per_device.hpp"
#include "grain/core/backend/cuda_runtime.hpp"
#include "grain/cp/dense_cuda.hpp"
#include "grain/cp/dense_solve.hpp"

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

const char* cusolver_status_text(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "success";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "allocation failed";
    case CUSOLVER_STATUS_INVALID_VALUE: return "invalid value";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "internal error";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "not supported";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "invalid workspace";
    default: return "unknown status";
  }
}

void cusolver_check(cusolverStatus_t s, const char* fn, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) grain::impl::throw_error(fn, ": ", what, " failed: ", cusolver_status_text(s));
}

// The stream of the cuBLAS handle: the solves, their small kernels and the products share it.
cudaStream_t dense_stream(const char* fn) {
  cudaStream_t s = nullptr;
  cublas_check(cublasGetStream(cublas_handle(fn), &s), fn, "cublasGetStream");
  return s;
}

// The solves' own stream: non-blocking, so that they run beside the MTTKRP on the default stream
// (the system does not depend on it); solve_join() orders the default stream after them.
struct SolveStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
};
const SolveStream& solve_stream() {
  static grain::impl::PerDevice<SolveStream> streams;
  return streams.get([] {
    SolveStream out;
    grain::impl::cuda_check(cudaStreamCreateWithFlags(&out.stream, cudaStreamNonBlocking), "cudaStreamCreate (solves)");
    grain::impl::cuda_check(cudaEventCreateWithFlags(&out.done, cudaEventDisableTiming), "cudaEventCreate (solves)");
    return out;
  });
}

// The library's cuSOLVER handle of each device: created on first use and bound to the solves'
// stream.
cusolverDnHandle_t cusolver_handle(const char* fn) {
  struct Made {
    cusolverDnHandle_t handle = nullptr;
    cusolverStatus_t status = CUSOLVER_STATUS_SUCCESS;
  };
  static grain::impl::PerDevice<Made> handles;
  const Made& m = handles.get([] {
    Made out;
    out.status = cusolverDnCreate(&out.handle);
    if (out.status == CUSOLVER_STATUS_SUCCESS) out.status = cusolverDnSetStream(out.handle, solve_stream().stream);
    return out;
  });
  cusolver_check(m.status, fn, "cusolverDnCreate");
  return m.handle;
}

// Scratch layout of the solves, in doubles: cuSOLVER's workspace (the largest that potrf, potri and
// syevd ask for; first, so it keeps the allocation's alignment), the eigenvalues (R), the scaled
// eigenvectors (R x R), the pseudo-inverse in double (R x R) and cuSOLVER's info (an int).
struct SolveScratch {
  int* info;
  double* solver;
  int lwork;
  double* w;
  double* scaled;
  double* product;
};

// The size queries' answer for the last order asked: CP-ALS asks for one order every mode.
int solver_lwork(cusolverDnHandle_t h, double* V, int r, const char* fn) {
  thread_local int last_r = -1, last_lwork = 0;
  if (r == last_r) return last_lwork;
  int a = 0, b = 0, c = 0;
  cusolver_check(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, r, V, r, &a), fn, "cusolverDnDpotrf_bufferSize");
  cusolver_check(cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, r, V, r, &b), fn, "cusolverDnDpotri_bufferSize");
  // V stands in for the eigenvalue array: a size query reads neither.
  cusolver_check(cusolverDnDsyevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, r, V, r, V, &c), fn,
                 "cusolverDnDsyevd_bufferSize");
  last_r = r;
  last_lwork = std::max({a, b, c, 1});
  return last_lwork;
}

SolveScratch solve_scratch(double* work, int lwork, index_type R) {
  SolveScratch s;
  s.solver = work;
  s.lwork = lwork;
  s.w = s.solver + lwork;
  s.scaled = s.w + R;
  s.product = s.scaled + R * R;
  s.info = reinterpret_cast<int*>(s.product + R * R);
  return s;
}

// *flag = 1 unless potrf succeeded with every pivot L_jj^2 above `floor` (NaN pivots fail).
template <class T>
__global__ void pivot_check_kernel(const double* L, int R, double floor, const int* info, T* flag) {
  int bad = 0;
  for (int j = threadIdx.x; j < R; j += blockDim.x) {
    const double d = L[static_cast<std::size_t>(j) * R + j];
    bad |= !(d * d > floor);
  }
  bad = __syncthreads_or(bad);
  if (threadIdx.x == 0) *flag = (bad || *info != 0) ? T(1) : T(0);
}

// W (row-major R x R, T) = the symmetric matrix whose row-major upper triangle F holds.
template <class T>
__global__ void mirror_upper_kernel(const double* F, int R, T* W) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= static_cast<long long>(R) * R) return;
  const int i = static_cast<int>(e / R), j = static_cast<int>(e % R);
  W[e] = static_cast<T>(j >= i ? F[static_cast<std::size_t>(i) * R + j] : F[static_cast<std::size_t>(j) * R + i]);
}

// scaled(:, k) = Q(:, k) / w_k for |w_k| above rel times the largest |w|, else 0 (column-major).
// One block: the maximum first, then the scaling.
constexpr int kScaleThreads = 256;
__global__ void scale_eigenvectors_kernel(const double* Q, const double* w, int R, double rel, double* scaled) {
  __shared__ double top[kScaleThreads];
  double m = 0;
  for (int k = threadIdx.x; k < R; k += blockDim.x) m = fmax(m, fabs(w[k]));
  top[threadIdx.x] = m;
  __syncthreads();
  for (int half = kScaleThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) top[threadIdx.x] = fmax(top[threadIdx.x], top[threadIdx.x + half]);
    __syncthreads();
  }
  const double cut = top[0] * rel;
  const long long n = static_cast<long long>(R) * R;
  for (long long e = threadIdx.x; e < n; e += blockDim.x) {
    const double wk = w[e / R];
    scaled[e] = fabs(wk) > cut ? Q[e] / wk : 0.0;
  }
}

template <class T>
void mirror_into(const double* F, int r, T* W, cudaStream_t stream) {
  const long long n = static_cast<long long>(r) * r;
  const int threads = 256;
  mirror_upper_kernel<T><<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(F, r, W);
  grain::impl::cuda_check_launch("grain::cp::spd_inverse_cuda (mirror)");
}

template <class T>
void inverse_impl(double* V, index_type R, double floor, T* Winv, T* flag, double* work) {
  const char* fn = "grain::cp::spd_inverse_cuda";
  const int r = cublas_int(R, fn, "rank");
  if (r == 0) return;
  cusolverDnHandle_t h = cusolver_handle(fn);
  const SolveStream& ss = solve_stream();
  const SolveScratch s = solve_scratch(work, solver_lwork(h, V, r, fn), R);
  cusolver_check(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, r, V, r, s.solver, s.lwork, s.info), fn, "cusolverDnDpotrf");
  pivot_check_kernel<T><<<1, 256, 0, ss.stream>>>(V, r, floor, s.info, flag);
  grain::impl::cuda_check_launch("grain::cp::spd_inverse_cuda (pivot check)");
  // On a failed factorization potri computes garbage (or stops at a zero pivot): the flag says
  // so, and the caller discards Winv.
  cusolver_check(cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, r, V, r, s.solver, s.lwork, s.info), fn, "cusolverDnDpotri");
  mirror_into(V, r, Winv, ss.stream);
  grain::impl::cuda_check(cudaEventRecord(ss.done, ss.stream), "cudaEventRecord (solves)");
}

template <class T>
void pseudo_inverse_impl(double* V, index_type R, T* Winv, double* work) {
  const char* fn = "grain::cp::spd_pseudo_inverse_cuda";
  const int r = cublas_int(R, fn, "rank");
  if (r == 0) return;
  cusolverDnHandle_t h = cusolver_handle(fn);
  const SolveStream& ss = solve_stream();
  const cudaStream_t stream = dense_stream(fn);
  const SolveScratch s = solve_scratch(work, solver_lwork(h, V, r, fn), R);
  // The rare path, synchronous: V is ready (the caller copied it), syevd runs on the solves'
  // stream and its info is read once; the rest follows on the default stream.
  grain::impl::cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before syevd)");
  cusolver_check(cusolverDnDsyevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, r, V, r, s.w, s.solver, s.lwork,
                                  s.info),
                 fn, "cusolverDnDsyevd");
  int info = 0;
  grain::impl::cuda_check(cudaMemcpyAsync(&info, s.info, sizeof(int), cudaMemcpyDeviceToHost, ss.stream),
                          "cudaMemcpyAsync (syevd info)");
  grain::impl::cuda_check(cudaStreamSynchronize(ss.stream), "cudaStreamSynchronize (syevd)");
  if (info != 0)
    grain::impl::throw_error(fn, ": cuSOLVER syevd failed (info ", info,
                             info > 0 ? ": the eigenvalues did not converge)" : ": an illegal argument)");
  scale_eigenvectors_kernel<<<1, kScaleThreads, 0, stream>>>(V, s.w, r, spd_relative_floor(r), s.scaled);
  grain::impl::cuda_check_launch("grain::cp::spd_pseudo_inverse_cuda (scale)");
  // V+ = sum_k q_k q_k^T / w_k = scaled Q^T (column-major; symmetric).
  cublas_check(gemm(cublas_handle(fn), CUBLAS_OP_N, CUBLAS_OP_T, r, r, r, s.scaled, r, V, r, s.product, r), fn,
               "cuBLAS gemm (Q D^+ Q^T)");
  mirror_into(s.product, r, Winv, stream);
}

}  // namespace

index_type spd_solve_workspace(double* V, index_type R) {
  const char* fn = "grain::cp::spd_solve_workspace";
  const int r = cublas_int(R, fn, "rank");
  if (r == 0) return 1;
  return solver_lwork(cusolver_handle(fn), V, r, fn) + R + 2 * R * R + 1;
}

void spd_solve_join() {
  grain::impl::cuda_check(cudaStreamWaitEvent(dense_stream("grain::cp::spd_solve_join"), solve_stream().done, 0),
                          "cudaStreamWaitEvent (solves)");
}

void spd_inverse_cuda(double* V, index_type R, double floor, float* Winv, float* flag, double* work) {
  inverse_impl(V, R, floor, Winv, flag, work);
}
void spd_inverse_cuda(double* V, index_type R, double floor, double* Winv, double* flag, double* work) {
  inverse_impl(V, R, floor, Winv, flag, work);
}
void spd_pseudo_inverse_cuda(double* V, index_type R, float* Winv, double* work) { pseudo_inverse_impl(V, R, Winv, work); }
void spd_pseudo_inverse_cuda(double* V, index_type R, double* Winv, double* work) {
  pseudo_inverse_impl(V, R, Winv, work);
}

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
