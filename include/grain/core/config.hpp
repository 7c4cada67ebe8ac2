// grain core configuration: portability macros shared by every layer.
//
// GRAIN_ENABLE_OPENMP and GRAIN_ENABLE_CUDA are set by the build (they travel with the
// grain::grain CMake target). A translation unit compiled by nvcc additionally sees __CUDACC__
// and can launch on grain::Cuda; a host-compiled one can still allocate and copy CudaSpace Views.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GRAIN_HOST_DEVICE __host__ __device__
#define GRAIN_DEVICE __device__
#define GRAIN_FORCEINLINE __forceinline__
#else
#define GRAIN_HOST_DEVICE
#define GRAIN_DEVICE
#define GRAIN_FORCEINLINE inline __attribute__((always_inline))
#endif

// Marks functions callable from kernels on every back end (the paper's DEVICE_FUNCTION).
#define GRAIN_INLINE_FUNCTION GRAIN_HOST_DEVICE inline
#define GRAIN_FORCEINLINE_FUNCTION GRAIN_HOST_DEVICE GRAIN_FORCEINLINE

// A lambda usable as a kernel body on every back end: captures by value (Views are shallow).
#if defined(__CUDACC__)
#define GRAIN_LAMBDA [=] __host__ __device__
#define GRAIN_CLASS_LAMBDA [ =, *this ] __host__ __device__
#else
#define GRAIN_LAMBDA [=]
#define GRAIN_CLASS_LAMBDA [ =, *this ]
#endif

// Vectorize the loop that follows across its (independent) lanes on the CPU. GCC otherwise may
// vectorize an enclosing loop instead, with slow in-order floating-point reductions. Empty in
// device code and without OpenMP.
#if !defined(__CUDA_ARCH__) && defined(_OPENMP)
#define GRAIN_SIMD _Pragma("omp simd")
#else
#define GRAIN_SIMD
#endif

// Unroll the loop that follows completely (its trip count a small compile-time constant) in GCC's
// host code, so that arrays of vector registers indexed by it stay in registers instead of the
// stack. Empty elsewhere.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDA_ARCH__)
#define GRAIN_HOST_UNROLL _Pragma("GCC unroll 16")
#else
#define GRAIN_HOST_UNROLL
#endif

// Tells the compiler that a pointer points into level-0 team scratch, which is shared memory on
// the GPU: it then reads it with shared-memory loads and 32-bit addresses instead of generic
// loads through 64-bit pointers (which it uses where it cannot trace the pointer to its
// allocation, as for scratch handed out by the team member). Empty elsewhere.
#if defined(__CUDA_ARCH__)
#define GRAIN_ASSUME_TEAM_SCRATCH(p) __builtin_assume(__isShared(p))
#else
#define GRAIN_ASSUME_TEAM_SCRATCH(p) ((void)0)
#endif

// True while compiling device code (the CUDA device pass).
#if defined(__CUDA_ARCH__)
#define GRAIN_IN_DEVICE_CODE 1
#else
#define GRAIN_IN_DEVICE_CODE 0
#endif

// A CUDA-capable translation unit: grain::Cuda launches are available.
#if defined(GRAIN_ENABLE_CUDA) && defined(__CUDACC__)
#define GRAIN_CUDA_LAUNCH_AVAILABLE 1
#else
#define GRAIN_CUDA_LAUNCH_AVAILABLE 0
#endif

#define GRAIN_VERSION_MAJOR 0
#define GRAIN_VERSION_MINOR 1
#define GRAIN_VERSION_PATCH 0
#define GRAIN_VERSION_STRING "0.1.0"
