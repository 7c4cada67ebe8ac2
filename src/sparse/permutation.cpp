// Host permutation: a parallel, stable counting sort of the nonzeros by one mode's index.
// O(nnz + dim) work, which beats a comparison sort for the bounded keys of a sparse tensor.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "grain/sparse/sparse_tensor.hpp"

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace grain::impl {

void sort_permutation_host(const subscript_type* subs, int nmodes, int mode, std::int64_t nnz,
                           std::int64_t dim, std::int64_t* perm, std::int64_t divisor) {
  if (divisor < 1) throw_error("sort_permutation_host: key divisor ", divisor, " must be positive");
  dim = (dim + divisor - 1) / divisor;  // the number of distinct keys
  int threads = 1;
#if defined(GRAIN_ENABLE_OPENMP)
  threads = omp_get_max_threads();
  // Per-thread histograms cost threads x dim: keep them small next to the data.
  while (threads > 1 && threads * dim > 4 * nnz + 65536) --threads;
#endif
  std::vector<std::int64_t> count(static_cast<std::size_t>(threads) * dim + 1, 0);
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
  {
#if defined(GRAIN_ENABLE_OPENMP)
    const int t = omp_get_thread_num();
#else
    const int t = 0;
#endif
    const std::int64_t lo = nnz * t / threads, hi = nnz * (t + 1) / threads;
    std::int64_t* c = count.data() + static_cast<std::size_t>(t) * dim;
    for (std::int64_t j = lo; j < hi; ++j) ++c[subs[j * nmodes + mode] / divisor];
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp barrier
#pragma omp single
#endif
    {
      // Exclusive prefix in (key, thread) order: thread t's nonzeros of key k follow those of
      // threads before t, which keeps the sort stable.
      std::int64_t run = 0;
      for (std::int64_t k = 0; k < dim; ++k)
        for (int s = 0; s < threads; ++s) {
          std::int64_t& x = count[static_cast<std::size_t>(s) * dim + k];
          const std::int64_t n = x;
          x = run;
          run += n;
        }
    }
    for (std::int64_t j = lo; j < hi; ++j) perm[c[subs[j * nmodes + mode] / divisor]++] = j;
  }
}

void gather_nonzeros_host(const subscript_type* subs, const void* vals, std::size_t value_bytes,
                          int nmodes, std::int64_t nnz, const std::int64_t* perm,
                          subscript_type* out_subs, void* out_vals) {
  const auto* in = static_cast<const unsigned char*>(vals);
  auto* out = static_cast<unsigned char*>(out_vals);
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (std::int64_t p = 0; p < nnz; ++p) {
    const std::int64_t j = perm[p];
    for (int m = 0; m < nmodes; ++m) out_subs[p * nmodes + m] = subs[j * nmodes + m];
    std::copy(in + j * value_bytes, in + (j + 1) * value_bytes, out + p * value_bytes);
  }
}

}  // namespace grain::impl
