// parallel_for over a RangePolicy: every index exactly once, for odd sizes, offset ranges,
// empty ranges, functors and lambdas, and the plain-count form.
#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

// Each index writes a value derived from itself and counts its visits.
template <class Space>
struct MarkFunctor {
  grain::View<double*, Space> out;
  grain::View<int*, Space> visits;
  index_type begin;
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const {
    out(i - begin) = 2.0 * static_cast<double>(i) + 1.0;
    grain::atomic_add(&visits(i - begin), 1);
  }
};

template <class Exec>
void check_range_for(index_type begin, index_type n, bool use_functor) {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<double*, Space> out("out", n);
  grain::View<int*, Space> visits("visits", n);
  grain::test::poison(out);
  if (use_functor) {
    grain::parallel_for(grain::RangePolicy<Exec>(begin, begin + n), MarkFunctor<Space>{out, visits, begin});
  } else {
    grain::parallel_for("mark", grain::RangePolicy<Exec>(begin, begin + n), GRAIN_LAMBDA(index_type i) {
      out(i - begin) = 2.0 * static_cast<double>(i) + 1.0;
      grain::atomic_add(&visits(i - begin), 1);
    });
  }
  auto ho = grain::test::to_host(out);
  auto hv = grain::test::to_host(visits);
  for (index_type k = 0; k < n; ++k) {
    ASSERT_EQ(hv(k), 1) << "n " << n << " begin " << begin << " index " << k;
    ASSERT_EQ(ho(k), 2.0 * static_cast<double>(begin + k) + 1.0) << "n " << n << " index " << k;
  }
}

template <class Exec>
void check_range_sizes() {
  for (index_type n : grain::test::odd_sizes()) {
    check_range_for<Exec>(0, n, false);
    check_range_for<Exec>(0, n, true);
    check_range_for<Exec>(13, n, false);
  }
  check_range_for<Exec>(-40, 77, true);  // negative begin
}

GRAIN_BACKEND_TEST(Range, EveryIndexOnce) { check_range_sizes<TypeParam>(); }

template <class Exec>
void check_empty_range() {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<int*, Space> touched("touched", 1);
  grain::parallel_for(grain::RangePolicy<Exec>(5, 5), GRAIN_LAMBDA(index_type) { touched(0) = 1; });
  auto h = grain::test::to_host(touched);
  EXPECT_EQ(h(0), 0);
  EXPECT_EQ(grain::RangePolicy<Exec>(5, 5).size(), 0);
  EXPECT_EQ(grain::RangePolicy<Exec>(-3, 4).size(), 7);
}

GRAIN_BACKEND_TEST(Range, EmptyRangeRunsNothing) { check_empty_range<TypeParam>(); }

// The execution-space-instance constructor and the bare-count form (DefaultExecutionSpace).
template <class Exec>
void check_policy_forms() {
  using Space = grain::test::ExecMemory<Exec>;
  const index_type n = 1000;
  grain::View<index_type*, Space> a("a", n);
  grain::parallel_for(grain::RangePolicy<Exec>(Exec(), 0, n), GRAIN_LAMBDA(index_type i) { a(i) = i * i; });
  auto h = grain::test::to_host(a);
  for (index_type i = 0; i < n; ++i) ASSERT_EQ(h(i), i * i);
}

GRAIN_BACKEND_TEST(Range, PolicyWithInstance) { check_policy_forms<TypeParam>(); }

// The bare-count form runs on the default execution space, over default-space memory.
void check_count_form() {
  using Exec = grain::DefaultExecutionSpace;
  using Space = grain::test::ExecMemory<Exec>;
  const int n = 33;
  grain::View<int*, Space> a("a", n);
  grain::parallel_for(n, GRAIN_LAMBDA(index_type i) { a(i) = static_cast<int>(3 * i + 2); });
  int total = 0;
  grain::parallel_reduce(n, GRAIN_LAMBDA(index_type i, int& s) { s += a(i); }, total);
  EXPECT_EQ(total, 3 * (n * (n - 1) / 2) + 2 * n);
}

TEST(Range, CountFormOnDefaultSpace) {
  if (!grain::test::available<grain::DefaultExecutionSpace>()) GTEST_SKIP() << "no device";
  check_count_form();
}

// Kernels on a host back end may run inside another host back end's parallel region.
template <class Exec>
void check_nested_host_regions() {
  if constexpr (grain::test::is_host_exec<Exec>()) {
    const index_type outer = 5, inner = 33;
    grain::View<int**> hits("hits", outer, inner);
    grain::parallel_for(grain::RangePolicy<Exec>(0, outer), [=](index_type i) {
      grain::parallel_for(grain::RangePolicy<Exec>(0, inner), [=](index_type j) { hits(i, j) += 1; });
    });
    for (index_type i = 0; i < outer; ++i)
      for (index_type j = 0; j < inner; ++j) ASSERT_EQ(hits(i, j), 1);
  } else {
    GTEST_SKIP() << "host back ends only";
  }
}

GRAIN_BACKEND_TEST(Range, NestedHostRegions) { check_nested_host_regions<TypeParam>(); }

// The OpenMP runtime may grant fewer threads than a region asks for (OMP_DYNAMIC, thread
// limits, a loaded machine): every index must still run, and every reduction partial be joined.
#if defined(GRAIN_ENABLE_OPENMP)
struct DynamicThreads {
  explicit DynamicThreads(bool on) : saved_dynamic(omp_get_dynamic()), saved_threads(omp_get_max_threads()) {
    omp_set_dynamic(on);
  }
  ~DynamicThreads() {
    omp_set_dynamic(saved_dynamic);
    omp_set_num_threads(saved_threads);
  }
  int saved_dynamic, saved_threads;
};

TEST(Range, OpenMPFewerThreadsThanAsked) {
  DynamicThreads guard(true);
  // Ask for many more threads than the machine has: with dynamic adjustment the runtime grants
  // at most the processors that are free.
  omp_set_num_threads(8 * omp_get_num_procs());
  const index_type n = 10007;
  grain::View<int*> hits("hits", n);
  for (int rep = 0; rep < 5; ++rep) {
    grain::parallel_for(grain::RangePolicy<grain::OpenMP>(0, n), [=](index_type i) { hits(i) += 1; });
    long long s = 0;
    grain::parallel_reduce(grain::RangePolicy<grain::OpenMP>(0, n), [=](index_type i, long long& v) { v += i; }, s);
    ASSERT_EQ(s, static_cast<long long>(n) * (n - 1) / 2) << "rep " << rep;
    double mn = 0;
    grain::parallel_reduce(grain::RangePolicy<grain::OpenMP>(0, n), [=](index_type i, double& v) {
      if (static_cast<double>(i) + 3.0 < v) v = static_cast<double>(i) + 3.0;
    }, grain::Min<double>(mn));
    ASSERT_EQ(mn, 3.0);
    int total = 0;
    grain::parallel_scan(grain::RangePolicy<grain::OpenMP>(0, n), [=](index_type, int& u, bool) { u += 1; }, total);
    ASSERT_EQ(total, n);
  }
  for (index_type i = 0; i < n; ++i) ASSERT_EQ(hits(i), 5) << i;
}
#endif

}  // namespace
