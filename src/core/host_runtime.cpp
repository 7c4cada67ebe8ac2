// Host side of the memory spaces and the back-end independent runtime entry points.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "grain/core.hpp"

#if defined(GRAIN_ENABLE_CUDA)
#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain {

namespace {
// Views of at least kHugeMin bytes start on a 2 MiB boundary and ask the kernel for transparent
// huge pages (MADV_HUGEPAGE: Linux's default THP mode, "madvise", gives them only where asked).
constexpr std::size_t kHugePage = std::size_t(2) << 20, kHugeMin = std::size_t(4) << 20;
std::size_t host_alignment(std::size_t bytes) { return bytes >= kHugeMin ? kHugePage : 64; }
}  // namespace

void* HostSpace::allocate(std::size_t bytes, const std::string& label) {
  if (bytes == 0) return nullptr;
  const std::size_t align = host_alignment(bytes);
  void* p = ::operator new(bytes, std::align_val_t(align), std::nothrow);
  if (!p)
    impl::throw_error("grain::HostSpace: cannot allocate ", bytes, " bytes for View '", label, "'");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage) (void)::madvise(p, bytes, MADV_HUGEPAGE);  // advice: its failure changes nothing
#endif
  return p;
}
void HostSpace::deallocate(void* ptr, std::size_t bytes) noexcept {
  if (ptr) ::operator delete(ptr, std::align_val_t(host_alignment(bytes)));
}

#if !defined(GRAIN_ENABLE_CUDA)
void* CudaSpace::allocate(std::size_t, const std::string& label) {
  impl::throw_error("grain::CudaSpace: View '", label, "' needs CUDA, and this build of grain has "
                    "no CUDA back end (configure with nvcc present)");
}
void CudaSpace::deallocate(void*, std::size_t) noexcept {}
void* CudaHostPinnedSpace::allocate(std::size_t, const std::string& label) {
  impl::throw_error("grain::CudaHostPinnedSpace: View '", label, "' needs CUDA, and this build "
                    "of grain has no CUDA back end");
}
void CudaHostPinnedSpace::deallocate(void*, std::size_t) noexcept {}
#endif

#if defined(GRAIN_ENABLE_OPENMP)
int OpenMP::concurrency() { return omp_get_max_threads(); }
#endif

void fence() {
#if defined(GRAIN_ENABLE_CUDA)
  if (impl::cuda_device_count() > 0) Cuda().fence();
#endif
}

void initialize() {
#if defined(GRAIN_ENABLE_CUDA)
  if (impl::cuda_device_count() > 0) (void)impl::cuda_device();
#endif
}

namespace impl {

namespace {
bool use_threads(std::size_t bytes) {
  // Below ~1 MiB a parallel region costs more than it saves.
  return bytes >= (std::size_t(1) << 20);
}
}  // namespace

void copy_bytes(void* dst, Where dw, const void* src, Where sw, std::size_t bytes) {
  if (bytes == 0) return;
  if (dw == Where::host && sw == Where::host) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
#if defined(GRAIN_ENABLE_OPENMP)
    if (use_threads(bytes) && !omp_in_parallel()) {
#pragma omp parallel
      {
        const std::size_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        const std::size_t lo = bytes * t / nt, hi = bytes * (t + 1) / nt;
        std::memcpy(d + lo, s + lo, hi - lo);
      }
      return;
    }
#endif
    std::memcpy(d, s, bytes);
    return;
  }
#if defined(GRAIN_ENABLE_CUDA)
  cuda_copy_bytes(dst, src, bytes);
#else
  throw_error("grain::deep_copy: device memory in a build without CUDA");
#endif
}

void fill_bytes(void* dst, Where where, const void* pattern, std::size_t elem_size,
                std::size_t count) {
  if (count == 0) return;
  if (where == Where::device) {
#if defined(GRAIN_ENABLE_CUDA)
    cuda_fill_bytes(dst, pattern, elem_size, count);
    return;
#else
    throw_error("grain::deep_copy: device memory in a build without CUDA");
#endif
  }
  char* d = static_cast<char*>(dst);
  const unsigned char* p = static_cast<const unsigned char*>(pattern);
  const bool all_zero = std::all_of(p, p + elem_size, [](unsigned char c) { return c == 0; });
  auto fill_range = [&](std::size_t lo, std::size_t hi) {
    if (all_zero) {
      std::memset(d + lo * elem_size, 0, (hi - lo) * elem_size);
    } else if (elem_size == 8) {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      std::fill(reinterpret_cast<std::uint64_t*>(d) + lo, reinterpret_cast<std::uint64_t*>(d) + hi, v);
    } else if (elem_size == 4) {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      std::fill(reinterpret_cast<std::uint32_t*>(d) + lo, reinterpret_cast<std::uint32_t*>(d) + hi, v);
    } else {
      for (std::size_t i = lo; i < hi; ++i) std::memcpy(d + i * elem_size, p, elem_size);
    }
  };
#if defined(GRAIN_ENABLE_OPENMP)
  if (use_threads(count * elem_size) && !omp_in_parallel()) {
#pragma omp parallel
    {
      const std::size_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      fill_range(count * t / nt, count * (t + 1) / nt);
    }
    return;
  }
#endif
  fill_range(0, count);
}

namespace {
// Destination-ordered copy: linear destination index -> multi-index -> source offset. The
// destination is contiguous, so idx[r] = (lin / dst_stride[r]) % extent[r].
template <std::size_t B>
void host_strided(char* dst, const std::size_t* ds, const char* src, const std::size_t* ss,
                  const std::size_t* ext, int rank, std::size_t n) {
  auto body = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t lin = lo; lin < hi; ++lin) {
      std::size_t off = 0;
      for (int r = 0; r < rank; ++r) off += ((lin / ds[r]) % ext[r]) * ss[r];
      std::memcpy(dst + lin * B, src + off * B, B);
    }
  };
#if defined(GRAIN_ENABLE_OPENMP)
  if (use_threads(n * B) && !omp_in_parallel()) {
#pragma omp parallel
    {
      const std::size_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      body(n * t / nt, n * (t + 1) / nt);
    }
    return;
  }
#endif
  body(0, n);
}
}  // namespace

void strided_copy(void* dst, const std::size_t* ds, const void* src, const std::size_t* ss,
                  const std::size_t* ext, int rank, std::size_t elem_size, Where where) {
  std::size_t n = 1;
  for (int r = 0; r < rank; ++r) n *= ext[r];
  if (n == 0) return;
  if (where == Where::device) {
#if defined(GRAIN_ENABLE_CUDA)
    cuda_strided_copy(dst, ds, src, ss, ext, rank, elem_size);
    return;
#else
    throw_error("grain::deep_copy: device memory in a build without CUDA");
#endif
  }
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  switch (elem_size) {
    case 1: return host_strided<1>(d, ds, s, ss, ext, rank, n);
    case 2: return host_strided<2>(d, ds, s, ss, ext, rank, n);
    case 4: return host_strided<4>(d, ds, s, ss, ext, rank, n);
    case 8: return host_strided<8>(d, ds, s, ss, ext, rank, n);
    case 16: return host_strided<16>(d, ds, s, ss, ext, rank, n);
    default: {
      for (std::size_t lin = 0; lin < n; ++lin) {
        std::size_t off = 0;
        for (int r = 0; r < rank; ++r) off += ((lin / ds[r]) % ext[r]) * ss[r];
        std::memcpy(d + lin * elem_size, s + off * elem_size, elem_size);
      }
    }
  }
}

#if defined(GRAIN_DEBUG_BOUNDS)
void bounds_failure(const std::string& label, int dim, std::size_t index, std::size_t extent) {
  throw_error("grain::View '", label, "': index ", index, " out of bounds for dimension ", dim,
              " of extent ", extent);
}
#endif

}  // namespace impl
}  // namespace grain
