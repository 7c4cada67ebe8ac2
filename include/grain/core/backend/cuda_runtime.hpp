// Host-side CUDA services of the library (compiled in src/core/cuda_runtime.cu): error checks,
// device facts, and the reusable workspaces that keep kernels free of allocation.
#pragma once

#include "grain/core/config.hpp"

#if defined(GRAIN_ENABLE_CUDA)

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace grain::impl {

struct CudaDeviceInfo {
  int id = 0;
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::size_t global_memory = 0;
  std::size_t shared_per_block_optin = 0;
  std::size_t l2_bytes = 0;
  int max_threads_per_sm = 0;
};

// Raises grain::Error("grain: <what> failed: <CUDA's message>") unless e == cudaSuccess.
void cuda_check(cudaError_t e, const char* what);
// After a launch: the launch's own error (bad configuration, no device, ...).
void cuda_check_launch(const char* what);
// The calling thread's current device (raises grain::Error when there is none).
const CudaDeviceInfo& cuda_device();
int cuda_device_count();
// Makes device `id` the calling thread's device (cudaSetDevice). Raises grain::Error naming the id
// and the count when it does not exist.
void cuda_use_device(int id);
// Device workspace for reductions (first 64 bytes: a zeroed block counter). Grows on demand.
void* cuda_reduction_workspace(std::size_t bytes);
// Device workspace for team scratch level 1. Grows on demand.
void* cuda_level1_workspace(std::size_t bytes);
void cuda_copy_bytes(void* dst, const void* src, std::size_t bytes);

}  // namespace grain::impl

#endif
