// The back ends by name ("serial", "openmp", "cuda"), as the command-line tool and the
// benchmarks take them, and a call on the execution space a name stands for.
#pragma once

#include <string>
#include <vector>

#include "grain/core/error.hpp"
#include "grain/core/execution_space.hpp"

#if defined(GRAIN_ENABLE_CUDA)
#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain {

// The back ends this build can run now: serial, openmp when built with it, cuda when built with
// it and a device is visible.
std::vector<std::string> available_backends();

// The fastest available back end: cuda, else openmp, else serial.
std::string default_backend();

// Why `name` cannot run here ("" when it can): unknown, not built, or no visible device.
std::string backend_unavailable_reason(const std::string& name);

// Raises grain::Error with backend_unavailable_reason when `name` cannot run here.
void check_backend(const std::string& name);

// Runs f(Exec()) for the back end named b (after check_backend) and returns its result.
template <class F>
auto with_backend(const std::string& b, F&& f) {
  check_backend(b);
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (b == "cuda") return f(Cuda());
#else
  // A caller compiled without nvcc cannot launch CUDA kernels: never fall back silently.
  if (b == "cuda") impl::throw_error("back end 'cuda': called from code not compiled for CUDA");
#endif
#if defined(GRAIN_ENABLE_OPENMP)
  if (b == "openmp") return f(OpenMP());
#endif
  return f(Serial());
}

}  // namespace grain
