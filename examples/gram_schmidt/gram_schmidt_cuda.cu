// Hand-written CUDA Modified Gram-Schmidt and its cuBLAS sibling (see gram_schmidt_hand.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "../../src/core/cublas_common.hpp"  // the library's cuBLAS handle and status checks
#include "grain/core/backend/cuda_runtime.hpp"
#include "gram_schmidt_hand.hpp"

namespace grain::examples {

namespace {

constexpr int kBlock = 256;

// Sum over the block; the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v) {
  __shared__ double warp_sums[kBlock / 32];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kBlock / 32 ? warp_sums[lane] : 0.0;
    for (int d = kBlock / 64; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  }
  return v;
}

// *out += <x, y>  (out zeroed beforehand; one atomic per block)
__global__ void __launch_bounds__(kBlock)
    mgs_dot_kernel(const double* __restrict__ x, const double* __restrict__ y, long long n,
                   double* out) {
  double s = 0;
  for (long long i = blockIdx.x * static_cast<long long>(kBlock) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * kBlock)
    s += x[i] * y[i];
  s = block_sum(s);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// x *= 1/sqrt(*norm2); block 0 also records r_kk = sqrt(*norm2).
__global__ void __launch_bounds__(kBlock)
    mgs_scale_kernel(double* __restrict__ x, long long n, const double* norm2, double* rkk) {
  const double norm = sqrt(*norm2);
  const double inv = 1.0 / norm;
  if (blockIdx.x == 0 && threadIdx.x == 0) *rkk = norm;
  const long long i = blockIdx.x * static_cast<long long>(kBlock) + threadIdx.x;
  if (i < n) x[i] *= inv;
}

// y -= (*alpha) x
__global__ void __launch_bounds__(kBlock)
    mgs_axpy_kernel(double* __restrict__ y, const double* __restrict__ x, long long n,
                    const double* alpha) {
  const double a = *alpha;
  const long long i = blockIdx.x * static_cast<long long>(kBlock) + threadIdx.x;
  if (i < n) y[i] -= a * x[i];
}

// Device R (K*K) and squared norms (K), grown on demand and kept for the process.
double* device_workspace(std::size_t doubles) {
  static double* ptr = nullptr;
  static std::size_t have = 0;
  if (doubles > have) {
    if (ptr) impl::cuda_check(cudaFree(ptr), "cudaFree (mgs workspace)");
    ptr = nullptr;
    impl::cuda_check(cudaMalloc(&ptr, doubles * sizeof(double)), "cudaMalloc (mgs workspace)");
    have = doubles;
  }
  return ptr;
}

void check_r_diagonal(const double* r, int K, const char* who) {
  for (int k = 0; k < K; ++k) check_mgs_pivot(r[k * K + k], k, who);
}

}  // namespace

void mgs_hand_cuda(double* a, std::size_t n, int K, double* r) {
  if (n > static_cast<std::size_t>(LLONG_MAX / 2))
    impl::throw_error("mgs_hand_cuda: ", n, " rows is too many");
  const long long N = static_cast<long long>(n);
  const long long blocks_exact = (N + kBlock - 1) / kBlock;
  if (blocks_exact > INT_MAX) impl::throw_error("mgs_hand_cuda: ", n, " rows exceed one grid");
  const unsigned grid = static_cast<unsigned>(std::max<long long>(blocks_exact, 1));
  // Reductions: enough blocks to fill the GPU a few times over, each thread then strides.
  const unsigned reduce_grid = static_cast<unsigned>(
      std::min<long long>(grid, 8LL * impl::cuda_device().sm_count));
  double* dR = device_workspace(static_cast<std::size_t>(K) * K + K);
  double* dnorm2 = dR + static_cast<std::size_t>(K) * K;
  impl::cuda_check(cudaMemsetAsync(dR, 0, (static_cast<std::size_t>(K) * K + K) * sizeof(double)),
                   "cudaMemsetAsync (mgs R)");
  for (int k = 0; k < K; ++k) {
    double* qk = a + static_cast<std::size_t>(k) * n;
    mgs_dot_kernel<<<reduce_grid, kBlock>>>(qk, qk, N, dnorm2 + k);
    mgs_scale_kernel<<<grid, kBlock>>>(qk, N, dnorm2 + k, dR + k * K + k);
    for (int j = k + 1; j < K; ++j) {
      double* aj = a + static_cast<std::size_t>(j) * n;
      mgs_dot_kernel<<<reduce_grid, kBlock>>>(qk, aj, N, dR + k * K + j);
      mgs_axpy_kernel<<<grid, kBlock>>>(aj, qk, N, dR + k * K + j);
    }
  }
  impl::cuda_check_launch("mgs_hand_cuda");
  impl::cuda_check(cudaMemcpy(r, dR, static_cast<std::size_t>(K) * K * sizeof(double),
                              cudaMemcpyDeviceToHost),
                   "mgs_hand_cuda: copying R back");
  check_r_diagonal(r, K, "mgs_hand_cuda");
}

void mgs_cublas(double* a, std::size_t n, int K, double* r) {
  if (n > static_cast<std::size_t>(INT_MAX))
    impl::throw_error("mgs_cublas: ", n, " rows exceed cuBLAS's 32-bit vector length");
  const int N = static_cast<int>(n);
  const char* fn = "mgs_cublas";
  cublasHandle_t h = impl::cublas_handle(fn);
  for (int k = 0; k < K; ++k) {
    double* qk = a + static_cast<std::size_t>(k) * n;
    double norm2 = 0;
    // The squared norm as a dot product, like the other versions (nrm2's scaling is not needed).
    impl::cublas_check(cublasDdot(h, N, qk, 1, qk, 1, &norm2), fn, "cublasDdot");
    const double norm = std::sqrt(norm2);
    check_mgs_pivot(norm, k, "mgs_cublas");
    r[k * K + k] = norm;
    for (int j = 0; j < k; ++j) r[k * K + j] = 0.0;
    const double inv = 1.0 / norm;
    impl::cublas_check(cublasDscal(h, N, &inv, qk, 1), fn, "cublasDscal");
    for (int j = k + 1; j < K; ++j) {
      double* aj = a + static_cast<std::size_t>(j) * n;
      double dot = 0;
      impl::cublas_check(cublasDdot(h, N, qk, 1, aj, 1, &dot), fn, "cublasDdot");
      r[k * K + j] = dot;
      const double alpha = -dot;
      impl::cublas_check(cublasDaxpy(h, N, &alpha, qk, 1, aj, 1), fn, "cublasDaxpy");
    }
  }
}

}  // namespace grain::examples
