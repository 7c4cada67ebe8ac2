// grain::SparseTensor: an N-way sparse tensor in coordinate (COO) form, N from 2 to 8.
//
//   values(j)       the j-th nonzero's value (float or double)
//   subscripts(j,m) its 0-based index in mode m, 32 bits (FROSTT's largest modes fit easily;
//                   the reader rejects larger ones), nonzero count 64 bits
//
// Subscripts are stored nnz x N, LayoutRight, so the N coordinates of one nonzero share a cache
// line: every MTTKRP algorithm reads a whole coordinate tuple at once.
//
// Per-mode permutations (nonzeros in increasing order of the mode's index, stable) are computed
// on demand and cached: a parallel counting sort on the CPU, CUB's radix sort on the GPU
// (Genten's permutation-based MTTKRP, slides 16-19 of Phipps and Kolda's SIAM CSE 2019 talk).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grain/core/deep_copy.hpp"
#include "grain/core/error.hpp"
#include "grain/core/policy.hpp"
#include "grain/core/view.hpp"

namespace grain {

using subscript_type = std::uint32_t;
inline constexpr int kMaxSparseModes = 8;

namespace impl {
// Stable permutation of [0, nnz) sorting the keys subs[j * nmodes + mode] / divisor ascending;
// subscripts < dim. Host: parallel counting sort (src/sparse/permutation.cpp).
void sort_permutation_host(const subscript_type* subs, int nmodes, int mode, std::int64_t nnz,
                           std::int64_t dim, std::int64_t* perm, std::int64_t divisor = 1);
// out(p) = in(perm[p]) for the subscript tuples and the values (value_bytes = sizeof(T)).
void gather_nonzeros_host(const subscript_type* subs, const void* vals, std::size_t value_bytes,
                          int nmodes, std::int64_t nnz, const std::int64_t* perm,
                          subscript_type* out_subs, void* out_vals);
#if defined(GRAIN_ENABLE_CUDA)
// Device: CUB radix sort (src/sparse/permutation_cuda.cu). All pointers are device pointers.
void sort_permutation_cuda(const subscript_type* subs, int nmodes, int mode, std::int64_t nnz,
                           std::int64_t dim, std::int64_t* perm, std::int64_t divisor = 1);
void gather_nonzeros_cuda(const subscript_type* subs, const void* vals, std::size_t value_bytes,
                          int nmodes, std::int64_t nnz, const std::int64_t* perm,
                          subscript_type* out_subs, void* out_vals);
#endif
}  // namespace impl

template <class T, class Space = HostSpace>
class SparseTensor {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "grain::SparseTensor holds float or double values");

 public:
  using value_type = T;
  using memory_space = Space;
  using values_view = View<T*, LayoutRight, Space>;
  using subscripts_view = View<subscript_type**, LayoutRight, Space>;
  using permutation_view = View<index_type*, LayoutRight, Space>;

  SparseTensor() = default;

  // An empty tensor of the given dimensions with room for nnz nonzeros (zero-filled).
  SparseTensor(const std::vector<index_type>& dims, index_type nnz) : dims_(dims) {
    check_dims(dims);
    if (nnz < 0) impl::throw_error("grain::SparseTensor: negative nonzero count ", nnz);
    values_ = values_view("sparse_values", nnz);
    subs_ = subscripts_view("sparse_subscripts", nnz, static_cast<index_type>(dims.size()));
    perms_ = std::make_shared<std::vector<permutation_view>>(dims.size());
    sorted_ = std::make_shared<std::vector<std::shared_ptr<SparseTensor>>>(dims.size());
    tiled_ = std::make_shared<std::vector<TiledCopy>>(dims.size());
  }

  // Wraps existing Views (shapes checked).
  SparseTensor(const std::vector<index_type>& dims, const subscripts_view& subs,
               const values_view& values)
      : dims_(dims), subs_(subs), values_(values) {
    check_dims(dims);
    if (subs.extent(0) != values.extent(0) || subs.extent(1) != dims.size())
      impl::throw_error("grain::SparseTensor: subscripts ", subs.shape(), " and values ",
                        values.shape(), " do not match ", dims.size(), " modes");
    perms_ = std::make_shared<std::vector<permutation_view>>(dims.size());
    sorted_ = std::make_shared<std::vector<std::shared_ptr<SparseTensor>>>(dims.size());
    tiled_ = std::make_shared<std::vector<TiledCopy>>(dims.size());
  }

  int ndims() const { return static_cast<int>(dims_.size()); }
  index_type nnz() const { return static_cast<index_type>(values_.extent(0)); }
  index_type dim(int m) const { return dims_.at(m); }
  const std::vector<index_type>& dims() const { return dims_; }
  const values_view& values() const { return values_; }
  const subscripts_view& subscripts() const { return subs_; }

  // Nonzeros sorted by mode m's index (stable), computed on first use and cached.
  const permutation_view& permutation(int m) const {
    if (m < 0 || m >= ndims())
      impl::throw_error("grain::SparseTensor::permutation: mode ", m, " of a ", ndims(),
                        "-way tensor");
    permutation_view& p = (*perms_)[m];
    if (!p.is_allocated() && nnz() > 0) {
      permutation_view fresh(WithoutInitializing, "sparse_permutation", nnz());
      if constexpr (std::is_same_v<Space, CudaSpace>) {
#if defined(GRAIN_ENABLE_CUDA)
        impl::sort_permutation_cuda(subs_.data(), ndims(), m, nnz(), dims_[m], fresh.data());
#endif
      } else {
        impl::sort_permutation_host(subs_.data(), ndims(), m, nnz(), dims_[m], fresh.data());
      }
      p = fresh;
    }
    return p;
  }
  bool has_permutation(int m) const { return (*perms_)[m].is_allocated(); }

  // A copy of this tensor with its nonzeros stored in mode m's sorted order (the permutation
  // applied once), computed on first use and cached: the permuted MTTKRP then streams its
  // nonzeros instead of gathering them through the permutation. Costs one more copy of the
  // tensor per mode asked for.
  const SparseTensor& sorted(int m) const {
    const permutation_view& p = permutation(m);
    auto& slot = (*sorted_)[m];
    if (!slot) slot = std::make_shared<SparseTensor>(gathered(p));
    return *slot;
  }
  bool has_sorted(int m) const { return static_cast<bool>((*sorted_)[m]); }

  // A copy with the nonzeros ordered by (mode s's index / rows_per_tile, mode n's index), stably:
  // the tiled MTTKRP of mode n then gathers from one tile of mode s's factor rows at a time.
  // Cached, one copy per mode n (asking again with another s or tile size replaces it).
  const SparseTensor& tiled(int n, int s, index_type rows_per_tile) const {
    if (n < 0 || n >= ndims() || s < 0 || s >= ndims() || s == n || rows_per_tile < 1)
      impl::throw_error("grain::SparseTensor::tiled: mode ", n, " staged on mode ", s, " with ",
                        rows_per_tile, " rows per tile, for a ", ndims(), "-way tensor");
    auto& slot = (*tiled_)[n];
    if (!slot.tensor || slot.s != s || slot.rows_per_tile != rows_per_tile) {
      slot.tensor.reset();  // free the old copy before building the new one
      const SparseTensor by_n = has_sorted(n) ? sorted(n) : gathered(permutation(n));
      permutation_view p(WithoutInitializing, "sparse_tiled_permutation", nnz());
      if (nnz() > 0) {
        if constexpr (std::is_same_v<Space, CudaSpace>) {
#if defined(GRAIN_ENABLE_CUDA)
          impl::sort_permutation_cuda(by_n.subs_.data(), ndims(), s, nnz(), dims_[s], p.data(), rows_per_tile);
#endif
        } else {
          impl::sort_permutation_host(by_n.subs_.data(), ndims(), s, nnz(), dims_[s], p.data(), rows_per_tile);
        }
      }
      slot = {s, rows_per_tile, std::make_shared<SparseTensor>(by_n.gathered(p))};
    }
    return *slot.tensor;
  }

  // A copy of this tensor in another memory space (the same tensor when already there).
  template <class Space2>
  SparseTensor<T, Space2> to_space() const {
    if constexpr (std::is_same_v<Space, Space2>) {
      return *this;
    } else {
      typename SparseTensor<T, Space2>::subscripts_view s(WithoutInitializing, "sparse_subscripts",
                                                          nnz(), static_cast<index_type>(ndims()));
      typename SparseTensor<T, Space2>::values_view v(WithoutInitializing, "sparse_values", nnz());
      deep_copy(s, subs_);
      deep_copy(v, values_);
      return SparseTensor<T, Space2>(dims_, s, v);
    }
  }

  // Bytes of the COO arrays (values + subscripts).
  std::size_t bytes() const {
    return static_cast<std::size_t>(nnz()) * (sizeof(T) + ndims() * sizeof(subscript_type));
  }

  static void check_dims(const std::vector<index_type>& dims) {
    if (dims.size() < 2 || dims.size() > static_cast<std::size_t>(kMaxSparseModes))
      impl::throw_error("grain::SparseTensor: ", dims.size(), " modes; grain handles 2 to ",
                        kMaxSparseModes);
    for (std::size_t m = 0; m < dims.size(); ++m)
      if (dims[m] < 1 || dims[m] > static_cast<index_type>(UINT32_MAX))
        impl::throw_error("grain::SparseTensor: dimension ", dims[m], " of mode ", m + 1,
                          " is outside [1, 2^32 - 1]");
  }

 private:
  // A copy with the nonzeros in the order p (out(q) = this(p[q])).
  SparseTensor gathered(const permutation_view& p) const {
    subscripts_view s(WithoutInitializing, "sparse_sorted_subscripts", nnz(), static_cast<index_type>(ndims()));
    values_view v(WithoutInitializing, "sparse_sorted_values", nnz());
    if (nnz() > 0) {
      if constexpr (std::is_same_v<Space, CudaSpace>) {
#if defined(GRAIN_ENABLE_CUDA)
        impl::gather_nonzeros_cuda(subs_.data(), values_.data(), sizeof(T), ndims(), nnz(), p.data(),
                                   s.data(), v.data());
#endif
      } else {
        impl::gather_nonzeros_host(subs_.data(), values_.data(), sizeof(T), ndims(), nnz(), p.data(),
                                   s.data(), v.data());
      }
    }
    return SparseTensor(dims_, s, v);
  }

  struct TiledCopy {
    int s = -1;
    index_type rows_per_tile = 0;
    std::shared_ptr<SparseTensor> tensor;
  };

  std::vector<index_type> dims_;
  subscripts_view subs_;
  values_view values_;
  std::shared_ptr<std::vector<permutation_view>> perms_ =
      std::make_shared<std::vector<permutation_view>>();
  std::shared_ptr<std::vector<std::shared_ptr<SparseTensor>>> sorted_ =
      std::make_shared<std::vector<std::shared_ptr<SparseTensor>>>();
  std::shared_ptr<std::vector<TiledCopy>> tiled_ = std::make_shared<std::vector<TiledCopy>>();
};

// "3000x4000x5000"
inline std::string dims_string(const std::vector<index_type>& dims) {
  std::string s;
  for (std::size_t m = 0; m < dims.size(); ++m) s += (m ? "x" : "") + std::to_string(dims[m]);
  return s;
}

}  // namespace grain
