// Device side of the memory spaces, the CUDA runtime services, and the type-erased kernels that
// deep_copy uses (fill, permuting copy), compiled once for the library.
#include <cuda_runtime.h>

#include <array>
#include <cstring>
#include <mutex>
#include <string>

#include "grain/core.hpp"
#include "grain/core/backend/cuda_per_device.hpp"
#include "grain/core/backend/cuda_runtime.hpp"

namespace grain {

namespace impl {

void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a sticky-free error so later calls start clean
  throw_error("grain: ", what, " failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

void cuda_check_launch(const char* what) { cuda_check(cudaGetLastError(), what); }

int cuda_device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    return n;
  }();
  return count;
}

void cuda_use_device(int id) {
  const int n = cuda_device_count();
  if (id < 0 || id >= n) throw_error("grain: GPU ", id, " does not exist (", n, " visible)");
  cuda_check(cudaSetDevice(id), "cudaSetDevice");
}

int cuda_current_device() {
  int d = 0;
  cuda_check(cudaGetDevice(&d), "cudaGetDevice");
  if (d >= kCudaMaxDevices)
    throw_error("grain: GPU ", d, " is beyond the ", kCudaMaxDevices, " devices the CUDA back end keeps state for");
  return d;
}

const CudaDeviceInfo& cuda_device() {
  if (cuda_device_count() == 0)
    throw_error("grain: no CUDA device is visible (cudaGetDeviceCount found none); the Cuda "
                "back end and CudaSpace need a GPU");
  static PerDevice<CudaDeviceInfo> infos;
  return infos.get([] {
    CudaDeviceInfo d;
    d.id = cuda_current_device();
    cudaDeviceProp p{};
    cuda_check(cudaGetDeviceProperties(&p, d.id), "cudaGetDeviceProperties");
    d.name = p.name;
    d.sm_count = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.global_memory = p.totalGlobalMem;
    d.shared_per_block_optin = p.sharedMemPerBlockOptin;
    d.l2_bytes = p.l2CacheSize;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    return d;
  });
}

namespace {
struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  std::mutex mutex;
  void* get(std::size_t want, bool zero_head) {
    std::lock_guard<std::mutex> lock(mutex);
    if (want <= bytes) return ptr;
    if (ptr) {
      cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (workspace growth)");
      cudaFree(ptr);
      ptr = nullptr;
      bytes = 0;
    }
    const std::size_t size = want < 4096 ? 4096 : want * 2;
    cuda_check(cudaMalloc(&ptr, size), "cudaMalloc (grain workspace)");
    bytes = size;
    if (zero_head) cuda_check(cudaMemset(ptr, 0, 64), "cudaMemset (grain workspace)");
    return ptr;
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);  // errors at exit are ignored: the context may be gone
  }
};
// Per device; a buffer lives until the process ends (std::array needs no move of the mutex).
DeviceBuffer& reduction_buffer() {
  static std::array<DeviceBuffer, kCudaMaxDevices> b;
  return b[static_cast<std::size_t>(cuda_current_device())];
}
DeviceBuffer& level1_buffer() {
  static std::array<DeviceBuffer, kCudaMaxDevices> b;
  return b[static_cast<std::size_t>(cuda_current_device())];
}
}  // namespace

void* cuda_reduction_workspace(std::size_t bytes) { return reduction_buffer().get(bytes, true); }
void* cuda_level1_workspace(std::size_t bytes) { return level1_buffer().get(bytes, false); }

void cuda_copy_bytes(void* dst, const void* src, std::size_t bytes) {
  cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy (deep_copy)");
}

namespace {
template <class Word>
__global__ void fill_kernel(Word* dst, Word value, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    dst[i] = value;
}

__global__ void fill_bytes_kernel(unsigned char* dst, const unsigned char* pattern_dev,
                                  std::size_t elem, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count * elem; i += stride)
    dst[i] = pattern_dev[i % elem];
}

struct StridedArgs {
  std::size_t ext[8], ds[8], ss[8];
  int rank;
};

template <class Word>
__global__ void strided_kernel(Word* dst, const Word* src, StridedArgs a, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t lin = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; lin < n;
       lin += stride) {
    std::size_t off = 0;
    for (int r = 0; r < a.rank; ++r) off += ((lin / a.ds[r]) % a.ext[r]) * a.ss[r];
    dst[lin] = src[off];
  }
}

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  const std::size_t cap = static_cast<std::size_t>(cuda_device().sm_count) * 16;
  return static_cast<unsigned>(blocks < cap ? (blocks ? blocks : 1) : cap);
}
}  // namespace

void cuda_fill_bytes(void* dst, const void* pattern, std::size_t elem, std::size_t count) {
  const unsigned char* p = static_cast<const unsigned char*>(pattern);
  bool zero = true;
  for (std::size_t i = 0; i < elem; ++i) zero = zero && p[i] == 0;
  if (zero) {
    cuda_check(cudaMemset(dst, 0, elem * count), "cudaMemset (View initialization)");
    return;
  }
  if (elem == 4 || elem == 8) {
    if (elem == 4) {
      unsigned v;
      std::memcpy(&v, p, 4);
      fill_kernel<<<grid_for(count), 256>>>(static_cast<unsigned*>(dst), v, count);
    } else {
      unsigned long long v;
      std::memcpy(&v, p, 8);
      fill_kernel<<<grid_for(count), 256>>>(static_cast<unsigned long long*>(dst), v, count);
    }
    cuda_check_launch("deep_copy(view, value) fill kernel");
  } else {
    void* pat = nullptr;
    cuda_check(cudaMalloc(&pat, elem), "cudaMalloc (fill pattern)");
    cudaMemcpy(pat, p, elem, cudaMemcpyHostToDevice);
    fill_bytes_kernel<<<grid_for(count * elem), 256>>>(static_cast<unsigned char*>(dst),
                                                       static_cast<unsigned char*>(pat), elem, count);
    const cudaError_t e = cudaGetLastError();
    cudaFree(pat);  // synchronizes with the fill
    cuda_check(e, "deep_copy(view, value) fill kernel");
  }
  cuda_check(cudaDeviceSynchronize(), "deep_copy(view, value)");
}

void cuda_strided_copy(void* dst, const std::size_t* ds, const void* src, const std::size_t* ss,
                       const std::size_t* ext, int rank, std::size_t elem) {
  StridedArgs a{};
  std::size_t n = 1;
  a.rank = rank;
  for (int r = 0; r < rank; ++r) {
    a.ext[r] = ext[r];
    a.ds[r] = ds[r];
    a.ss[r] = ss[r];
    n *= ext[r];
  }
  switch (elem) {
    case 1: strided_kernel<<<grid_for(n), 256>>>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), a, n); break;
    case 2: strided_kernel<<<grid_for(n), 256>>>(static_cast<unsigned short*>(dst), static_cast<const unsigned short*>(src), a, n); break;
    case 4: strided_kernel<<<grid_for(n), 256>>>(static_cast<unsigned*>(dst), static_cast<const unsigned*>(src), a, n); break;
    case 8: strided_kernel<<<grid_for(n), 256>>>(static_cast<unsigned long long*>(dst), static_cast<const unsigned long long*>(src), a, n); break;
    case 16: strided_kernel<<<grid_for(n), 256>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), a, n); break;
    default:
      throw_error("grain::deep_copy: a layout-changing copy on the GPU takes 1-, 2-, 4-, 8- or "
                  "16-byte values; this one is ", elem, " bytes");
  }
  cuda_check_launch("deep_copy layout permutation kernel");
  cuda_check(cudaDeviceSynchronize(), "deep_copy layout permutation");
}

}  // namespace impl

void* CudaSpace::allocate(std::size_t bytes, const std::string& label) {
  if (bytes == 0) return nullptr;
  (void)impl::cuda_device();
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    impl::throw_error("grain::CudaSpace: cannot allocate ", bytes, " bytes for View '", label,
                      "' (", cudaGetErrorString(e), "; ", free_b, " of ", total_b,
                      " bytes free on the device)");
  }
  return p;
}
void CudaSpace::deallocate(void* ptr, std::size_t) noexcept {
  if (ptr) cudaFree(ptr);
}
void* CudaHostPinnedSpace::allocate(std::size_t bytes, const std::string& label) {
  if (bytes == 0) return nullptr;
  (void)impl::cuda_device();
  void* p = nullptr;
  const cudaError_t e = cudaMallocHost(&p, bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    impl::throw_error("grain::CudaHostPinnedSpace: cannot allocate ", bytes, " bytes for View '",
                      label, "' (", cudaGetErrorString(e), ")");
  }
  return p;
}
void CudaHostPinnedSpace::deallocate(void* ptr, std::size_t) noexcept {
  if (ptr) cudaFreeHost(ptr);
}

int Cuda::concurrency() {
  const auto& d = impl::cuda_device();
  return d.sm_count * d.max_threads_per_sm;
}
void Cuda::fence() const { impl::cuda_check(cudaDeviceSynchronize(), "Cuda::fence (a kernel failed)"); }

}  // namespace grain
