// Atomics under contention: many threads hitting few bins (histograms) for int, long long,
// unsigned, float and double; fetch_add return values; integer min/max. Exact for integers,
// a sum-length tolerance for floating point.
#include <algorithm>
#include <vector>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

GRAIN_INLINE_FUNCTION index_type bin_of(index_type i, index_type bins) { return (i * 2654435761LL) % bins; }

template <class Exec, class T>
void check_histogram(index_type n, index_type bins) {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<T*, Space> hist("hist", bins);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i) {
    // Integer weights 1..3, exactly representable: float sums stay exact below 2^24.
    grain::atomic_add(&hist(bin_of(i, bins)), static_cast<T>(1 + i % 3));
  });
  auto h = grain::test::to_host(hist);
  std::vector<long long> ref(bins, 0);
  for (index_type i = 0; i < n; ++i) ref[bin_of(i, bins)] += 1 + i % 3;
  for (index_type b = 0; b < bins; ++b) {
    if constexpr (std::is_integral_v<T>) {
      ASSERT_EQ(h(b), static_cast<T>(ref[b])) << "bin " << b << " of " << bins << ", n " << n;
    } else {
      ASSERT_TRUE(grain::test::near<T>(h(b), static_cast<T>(ref[b]), grain::test::tolerance<T>(n)))
          << "bin " << b << " of " << bins << ", n " << n;
    }
  }
}

// Non-integer float increments: rounding depends on the order, so compare with a tolerance.
template <class Exec, class T>
void check_float_accumulate(index_type n) {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<T*, Space> acc("acc", 3);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i) {
    grain::atomic_add(&acc(i % 3), static_cast<T>(0.1) * static_cast<T>(1 + i % 5));
  });
  auto h = grain::test::to_host(acc);
  long double ref[3] = {0, 0, 0};
  for (index_type i = 0; i < n; ++i) ref[i % 3] += static_cast<T>(0.1) * static_cast<T>(1 + i % 5);
  for (int b = 0; b < 3; ++b) {
    // Relative error of a sum of n/3 positive terms in any order: about (n/3) * eps.
    const T tol = static_cast<T>(n) * std::numeric_limits<T>::epsilon();
    ASSERT_TRUE(grain::test::near<T>(h(b) / static_cast<T>(ref[b]), T(1), tol)) << b;
  }
}

template <class Exec>
void check_atomics_contention() {
  const index_type n = grain::test::big_size<Exec>(200003, 30011);
  for (index_type bins : {index_type(1), index_type(3), index_type(64)}) {
    check_histogram<Exec, int>(n, bins);
    check_histogram<Exec, unsigned>(n, bins);
    check_histogram<Exec, long long>(n, bins);
    check_histogram<Exec, float>(n, bins);
    check_histogram<Exec, double>(n, bins);
  }
  check_float_accumulate<Exec, float>(grain::test::big_size<Exec>(100003, 20011));
  check_float_accumulate<Exec, double>(grain::test::big_size<Exec>(100003, 20011));
}

GRAIN_BACKEND_TEST(Atomic, HistogramUnderContention) { check_atomics_contention<TypeParam>(); }

// atomic_fetch_add hands out each previous value exactly once: a ticket dispenser.
template <class Exec>
void check_fetch_add_tickets() {
  using Space = grain::test::ExecMemory<Exec>;
  const index_type n = 100003;
  grain::View<int*, Space> counter("counter", 1);
  grain::View<int*, Space> seen("seen", n);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type) {
    const int ticket = grain::atomic_fetch_add(&counter(0), 1);
    if (ticket >= 0 && ticket < n) grain::atomic_add(&seen(ticket), 1);
  });
  auto hs = grain::test::to_host(seen);
  auto hc = grain::test::to_host(counter);
  EXPECT_EQ(hc(0), n);
  for (index_type i = 0; i < n; ++i) ASSERT_EQ(hs(i), 1) << "ticket " << i;
  // Same for double: fetch_add returns distinct multiples of 0.5.
  grain::View<double*, Space> dc("dc", 1);
  grain::View<int*, Space> dseen("dseen", 1001);
  grain::parallel_for(grain::RangePolicy<Exec>(0, 1001), GRAIN_LAMBDA(index_type) {
    const double old = grain::atomic_fetch_add(&dc(0), 0.5);
    const index_type k = static_cast<index_type>(old * 2.0);
    if (k >= 0 && k < 1001 && old * 2.0 == static_cast<double>(k)) grain::atomic_add(&dseen(k), 1);
  });
  auto hds = grain::test::to_host(dseen);
  for (index_type i = 0; i < 1001; ++i) ASSERT_EQ(hds(i), 1) << "double ticket " << i;
  EXPECT_EQ(grain::test::to_host(dc)(0), 500.5);
}

GRAIN_BACKEND_TEST(Atomic, FetchAddTickets) { check_fetch_add_tickets<TypeParam>(); }

template <class Exec>
void check_min_max() {
  using Space = grain::test::ExecMemory<Exec>;
  const index_type n = 100003;
  grain::View<int*, Space> mm("mm", 2);
  grain::deep_copy(mm, 0);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i) {
    const int v = static_cast<int>((i * 7919) % 100003) - 50000;
    grain::atomic_fetch_max(&mm(0), v);
    grain::atomic_fetch_min(&mm(1), v);
  });
  auto h = grain::test::to_host(mm);
  EXPECT_EQ(h(0), 100002 - 50000);
  EXPECT_EQ(h(1), -50000);
}

GRAIN_BACKEND_TEST(Atomic, IntegerMinMax) { check_min_max<TypeParam>(); }

// Atomics from team threads and vector lanes into one shared counter.
template <class Exec>
void check_team_atomics() {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<long long*, Space> total("total", 2);
  for (const auto& s : grain::test::team_shapes<Exec>()) {
    grain::deep_copy(total, 0LL);
    grain::parallel_for(grain::test::make_team_policy<Exec>(101, s), GRAIN_LAMBDA(const Member& m) {
      grain::parallel_for(grain::TeamThreadRange(m, 17), [&](index_type i) {
        grain::parallel_for(grain::ThreadVectorRange(m, 9), [&](index_type j) {
          grain::atomic_add(&total(0), static_cast<long long>(i * 9 + j));
        });
      });
      grain::parallel_for(grain::TeamVectorRange(m, 5), [&](index_type) { grain::atomic_add(&total(1), 1LL); });
    });
    auto h = grain::test::to_host(total);
    EXPECT_EQ(h(0), 101LL * (153LL * 152 / 2)) << grain::test::describe(s);
    EXPECT_EQ(h(1), 101LL * 5) << grain::test::describe(s);
  }
}

GRAIN_BACKEND_TEST(Atomic, FromTeamsAndLanes) { check_team_atomics<TypeParam>(); }

}  // namespace
