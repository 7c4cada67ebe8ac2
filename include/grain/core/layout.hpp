// Compile-time layout policies: the multi-index -> offset map of a View (paper §III).
//
// LayoutRight: the last index is stride-1 (C order; the host default, each thread streams).
// LayoutLeft:  the first index is stride-1 (Fortran order; the GPU default, a warp coalesces
//              when consecutive threads take consecutive first indices).
#pragma once

#include <array>
#include <type_traits>
#include <cstddef>

#include "grain/core/config.hpp"

namespace grain {

struct LayoutRight {};
struct LayoutLeft {};

namespace impl {

template <class Layout, int Rank>
struct LayoutMap;

// Strides are stored for every rank so a map answers stride(i) in O(1); extents are run-time.
template <int Rank>
struct LayoutMap<LayoutRight, Rank> {
  std::size_t extent[Rank > 0 ? Rank : 1] = {};
  std::size_t stride[Rank > 0 ? Rank : 1] = {};

  GRAIN_INLINE_FUNCTION LayoutMap() = default;
  GRAIN_INLINE_FUNCTION explicit LayoutMap(const std::size_t* ext) {
    std::size_t s = 1;
    for (int r = Rank - 1; r >= 0; --r) {
      extent[r] = ext[r];
      stride[r] = s;
      s *= ext[r];
    }
  }
  template <class... I>
  GRAIN_FORCEINLINE_FUNCTION std::size_t offset(I... idx) const {
    static_assert(sizeof...(I) == Rank, "grain::View: number of indices must equal the rank");
    const std::size_t i[] = {static_cast<std::size_t>(idx)..., 0};
    // Horner form: ((i0 * e1 + i1) * e2 + i2) ... keeps the map to Rank-1 multiply-adds.
    std::size_t off = i[0];
    for (int r = 1; r < Rank; ++r) off = off * extent[r] + i[r];
    return off;
  }
};

template <int Rank>
struct LayoutMap<LayoutLeft, Rank> {
  std::size_t extent[Rank > 0 ? Rank : 1] = {};
  std::size_t stride[Rank > 0 ? Rank : 1] = {};

  GRAIN_INLINE_FUNCTION LayoutMap() = default;
  GRAIN_INLINE_FUNCTION explicit LayoutMap(const std::size_t* ext) {
    std::size_t s = 1;
    for (int r = 0; r < Rank; ++r) {
      extent[r] = ext[r];
      stride[r] = s;
      s *= ext[r];
    }
  }
  template <class... I>
  GRAIN_FORCEINLINE_FUNCTION std::size_t offset(I... idx) const {
    static_assert(sizeof...(I) == Rank, "grain::View: number of indices must equal the rank");
    const std::size_t i[] = {static_cast<std::size_t>(idx)..., 0};
    std::size_t off = i[Rank - 1];
    for (int r = Rank - 2; r >= 0; --r) off = off * extent[r] + i[r];
    return off;
  }
};

// Rank 0 (one value). Full specializations per layout: a partial one over any layout would be
// as specialized as LayoutMap<LayoutRight, Rank> and make LayoutMap<LayoutRight, 0> ambiguous.
struct LayoutMapRank0 {
  std::size_t extent[1] = {1};
  std::size_t stride[1] = {1};
  GRAIN_INLINE_FUNCTION LayoutMapRank0() = default;
  GRAIN_INLINE_FUNCTION explicit LayoutMapRank0(const std::size_t*) {}
  GRAIN_FORCEINLINE_FUNCTION std::size_t offset() const { return 0; }
};
template <>
struct LayoutMap<LayoutRight, 0> : LayoutMapRank0 {
  GRAIN_INLINE_FUNCTION LayoutMap() = default;
  GRAIN_INLINE_FUNCTION explicit LayoutMap(const std::size_t* e) : LayoutMapRank0(e) {}
};
template <>
struct LayoutMap<LayoutLeft, 0> : LayoutMapRank0 {
  GRAIN_INLINE_FUNCTION LayoutMap() = default;
  GRAIN_INLINE_FUNCTION explicit LayoutMap(const std::size_t* e) : LayoutMapRank0(e) {}
};

template <class Layout>
constexpr const char* layout_name() {
  if constexpr (std::is_same_v<Layout, LayoutRight>) return "LayoutRight";
  else return "LayoutLeft";
}

}  // namespace impl
}  // namespace grain
