// deep_copy: layout permutations of ranks 2 to 5 with odd extents, copies across memory spaces
// (host LayoutRight -> device LayoutLeft and back), pinned host memory, and extents checks.
#include <array>
#include <vector>

#include "core_test_helpers.hpp"

namespace {

template <class T, int R>
struct Ptr {
  using type = typename Ptr<T*, R - 1>::type;
};
template <class T>
struct Ptr<T, 0> {
  using type = T;
};

template <class V, std::size_t... I>
auto& at(const V& v, const std::size_t* idx, std::index_sequence<I...>) {
  return v(idx[I]...);
}

// A value that encodes the multi-index, so a transposed or shifted copy cannot pass.
template <int R>
double code(const std::size_t* idx) {
  double c = 1.0;
  for (int r = 0; r < R; ++r) c = c * 16.0 + static_cast<double>(idx[r]) + 0.5;
  return c;
}

template <int R, class F>
void for_each_index(const std::size_t* ext, F&& f) {
  std::size_t n = 1;
  for (int r = 0; r < R; ++r) n *= ext[r];
  std::size_t idx[R];
  for (std::size_t lin = 0; lin < n; ++lin) {
    std::size_t rest = lin;
    for (int r = R - 1; r >= 0; --r) {
      idx[r] = rest % ext[r];
      rest /= ext[r];
    }
    f(static_cast<const std::size_t*>(idx));
  }
}

constexpr std::size_t kOddExtents[5] = {3, 7, 5, 2, 9};

template <int R, class SrcLayout, class DstLayout, class T = double>
void check_host_permutation() {
  using D = typename Ptr<T, R>::type;
  std::size_t ext[R];
  for (int r = 0; r < R; ++r) ext[r] = kOddExtents[r];
  grain::View<D, SrcLayout, grain::HostSpace> src("src", ext);
  grain::View<D, DstLayout, grain::HostSpace> dst("dst", ext);
  const auto seq = std::make_index_sequence<R>{};
  for_each_index<R>(ext, [&](const std::size_t* i) { at(src, i, seq) = static_cast<T>(code<R>(i)); });
  grain::test::poison(dst);
  grain::deep_copy(dst, src);
  for_each_index<R>(ext, [&](const std::size_t* i) {
    ASSERT_EQ(at(dst, i, seq), static_cast<T>(code<R>(i))) << "rank " << R;
  });
}

template <int R>
void check_host_permutations_rank() {
  check_host_permutation<R, grain::LayoutRight, grain::LayoutLeft>();
  check_host_permutation<R, grain::LayoutLeft, grain::LayoutRight>();
  check_host_permutation<R, grain::LayoutLeft, grain::LayoutLeft>();
  check_host_permutation<R, grain::LayoutRight, grain::LayoutRight>();
  check_host_permutation<R, grain::LayoutRight, grain::LayoutLeft, float>();
  check_host_permutation<R, grain::LayoutLeft, grain::LayoutRight, int>();
}

TEST(DeepCopy, HostLayoutPermutationRanks2To5) {
  check_host_permutations_rank<2>();
  check_host_permutations_rank<3>();
  check_host_permutations_rank<4>();
  check_host_permutations_rank<5>();
}

// Values that are neither 4 nor 8 bytes go through the generic permutation path.
struct Triple {
  float x, y, z;
};
struct Wide {
  double v[5];
};

TEST(DeepCopy, HostLayoutPermutationOddValueSizes) {
  grain::View<Triple**, grain::LayoutRight> a("a", 7, 5);
  grain::View<Triple**, grain::LayoutLeft> b("b", 7, 5);
  grain::View<Wide**, grain::LayoutRight> c("c", 3, 5);
  grain::View<Wide**, grain::LayoutLeft> d("d", 3, 5);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) a(i, j) = Triple{float(i), float(j), float(i * j + 1)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 5; ++k) c(i, j).v[k] = 100.0 * i + 10.0 * j + k;
  grain::deep_copy(b, a);
  grain::deep_copy(d, c);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) {
      ASSERT_EQ(b(i, j).x, float(i));
      ASSERT_EQ(b(i, j).y, float(j));
      ASSERT_EQ(b(i, j).z, float(i * j + 1));
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 5; ++k) ASSERT_EQ(d(i, j).v[k], 100.0 * i + 10.0 * j + k);
}

TEST(DeepCopy, LargeHostPermutation) {
  // Large enough (> 1 MiB) for the threaded copy paths.
  const int n0 = 301, n1 = 517;
  grain::View<double**, grain::LayoutRight> a("a", n0, n1);
  grain::View<double**, grain::LayoutLeft> b("b", n0, n1);
  grain::View<double**, grain::LayoutRight> c("c", n0, n1);
  grain::test::fill_random(a, 11);
  grain::test::poison(b);
  grain::test::poison(c);
  grain::deep_copy(b, a);
  grain::deep_copy(c, b);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j) {
      ASSERT_EQ(b(i, j), a(i, j));
      ASSERT_EQ(c(i, j), a(i, j));
    }
}

// ---- across spaces: host LayoutRight -> Exec's space LayoutLeft -> host LayoutRight ------------
template <class Exec, int R>
void check_cross_space_rank() {
  using Space = grain::test::ExecMemory<Exec>;
  using D = typename Ptr<double, R>::type;
  std::size_t ext[R];
  for (int r = 0; r < R; ++r) ext[r] = kOddExtents[r];
  grain::View<D, grain::LayoutRight, grain::HostSpace> h("h", ext);
  grain::test::fill_random(h, 100 + R);
  grain::View<D, grain::LayoutLeft, Space> dl("dl", ext);
  grain::View<D, grain::LayoutRight, Space> dr("dr", ext);
  grain::test::poison(dl);
  grain::test::poison(dr);
  grain::deep_copy(dl, h);   // host Right -> device Left (a permutation across spaces)
  grain::deep_copy(dr, dl);  // device Left -> device Right (a permutation on the device)
  grain::View<D, grain::LayoutLeft, grain::HostSpace> back_left("bl", ext);
  grain::View<D, grain::LayoutRight, grain::HostSpace> back_right("br", ext);
  grain::test::poison(back_left);
  grain::test::poison(back_right);
  grain::deep_copy(back_left, dr);  // device Right -> host Left
  grain::deep_copy(back_right, dl);  // device Left -> host Right
  const auto seq = std::make_index_sequence<R>{};
  for_each_index<R>(ext, [&](const std::size_t* i) {
    ASSERT_EQ(at(back_left, i, seq), at(h, i, seq)) << "rank " << R;
    ASSERT_EQ(at(back_right, i, seq), at(h, i, seq)) << "rank " << R;
  });
}

// A kernel reads the device copy in its own layout: the values arrive at the right indices.
template <class Exec>
void check_kernel_sees_permuted_copy() {
  using Space = grain::test::ExecMemory<Exec>;
  const int n0 = 33, n1 = 7;
  grain::View<double**, grain::LayoutRight, grain::HostSpace> h("h", n0, n1);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j) h(i, j) = 1000.0 * i + j + 0.25;
  grain::View<double**, grain::LayoutLeft, Space> d("d", n0, n1);
  grain::deep_copy(d, h);
  grain::View<int*, Space> bad("bad", 1);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n0 * n1), GRAIN_LAMBDA(grain::index_type k) {
    const grain::index_type i = k / n1, j = k % n1;
    if (!(d(i, j) == 1000.0 * i + j + 0.25)) grain::atomic_add(&bad(0), 1);
  });
  auto hb = grain::test::to_host(bad);
  EXPECT_EQ(hb(0), 0);
}

template <class Exec>
void check_cross_space() {
  check_cross_space_rank<Exec, 1>();
  check_cross_space_rank<Exec, 2>();
  check_cross_space_rank<Exec, 3>();
  check_cross_space_rank<Exec, 4>();
  check_cross_space_rank<Exec, 5>();
  check_kernel_sees_permuted_copy<Exec>();
}

GRAIN_BACKEND_TEST(DeepCopy, AcrossSpacesAndLayouts) { check_cross_space<TypeParam>(); }

// Large copies (many blocks on the GPU, threaded on the host) across spaces, same layout.
template <class Exec>
void check_large_cross_space() {
  using Space = grain::test::ExecMemory<Exec>;
  const std::size_t n = 100003;
  grain::View<float*, grain::HostSpace> h("h", n);
  grain::test::fill_random(h, 5);
  grain::View<float*, Space> d("d", n);
  grain::test::poison(d);
  grain::deep_copy(d, h);
  grain::View<float*, grain::HostSpace> back("back", n);
  grain::test::poison(back);
  grain::deep_copy(back, d);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back(i), h(i)) << i;
}

GRAIN_BACKEND_TEST(DeepCopy, LargeAcrossSpaces) { check_large_cross_space<TypeParam>(); }

// Pinned host memory: only in CUDA builds on a machine with a GPU.
template <class Exec>
void check_pinned() {
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (!grain::test::is_host_exec<Exec>()) {
    using Space = grain::test::ExecMemory<Exec>;
    const int n0 = 1000, n1 = 7;
    grain::View<double**, grain::LayoutRight, grain::CudaHostPinnedSpace> pin("pin", n0, n1);
    grain::test::fill_random(pin, 3);
    grain::View<double**, grain::LayoutLeft, Space> d("d", n0, n1);
    grain::deep_copy(d, pin);
    grain::View<double**, grain::LayoutRight, grain::CudaHostPinnedSpace> back("back", n0, n1);
    grain::test::poison(back);
    grain::deep_copy(back, d);
    grain::View<double**, grain::LayoutRight, grain::HostSpace> plain("plain", n0, n1);
    grain::deep_copy(plain, back);  // pinned <-> ordinary host memory
    for (int i = 0; i < n0; ++i)
      for (int j = 0; j < n1; ++j) {
        ASSERT_EQ(back(i, j), pin(i, j));
        ASSERT_EQ(plain(i, j), pin(i, j));
      }
    return;
  }
#endif
  GTEST_SKIP() << "pinned host memory needs the CUDA back end";
}

GRAIN_BACKEND_TEST(DeepCopy, PinnedHostMemory) { check_pinned<TypeParam>(); }

}  // namespace
