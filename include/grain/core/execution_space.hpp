// Execution spaces: where a parallel pattern runs. Serial always exists; OpenMP and Cuda exist
// when the build enables them (GRAIN_ENABLE_OPENMP, GRAIN_ENABLE_CUDA).
#pragma once

#include <string>

#include "grain/core/config.hpp"
#include "grain/core/memory_space.hpp"

namespace grain {

struct Serial {
  using memory_space = HostSpace;
  using execution_space = Serial;
  static constexpr const char* name() { return "serial"; }
  static int concurrency() { return 1; }
  void fence() const {}
};

#if defined(GRAIN_ENABLE_OPENMP)
struct OpenMP {
  using memory_space = HostSpace;
  using execution_space = OpenMP;
  static constexpr const char* name() { return "openmp"; }
  static int concurrency();  // omp_get_max_threads()
  void fence() const {}
};
#endif

#if defined(GRAIN_ENABLE_CUDA)
struct Cuda {
  using memory_space = CudaSpace;
  using execution_space = Cuda;
  static constexpr const char* name() { return "cuda"; }
  static int concurrency();  // resident threads on the device
  void fence() const;        // waits for all launched work; raises grain::Error on a kernel fault
};
#endif

#if defined(GRAIN_ENABLE_OPENMP)
using DefaultHostExecutionSpace = OpenMP;
#else
using DefaultHostExecutionSpace = Serial;
#endif

// Kernels launch on the GPU by default only where they can: in translation units nvcc compiles.
#if GRAIN_CUDA_LAUNCH_AVAILABLE
using DefaultExecutionSpace = Cuda;
#else
using DefaultExecutionSpace = DefaultHostExecutionSpace;
#endif

// The execution space that runs kernels over memory of a space.
template <class MemorySpace>
struct SpaceExecution {
  using type = DefaultHostExecutionSpace;
};
#if defined(GRAIN_ENABLE_CUDA)
template <>
struct SpaceExecution<CudaSpace> {
  using type = Cuda;
};
#endif

template <class E>
inline constexpr bool is_host_execution_space_v =
    std::is_same_v<typename E::memory_space, HostSpace>;

// Waits for all outstanding work on every back end.
void fence();

// Initializes the back ends (optional: they initialize lazily). Safe to call more than once.
void initialize();

}  // namespace grain
