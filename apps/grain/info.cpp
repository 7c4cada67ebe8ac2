// `grain info`: version, back ends, the GPU, OpenMP threads, and a quick copy bandwidth per back end.
#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "grain/dist/comm.hpp"
#include "grain/grain.hpp"
#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace grain::cli {

namespace {

// b(i) = a(i). A functor, not a GRAIN_LAMBDA: this file is compiled as CUDA in CUDA builds, where
// a lambda reaches the host back ends through an indirect call, which runs the host copy at a
// third of its rate.
template <class V>
struct CopyKernel {
  V a, b;
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const { b(i) = a(i); }
};

// Copy bandwidth of `b(i) = a(i)` through grain on Exec, best of several runs: bytes read + written.
template <class Exec>
double copy_bandwidth_GBps(std::size_t n) {
  using Space = typename Exec::memory_space;
  View<double*, Space> a("a", n), b("b", n);
  deep_copy(a, 1.5);
  double best = 1e30;
  for (int rep = 0; rep < 6; ++rep) {
    Exec().fence();
    const auto t0 = std::chrono::steady_clock::now();
    parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(n)), CopyKernel<View<double*, Space>>{a, b});
    Exec().fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0 && s < best) best = s;  // the first run pays page faults and module loading
  }
  return 2.0 * n * sizeof(double) / best / 1e9;
}

}  // namespace

int run_info(bool bandwidth) {
  std::printf("grain %s\n", GRAIN_VERSION_STRING);
  std::printf("back ends: serial");
#if defined(GRAIN_ENABLE_OPENMP)
  std::printf(", openmp");
#endif
#if defined(GRAIN_ENABLE_CUDA)
  std::printf(", cuda");
#endif
  std::printf("\n");
#if defined(GRAIN_ENABLE_OPENMP)
  std::printf("openmp threads: %d\n", omp_get_max_threads());
#else
  std::printf("openmp: not compiled in\n");
#endif
  bool gpu = false;
#if defined(GRAIN_ENABLE_CUDA)
  if (impl::cuda_device_count() > 0) {
    const auto& d = impl::cuda_device();
    gpu = true;
    std::printf("gpu: %s, %.1f GiB, %d SMs, compute capability %d.%d, L2 %.0f MiB (%d visible)\n", d.name.c_str(),
                d.global_memory / 1073741824.0, d.sm_count, d.cc_major, d.cc_minor,
                d.l2_bytes / 1048576.0, impl::cuda_device_count());
  } else {
    std::printf("gpu: none found (CUDA back end compiled in, no device visible)\n");
  }
#else
  std::printf("gpu: CUDA back end not compiled in\n");
#endif
  std::printf("across ranks: mpi %s, nccl %s\n", dist::mpi_built() ? "yes" : "no", dist::nccl_built() ? "yes" : "no");
  if (!bandwidth) return 0;
  const std::size_t host_n = std::size_t(1) << 24;  // 128 MiB per array: past any CPU cache
  std::printf("copy bandwidth (b = a, bytes read + written):\n");
  std::printf("  serial  %8.1f GB/s\n", copy_bandwidth_GBps<Serial>(host_n));
#if defined(GRAIN_ENABLE_OPENMP)
  std::printf("  openmp  %8.1f GB/s\n", copy_bandwidth_GBps<OpenMP>(host_n));
#endif
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (gpu) std::printf("  cuda    %8.1f GB/s\n", copy_bandwidth_GBps<Cuda>(std::size_t(1) << 27));
#endif
  (void)gpu;
  return 0;
}

}  // namespace grain::cli
