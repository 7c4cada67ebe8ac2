// parallel_scan: exclusive prefix sums against a serial reference, for small, odd and large
// sizes (many CUDA blocks, several tiles per block), offset ranges, integer and floating-point
// values, functors with value_type, and the total.
#include <vector>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

template <class Exec, class T>
void check_scan(index_type begin, index_type n) {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<T*, grain::HostSpace> hx("x", n);
  if constexpr (std::is_integral_v<T>) {
    for (index_type i = 0; i < n; ++i) hx(i) = static_cast<T>((i * 37 + 11) % 19) - 9 + (i % 19 == 9 ? 1 : 0);
  } else {
    grain::test::fill_random(hx, 31 + n);
  }
  grain::View<T*, Space> x("x", n);
  grain::deep_copy(x, hx);
  grain::View<T*, Space> y("y", n);
  grain::View<int*, Space> finals("finals", n);
  grain::test::poison(y);
  T total = static_cast<T>(-999);
  grain::parallel_scan(grain::RangePolicy<Exec>(begin, begin + n), GRAIN_LAMBDA(index_type i, T& update, bool final) {
    if (final) {
      y(i - begin) = update;  // exclusive: the sum before i
      grain::atomic_add(&finals(i - begin), 1);
    }
    update += x(i - begin);
  }, total);
  auto hy = grain::test::to_host(y);
  auto hf = grain::test::to_host(finals);
  // Reference in long double / exact integers.
  long double run = 0;
  const T tol = grain::test::tolerance<T>(n);
  for (index_type i = 0; i < n; ++i) {
    ASSERT_EQ(hf(i), 1) << "n " << n << ": index " << i << " saw final=true " << hf(i) << " times";
    if constexpr (std::is_integral_v<T>) {
      ASSERT_EQ(hy(i), static_cast<T>(run)) << "n " << n << " index " << i;
    } else {
      // Partial sums of +/-1 values: scale the tolerance by the number of terms.
      ASSERT_TRUE(grain::test::near<T>(hy(i) / T(i + 1), static_cast<T>(run) / T(i + 1), tol))
          << "n " << n << " index " << i;
    }
    run += hx(i);
  }
  if constexpr (std::is_integral_v<T>) {
    EXPECT_EQ(total, static_cast<T>(run)) << n;
  } else {
    EXPECT_TRUE(grain::test::near<T>(total / T(n), static_cast<T>(run) / T(n), tol)) << n;
  }
}

template <class Exec>
void check_scan_sizes() {
  // On the GPU, 1000003 and 3000017 give every block of the scan several tiles of its chunk.
  const index_type big = grain::test::big_size<Exec>(1000003, 20011);
  const index_type bigger = grain::test::big_size<Exec>(3000017, 30011);
  for (index_type n : {index_type(1), index_type(2), index_type(7), index_type(33), index_type(255),
                       index_type(256), index_type(257), index_type(1000), index_type(100003), big,
                       bigger}) {
    check_scan<Exec, long long>(0, n);
    if (n <= 100003) {
      check_scan<Exec, int>(0, n);
      check_scan<Exec, double>(0, n);
    }
    if (n <= 1000) check_scan<Exec, float>(0, n);
  }
  check_scan<Exec, long long>(-17, 1000);
  check_scan<Exec, double>(5, 33);
}

GRAIN_BACKEND_TEST(Scan, ExclusivePrefixSum) { check_scan_sizes<TypeParam>(); }

// A functor with value_type: parallel_scan(policy, f) without a total; writes offsets of a
// compaction (the classic use: positions of the selected entries).
template <class Space>
struct CompactOffsets {
  using value_type = int;
  grain::View<int*, Space> keep;
  grain::View<int*, Space> pos;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, int& update, bool final) const {
    if (final && keep(i)) pos(i) = update;
    update += keep(i);
  }
};

template <class Exec>
void check_scan_functor() {
  using Space = grain::test::ExecMemory<Exec>;
  const index_type n = 100003;
  grain::View<int*, grain::HostSpace> hk("keep", n);
  for (index_type i = 0; i < n; ++i) hk(i) = (i % 3 == 1 || i % 7 == 0) ? 1 : 0;
  grain::View<int*, Space> keep("keep", n);
  grain::View<int*, Space> pos("pos", n);
  grain::deep_copy(keep, hk);
  grain::deep_copy(pos, -1);
  grain::parallel_scan(grain::RangePolicy<Exec>(0, n), CompactOffsets<Space>{keep, pos});
  int total = -1;
  grain::parallel_scan(grain::RangePolicy<Exec>(0, n), CompactOffsets<Space>{keep, pos}, total);
  auto hp = grain::test::to_host(pos);
  int run = 0;
  for (index_type i = 0; i < n; ++i) {
    ASSERT_EQ(hp(i), hk(i) ? run : -1) << i;
    run += hk(i);
  }
  EXPECT_EQ(total, run);
}

GRAIN_BACKEND_TEST(Scan, FunctorCompaction) { check_scan_functor<TypeParam>(); }

template <class Exec>
void check_empty_scan() {
  int total = 7;
  grain::parallel_scan(grain::RangePolicy<Exec>(3, 3), GRAIN_LAMBDA(index_type, int& u, bool) { u += 1; }, total);
  EXPECT_EQ(total, 0);
}

GRAIN_BACKEND_TEST(Scan, EmptyRange) { check_empty_scan<TypeParam>(); }

}  // namespace
