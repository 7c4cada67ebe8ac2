// TeamPolicy: league/team/vector queries, nested TeamThreadRange / ThreadVectorRange /
// TeamVectorRange loops and reductions, team_barrier, team and thread scratch at levels 0 and 1,
// and team-level parallel_reduce, on every back end with per-back-end team shapes.
#include <vector>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;
using grain::test::TeamShape;

GRAIN_INLINE_FUNCTION double code3(index_type l, index_type i, index_type j) {
  return 1.0 + static_cast<double>(l) * 1000.0 + static_cast<double>(i) * 10.0 + 0.125 * static_cast<double>(j);
}

// ---- nested parallel_for: every (team, i, j) exactly once; member queries ---------------------
template <class Exec>
void check_nested_for(index_type league, const TeamShape& shape, index_type N, index_type M) {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<double***, Space> out("out", league, N, M);
  grain::View<int***, Space> visits("visits", league, N, M);
  grain::View<int**, Space> tt("tt", league, N);             // TeamThreadRange + single(PerThread)
  grain::View<int**, Space> tv("tv", league, N * M);         // TeamVectorRange
  grain::View<int**, Space> offset_hits("offset", league, N);  // TeamThreadRange(m, b, e)
  grain::View<index_type**, Space> info("info", league, 4);
  grain::View<int*, Space> bad("bad", 1);
  grain::test::poison(out);
  const auto policy = grain::test::make_team_policy<Exec>(league, shape);
  grain::parallel_for(policy, GRAIN_LAMBDA(const Member& m) {
    const index_type l = m.league_rank();
    grain::parallel_for(grain::TeamThreadRange(m, N), [&](index_type i) {
      grain::parallel_for(grain::ThreadVectorRange(m, M), [&](index_type j) {
        out(l, i, j) = code3(l, i, j);
        grain::atomic_add(&visits(l, i, j), 1);
      });
      grain::single(grain::PerThread(m), [&]() { grain::atomic_add(&tt(l, i), 1); });
    });
    grain::parallel_for(grain::TeamVectorRange(m, N * M), [&](index_type k) { grain::atomic_add(&tv(l, k), 1); });
    grain::parallel_for(grain::TeamThreadRange(m, 2, N), [&](index_type i) {
      grain::parallel_for(grain::ThreadVectorRange(m, 1, 3), [&](index_type j) {
        grain::atomic_add(&offset_hits(l, i), static_cast<int>(j));  // 1 + 2 = 3 per i
      });
    });
    grain::single(grain::PerTeam(m), [&]() {
      info(l, 0) = m.league_rank();
      info(l, 1) = m.league_size();
      info(l, 2) = m.team_size();
      info(l, 3) = m.vector_length();
    });
    if (m.team_rank() < 0 || m.team_rank() >= m.team_size()) grain::atomic_add(&bad(0), 1);
  });
  auto ho = grain::test::to_host(out);
  auto hv = grain::test::to_host(visits);
  auto htt = grain::test::to_host(tt);
  auto htv = grain::test::to_host(tv);
  auto hoff = grain::test::to_host(offset_hits);
  auto hinfo = grain::test::to_host(info);
  auto hbad = grain::test::to_host(bad);
  const std::string what = grain::test::describe(shape) + ", league " + std::to_string(league) +
                           ", N " + std::to_string(N) + ", M " + std::to_string(M);
  ASSERT_EQ(hbad(0), 0) << what;
  for (index_type l = 0; l < league; ++l) {
    ASSERT_EQ(hinfo(l, 0), l) << what;
    ASSERT_EQ(hinfo(l, 1), league) << what;
    if (grain::test::is_host_exec<Exec>()) {
      ASSERT_EQ(hinfo(l, 2), 1) << what;
      ASSERT_EQ(hinfo(l, 3), 1) << what;
    } else {
      if (shape.team > 0) {
        ASSERT_EQ(hinfo(l, 2), shape.team) << what;
      }
      ASSERT_GE(hinfo(l, 2), 1) << what;
      ASSERT_EQ(hinfo(l, 3), shape.vector) << what;
    }
    for (index_type i = 0; i < N; ++i) {
      ASSERT_EQ(htt(l, i), 1) << what << " team " << l << " i " << i;
      ASSERT_EQ(hoff(l, i), i >= 2 ? 3 : 0) << what;
      for (index_type j = 0; j < M; ++j) {
        ASSERT_EQ(hv(l, i, j), 1) << what << " at " << l << "," << i << "," << j;
        ASSERT_EQ(ho(l, i, j), code3(l, i, j)) << what;
      }
    }
    for (index_type k = 0; k < N * M; ++k) ASSERT_EQ(htv(l, k), 1) << what;
  }
}

template <class Exec>
void check_nested_for_all() {
  for (const TeamShape& s : grain::test::team_shapes<Exec>()) {
    check_nested_for<Exec>(13, s, 7, 5);
    check_nested_for<Exec>(1, s, 33, 33);
    check_nested_for<Exec>(100, s, 1, 1);
  }
  // A league much larger than the resident blocks (teams loop inside a CUDA block).
  check_nested_for<Exec>(grain::test::big_size<Exec>(100003, 2003), grain::test::team_shapes<Exec>()[0], 3, 2);
}

GRAIN_BACKEND_TEST(Team, NestedForEveryIndexOnce) { check_nested_for_all<TypeParam>(); }

// ---- nested reductions ----------------------------------------------------------------------
struct Vec4 {
  double a, b, c, d;
};
// A user reducer over a 32-byte value (larger than a shuffle word).
struct Sum4 {
  using is_reducer = grain::impl::reducer_tag;
  using value_type = Vec4;
  Vec4* ref;
  GRAIN_INLINE_FUNCTION explicit Sum4(Vec4& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(Vec4& v) { v.a = v.b = v.c = v.d = 0.0; }
  GRAIN_INLINE_FUNCTION static void join(Vec4& x, const Vec4& y) {
    x.a += y.a;
    x.b += y.b;
    x.c += y.c;
    x.d += y.d;
  }
  GRAIN_INLINE_FUNCTION Vec4& reference() const { return *ref; }
};

// res(l, k): k = 0 TeamThread sum of column 0, 1 TeamVector max, 2..5 TeamThread Vec4 sums,
// 6 TeamThread integer count, 7 sum of ThreadVector row sums. rows(l, i): ThreadVector row sums.
template <class Exec>
void check_nested_reduce(index_type league, const TeamShape& shape, index_type N, index_type M) {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<double***, grain::HostSpace> hA("A", league, N, M);
  grain::test::fill_random(hA, 77 + league + N * M);
  grain::View<double***, Space> A("A", league, N, M);
  grain::deep_copy(A, hA);
  grain::View<double**, Space> res("res", league, 8);
  grain::View<double**, Space> rows("rows", league, N);
  grain::View<int**, Space> rowcount("rowcount", league, N);
  grain::View<int*, Space> bad("bad", 1);
  grain::test::poison(res);
  grain::test::poison(rows);
  const auto policy = grain::test::make_team_policy<Exec>(league, shape);
  grain::parallel_for(policy, GRAIN_LAMBDA(const Member& m) {
    const index_type l = m.league_rank();
    double col0 = 0;
    grain::parallel_reduce(grain::TeamThreadRange(m, N), [&](index_type i, double& s) { s += A(l, i, 0); }, col0);
    double mx = 0;
    grain::parallel_reduce(grain::TeamVectorRange(m, N * M), [&](index_type k, double& v) {
      const double x = A(l, k / M, k % M);
      if (v < x) v = x;
    }, grain::Max<double>(mx));
    Vec4 v4;
    grain::parallel_reduce(grain::TeamThreadRange(m, N), [&](index_type i, Vec4& v) {
      v.a += A(l, i, M - 1);
      v.b += 2.0 * A(l, i, 0);
      v.c += 1.0;
      v.d += static_cast<double>(i);
    }, Sum4(v4));
    int count = -1;
    grain::parallel_reduce(grain::TeamThreadRange(m, N), [&](index_type i, int& c) { c += (i % 3 == 0) ? 1 : 0; }, count);
    // Row sums: a ThreadVectorRange reduction inside a TeamThreadRange loop whose trip count
    // differs between the threads of a warp.
    double rowtotal = 0;
    grain::parallel_reduce(grain::TeamThreadRange(m, N), [&](index_type i, double& outer) {
      double rs = 0;
      grain::parallel_reduce(grain::ThreadVectorRange(m, M), [&](index_type j, double& s) { s += A(l, i, j); }, rs);
      int cnt = 0;
      grain::parallel_reduce(grain::ThreadVectorRange(m, M), [&](index_type j, int& c) { c += static_cast<int>(j) + 1; }, cnt);
      if (cnt != static_cast<int>(M * (M + 1) / 2)) grain::atomic_add(&bad(0), 1);  // every lane
      // A 32-byte value through the vector lanes' shuffles.
      Vec4 rv;
      grain::parallel_reduce(grain::ThreadVectorRange(m, M), [&](index_type j, Vec4& v) {
        v.a += 1.0;
        v.b += static_cast<double>(j);
        v.c += static_cast<double>(i);
        v.d -= 2.0;
      }, Sum4(rv));
      if (!(rv.a == static_cast<double>(M)) || !(rv.b == static_cast<double>(M * (M - 1) / 2)) ||
          !(rv.c == static_cast<double>(i * M)) || !(rv.d == -2.0 * static_cast<double>(M)))
        grain::atomic_add(&bad(0), 1);
      grain::single(grain::PerThread(m), [&]() {
        rows(l, i) = rs;
        grain::atomic_add(&rowcount(l, i), 1);
      });
      outer += rs;
    }, rowtotal);
    grain::single(grain::PerTeam(m), [&]() {
      res(l, 0) = col0;
      res(l, 1) = mx;
      res(l, 2) = v4.a;
      res(l, 3) = v4.b;
      res(l, 4) = v4.c;
      res(l, 5) = v4.d;
      res(l, 6) = count;
      res(l, 7) = rowtotal;
    });
    m.team_barrier();
    // Every thread received the same team-wide results.
    if (!(col0 == res(l, 0)) || !(mx == res(l, 1)) || !(v4.c == res(l, 4)) || count != res(l, 6))
      grain::atomic_add(&bad(0), 1);
  });
  auto hres = grain::test::to_host(res);
  auto hrows = grain::test::to_host(rows);
  auto hcount = grain::test::to_host(rowcount);
  auto hbad = grain::test::to_host(bad);
  const std::string what = grain::test::describe(shape) + ", league " + std::to_string(league) +
                           ", N " + std::to_string(N) + ", M " + std::to_string(M);
  ASSERT_EQ(hbad(0), 0) << what;
  const double tol = grain::test::tolerance<double>(N * M);
  for (index_type l = 0; l < league; ++l) {
    double col0 = 0, mx = hA(l, 0, 0), a = 0, b = 0, d = 0, total = 0;
    int count = 0;
    for (index_type i = 0; i < N; ++i) {
      col0 += hA(l, i, 0);
      a += hA(l, i, M - 1);
      b += 2.0 * hA(l, i, 0);
      d += static_cast<double>(i);
      count += (i % 3 == 0);
      double rs = 0;
      for (index_type j = 0; j < M; ++j) {
        rs += hA(l, i, j);
        mx = std::max(mx, hA(l, i, j));
      }
      total += rs;
      ASSERT_EQ(hcount(l, i), 1) << what;
      ASSERT_TRUE(grain::test::near(hrows(l, i), rs, tol)) << what << " row " << i;
    }
    ASSERT_TRUE(grain::test::near(hres(l, 0), col0, tol)) << what;
    ASSERT_EQ(hres(l, 1), mx) << what;
    ASSERT_TRUE(grain::test::near(hres(l, 2), a, tol)) << what;
    ASSERT_TRUE(grain::test::near(hres(l, 3), b, tol)) << what;
    ASSERT_EQ(hres(l, 4), static_cast<double>(N)) << what;
    ASSERT_EQ(hres(l, 5), d) << what;
    ASSERT_EQ(hres(l, 6), static_cast<double>(count)) << what;
    ASSERT_TRUE(grain::test::near(hres(l, 7), total, tol)) << what;
  }
}

template <class Exec>
void check_nested_reduce_all() {
  for (const TeamShape& s : grain::test::team_shapes<Exec>()) {
    check_nested_reduce<Exec>(13, s, 7, 5);
    check_nested_reduce<Exec>(3, s, 33, 33);
    check_nested_reduce<Exec>(5, s, 1, 1);
    check_nested_reduce<Exec>(2, s, 1000, 3);
  }
}

GRAIN_BACKEND_TEST(Team, NestedReductions) { check_nested_reduce_all<TypeParam>(); }

// ---- scratch memory at both levels, team and thread, with barriers ------------------------------
template <class Exec>
void check_scratch(index_type league, const TeamShape& shape, index_type N, index_type K) {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<double**, Space> out("out", league, N);
  grain::View<int*, Space> bad("bad", 4);
  grain::test::poison(out);
  auto policy = grain::test::make_team_policy<Exec>(league, shape);
  policy.set_scratch_size(0, grain::PerTeam(N * sizeof(double)), grain::PerThread(K * sizeof(int)))
      .set_scratch_size(1, grain::PerTeam(N * sizeof(double)))
      .set_scratch_size(1, grain::PerThread(K * sizeof(double)));
  EXPECT_GE(policy.team_scratch_size(0), static_cast<std::size_t>(N * sizeof(double)));
  EXPECT_GE(policy.thread_scratch_size(0), static_cast<std::size_t>(K * sizeof(int)));
  EXPECT_GE(policy.team_scratch_size(1), static_cast<std::size_t>(N * sizeof(double)));
  EXPECT_GE(policy.thread_scratch_size(1), static_cast<std::size_t>(K * sizeof(double)));
  grain::parallel_for(policy, GRAIN_LAMBDA(const Member& m) {
    const index_type l = m.league_rank();
    double* s0 = m.team_scratch(0).template get<double>(N);
    double* s1 = m.team_scratch(1).template get<double>(N);
    int* t0 = m.thread_scratch(0).template get<int>(K);
    double* t1 = m.thread_scratch(1).template get<double>(K);
    if (!s0 || !s1 || !t0 || !t1) {
      grain::single(grain::PerTeam(m), [&]() { grain::atomic_add(&bad(0), 1); });
      return;
    }
    // The policy reserved exactly this much: a further request must fail, not overflow.
    if (m.team_scratch(0).template get<char>(1) != nullptr) grain::single(grain::PerTeam(m), [&]() { grain::atomic_add(&bad(1), 1); });
    // Team scratch as a View in ScratchSpace.
    grain::View<double*, grain::ScratchSpace> v0(s0, N);
    grain::parallel_for(grain::TeamVectorRange(m, N), [&](index_type i) {
      v0(i) = code3(l, i, 0);
      s1[i] = 2.0 * code3(l, i, 1);
    });
    m.team_barrier();
    // Read entries written by other threads (reversed and rotated).
    grain::parallel_for(grain::TeamVectorRange(m, N), [&](index_type i) {
      out(l, i) = v0(N - 1 - i) + s1[(i + 1) % N];
    });
    // Thread scratch: private to each thread (its vector lanes share it).
    grain::single(grain::PerThread(m), [&]() {
      for (index_type k = 0; k < K; ++k) {
        t0[k] = static_cast<int>(l * 7 + m.team_rank() * 3 + k);
        t1[k] = 0.5 * static_cast<double>(t0[k]);
      }
    });
    m.team_barrier();
    grain::single(grain::PerThread(m), [&]() {
      for (index_type k = 0; k < K; ++k)
        if (t0[k] != static_cast<int>(l * 7 + m.team_rank() * 3 + k) || !(t1[k] == 0.5 * t0[k]))
          grain::atomic_add(&bad(2), 1);
    });
  });
  auto hout = grain::test::to_host(out);
  auto hbad = grain::test::to_host(bad);
  const std::string what = grain::test::describe(shape) + ", league " + std::to_string(league) +
                           ", N " + std::to_string(N) + ", K " + std::to_string(K);
  EXPECT_EQ(hbad(0), 0) << what << ": scratch request refused";
  EXPECT_EQ(hbad(1), 0) << what << ": scratch handed out past the reserved size";
  EXPECT_EQ(hbad(2), 0) << what << ": thread scratch not private";
  for (index_type l = 0; l < league; ++l)
    for (index_type i = 0; i < N; ++i)
      ASSERT_EQ(hout(l, i), code3(l, N - 1 - i, 0) + 2.0 * code3(l, (i + 1) % N, 1)) << what;
}

template <class Exec>
void check_scratch_all() {
  for (const TeamShape& s : grain::test::team_shapes<Exec>()) {
    check_scratch<Exec>(13, s, 33, 5);
    check_scratch<Exec>(1, s, 1, 1);
  }
  // Many teams reuse each block's scratch; and a level-0 buffer above the default 48 KiB.
  check_scratch<Exec>(grain::test::big_size<Exec>(10007, 1001), grain::test::team_shapes<Exec>()[0], 17, 3);
  check_scratch<Exec>(13, grain::test::team_shapes<Exec>()[1], 7001, 2);
}

GRAIN_BACKEND_TEST(Team, ScratchLevelsAndBarrier) { check_scratch_all<TypeParam>(); }

// Without a scratch request every get() answers nullptr.
template <class Exec>
void check_no_scratch() {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<int*, Space> got("got", 1);
  grain::parallel_for(grain::test::make_team_policy<Exec>(3, grain::test::team_shapes<Exec>()[0]),
                      GRAIN_LAMBDA(const Member& m) {
    if (m.team_scratch(0).template get<double>(1) || m.team_scratch(1).template get<double>(1) ||
        m.thread_scratch(0).template get<double>(1) || m.thread_scratch(1).template get<double>(1))
      grain::atomic_add(&got(0), 1);
  });
  EXPECT_EQ(grain::test::to_host(got)(0), 0);
}

GRAIN_BACKEND_TEST(Team, NoScratchMeansNullptr) { check_no_scratch<TypeParam>(); }

// ---- team-level parallel_reduce -----------------------------------------------------------------
template <class Exec>
void check_team_reduce(index_type league, const TeamShape& shape, index_type N) {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<double**, grain::HostSpace> hA("A", league, N);
  grain::test::fill_random(hA, 5 + league);
  grain::View<double**, Space> A("A", league, N);
  grain::deep_copy(A, hA);
  const auto policy = grain::test::make_team_policy<Exec>(league, shape);
  double total = std::numeric_limits<double>::quiet_NaN();
  grain::parallel_reduce(policy, GRAIN_LAMBDA(const Member& m, double& update) {
    const index_type l = m.league_rank();
    double s = 0;
    grain::parallel_reduce(grain::TeamThreadRange(m, N), [&](index_type i, double& v) { v += A(l, i); }, s);
    grain::single(grain::PerTeam(m), [&]() { update += s; });
  }, total);
  index_type maxrank = -1;
  grain::parallel_reduce(policy, GRAIN_LAMBDA(const Member& m, index_type& v) {
    if (v < m.league_rank()) v = m.league_rank();
  }, grain::Max<index_type>(maxrank));
  Vec4 v4{1, 1, 1, 1};
  grain::parallel_reduce(policy, GRAIN_LAMBDA(const Member& m, Vec4& v) {
    grain::single(grain::PerTeam(m), [&]() {
      v.a += 1.0;
      v.b += static_cast<double>(m.league_rank());
      v.c += A(m.league_rank(), 0);
      v.d -= 1.0;
    });
  }, Sum4(v4));
  double ref = 0, ref_c = 0;
  for (index_type l = 0; l < league; ++l) {
    for (index_type i = 0; i < N; ++i) ref += hA(l, i);
    ref_c += hA(l, 0);
  }
  const std::string what = grain::test::describe(shape) + ", league " + std::to_string(league);
  EXPECT_TRUE(grain::test::near(total / league, ref / league, grain::test::tolerance<double>(league * N))) << what;
  EXPECT_EQ(maxrank, league - 1) << what;
  EXPECT_EQ(v4.a, static_cast<double>(league)) << what;
  EXPECT_EQ(v4.b, static_cast<double>(league) * (league - 1) / 2) << what;
  EXPECT_TRUE(grain::test::near(v4.c / league, ref_c / league, grain::test::tolerance<double>(league))) << what;
  EXPECT_EQ(v4.d, -static_cast<double>(league)) << what;
}

template <class Exec>
void check_team_reduce_all() {
  for (const TeamShape& s : grain::test::team_shapes<Exec>()) {
    check_team_reduce<Exec>(13, s, 33);
    check_team_reduce<Exec>(1, s, 7);
    check_team_reduce<Exec>(1000, s, 5);
  }
  check_team_reduce<Exec>(grain::test::big_size<Exec>(100003, 2003), grain::test::team_shapes<Exec>()[1], 2);
}

GRAIN_BACKEND_TEST(Team, TeamLevelReduce) { check_team_reduce_all<TypeParam>(); }

// An empty league runs nothing; its reduction is the identity.
template <class Exec>
void check_empty_league() {
  using Space = grain::test::ExecMemory<Exec>;
  using Member = typename grain::TeamPolicy<Exec>::member_type;
  grain::View<int*, Space> ran("ran", 1);
  const auto policy = grain::test::make_team_policy<Exec>(0, grain::test::team_shapes<Exec>()[0]);
  grain::parallel_for(policy, GRAIN_LAMBDA(const Member&) { grain::atomic_add(&ran(0), 1); });
  double s = 5;
  grain::parallel_reduce(policy, GRAIN_LAMBDA(const Member&, double& v) { v += 1; }, s);
  EXPECT_EQ(grain::test::to_host(ran)(0), 0);
  EXPECT_EQ(s, 0.0);
}

GRAIN_BACKEND_TEST(Team, EmptyLeague) { check_empty_league<TypeParam>(); }

TEST(TeamPolicy, Queries) {
  grain::TeamPolicy<grain::Serial> p(17, grain::AUTO, 8);
  EXPECT_EQ(p.league_size(), 17);
  EXPECT_EQ(p.team_size_requested(), 0);
  EXPECT_EQ(p.vector_length(), 8);
  EXPECT_EQ(p.team_scratch_size(0), 0u);
  p.set_scratch_size(0, grain::PerTeam(100));
  p.set_scratch_size(0, grain::PerThread(10));  // keeps the per-team part
  EXPECT_EQ(p.team_scratch_size(0), 112u);       // rounded up to 16 bytes
  EXPECT_EQ(p.thread_scratch_size(0), 16u);
  EXPECT_EQ(p.scratch_bytes(0, 4), 112u + 4 * 16u);
  EXPECT_EQ(p.team_scratch_size(1), 0u);
  grain::TeamPolicy<grain::Serial> q(grain::Serial(), 3, 1, 1);
  EXPECT_EQ(q.team_size_requested(), 1);
}

}  // namespace
