// Hardware ceilings measured in the same run as the kernels they judge (docs/benchmarks.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report.hpp"
#include "timing.hpp"

namespace grain::bench {

// Copy bandwidth in GB/s (bytes read + bytes written) of a large copy in Exec's memory space:
// a device-to-device cudaMemcpy on the GPU, a parallel memcpy across the host threads on the
// CPU. `bytes` per buffer; the median of `reps` copies.
// Host: a STREAM-style copy loop over all OpenMP threads (the machine's limit, whichever host
// back end is being judged).
double host_copy_bandwidth_GBps(std::size_t bytes, int reps = 10);

// The same host copy over buffers kept between measurements, for a copy taken just before and
// just after each timed row (`grain bench contract` on the CPU): a VM's memory can run in slow and
// fast phases minutes long, and a kernel's roofline means something only against a copy of the
// same phase.
class HostCopyProbe {
 public:
  explicit HostCopyProbe(std::size_t bytes);
  double GBps(int reps = 3, int warmup = 1);

 private:
  std::vector<double> a_, b_;
};

template <class Exec>
double copy_bandwidth_GBps(std::size_t bytes, int reps = 10) {
  using Space = typename Exec::memory_space;
  if constexpr (std::is_same_v<Space, HostSpace>) return host_copy_bandwidth_GBps(bytes, reps);
  const std::size_t n = bytes / sizeof(double);
  View<double*, Space> a(WithoutInitializing, "copy_src", n), b(WithoutInitializing, "copy_dst", n);
  deep_copy(a, 1.0);
  deep_copy(b, 2.0);
  const Timing t = time_on<Exec>([&] { deep_copy(b, a); }, reps, 2);
  return 2.0 * n * sizeof(double) / (t.ms * 1e-3) / 1e9;
}

// The name of the device Exec runs on.
template <class Exec>
std::string device_name() {
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Cuda>) return impl::cuda_device().name;
#endif
  return host_cpu_name();
}

}  // namespace grain::bench
