// deep_copy: copies between Views in any two memory spaces and any two layouts of equal extents
// (a layout change is a permutation), and fills a View with a value.
#pragma once

#include <string>
#include <type_traits>

#include "grain/core/error.hpp"
#include "grain/core/layout.hpp"
#include "grain/core/memory_space.hpp"
#include "grain/core/view.hpp"

namespace grain {

namespace impl {
template <class V>
std::string describe(const V& v) {
  return "'" + v.label() + "' " + v.shape() + " " + layout_name<typename V::array_layout>() + " " +
         V::memory_space::name();
}
}  // namespace impl

template <class DD, class... DP, class SD, class... SP>
void deep_copy(const View<DD, DP...>& dst, const View<SD, SP...>& src) {
  using Dst = View<DD, DP...>;
  using Src = View<SD, SP...>;
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "grain::deep_copy: the destination View must not have a const value type");
  static_assert(std::is_same_v<typename Dst::non_const_value_type,
                               typename Src::non_const_value_type>,
                "grain::deep_copy: source and destination must have the same value type");
  static_assert(Dst::rank == Src::rank,
                "grain::deep_copy: source and destination must have the same rank");
  for (int r = 0; r < Dst::rank; ++r) {
    if (dst.extent(r) != src.extent(r))
      impl::throw_error("grain::deep_copy: extents differ: destination ", impl::describe(dst),
                        ", source ", impl::describe(src));
  }
  const std::size_t n = dst.size();
  if (n == 0 || static_cast<const void*>(dst.data()) == static_cast<const void*>(src.data())) return;
  if (!dst.data() || !src.data())
    impl::throw_error("grain::deep_copy: a View with ", n, " entries has no allocation: destination ",
                      impl::describe(dst), ", source ", impl::describe(src));
  using T = typename Dst::non_const_value_type;
  constexpr auto dw = impl::where_of<typename Dst::memory_space>();
  constexpr auto sw = impl::where_of<typename Src::memory_space>();
  if constexpr (std::is_same_v<typename Dst::array_layout, typename Src::array_layout> ||
                Dst::rank <= 1) {
    impl::copy_bytes(dst.data(), dw, src.data(), sw, n * sizeof(T));
  } else {
    std::size_t ext[Dst::rank], ds[Dst::rank], ss[Dst::rank];
    for (int r = 0; r < Dst::rank; ++r) {
      ext[r] = dst.extent(r);
      ds[r] = dst.stride(r);
      ss[r] = src.stride(r);
    }
    if (dw == sw) {
      impl::strided_copy(dst.data(), ds, src.data(), ss, ext, Dst::rank, sizeof(T), dw);
    } else {
      // Move the bytes across first in the source's layout, then permute on the destination's
      // side (on the GPU the permutation runs at device bandwidth).
      using Staging = View<T*, typename Dst::memory_space>;
      Staging tmp(WithoutInitializing, "deep_copy_staging", n);
      impl::copy_bytes(tmp.data(), dw, src.data(), sw, n * sizeof(T));
      impl::strided_copy(dst.data(), ds, tmp.data(), ss, ext, Dst::rank, sizeof(T), dw);
    }
  }
}

// Sets every entry of dst to value.
template <class DD, class... DP>
void deep_copy(const View<DD, DP...>& dst,
               const typename View<DD, DP...>::non_const_value_type& value) {
  using Dst = View<DD, DP...>;
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "grain::deep_copy: the destination View must not have a const value type");
  if (dst.size() == 0) return;
  impl::fill_bytes(dst.data(), impl::where_of<typename Dst::memory_space>(), &value, sizeof(value),
                   dst.size());
}

}  // namespace grain
