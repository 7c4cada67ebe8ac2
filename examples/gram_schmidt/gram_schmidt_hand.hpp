// Hand-written Modified Gram-Schmidt, the baselines of the paper's Figure 6. The multivector is
// column-major (N x K, column k at a + k*N: LayoutLeft), R is K x K row-major on the host.
//
//   CPU:    plain `omp parallel for` loops (reduction(+) for norms and dots).
//   CUDA:   hand-written kernels; norms and dots reduce in registers, warp shuffles and one
//           atomicAdd per block into R kept on the device, and the following scale / axpy read
//           their coefficient from device memory, so the K^2/2 operations run without a single
//           host round trip (R is copied back once at the end).
//   cuBLAS: cublasDnrm2 / cublasDscal / cublasDdot / cublasDaxpy with host scalars, the way a
//           library user writes it.
#pragma once

#include <cstddef>
#include <type_traits>

#include "gram_schmidt.hpp"

namespace grain::examples {

void mgs_hand_openmp(double* a, std::size_t n, int k, double* r, int threads);

#if defined(GRAIN_ENABLE_CUDA)
// Device multivector, host R. Synchronous (R is on the host when they return).
void mgs_hand_cuda(double* a, std::size_t n, int k, double* r);
void mgs_cublas(double* a, std::size_t n, int k, double* r);
#endif

template <class MV>
void check_mgs_hand_args(const MV& a, const HostMatrix& r, const char* who) {
  static_assert(std::is_same_v<typename MV::array_layout, LayoutLeft>,
                "the hand-written Gram-Schmidt versions take a LayoutLeft (column-major) multivector");
  check_mgs_shapes(a.extent(0), a.extent(1), r, who);
}

// The hand-written version for Exec's back end (CUDA: the hand-written kernels).
template <class Exec, class MV>
void mgs_hand(const MV& a, const HostMatrix& r) {
  check_mgs_hand_args(a, r, "mgs_hand");
  static_assert(std::is_same_v<typename MV::memory_space, typename Exec::memory_space>,
                "mgs_hand: the multivector must live in Exec's memory space");
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Cuda>) {
    mgs_hand_cuda(a.data(), a.extent(0), static_cast<int>(a.extent(1)), r.data());
    return;
  } else
#endif
  {
    mgs_hand_openmp(a.data(), a.extent(0), static_cast<int>(a.extent(1)), r.data(),
                    Exec::concurrency());
  }
}

}  // namespace grain::examples
