// State the CUDA back end keeps per device (handles, workspaces, kernel attributes): a process
// may drive several GPUs, one per thread (cudaSetDevice is per thread), and a handle, a buffer or
// an attribute belongs to the device that was current when it was made.
#pragma once

#include "grain/core/config.hpp"

#if defined(GRAIN_ENABLE_CUDA)

#include <array>
#include <mutex>

namespace grain::impl {

// The calling thread's current device, checked against kCudaMaxDevices.
int cuda_current_device();
inline constexpr int kCudaMaxDevices = 64;

// One T per device, made on first use from that device (the current one when get() is called).
template <class T>
class PerDevice {
 public:
  template <class Make>
  T& get(Make&& make) {
    const int d = cuda_current_device();
    std::call_once(once_[d], [&] { value_[d] = make(); });
    return value_[d];
  }

 private:
  std::array<std::once_flag, kCudaMaxDevices> once_{};
  std::array<T, kCudaMaxDevices> value_{};
};

}  // namespace grain::impl

#endif
