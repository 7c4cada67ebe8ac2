// Device permutation: CUB's stable radix sort of (mode index, nonzero number) pairs.
// CUDA-only source (selected at configure time, never #ifdef-ed into a portable kernel).
#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

#include "grain/core/backend/cuda_runtime.hpp"
#include "grain/core/view.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::impl {
namespace {

__global__ void extract_mode_keys(const subscript_type* subs, int nmodes, int mode, std::int64_t nnz,
                                  subscript_type divisor, subscript_type* keys, std::int64_t* ids) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < nnz;
       j += stride) {
    keys[j] = subs[j * nmodes + mode] / divisor;
    ids[j] = j;
  }
}

template <class V>
__global__ void gather_nonzeros(const subscript_type* subs, const V* vals, int nmodes, std::int64_t nnz,
                                const std::int64_t* perm, subscript_type* out_subs, V* out_vals) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz;
       p += stride) {
    const std::int64_t j = perm[p];
    for (int m = 0; m < nmodes; ++m) out_subs[p * nmodes + m] = subs[j * nmodes + m];
    out_vals[p] = vals[j];
  }
}

}  // namespace

void gather_nonzeros_cuda(const subscript_type* subs, const void* vals, std::size_t value_bytes,
                          int nmodes, std::int64_t nnz, const std::int64_t* perm,
                          subscript_type* out_subs, void* out_vals) {
  if (nnz == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((nnz + 255) / 256, 65535 * 8));
  if (value_bytes == 8)
    gather_nonzeros<<<blocks, 256>>>(subs, static_cast<const std::uint64_t*>(vals), nmodes, nnz, perm,
                                     out_subs, static_cast<std::uint64_t*>(out_vals));
  else
    gather_nonzeros<<<blocks, 256>>>(subs, static_cast<const std::uint32_t*>(vals), nmodes, nnz, perm,
                                     out_subs, static_cast<std::uint32_t*>(out_vals));
  cuda_check_launch("SparseTensor::sorted: gathering the nonzeros");
}

void sort_permutation_cuda(const subscript_type* subs, int nmodes, int mode, std::int64_t nnz,
                           std::int64_t dim, std::int64_t* perm, std::int64_t divisor) {
  if (divisor < 1 || divisor > std::int64_t(UINT32_MAX))
    throw_error("sort_permutation_cuda: key divisor ", divisor, " outside [1, 2^32 - 1]");
  if (nnz == 0) return;
  dim = (dim + divisor - 1) / divisor;  // the number of distinct keys
  View<subscript_type*, CudaSpace> keys(WithoutInitializing, "perm_keys", 2 * nnz);
  View<std::int64_t*, CudaSpace> ids(WithoutInitializing, "perm_ids", nnz);
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((nnz + 255) / 256, 65535 * 8));
  extract_mode_keys<<<blocks, 256>>>(subs, nmodes, mode, nnz, static_cast<subscript_type>(divisor),
                                     keys.data(), ids.data());
  cuda_check_launch("sort_permutation_cuda: key extraction");
  int end_bit = 1;
  while (end_bit < 32 && (std::int64_t(1) << end_bit) < dim) ++end_bit;
  // CUB takes an int item count; sort in one call below 2^31 nonzeros (the common case).
  if (nnz > 2147483647LL)
    throw_error("sort_permutation_cuda: ", nnz, " nonzeros exceed CUB's 2^31 - 1 items per sort");
  std::size_t temp_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), keys.data() + nnz,
                                             ids.data(), perm, static_cast<int>(nnz), 0, end_bit),
             "cub::DeviceRadixSort::SortPairs (size query)");
  View<unsigned char*, CudaSpace> temp(WithoutInitializing, "perm_sort_temp", temp_bytes + 1);
  cuda_check(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(), keys.data() + nnz,
                                             ids.data(), perm, static_cast<int>(nnz), 0, end_bit),
             "cub::DeviceRadixSort::SortPairs");
  cuda_check(cudaDeviceSynchronize(), "sort_permutation_cuda");
}

}  // namespace grain::impl
