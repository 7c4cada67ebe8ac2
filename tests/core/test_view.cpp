// View: construction, layouts' offsets against hand-computed ones for ranks 0 to 6, shared
// ownership, unmanaged and const Views, labels, mirrors and fills, on every back end.
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

TEST(Layout, RightOffsetsMatchHandComputed) {
  grain::View<double***, grain::LayoutRight> v("v", 3, 4, 5);
  EXPECT_EQ(v.stride(0), 20u);
  EXPECT_EQ(v.stride(1), 5u);
  EXPECT_EQ(v.stride(2), 1u);
  EXPECT_EQ(&v(2, 1, 3) - v.data(), 2 * 20 + 1 * 5 + 3);
}

TEST(Layout, LeftOffsetsMatchHandComputed) {
  grain::View<double***, grain::LayoutLeft> v("v", 3, 4, 5);
  EXPECT_EQ(v.stride(0), 1u);
  EXPECT_EQ(v.stride(1), 3u);
  EXPECT_EQ(v.stride(2), 12u);
  EXPECT_EQ(&v(2, 1, 3) - v.data(), 2 + 1 * 3 + 3 * 12);
}

// ---- ranks 1..6, both layouts: extents, strides, size, and the offset of every index -------------
template <class T, int R>
struct Ptr {
  using type = typename Ptr<T*, R - 1>::type;
};
template <class T>
struct Ptr<T, 0> {
  using type = T;
};

template <class V, std::size_t... I>
std::ptrdiff_t offset_of(const V& v, const std::array<std::size_t, V::rank>& idx,
                         std::index_sequence<I...>) {
  return &v(idx[I]...) - v.data();
}

template <class Layout, int R>
void check_layout_rank() {
  using V = grain::View<typename Ptr<double, R>::type, Layout, grain::HostSpace>;
  static_assert(V::rank == R);
  const std::size_t all_ext[6] = {3, 2, 5, 1, 4, 3};
  std::size_t ext[R];
  for (int r = 0; r < R; ++r) ext[r] = all_ext[r];
  V v("layout_r" + std::to_string(R), ext);
  EXPECT_EQ(v.label(), "layout_r" + std::to_string(R));
  std::size_t size = 1;
  for (int r = 0; r < R; ++r) size *= ext[r];
  EXPECT_EQ(v.size(), size);
  EXPECT_EQ(v.span(), size);
  EXPECT_TRUE(v.span_is_contiguous());
  // Hand-computed strides: products of the extents on the fast side.
  for (int r = 0; r < R; ++r) {
    std::size_t s = 1;
    if (std::is_same_v<Layout, grain::LayoutRight>) {
      for (int q = r + 1; q < R; ++q) s *= ext[q];
    } else {
      for (int q = 0; q < r; ++q) s *= ext[q];
    }
    EXPECT_EQ(v.extent(r), ext[r]) << "rank " << R << " dim " << r;
    EXPECT_EQ(v.extent_int(r), static_cast<int>(ext[r]));
    EXPECT_EQ(v.stride(r), s) << "rank " << R << " dim " << r;
  }
  EXPECT_EQ(v.extent(R), 1u);  // dimensions past the rank have extent 1
  // Every multi-index maps to sum(i_r * stride_r), and the map is a bijection onto [0, size).
  std::vector<int> hit(size, 0);
  std::array<std::size_t, R> idx{};
  for (std::size_t lin = 0; lin < size; ++lin) {
    std::size_t rest = lin;
    std::ptrdiff_t expect = 0;
    for (int r = R - 1; r >= 0; --r) {
      idx[r] = rest % ext[r];
      rest /= ext[r];
      expect += static_cast<std::ptrdiff_t>(idx[r] * v.stride(r));
    }
    const std::ptrdiff_t got = offset_of(v, idx, std::make_index_sequence<R>{});
    ASSERT_EQ(got, expect) << "rank " << R << " linear " << lin;
    ASSERT_GE(got, 0);
    ASSERT_LT(static_cast<std::size_t>(got), size);
    ++hit[got];
  }
  for (std::size_t k = 0; k < size; ++k) ASSERT_EQ(hit[k], 1) << "offset " << k;
  // Zero-initialized by the allocating constructor.
  for (std::size_t k = 0; k < size; ++k) ASSERT_EQ(v.data()[k], 0.0);
}

template <class Layout>
void check_layout_all_ranks() {
  check_layout_rank<Layout, 1>();
  check_layout_rank<Layout, 2>();
  check_layout_rank<Layout, 3>();
  check_layout_rank<Layout, 4>();
  check_layout_rank<Layout, 5>();
  check_layout_rank<Layout, 6>();
}

TEST(Layout, RightRanks1To6) { check_layout_all_ranks<grain::LayoutRight>(); }
TEST(Layout, LeftRanks1To6) { check_layout_all_ranks<grain::LayoutLeft>(); }

TEST(Layout, DefaultFollowsTheSpace) {
  static_assert(std::is_same_v<grain::View<double**>::array_layout, grain::LayoutRight>);
  static_assert(std::is_same_v<grain::View<double**, grain::HostSpace>::array_layout,
                               grain::LayoutRight>);
  static_assert(std::is_same_v<grain::View<double**, grain::CudaSpace>::array_layout,
                               grain::LayoutLeft>);
  static_assert(std::is_same_v<grain::View<double**, grain::CudaSpace, grain::LayoutRight>::array_layout,
                               grain::LayoutRight>);
  static_assert(std::is_same_v<grain::View<double**, grain::CudaSpace>::memory_space,
                               grain::CudaSpace>);
  static_assert(std::is_same_v<grain::View<double**>::memory_space, grain::HostSpace>);
  SUCCEED();
}

TEST(View, RankZeroHoldsOneValue) {
  grain::View<double> s("scalar");
  EXPECT_EQ(decltype(s)::rank, 0);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s(), 0.0);
  s() = 2.5;
  EXPECT_EQ(s(), 2.5);
  grain::View<double> t("t");
  grain::deep_copy(t, s);
  EXPECT_EQ(t(), 2.5);
  grain::deep_copy(t, 7.0);
  EXPECT_EQ(t(), 7.0);
  EXPECT_EQ(s.label(), "scalar");
}

TEST(View, ZeroExtentIsEmpty) {
  grain::View<double**> v("empty", 0, 5);
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.extent(1), 5u);
  grain::View<double**> w("empty2", 0, 5);
  grain::deep_copy(w, v);  // nothing to copy, no error
  grain::deep_copy(v, 1.0);
}

// ---- shared ownership -----------------------------------------------------------------------------
TEST(View, CopiesShareOwnershipAndTheLastFrees) {
  grain::View<int*> a("shared", 17);
  EXPECT_TRUE(a.is_managed());
  EXPECT_EQ(a.use_count(), 1);
  int* const p = a.data();
  {
    grain::View<int*> b = a;
    EXPECT_EQ(a.use_count(), 2);
    EXPECT_EQ(b.data(), p);
    EXPECT_EQ(b.label(), "shared");
    b(3) = 42;
    EXPECT_EQ(a(3), 42);  // shallow: one allocation
    grain::View<int*> c;
    EXPECT_EQ(c.use_count(), 0);
    EXPECT_FALSE(c.is_allocated());
    c = b;
    EXPECT_EQ(a.use_count(), 3);
    c = c;  // self-assignment keeps the count
    EXPECT_EQ(a.use_count(), 3);
    grain::View<int*> d = std::move(c);
    EXPECT_EQ(a.use_count(), 3);
    EXPECT_EQ(c.use_count(), 0);
  }
  EXPECT_EQ(a.use_count(), 1);
  // The original can go first: the copy keeps the memory alive (ASan checks use after free).
  grain::View<int*> survivor;
  {
    grain::View<int*> first("first", 9);
    first(8) = 5;
    survivor = first;
    EXPECT_EQ(survivor.use_count(), 2);
  }
  EXPECT_EQ(survivor.use_count(), 1);
  EXPECT_EQ(survivor(8), 5);
  EXPECT_EQ(survivor.label(), "first");
  // Assigning another View releases this one's allocation (LeakSanitizer checks the free).
  survivor = a;
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(survivor(3), 42);
}

// Host Views start 64-byte aligned; from 4 MiB on, 2 MiB aligned (HostSpace asks those for
// transparent huge pages). Every element written and read back; the deallocation matches the
// alignment (the ASan build checks new/delete alignment mismatches).
TEST(View, HostAlignmentBySize) {
  auto check = [](std::size_t n, std::uintptr_t align) {
    grain::View<double*, grain::LayoutRight, grain::HostSpace> v("aligned", n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % align, 0u) << n << " doubles";
    for (std::size_t i = 0; i < n; ++i) v(i) = double(i % 1000) + 0.5;
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += v(i);
    double expect = 0;
    for (std::size_t i = 0; i < n; ++i) expect += double(i % 1000) + 0.5;
    EXPECT_EQ(s, expect) << n << " doubles";
  };
  check(3, 64);
  check((std::size_t(4) << 20) / 8 - 1, 64);  // one double short of 4 MiB
  check((std::size_t(4) << 20) / 8, std::uintptr_t(2) << 20);
  check((std::size_t(9) << 20) / 8 + 5, std::uintptr_t(2) << 20);
}

TEST(View, UnmanagedWrapsUserMemory) {
  std::vector<double> mem(6 * 7);
  std::iota(mem.begin(), mem.end(), 1.0);
  grain::View<double**, grain::LayoutRight> r(mem.data(), 6, 7);
  grain::View<double**, grain::LayoutLeft> l(mem.data(), 6, 7);
  EXPECT_FALSE(r.is_managed());
  EXPECT_EQ(r.use_count(), 0);
  EXPECT_EQ(r.label(), "");
  EXPECT_EQ(r.data(), mem.data());
  EXPECT_EQ(r(2, 3), mem[2 * 7 + 3]);
  EXPECT_EQ(l(2, 3), mem[2 + 3 * 6]);
  r(5, 6) = -1.0;  // writes go straight to the user's array
  EXPECT_EQ(mem[41], -1.0);
  {
    auto copy = r;  // copies of an unmanaged View never free
    EXPECT_EQ(copy.use_count(), 0);
  }
  EXPECT_EQ(mem[41], -1.0);
  // deep_copy into and out of unmanaged Views.
  grain::View<double**, grain::LayoutRight> owned("owned", 6, 7);
  grain::deep_copy(owned, l);  // layout change: owned(i,j) = mem[i + 6j]
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j) ASSERT_EQ(owned(i, j), mem[i + 6 * j]);
}

TEST(View, ConstViewFromNonConst) {
  grain::View<double**> v("src", 3, 4);
  v(1, 2) = 3.5;
  grain::View<const double**> c = v;
  EXPECT_EQ(c(1, 2), 3.5);
  EXPECT_EQ(c.data(), v.data());
  EXPECT_EQ(v.use_count(), 2);
  EXPECT_EQ(c.label(), "src");
  static_assert(std::is_const_v<std::remove_reference_t<decltype(c(0, 0))>>);
  static_assert(!std::is_convertible_v<grain::View<const double**>, grain::View<double**>>,
                "a const View must not convert back to a non-const one");
  static_assert(!std::is_convertible_v<grain::View<double**, grain::LayoutLeft>,
                                       grain::View<double**, grain::LayoutRight>>,
                "Views of different layouts must not convert");
  // deep_copy reads from a const View.
  grain::View<double**> w("dst", 3, 4);
  grain::deep_copy(w, c);
  EXPECT_EQ(w(1, 2), 3.5);
  // Mirrors of const Views are writable where they are new allocations.
  auto m = grain::create_mirror(c);
  static_assert(!std::is_const_v<typename decltype(m)::value_type>);
  grain::deep_copy(m, c);
  EXPECT_EQ(m(1, 2), 3.5);
  EXPECT_NE(m.data(), v.data());
}

TEST(View, NonConstTypeDropsConst) {
  using C = grain::View<const double***, grain::LayoutLeft, grain::HostSpace>;
  static_assert(std::is_same_v<C::non_const_type::value_type, double>);
  static_assert(C::non_const_type::rank == 3);
  static_assert(std::is_same_v<C::non_const_type::array_layout, grain::LayoutLeft>);
  SUCCEED();
}

// ---- mirrors -----------------------------------------------------------------------------------
TEST(View, HostMirrorViewIsTheViewItself) {
  grain::View<double**> v("host", 5, 3);
  auto m = grain::create_mirror_view(v);
  EXPECT_EQ(m.data(), v.data());
  EXPECT_EQ(v.use_count(), 2);
  grain::View<float***, grain::LayoutLeft, grain::HostSpace> l("hostleft", 2, 3, 4);
  auto ml = grain::create_mirror_view(l);
  EXPECT_EQ(ml.data(), l.data());
  static_assert(std::is_same_v<typename decltype(ml)::array_layout, grain::LayoutLeft>);
  auto same_space = grain::create_mirror_view(grain::HostSpace(), v);
  EXPECT_EQ(same_space.data(), v.data());
}

TEST(View, CreateMirrorAlwaysAllocates) {
  grain::View<double**, grain::LayoutLeft> v("orig", 5, 3);
  v(4, 2) = 1.0;
  auto m = grain::create_mirror(v);
  EXPECT_NE(m.data(), v.data());
  EXPECT_EQ(m.extent(0), 5u);
  EXPECT_EQ(m.extent(1), 3u);
  EXPECT_EQ(m.label(), "orig_mirror");
  static_assert(std::is_same_v<typename decltype(m)::array_layout, grain::LayoutLeft>);
  static_assert(std::is_same_v<typename decltype(m)::memory_space, grain::HostSpace>);
  m(4, 2) = 2.0;
  EXPECT_EQ(v(4, 2), 1.0);
}

// ---- kernels write device Views; mirrors bring them back -----------------------------------------
template <class Exec>
void check_fill_on_device() {
  using Space = typename Exec::memory_space;
  const int n = 1000;
  grain::View<double**, Space> d("d", n, 3);
  grain::test::poison(d);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(grain::index_type i) {
    for (int j = 0; j < 3; ++j) d(i, j) = 10.0 * i + j;
  });
  auto h = grain::create_mirror_view(d);
  grain::deep_copy(h, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(h(i, j), 10.0 * i + j);
}

GRAIN_BACKEND_TEST(View, FillThroughKernelAndMirror) { check_fill_on_device<TypeParam>(); }

// A device View's mirror is a separate host allocation of the same shape and layout.
template <class Exec>
void check_mirror_shapes() {
  using Space = typename Exec::memory_space;
  grain::View<int***, Space> d("dev", 3, 5, 7);
  auto m = grain::create_mirror_view(d);
  static_assert(std::is_same_v<typename decltype(m)::memory_space, grain::HostSpace>);
  static_assert(std::is_same_v<typename decltype(m)::array_layout,
                               typename decltype(d)::array_layout>);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(m.extent(r), d.extent(r));
    EXPECT_EQ(m.stride(r), d.stride(r));
  }
  if (!grain::test::is_host_exec<Exec>()) {
    EXPECT_NE(static_cast<void*>(m.data()), static_cast<void*>(d.data()));
  }
  // And a device mirror of a host View, filled by deep_copy, read back by a kernel.
  grain::View<int***, grain::HostSpace> h("h", 3, 5, 7);
  for (std::size_t k = 0; k < h.size(); ++k) h.data()[k] = static_cast<int>(3 * k + 1);
  auto dm = grain::create_mirror_view(Space(), h);
  static_assert(std::is_same_v<typename decltype(dm)::memory_space, Space>);
  grain::deep_copy(dm, h);
  grain::View<int*, Space> sums("sums", 3);
  grain::parallel_for(grain::RangePolicy<Exec>(0, 3), GRAIN_LAMBDA(grain::index_type i) {
    int s = 0;
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 7; ++k) s += dm(i, j, k);
    sums(i) = s;
  });
  auto hs = grain::test::to_host(sums);
  for (int i = 0; i < 3; ++i) {
    int s = 0;
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 7; ++k) s += h(i, j, k);
    EXPECT_EQ(hs(i), s) << "row " << i;
  }
}

GRAIN_BACKEND_TEST(View, MirrorsOfDeviceViews) { check_mirror_shapes<TypeParam>(); }

// deep_copy(view, value) in the back end's space, for 4-, 8- and 16-byte values.
struct Pair {
  double a, b;
};

template <class Exec>
void check_fill_value() {
  using Space = typename Exec::memory_space;
  for (index_type n : grain::test::odd_sizes()) {
    grain::View<double*, Space> d("d", n);
    grain::View<int**, Space> i2("i2", n, 3);
    grain::View<Pair*, Space> p("p", n);
    grain::deep_copy(d, -2.25);
    grain::deep_copy(i2, 17);
    grain::deep_copy(p, Pair{1.5, -3.0});
    auto hd = grain::test::to_host(d);
    auto hi = grain::test::to_host(i2);
    auto hp = grain::test::to_host(p);
    for (index_type k = 0; k < n; ++k) {
      ASSERT_EQ(hd(k), -2.25) << n;
      ASSERT_EQ(hp(k).a, 1.5) << n;
      ASSERT_EQ(hp(k).b, -3.0) << n;
      for (int j = 0; j < 3; ++j) ASSERT_EQ(hi(k, j), 17) << n;
    }
  }
}

GRAIN_BACKEND_TEST(View, DeepCopyValue) { check_fill_value<TypeParam>(); }

// Rank-0 View in the back end's space: a kernel writes it.
template <class Exec>
void check_rank0_device() {
  using Space = typename Exec::memory_space;
  grain::View<double, Space> s("s");
  grain::test::poison(s);
  grain::parallel_for(grain::RangePolicy<Exec>(0, 1), GRAIN_LAMBDA(grain::index_type) { s() = 4.5; });
  auto h = grain::test::to_host(s);
  EXPECT_EQ(h(), 4.5);
}

GRAIN_BACKEND_TEST(View, RankZeroOnDevice) { check_rank0_device<TypeParam>(); }

}  // namespace
