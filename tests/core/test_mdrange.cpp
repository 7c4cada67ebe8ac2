// MDRangePolicy: ranks 2 to 4 with non-zero lower bounds, extents not divisible by the tiles,
// default tiles, both iteration orders, parallel_for (every point exactly once) and
// parallel_reduce, on every back end.
#include <array>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

// A signature of a point that a permuted or shifted enumeration cannot reproduce.
GRAIN_INLINE_FUNCTION double point_code(index_type i, index_type j, index_type k = 0, index_type l = 0) {
  return 1.0 + 0.5 * static_cast<double>(i) + 3.0 * static_cast<double>(j) +
         7.0 * static_cast<double>(k) + 11.0 * static_cast<double>(l);
}

template <class Exec, grain::Iterate Order>
void check_md2(std::array<index_type, 2> lo, std::array<index_type, 2> hi,
               std::array<index_type, 2> tile) {
  using Space = grain::test::ExecMemory<Exec>;
  using Policy = grain::MDRangePolicy<Exec, grain::Rank<2, Order>>;
  const index_type n0 = hi[0] - lo[0], n1 = hi[1] - lo[1];
  grain::View<double**, Space> out("out", n0, n1);
  grain::View<int**, Space> visits("visits", n0, n1);
  grain::test::poison(out);
  const Policy p({lo[0], lo[1]}, {hi[0], hi[1]}, {tile[0], tile[1]});
  const index_type l0 = lo[0], l1 = lo[1];
  grain::parallel_for(p, GRAIN_LAMBDA(index_type i, index_type j) {
    out(i - l0, j - l1) = point_code(i, j);
    grain::atomic_add(&visits(i - l0, j - l1), 1);
  });
  double sum = std::numeric_limits<double>::quiet_NaN();
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, index_type j, double& s) { s += point_code(i, j); }, sum);
  long long maxcode = -1;
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, index_type j, long long& m) {
    const long long c = 1000 * i + j;
    if (m < c) m = c;
  }, grain::Max<long long>(maxcode));
  auto ho = grain::test::to_host(out);
  auto hv = grain::test::to_host(visits);
  double ref = 0;
  for (index_type i = 0; i < n0; ++i)
    for (index_type j = 0; j < n1; ++j) {
      ASSERT_EQ(hv(i, j), 1) << "point " << i << "," << j << " tile " << tile[0] << "x" << tile[1];
      ASSERT_EQ(ho(i, j), point_code(i + lo[0], j + lo[1]));
      ref += point_code(i + lo[0], j + lo[1]);
    }
  EXPECT_TRUE(grain::test::near(sum, ref, grain::test::tolerance<double>(n0 * n1)));
  if (n0 * n1 > 0) {
    EXPECT_EQ(maxcode, 1000 * (hi[0] - 1) + hi[1] - 1);
  }
}

template <class Exec, grain::Iterate Order>
void check_md3(std::array<index_type, 3> lo, std::array<index_type, 3> hi,
               std::array<index_type, 3> tile) {
  using Space = grain::test::ExecMemory<Exec>;
  using Policy = grain::MDRangePolicy<Exec, grain::Rank<3, Order>>;
  const index_type n0 = hi[0] - lo[0], n1 = hi[1] - lo[1], n2 = hi[2] - lo[2];
  grain::View<double***, Space> out("out", n0, n1, n2);
  grain::View<int***, Space> visits("visits", n0, n1, n2);
  grain::test::poison(out);
  const Policy p(lo, hi, tile);
  const index_type l0 = lo[0], l1 = lo[1], l2 = lo[2];
  grain::parallel_for(p, GRAIN_LAMBDA(index_type i, index_type j, index_type k) {
    out(i - l0, j - l1, k - l2) = point_code(i, j, k);
    grain::atomic_add(&visits(i - l0, j - l1, k - l2), 1);
  });
  double sum = std::numeric_limits<double>::quiet_NaN();
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, index_type j, index_type k, double& s) {
    s += point_code(i, j, k);
  }, sum);
  auto ho = grain::test::to_host(out);
  auto hv = grain::test::to_host(visits);
  double ref = 0;
  for (index_type i = 0; i < n0; ++i)
    for (index_type j = 0; j < n1; ++j)
      for (index_type k = 0; k < n2; ++k) {
        ASSERT_EQ(hv(i, j, k), 1) << i << "," << j << "," << k;
        ASSERT_EQ(ho(i, j, k), point_code(i + lo[0], j + lo[1], k + lo[2]));
        ref += point_code(i + lo[0], j + lo[1], k + lo[2]);
      }
  EXPECT_TRUE(grain::test::near(sum, ref, grain::test::tolerance<double>(n0 * n1 * n2)));
}

template <class Exec, grain::Iterate Order>
void check_md4(std::array<index_type, 4> lo, std::array<index_type, 4> hi,
               std::array<index_type, 4> tile) {
  using Space = grain::test::ExecMemory<Exec>;
  using Policy = grain::MDRangePolicy<Exec, grain::Rank<4, Order>>;
  index_type n[4];
  for (int r = 0; r < 4; ++r) n[r] = hi[r] - lo[r];
  grain::View<double****, Space> out("out", n[0], n[1], n[2], n[3]);
  grain::View<int****, Space> visits("visits", n[0], n[1], n[2], n[3]);
  grain::test::poison(out);
  const Policy p(lo, hi, tile);
  const index_type l0 = lo[0], l1 = lo[1], l2 = lo[2], l3 = lo[3];
  grain::parallel_for(p, GRAIN_LAMBDA(index_type i, index_type j, index_type k, index_type l) {
    out(i - l0, j - l1, k - l2, l - l3) = point_code(i, j, k, l);
    grain::atomic_add(&visits(i - l0, j - l1, k - l2, l - l3), 1);
  });
  double sum = std::numeric_limits<double>::quiet_NaN();
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, index_type j, index_type k, index_type l, double& s) {
    s += point_code(i, j, k, l);
  }, sum);
  auto ho = grain::test::to_host(out);
  auto hv = grain::test::to_host(visits);
  double ref = 0;
  for (index_type i = 0; i < n[0]; ++i)
    for (index_type j = 0; j < n[1]; ++j)
      for (index_type k = 0; k < n[2]; ++k)
        for (index_type l = 0; l < n[3]; ++l) {
          ASSERT_EQ(hv(i, j, k, l), 1) << i << "," << j << "," << k << "," << l;
          ASSERT_EQ(ho(i, j, k, l), point_code(i + lo[0], j + lo[1], k + lo[2], l + lo[3]));
          ref += point_code(i + lo[0], j + lo[1], k + lo[2], l + lo[3]);
        }
  EXPECT_TRUE(grain::test::near(sum, ref, grain::test::tolerance<double>(n[0] * n[1] * n[2] * n[3])));
}

template <class Exec, grain::Iterate Order>
void check_md_order() {
  // Rank 2: default tiles, tiles that do not divide the extents, tiles of one, tiles larger
  // than the extents, non-zero and negative lower bounds, a single point, and an empty range.
  check_md2<Exec, Order>({0, 0}, {33, 7}, {0, 0});
  check_md2<Exec, Order>({0, 0}, {1000, 3}, {0, 0});
  check_md2<Exec, Order>({2, 5}, {35, 12}, {4, 3});
  check_md2<Exec, Order>({-3, 1}, {30, 41}, {7, 5});
  check_md2<Exec, Order>({0, 0}, {5, 9}, {1, 1});
  check_md2<Exec, Order>({0, 0}, {5, 9}, {16, 32});
  check_md2<Exec, Order>({4, 4}, {5, 5}, {0, 0});
  check_md2<Exec, Order>({0, 0}, {0, 9}, {0, 0});
  check_md2<Exec, Order>({0, 0}, {301, 257}, {32, 8});  // many tiles (many CUDA blocks)
  // Rank 3 and 4.
  check_md3<Exec, Order>({0, 0, 0}, {7, 5, 33}, {0, 0, 0});
  check_md3<Exec, Order>({1, 2, 3}, {14, 9, 20}, {4, 3, 5});
  check_md3<Exec, Order>({0, 0, 0}, {3, 1, 2}, {2, 2, 2});
  check_md4<Exec, Order>({0, 0, 0, 0}, {3, 5, 7, 9}, {0, 0, 0, 0});
  check_md4<Exec, Order>({1, -1, 0, 2}, {6, 4, 9, 5}, {2, 3, 4, 2});
}

template <class Exec>
void check_md_all() {
  check_md_order<Exec, grain::Iterate::Default>();
  check_md_order<Exec, grain::Iterate::Left>();
  check_md_order<Exec, grain::Iterate::Right>();
}

GRAIN_BACKEND_TEST(MDRange, EveryPointOnceAndReduce) { check_md_all<TypeParam>(); }

// Policy bookkeeping: tiles, counts and the default iteration order per back end.
template <class Exec>
void check_md_policy_queries() {
  using P2 = grain::MDRangePolicy<Exec, grain::Rank<2>>;
  const P2 p({1, 2}, {8, 12}, {3, 4});
  EXPECT_EQ(p.extent(0), 7);
  EXPECT_EQ(p.extent(1), 10);
  EXPECT_EQ(p.tiles(0), 3);
  EXPECT_EQ(p.tiles(1), 3);
  EXPECT_EQ(p.num_tiles(), 9);
  EXPECT_EQ(p.tile_volume(), 12);
  EXPECT_EQ(p.size(), 70);
  if (grain::test::is_host_exec<Exec>()) {
    EXPECT_TRUE(P2::iterate == grain::Iterate::Right);
  } else {
    EXPECT_TRUE(P2::iterate == grain::Iterate::Left);
  }
  // Default tiles fit a CUDA block and cover the range.
  const grain::MDRangePolicy<Exec, grain::Rank<3>> q({0, 0, 0}, {100, 100, 100});
  for (int r = 0; r < 3; ++r) {
    EXPECT_GE(q.tile(r), 1);
    EXPECT_LE(q.tile(r), 100);
  }
  if (!grain::test::is_host_exec<Exec>()) {
    EXPECT_LE(q.tile_volume(), 1024);
  }
}

GRAIN_BACKEND_TEST(MDRange, PolicyQueries) { check_md_policy_queries<TypeParam>(); }

}  // namespace
