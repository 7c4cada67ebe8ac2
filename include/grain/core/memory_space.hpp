// Memory spaces: where a View's allocation lives and who may touch it.
//
// The byte-level operations (allocate, free, copy, fill, permuting copy) are compiled once in
// src/core/ so that a host-compiled translation unit can still own and copy GPU Views; only
// kernel launches need nvcc.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "grain/core/config.hpp"

namespace grain {

// Ordinary host memory (64-byte aligned, so rows start on cache lines and SIMD loads align).
struct HostSpace {
  static constexpr const char* name() { return "HostSpace"; }
  static constexpr bool host_accessible = true;
  static constexpr bool device_accessible = false;
  static void* allocate(std::size_t bytes, const std::string& label);
  static void deallocate(void* ptr, std::size_t bytes) noexcept;
};

// GPU global memory (cudaMalloc). Exists in every build so code names it uniformly; allocating
// it in a build without CUDA raises grain::Error.
struct CudaSpace {
  static constexpr const char* name() { return "CudaSpace"; }
  static constexpr bool host_accessible = false;
  static constexpr bool device_accessible = true;
  static void* allocate(std::size_t bytes, const std::string& label);
  static void deallocate(void* ptr, std::size_t bytes) noexcept;
};

// Page-locked host memory (cudaMallocHost): host-accessible, and transfers to and from the GPU
// run at full PCIe/NVLink speed and can overlap. Falls back to an error without CUDA.
struct CudaHostPinnedSpace {
  static constexpr const char* name() { return "CudaHostPinnedSpace"; }
  static constexpr bool host_accessible = true;
  static constexpr bool device_accessible = true;
  static void* allocate(std::size_t bytes, const std::string& label);
  static void deallocate(void* ptr, std::size_t bytes) noexcept;
};

// Team scratch memory (shared memory on the GPU, a per-thread buffer on the CPU). Only
// unmanaged Views live here; they are made inside kernels from team_scratch() pointers.
struct ScratchSpace {
  static constexpr const char* name() { return "ScratchSpace"; }
  static constexpr bool host_accessible = true;
  static constexpr bool device_accessible = true;
};

template <class S>
struct is_memory_space
    : std::integral_constant<bool, std::is_same_v<S, HostSpace> || std::is_same_v<S, CudaSpace> ||
                                       std::is_same_v<S, CudaHostPinnedSpace> ||
                                       std::is_same_v<S, ScratchSpace>> {};

namespace impl {

// Where bytes live, for the type-erased copy routines below.
enum class Where { host, device };

template <class Space>
constexpr Where where_of() {
  return std::is_same_v<Space, CudaSpace> ? Where::device : Where::host;
}

// Copies `bytes` contiguous bytes between any two places (cudaMemcpy when either is on the
// device). Synchronous.
void copy_bytes(void* dst, Where dst_where, const void* src, Where src_where, std::size_t bytes);

// Writes `count` copies of the `elem_size`-byte pattern into dst (a typed fill, type-erased).
void fill_bytes(void* dst, Where where, const void* pattern, std::size_t elem_size,
                std::size_t count);

// Copies a rank-`rank` array between two stride sets of equal extents (a layout permutation),
// both on the same side. Strides are in elements.
void strided_copy(void* dst, const std::size_t* dst_strides, const void* src,
                  const std::size_t* src_strides, const std::size_t* extents, int rank,
                  std::size_t elem_size, Where where);

// Device side of the above; defined in the CUDA part of the library.
void cuda_fill_bytes(void* dst, const void* pattern, std::size_t elem_size, std::size_t count);
void cuda_strided_copy(void* dst, const std::size_t* dst_strides, const void* src,
                       const std::size_t* src_strides, const std::size_t* extents, int rank,
                       std::size_t elem_size);

}  // namespace impl
}  // namespace grain
