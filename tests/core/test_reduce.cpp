// parallel_reduce: sum, min, max, prod over ranges and MD ranges, user reducers with value_type,
// init and join (the paper's center of mass with a 4-double value), and empty ranges, on every
// back end, against serial references.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

template <class Exec, class T>
grain::View<T*, grain::test::ExecMemory<Exec>> device_random(index_type n, std::uint64_t seed,
                                                            std::vector<T>& host_copy) {
  grain::View<T*, grain::HostSpace> h("h", n);
  grain::test::fill_random(h, seed);
  host_copy.assign(h.data(), h.data() + n);
  grain::View<T*, grain::test::ExecMemory<Exec>> d("d", n);
  grain::deep_copy(d, h);
  return d;
}

template <class Exec, class T>
void check_builtin_reducers(index_type n) {
  std::vector<T> x;
  auto d = device_random<Exec, T>(n, 1000 + n, x);
  const grain::RangePolicy<Exec> p(0, n);

  T sum = std::numeric_limits<T>::quiet_NaN();
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, T& s) { s += d(i); }, sum);
  T sum2 = std::numeric_limits<T>::quiet_NaN();
  grain::parallel_reduce("sum", p, GRAIN_LAMBDA(index_type i, T& s) { s += d(i); }, grain::Sum<T>(sum2));
  T mn = std::numeric_limits<T>::quiet_NaN(), mx = mn;
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, T& m) { if (d(i) < m) m = d(i); }, grain::Min<T>(mn));
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, T& m) { if (m < d(i)) m = d(i); }, grain::Max<T>(mx));
  // Product of values near 1 so it neither overflows nor vanishes: 1 + x/n.
  T prod = std::numeric_limits<T>::quiet_NaN();
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, T& q) { q *= T(1) + d(i) / T(n); }, grain::Prod<T>(prod));

  long double rsum = 0, rprod = 1;
  T rmin = x[0], rmax = x[0];
  for (index_type i = 0; i < n; ++i) {
    rsum += x[i];
    rprod *= (T(1) + x[i] / T(n));
    rmin = std::min(rmin, x[i]);
    rmax = std::max(rmax, x[i]);
  }
  // Sums of n values of magnitude ~1: the error bound scales with n, not the (cancelling) sum.
  const T tol = grain::test::tolerance<T>(n);
  const T scale = static_cast<T>(n);
  EXPECT_TRUE(grain::test::near<T>(sum / scale, static_cast<T>(rsum) / scale, tol)) << "n " << n;
  EXPECT_TRUE(grain::test::near<T>(sum2 / scale, static_cast<T>(rsum) / scale, tol)) << "n " << n;
  EXPECT_EQ(mn, rmin) << "n " << n;
  EXPECT_EQ(mx, rmax) << "n " << n;
  EXPECT_TRUE(grain::test::near<T>(prod, static_cast<T>(rprod), tol)) << "n " << n;
}

template <class Exec>
void check_integer_reductions(index_type n) {
  using Space = grain::test::ExecMemory<Exec>;
  const grain::RangePolicy<Exec> p(0, n);
  long long s = -1;
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, long long& v) { v += 3 * i - 7; }, s);
  EXPECT_EQ(s, 3 * (static_cast<long long>(n) * (n - 1) / 2) - 7 * n) << n;
  int mx = -1, mn = -1;
  // (i * 7919) % 1009 peaks at 1008 once n >= 1009; the min is 0 (at i = 0).
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, int& m) {
    const int v = static_cast<int>((i * 7919) % 1009);
    if (m < v) m = v;
  }, grain::Max<int>(mx));
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type i, int& m) {
    const int v = static_cast<int>((i * 7919) % 1009) + 5;
    if (v < m) m = v;
  }, grain::Min<int>(mn));
  int rmx = 0;
  for (index_type i = 0; i < n; ++i) rmx = std::max(rmx, static_cast<int>((i * 7919) % 1009));
  EXPECT_EQ(mx, rmx) << n;
  EXPECT_EQ(mn, 5) << n;
  // An offset range.
  int count = -1;
  grain::parallel_reduce(grain::RangePolicy<Exec>(17, 17 + n), GRAIN_LAMBDA(index_type i, int& c) {
    c += (i >= 17) ? 1 : 1000000;
  }, count);
  EXPECT_EQ(count, n);
  (void)sizeof(Space);
}

template <class Exec>
void check_reducers_all_sizes() {
  for (index_type n : grain::test::odd_sizes()) {
    check_builtin_reducers<Exec, double>(n);
    check_builtin_reducers<Exec, float>(n);
    check_integer_reductions<Exec>(n);
  }
}

GRAIN_BACKEND_TEST(Reduce, SumMinMaxProd) { check_reducers_all_sizes<TypeParam>(); }

// Empty ranges leave each reducer's identity in the result.
template <class Exec>
void check_empty_reductions() {
  const grain::RangePolicy<Exec> p(4, 4);
  double s = 99, prod = 99, mn = 99, mx = 99;
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type, double& v) { v += 1; }, s);
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type, double& v) { v *= 2; }, grain::Prod<double>(prod));
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type, double& v) { v = -1; }, grain::Min<double>(mn));
  grain::parallel_reduce(p, GRAIN_LAMBDA(index_type, double& v) { v = -1; }, grain::Max<double>(mx));
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(prod, 1.0);
  EXPECT_EQ(mn, std::numeric_limits<double>::max());
  EXPECT_EQ(mx, std::numeric_limits<double>::lowest());
}

GRAIN_BACKEND_TEST(Reduce, EmptyRangeGivesIdentity) { check_empty_reductions<TypeParam>(); }

// ---- the paper's center of mass: a functor reducer with a 4-double value --------------------------
struct Mass4 {
  double x, y, z, m;
};

template <class Space>
struct CenterOfMass {
  using value_type = Mass4;
  grain::View<double**, Space> pos;  // (n, 3)
  grain::View<double*, Space> mass;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, value_type& v) const {
    const double m = mass(i);
    v.x += m * pos(i, 0);
    v.y += m * pos(i, 1);
    v.z += m * pos(i, 2);
    v.m += m;
  }
  GRAIN_INLINE_FUNCTION static void init(value_type& v) { v.x = v.y = v.z = v.m = 0.0; }
  GRAIN_INLINE_FUNCTION static void join(value_type& a, const value_type& b) {
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
    a.m += b.m;
  }
};

// A non-commutative-looking user reducer with non-trivial identity: the arg-max with its index
// (ties broken towards the smaller index, so the result is unique), 16 bytes.
struct ArgMax {
  double value;
  index_type index;
};

template <class Space>
struct FindArgMax {
  using value_type = ArgMax;
  grain::View<double*, Space> x;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, value_type& v) const {
    const double xi = x(i);
    if (xi > v.value || (xi == v.value && i < v.index)) {
      v.value = xi;
      v.index = i;
    }
  }
  GRAIN_INLINE_FUNCTION void init(value_type& v) const {
    v.value = -1e300;
    v.index = -1;
  }
  GRAIN_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    if (b.value > a.value || (b.value == a.value && b.index >= 0 && (a.index < 0 || b.index < a.index))) a = b;
  }
};

template <class Exec>
void check_center_of_mass(index_type n) {
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<double**, grain::HostSpace> hp("pos", n, 3);
  grain::View<double*, grain::HostSpace> hm("mass", n);
  grain::test::fill_random(hp, 7 + n);
  grain::test::fill_random(hm, 8 + n);
  for (index_type i = 0; i < n; ++i) hm(i) = std::abs(hm(i));
  grain::View<double**, Space> pos("pos", n, 3);
  grain::View<double*, Space> mass("mass", n);
  grain::deep_copy(pos, hp);
  grain::deep_copy(mass, hm);
  Mass4 r{std::nan(""), std::nan(""), std::nan(""), std::nan("")};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), CenterOfMass<Space>{pos, mass}, r);
  long double ref[4] = {0, 0, 0, 0};
  for (index_type i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) ref[c] += hm(i) * hp(i, c);
    ref[3] += hm(i);
  }
  const double tol = grain::test::tolerance<double>(n);
  const double scale = static_cast<double>(n);
  EXPECT_TRUE(grain::test::near(r.x / scale, static_cast<double>(ref[0]) / scale, tol)) << n;
  EXPECT_TRUE(grain::test::near(r.y / scale, static_cast<double>(ref[1]) / scale, tol)) << n;
  EXPECT_TRUE(grain::test::near(r.z / scale, static_cast<double>(ref[2]) / scale, tol)) << n;
  EXPECT_TRUE(grain::test::near(r.m / scale, static_cast<double>(ref[3]) / scale, tol)) << n;

  ArgMax am{std::nan(""), -7};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), FindArgMax<Space>{mass}, am);
  index_type best = 0;
  for (index_type i = 1; i < n; ++i)
    if (hm(i) > hm(best)) best = i;
  EXPECT_EQ(am.index, best) << n;
  EXPECT_EQ(am.value, hm(best)) << n;
}

template <class Exec>
void check_functor_reducers() {
  for (index_type n : grain::test::odd_sizes()) check_center_of_mass<Exec>(n);
  // Empty range: the functor's init.
  using Space = grain::test::ExecMemory<Exec>;
  grain::View<double**, Space> pos("pos", 0, 3);
  grain::View<double*, Space> mass("mass", 0);
  Mass4 r{1, 2, 3, 4};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, 0), CenterOfMass<Space>{pos, mass}, r);
  EXPECT_EQ(r.x, 0.0);
  EXPECT_EQ(r.m, 0.0);
  ArgMax am{5, 5};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, 0), FindArgMax<Space>{mass}, am);
  EXPECT_EQ(am.index, -1);
}

GRAIN_BACKEND_TEST(Reduce, FunctorReducerCenterOfMass) { check_functor_reducers<TypeParam>(); }

// User reducers over values of 12 bytes (three shuffle words) and 64 bytes (the CUDA limit),
// through range, MD-range and team reductions.
struct Float3 {
  float x, y, z;
};
struct Stats8 {
  double v[8];
};
template <class T>
struct ElementwiseSum {
  using is_reducer = grain::impl::reducer_tag;
  using value_type = T;
  T* ref;
  GRAIN_INLINE_FUNCTION explicit ElementwiseSum(T& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(T& a) {
    if constexpr (std::is_same_v<T, Float3>) {
      a.x = a.y = a.z = 0.0f;
    } else {
      for (int k = 0; k < 8; ++k) a.v[k] = 0.0;
    }
  }
  GRAIN_INLINE_FUNCTION static void join(T& a, const T& b) {
    if constexpr (std::is_same_v<T, Float3>) {
      a.x += b.x;
      a.y += b.y;
      a.z += b.z;
    } else {
      for (int k = 0; k < 8; ++k) a.v[k] += b.v[k];
    }
  }
  GRAIN_INLINE_FUNCTION T& reference() const { return *ref; }
};

template <class Exec>
void check_wide_values(index_type n) {
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  // Integer-valued terms: every order of summation gives the exact result.
  Float3 f{-1, -1, -1};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i, Float3& a) {
    a.x += 1.0f;
    a.y += static_cast<float>(i % 4);
    a.z -= 2.0f;
  }, ElementwiseSum<Float3>(f));
  long long y = 0;
  for (index_type i = 0; i < n; ++i) y += i % 4;
  EXPECT_EQ(f.x, static_cast<float>(n)) << n;
  EXPECT_EQ(f.y, static_cast<float>(y)) << n;
  EXPECT_EQ(f.z, -2.0f * static_cast<float>(n)) << n;
  Stats8 s{};
  grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i, Stats8& a) {
    for (int k = 0; k < 8; ++k) a.v[k] += static_cast<double>((i + k) % 5);
  }, ElementwiseSum<Stats8>(s));
  for (int k = 0; k < 8; ++k) {
    long long r = 0;
    for (index_type i = 0; i < n; ++i) r += (i + k) % 5;
    EXPECT_EQ(s.v[k], static_cast<double>(r)) << n << " component " << k;
  }
  // MD range (tiles that do not divide the extents) and teams.
  const index_type n1 = 7;
  Stats8 md{};
  grain::parallel_reduce(grain::MDRangePolicy<Exec, grain::Rank<2>>({0, 0}, {n, n1}, {3, 2}),
                         GRAIN_LAMBDA(index_type, index_type j, Stats8& a) {
    a.v[0] += 1.0;
    a.v[7] += static_cast<double>(j);
  }, ElementwiseSum<Stats8>(md));
  EXPECT_EQ(md.v[0], static_cast<double>(n * n1)) << n;
  EXPECT_EQ(md.v[7], static_cast<double>(n * 21)) << n;
  Stats8 tm{};
  const auto tp = grain::test::make_team_policy<Exec>(n, grain::test::team_shapes<Exec>()[1]);
  grain::parallel_reduce(tp, GRAIN_LAMBDA(const Member& m, Stats8& a) {
    Stats8 inner;
    grain::parallel_reduce(grain::TeamThreadRange(m, 5), [&](index_type i, Stats8& b) {
      for (int k = 0; k < 8; ++k) b.v[k] += static_cast<double>(i + k);
    }, ElementwiseSum<Stats8>(inner));
    grain::single(grain::PerTeam(m), [&]() {
      for (int k = 0; k < 8; ++k) a.v[k] += inner.v[k];
    });
  }, ElementwiseSum<Stats8>(tm));
  for (int k = 0; k < 8; ++k) EXPECT_EQ(tm.v[k], static_cast<double>(n * (10 + 5 * k))) << n << " component " << k;
}

template <class Exec>
void check_wide_values_all() {
  for (index_type n : grain::test::odd_sizes()) check_wide_values<Exec>(n);
}

GRAIN_BACKEND_TEST(Reduce, WideUserValues) { check_wide_values_all<TypeParam>(); }

// Repeated reductions of different grid sizes reuse the device workspace and block counter.
template <class Exec>
void check_repeated_reductions() {
  const index_type sizes[] = {100003, 1, 33, 100003, 7, 1000, grain::test::big_size<Exec>(2000000, 200003)};
  for (int rep = 0; rep < 2; ++rep)
    for (index_type n : sizes) {
      long long s = -1;
      grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i, long long& v) { v += i; }, s);
      ASSERT_EQ(s, static_cast<long long>(n) * (n - 1) / 2) << n;
    }
}

GRAIN_BACKEND_TEST(Reduce, RepeatedReductionsOfManySizes) { check_repeated_reductions<TypeParam>(); }

}  // namespace
