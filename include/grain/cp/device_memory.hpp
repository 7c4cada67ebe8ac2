// Whether a sparse tensor, its per-mode copies and the factor matrices fit in the GPU's free
// memory: checked before the work starts, so that the answer names the sizes instead of a failed
// allocation midway.
#pragma once

#include <cstddef>
#include <type_traits>

#include "grain/core/error.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/sparse/sparse_tensor.hpp"
#if GRAIN_CUDA_LAUNCH_AVAILABLE
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::cp {

// Raises grain::Error, with the sizes, when Exec is Cuda and the GPU cannot hold X, the rank-R
// factors and their MTTKRP outputs, and (`per_mode_copies`) the permutations and sorted/tiled
// copies of X that the perm and tiled algorithms keep. A no-op on the host back ends.
template <class Exec, class T>
void check_device_memory(const SparseTensor<T>& X, int R, bool per_mode_copies) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if constexpr (std::is_same_v<Exec, Cuda>) {
    double need = static_cast<double>(X.bytes());
    if (per_mode_copies)
      need += static_cast<double>(X.nnz()) * sizeof(index_type) * X.ndims() + 2.0 * double(X.bytes()) * X.ndims();
    for (int m = 0; m < X.ndims(); ++m) need += 2.0 * X.dim(m) * R * sizeof(T);
    std::size_t free_b = 0, total_b = 0;
    impl::cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (need > static_cast<double>(free_b))
      impl::throw_error("out of GPU memory: the tensor (", X.nnz(), " nonzeros), its permutations and sorted copies, and the rank-",
                        R, " factors need ", need / 1073741824.0, " GiB; ", free_b / 1073741824.0,
                        " GiB of ", total_b / 1073741824.0, " GiB are free on ", impl::cuda_device().name);
  }
#else
  (void)X, (void)R, (void)per_mode_copies;
#endif
}

}  // namespace grain::cp
