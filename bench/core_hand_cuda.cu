// The hand-written GPU baselines: an exact-grid triad, and a dot product with a grid-stride
// loop, warp shuffles, one shared slot per warp and one atomicAdd per block.
#include <cuda_runtime.h>

#include "core_hand.hpp"
#include "grain/core/backend/cuda_runtime.hpp"

namespace grain::bench::hand {

namespace {
__global__ void triad_kernel(double* a, const double* b, const double* c, double s, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

__global__ void dot_kernel(const double* a, const double* b, std::size_t n, double* result) {
  __shared__ double warp_sums[32];
  double sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    sum += a[i] * b[i];
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0;
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (threadIdx.x == 0) atomicAdd(result, sum);
  }
}

double* dot_result() {
  static double* r = nullptr;
  if (!r) impl::cuda_check(cudaMalloc(&r, sizeof(double)), "cudaMalloc (hand dot)");
  return r;
}
}  // namespace

void cuda_triad(double* a, const double* b, const double* c, double s, std::size_t n) {
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  triad_kernel<<<blocks, 256>>>(a, b, c, s, n);
  impl::cuda_check_launch("hand-written triad");
}

double cuda_dot(const double* a, const double* b, std::size_t n) {
  static int blocks = 0;
  if (!blocks) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dot_kernel, 256, 0);
    blocks = per_sm * impl::cuda_device().sm_count;
  }
  double* r = dot_result();
  impl::cuda_check(cudaMemsetAsync(r, 0, sizeof(double)), "cudaMemsetAsync (hand dot)");
  dot_kernel<<<blocks, 256>>>(a, b, n, r);
  impl::cuda_check_launch("hand-written dot");
  double h = 0;
  impl::cuda_check(cudaMemcpy(&h, r, sizeof(double), cudaMemcpyDeviceToHost), "hand dot result");
  return h;
}

}  // namespace grain::bench::hand
