// grain::View: a multidimensional array with run-time extents, compile-time rank and layout,
// in a memory space, with shared ownership (the "view" semantics of Edwards, Sunderland et al.
// 2011, "Manycore/GPGPU Portable Computational Mechanics Kernels via Multidimensional Arrays",
// §III).
//
//   grain::View<double***, grain::LayoutRight, grain::HostSpace> a("left", C, L, P);
//   grain::View<double**, grain::CudaSpace> d("d", n, m);      // LayoutLeft, the GPU default
//   grain::View<double**> w(ptr, n, m);                         // unmanaged: wraps user memory
//
// Copies are shallow and reference-counted on the host; inside kernels a copy is a plain
// pointer copy (device code never touches the count). The last host copy frees the memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "grain/core/config.hpp"
#include "grain/core/error.hpp"
#include "grain/core/layout.hpp"
#include "grain/core/memory_space.hpp"

#if defined(GRAIN_DEBUG_BOUNDS) && defined(__CUDA_ARCH__)
#include <cstdio>
#endif

namespace grain {

// Tag: allocate without zero-filling (Kokkos' WithoutInitializing).
struct WithoutInitializing_t {};
inline constexpr WithoutInitializing_t WithoutInitializing{};

namespace impl {

// ---- data type parsing: double*** -> value double, rank 3 --------------------------------
template <class T>
struct DataTypeRank {
  using value_type = T;
  static constexpr int rank = 0;
};
template <class T>
struct DataTypeRank<T*> {
  using value_type = typename DataTypeRank<T>::value_type;
  static constexpr int rank = DataTypeRank<T>::rank + 1;
};

// value type and rank -> data type: (double, 3) -> double***
template <class T, int Rank>
struct DataTypeOf {
  using type = typename DataTypeOf<T*, Rank - 1>::type;
};
template <class T>
struct DataTypeOf<T, 0> {
  using type = T;
};

// ---- properties: View<T, [Layout], [Space]> in any order ------------------------------------
template <class T>
constexpr bool is_layout_v = std::is_same_v<T, LayoutRight> || std::is_same_v<T, LayoutLeft>;

template <class Space>
struct DefaultLayout {
  using type = LayoutRight;
};
template <>
struct DefaultLayout<CudaSpace> {
  using type = LayoutLeft;  // coalesced when consecutive threads take the first index
};

template <class... P>
struct ViewProps;
template <>
struct ViewProps<> {
  using layout = void;
  using space = void;
};
template <class H, class... P>
struct ViewProps<H, P...> {
  using rest = ViewProps<P...>;
  static_assert(is_layout_v<H> || is_memory_space<H>::value,
                "grain::View: template properties must be a layout (LayoutRight, LayoutLeft) or "
                "a memory space (HostSpace, CudaSpace, CudaHostPinnedSpace, ScratchSpace)");
  using layout = std::conditional_t<is_layout_v<H>, H, typename rest::layout>;
  using space = std::conditional_t<is_memory_space<H>::value, H, typename rest::space>;
};

template <class... P>
struct ViewTraits {
  using props = ViewProps<P...>;
  using memory_space =
      std::conditional_t<std::is_void_v<typename props::space>, HostSpace, typename props::space>;
  using array_layout = std::conditional_t<std::is_void_v<typename props::layout>,
                                          typename DefaultLayout<memory_space>::type,
                                          typename props::layout>;
};

// ---- shared ownership ------------------------------------------------------------------------
struct AllocationRecord {
  std::atomic<long> count{1};
  void* ptr = nullptr;
  std::size_t bytes = 0;
  std::string label;
  void (*deallocate)(void*, std::size_t) noexcept = nullptr;
};

// Counts owners on the host only. Device copies (kernel arguments, captures inside kernels) are
// plain copies; the launching host copy keeps the allocation alive for the kernel's duration.
class Tracker {
 public:
  GRAIN_INLINE_FUNCTION Tracker() = default;
  explicit Tracker(AllocationRecord* r) : rec_(r) {}
  GRAIN_INLINE_FUNCTION Tracker(const Tracker& o) : rec_(o.rec_) { increment(); }
  GRAIN_INLINE_FUNCTION Tracker(Tracker&& o) noexcept : rec_(o.rec_) {
#if !GRAIN_IN_DEVICE_CODE
    o.rec_ = nullptr;
#endif
  }
  GRAIN_INLINE_FUNCTION Tracker& operator=(const Tracker& o) {
    if (rec_ != o.rec_) {
      decrement();
      rec_ = o.rec_;
      increment();
    }
    return *this;
  }
  GRAIN_INLINE_FUNCTION Tracker& operator=(Tracker&& o) noexcept {
    if (this != &o) {
      decrement();
      rec_ = o.rec_;
#if !GRAIN_IN_DEVICE_CODE
      o.rec_ = nullptr;
#endif
    }
    return *this;
  }
  GRAIN_INLINE_FUNCTION ~Tracker() { decrement(); }

  const AllocationRecord* record() const { return rec_; }
  long use_count() const { return rec_ ? rec_->count.load() : 0; }

 private:
  GRAIN_INLINE_FUNCTION void increment() {
#if !GRAIN_IN_DEVICE_CODE
    if (rec_) rec_->count.fetch_add(1, std::memory_order_relaxed);
#endif
  }
  GRAIN_INLINE_FUNCTION void decrement() {
#if !GRAIN_IN_DEVICE_CODE
    if (rec_ && rec_->count.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      rec_->deallocate(rec_->ptr, rec_->bytes);
      delete rec_;
    }
    rec_ = nullptr;
#endif
  }
  AllocationRecord* rec_ = nullptr;
};

template <class Space>
AllocationRecord* make_record(const std::string& label, std::size_t bytes) {
  auto* rec = new AllocationRecord;
  rec->label = label;
  rec->bytes = bytes;
  rec->deallocate = &Space::deallocate;
  try {
    rec->ptr = Space::allocate(bytes, label);
  } catch (...) {
    delete rec;
    throw;
  }
  return rec;
}

inline std::string shape_string(const std::size_t* ext, int rank) {
  std::ostringstream os;
  os << '(';
  for (int r = 0; r < rank; ++r) os << (r ? "," : "") << ext[r];
  os << ')';
  return os.str();
}

#if defined(GRAIN_DEBUG_BOUNDS)
[[noreturn]] void bounds_failure(const std::string& label, int dim, std::size_t index,
                                 std::size_t extent);
#endif

}  // namespace impl

template <class DataType, class... Props>
class View {
  using parse = impl::DataTypeRank<DataType>;
  using traits = impl::ViewTraits<Props...>;

 public:
  using data_type = DataType;
  using value_type = typename parse::value_type;
  using non_const_value_type = std::remove_const_t<value_type>;
  using pointer_type = value_type*;
  using reference_type = value_type&;
  using memory_space = typename traits::memory_space;
  using array_layout = typename traits::array_layout;
  static constexpr int rank = parse::rank;
  using map_type = impl::LayoutMap<array_layout, rank>;
  // The host-side counterpart of this View, same value type and layout.
  using HostMirror = View<DataType, array_layout, HostSpace>;
  // The same View with a writable value type (what mirrors and copies allocate).
  using non_const_type =
      View<typename impl::DataTypeOf<non_const_value_type, rank>::type, Props...>;

  static_assert(rank >= 0 && rank <= 8, "grain::View supports ranks 0 to 8");
  static_assert(std::is_trivially_copyable_v<non_const_value_type>,
                "grain::View holds plain-old-data values (copied as bytes between spaces)");

  GRAIN_INLINE_FUNCTION View() = default;

  // Allocating constructors: View(label, n0, n1, ...), zero-filled.
  template <class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  explicit View(const std::string& label, N... extents) : View(WithoutInitializing, label, extents...) {
    zero_fill();
  }
  template <class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  View(WithoutInitializing_t, const std::string& label, N... extents) {
    static_assert(sizeof...(N) == rank,
                  "grain::View: give exactly one extent per rank to the constructor");
    const std::size_t ext[] = {checked_extent(extents, label)..., 0};
    allocate(label, ext);
  }
  // From an array of extents (generic code).
  View(const std::string& label, const std::size_t (&extents)[rank > 0 ? rank : 1]) {
    allocate(label, extents);
    zero_fill();
  }

  // Unmanaged: wraps memory the caller owns (no copy, never freed by grain).
  template <class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  GRAIN_INLINE_FUNCTION View(pointer_type ptr, N... extents) : ptr_(ptr) {
    static_assert(sizeof...(N) == rank,
                  "grain::View: give exactly one extent per rank to the constructor");
    const std::size_t ext[] = {static_cast<std::size_t>(extents)..., 0};
    map_ = map_type(ext);
  }

  // View<const T*> from View<T*> of the same layout and space.
  template <class D, class... P,
            class = std::enable_if_t<
                std::is_same_v<typename View<D, P...>::memory_space, memory_space> &&
                std::is_same_v<typename View<D, P...>::array_layout, array_layout> &&
                View<D, P...>::rank == rank &&
                std::is_same_v<std::remove_const_t<typename View<D, P...>::value_type>,
                               non_const_value_type> &&
                (std::is_const_v<value_type> ||
                 !std::is_const_v<typename View<D, P...>::value_type>)>>
  GRAIN_INLINE_FUNCTION View(const View<D, P...>& o)
      : ptr_(o.data()), map_(o.impl_map()), tracker_(o.impl_tracker()) {}

  // ---- access ----
  template <class... I>
  GRAIN_FORCEINLINE_FUNCTION reference_type operator()(I... idx) const {
    static_assert(sizeof...(I) == rank, "grain::View: number of indices must equal the rank");
#if defined(GRAIN_DEBUG_BOUNDS)
    check_bounds(idx...);
#endif
    return ptr_[map_.offset(idx...)];
  }
  // Rank-1 subscript (and linear access into the span for any rank in release code).
  template <class I>
  GRAIN_FORCEINLINE_FUNCTION reference_type operator[](I i) const {
    return ptr_[static_cast<std::size_t>(i)];
  }

  GRAIN_FORCEINLINE_FUNCTION pointer_type data() const { return ptr_; }
  GRAIN_FORCEINLINE_FUNCTION std::size_t extent(int r) const {
    return r < rank ? map_.extent[r] : 1;
  }
  GRAIN_FORCEINLINE_FUNCTION int extent_int(int r) const { return static_cast<int>(extent(r)); }
  GRAIN_FORCEINLINE_FUNCTION std::size_t stride(int r) const {
    return r < rank ? map_.stride[r] : 0;
  }
  GRAIN_FORCEINLINE_FUNCTION std::size_t size() const {
    std::size_t n = 1;
    for (int r = 0; r < rank; ++r) n *= map_.extent[r];
    return n;
  }
  GRAIN_FORCEINLINE_FUNCTION std::size_t span() const { return size(); }
  GRAIN_FORCEINLINE_FUNCTION constexpr bool span_is_contiguous() const { return true; }
  GRAIN_FORCEINLINE_FUNCTION bool is_allocated() const { return ptr_ != nullptr; }

  // Host-side information.
  std::string label() const {
    const impl::AllocationRecord* rec = tracker_.record();
    return rec ? rec->label : std::string();
  }
  long use_count() const { return tracker_.use_count(); }
  bool is_managed() const { return tracker_.record() != nullptr; }
  // "(3,4,5)"
  std::string shape() const { return impl::shape_string(map_.extent, rank); }

  GRAIN_INLINE_FUNCTION const map_type& impl_map() const { return map_; }
  GRAIN_INLINE_FUNCTION const impl::Tracker& impl_tracker() const { return tracker_; }

 private:
  template <class N>
  static std::size_t checked_extent(N n, const std::string& label) {
    if constexpr (std::is_signed_v<N>) {
      if (n < 0)
        impl::throw_error("grain::View '", label, "': negative extent ", static_cast<long long>(n));
    }
    return static_cast<std::size_t>(n);
  }

  void allocate(const std::string& label, const std::size_t* ext) {
    std::size_t n = 1;
    for (int r = 0; r < rank; ++r) {
      if (ext[r] != 0 && n > std::numeric_limits<std::size_t>::max() / sizeof(value_type) / ext[r])
        impl::throw_error("grain::View '", label, "': extents ", impl::shape_string(ext, rank),
                          " overflow the address space");
      n *= ext[r];
    }
    map_ = map_type(ext);
    const std::size_t bytes = n * sizeof(value_type);
    impl::AllocationRecord* rec = impl::make_record<memory_space>(label, bytes);
    ptr_ = static_cast<pointer_type>(rec->ptr);
    tracker_ = impl::Tracker(rec);
  }

  void zero_fill() {
    const non_const_value_type zero{};
    if (size() > 0)
      impl::fill_bytes(const_cast<non_const_value_type*>(ptr_), impl::where_of<memory_space>(),
                       &zero, sizeof(zero), size());
  }

#if defined(GRAIN_DEBUG_BOUNDS)
  template <class... I>
  GRAIN_INLINE_FUNCTION void check_bounds(I... idx) const {
    const long long i[] = {static_cast<long long>(idx)..., 0};
    for (int r = 0; r < rank; ++r) {
      if (i[r] < 0 || static_cast<std::size_t>(i[r]) >= map_.extent[r]) {
#if GRAIN_IN_DEVICE_CODE
        printf("grain::View: index %lld out of bounds for dimension %d of extent %llu\n", i[r], r,
               static_cast<unsigned long long>(map_.extent[r]));
        __trap();
#else
        impl::bounds_failure(label(), r, static_cast<std::size_t>(i[r]), map_.extent[r]);
#endif
      }
    }
  }
#endif

  pointer_type ptr_ = nullptr;
  map_type map_{};
  impl::Tracker tracker_{};
};

template <class V>
struct is_view : std::false_type {};
template <class D, class... P>
struct is_view<View<D, P...>> : std::true_type {};
template <class V>
inline constexpr bool is_view_v = is_view<std::remove_cv_t<std::remove_reference_t<V>>>::value;

// ---- mirrors ------------------------------------------------------------------------------------

namespace impl {
template <class V, std::size_t... R>
V allocate_like(const std::string& label, const std::size_t* ext, std::index_sequence<R...>) {
  return V(WithoutInitializing, label, ext[R]...);
}
template <class V, class Src>
V allocate_like(const std::string& label, const Src& src) {
  std::size_t ext[8];
  for (int r = 0; r < 8; ++r) ext[r] = src.extent(r);
  return allocate_like<V>(label, ext, std::make_index_sequence<V::rank>{});
}
}  // namespace impl


// A host View shaped like v. For a host-accessible v it is v itself (no allocation).
template <class D, class... P>
auto create_mirror_view(const View<D, P...>& v) {
  using V = View<D, P...>;
  using M = typename V::HostMirror;
  // Any spelling of a HostSpace View (View<T*>, View<T*, HostSpace>, ...) is its own mirror.
  if constexpr (std::is_same_v<typename V::memory_space, HostSpace>) {
    static_assert(std::is_same_v<typename V::array_layout, typename M::array_layout>);
    return v;
  } else {
    return impl::allocate_like<typename M::non_const_type>(v.label() + "_mirror", v);
  }
}


// Always allocates a new host View shaped like v (contents not copied).
template <class D, class... P>
auto create_mirror(const View<D, P...>& v) {
  using M = typename View<D, P...>::HostMirror;
  return impl::allocate_like<typename M::non_const_type>(v.label() + "_mirror", v);
}

// A View shaped like v in memory space Space: v itself when it already lives there.
template <class Space, class D, class... P>
auto create_mirror_view(Space, const View<D, P...>& v) {
  using V = View<D, P...>;
  using M = View<D, typename V::array_layout, Space>;
  if constexpr (std::is_same_v<typename V::memory_space, Space>) {
    return v;
  } else {
    return impl::allocate_like<typename M::non_const_type>(v.label() + "_mirror", v);
  }
}

}  // namespace grain
