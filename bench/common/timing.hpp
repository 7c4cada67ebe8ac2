// Timing for benchmarks: median and minimum over repetitions after warm-up, with the back end
// fenced around each repetition (device events on the GPU, a steady clock on the host).
#pragma once

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <vector>

#include "grain/grain.hpp"

#if defined(GRAIN_ENABLE_CUDA)
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::bench {

struct Timing {
  double ms = 0;      // median
  double ms_min = 0;  // minimum
};

inline Timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.ms_min = ms.front();
  const std::size_t n = ms.size();
  t.ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return t;
}

// Times fn() `reps` times after `warmup` untimed calls. OnGpu selects device events.
template <bool OnGpu, class Fn>
Timing time_region(Fn&& fn, int reps = 10, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  ms.reserve(reps);
  if constexpr (OnGpu) {
#if defined(GRAIN_ENABLE_CUDA)
    cudaEvent_t start, stop;
    impl::cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    impl::cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
    impl::cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (int i = 0; i < reps; ++i) {
      impl::cuda_check(cudaEventRecord(start), "cudaEventRecord");
      fn();
      impl::cuda_check(cudaEventRecord(stop), "cudaEventRecord");
      impl::cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize (a kernel failed?)");
      float t = 0;
      impl::cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
#endif
  } else {
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      fn();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  return summarize(ms);
}

// Times a grain kernel on Exec: fn launches it, the fence is included in the measurement.
template <class Exec, class Fn>
Timing time_on(Fn&& fn, int reps = 10, int warmup = 2) {
#if defined(GRAIN_ENABLE_CUDA)
  constexpr bool gpu = std::is_same_v<Exec, Cuda>;
#else
  constexpr bool gpu = false;
#endif
  return time_region<gpu>(
      [&] {
        fn();
        Exec().fence();
      },
      reps, warmup);
}

}  // namespace grain::bench
