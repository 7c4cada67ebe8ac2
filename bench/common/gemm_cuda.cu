#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "gemm.hpp"
#include "grain/grain.hpp"
#include "timing.hpp"

namespace grain::bench {

namespace {
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    impl::throw_error("cuBLAS ", what, " failed with status ", static_cast<int>(s));
}

template <class T>
__global__ void fill_random(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = static_cast<T>((x & 0xffffff) / 16777216.0 - 0.5);
  }
}

template <class T>
double peak(cublasHandle_t h, int n) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  View<T*, CudaSpace> a(WithoutInitializing, "gemm_a", nn), b(WithoutInitializing, "gemm_b", nn),
      c(WithoutInitializing, "gemm_c", nn);
  fill_random<<<1024, 256>>>(a.data(), nn, 1u);
  fill_random<<<1024, 256>>>(b.data(), nn, 2u);
  impl::cuda_check_launch("gemm peak fill");
  const T one = 1, zero = 0;
  const Timing t = time_region<true>(
      [&] {
        if constexpr (std::is_same_v<T, double>)
          check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n,
                            &zero, c.data(), n),
                "cublasDgemm");
        else
          check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n,
                            &zero, c.data(), n),
                "cublasSgemm");
      },
      10, 3);
  return 2.0 * n * double(n) * n / (t.ms * 1e-3) / 1e9;
}
}  // namespace

GemmPeak cuda_gemm_peak(int n) {
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  GemmPeak p;
  try {
    p.double_GFLOPs = peak<double>(h, n);
    p.float_GFLOPs = peak<float>(h, n);
  } catch (...) {
    cublasDestroy(h);
    throw;
  }
  cublasDestroy(h);
  return p;
}

}  // namespace grain::bench
