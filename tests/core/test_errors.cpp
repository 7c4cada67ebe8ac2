// Every error path of the core raises grain::Error with a message naming what was wrong:
// shapes in deep_copy, extents, policies' bounds, tiles, team shapes and scratch levels, spaces
// missing from the build, exceptions thrown by kernel bodies, and (with GRAIN_DEBUG_BOUNDS)
// out-of-bounds View access.
#include <string>

#include "core_test_helpers.hpp"

namespace {

using grain::index_type;

// Runs f, expects grain::Error, and checks that its message contains every fragment.
template <class F>
::testing::AssertionResult throws_with(F&& f, std::initializer_list<const char*> fragments) {
  try {
    f();
  } catch (const grain::Error& e) {
    const std::string msg = e.what();
    for (const char* frag : fragments)
      if (msg.find(frag) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks \"" << frag << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-grain exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

TEST(Errors, DeepCopyMismatchedExtentsNamesBothShapes) {
  grain::View<double**> a("alpha", 3, 4);
  grain::View<double**> b("beta", 3, 5);
  EXPECT_TRUE(throws_with([&] { grain::deep_copy(a, b); },
                          {"deep_copy", "alpha", "(3,4)", "beta", "(3,5)"}));
  grain::View<double***, grain::LayoutLeft> c("gamma", 2, 3, 4);
  grain::View<double***, grain::LayoutRight> d("delta", 2, 4, 3);
  EXPECT_TRUE(throws_with([&] { grain::deep_copy(c, d); },
                          {"gamma", "(2,3,4)", "delta", "(2,4,3)", "LayoutLeft", "LayoutRight"}));
  grain::View<int*> e("eps", 7);
  grain::View<int*> f("phi", 8);
  EXPECT_TRUE(throws_with([&] { grain::deep_copy(e, f); }, {"eps", "(7)", "phi", "(8)"}));
  // The destination is untouched.
  EXPECT_EQ(a(2, 3), 0.0);
}

TEST(Errors, NegativeExtents) {
  EXPECT_TRUE(throws_with([] { grain::View<double*> v("neg", -1); }, {"neg", "negative", "-1"}));
  EXPECT_TRUE(throws_with([] { grain::View<double***> v("neg3", 2, -5, 3); }, {"neg3", "-5"}));
  EXPECT_TRUE(throws_with([] { grain::View<int**> v(grain::WithoutInitializing, "wi", 4, -2); },
                          {"wi", "-2"}));
}

TEST(Errors, ExtentsOverflowingTheAddressSpace) {
  const std::size_t huge = std::size_t(1) << 62;
  EXPECT_TRUE(throws_with([&] { grain::View<double**> v("huge", huge, 8); }, {"huge", "overflow"}));
}

TEST(Errors, RangePolicyEndBeforeBegin) {
  EXPECT_TRUE(throws_with([] { grain::RangePolicy<grain::Serial> p(5, 4); }, {"RangePolicy", "5", "4"}));
  EXPECT_TRUE(throws_with([] { grain::RangePolicy<grain::Serial> p(0, -1); }, {"RangePolicy"}));
}

template <class Exec>
void check_md_errors() {
  using P2 = grain::MDRangePolicy<Exec, grain::Rank<2>>;
  using P3 = grain::MDRangePolicy<Exec, grain::Rank<3>>;
  EXPECT_TRUE(throws_with([] { P2 p({0, 5}, {4, 3}); }, {"MDRangePolicy", "dimension 1"}));
  EXPECT_TRUE(throws_with([] { P2 p({0, 0}, {4, 3}, {2, -1}); }, {"MDRangePolicy", "tile", "-1"}));
  EXPECT_TRUE(throws_with([] { P3 p({0, 0}, {4, 3, 2}); }, {"MDRangePolicy", "lower", "rank is 3"}));
  EXPECT_TRUE(throws_with([] { P2 p({0, 0}, {4, 3}, {1, 2, 3}); }, {"MDRangePolicy", "tile"}));
  if (!grain::test::is_host_exec<Exec>()) {
    EXPECT_TRUE(throws_with([] { P2 p({0, 0}, {100, 100}, {64, 32}); }, {"tile volume", "2048"}));
  }
}

GRAIN_BACKEND_TEST(Errors, MDRangePolicyBadBoundsAndTiles) { check_md_errors<TypeParam>(); }

template <class Exec>
void check_team_policy_errors() {
  using TP = grain::TeamPolicy<Exec>;
  EXPECT_TRUE(throws_with([] { TP p(-1, 1); }, {"TeamPolicy", "negative league", "-1"}));
  EXPECT_TRUE(throws_with([] { TP p(4, -2); }, {"TeamPolicy", "negative team size"}));
  for (int v : {0, 3, 64, -4})
    EXPECT_TRUE(throws_with([v] { TP p(4, 1, v); }, {"TeamPolicy", "vector length", std::to_string(v).c_str()}))
        << "vector length " << v;
  EXPECT_TRUE(throws_with([] { TP p(4, grain::AUTO, 48); }, {"vector length"}));
  TP p(4, 1);
  EXPECT_TRUE(throws_with([&] { p.set_scratch_size(2, grain::PerTeam(16)); }, {"scratch level 2"}));
  EXPECT_TRUE(throws_with([&] { p.set_scratch_size(-1, grain::PerThread(16)); }, {"scratch level -1"}));
  EXPECT_TRUE(throws_with([&] { p.set_scratch_size(7, grain::PerTeam(8), grain::PerThread(8)); },
                          {"scratch level 7"}));
}

GRAIN_BACKEND_TEST(Errors, TeamPolicyBadArguments) { check_team_policy_errors<TypeParam>(); }

// Host back ends run teams of one thread: a larger request is refused at launch.
template <class Exec>
void check_host_team_size() {
  if constexpr (grain::test::is_host_exec<Exec>()) {
    using Member = typename grain::TeamPolicy<Exec>::member_type;
    int ran = 0;
    grain::TeamPolicy<Exec> p(3, 4);
    EXPECT_TRUE(throws_with([&] { grain::parallel_for(p, [&](const Member&) { ++ran; }); },
                            {"team size 4", Exec::name(), "AUTO"}));
    double s = 0;
    EXPECT_TRUE(throws_with([&] { grain::parallel_reduce(p, [&](const Member&, double& v) { v += 1; }, s); },
                            {"team size 4"}));
    EXPECT_EQ(ran, 0);
  } else {
    GTEST_SKIP() << "host back ends only";
  }
}

GRAIN_BACKEND_TEST(Errors, HostTeamSizeAboveOne) { check_host_team_size<TypeParam>(); }

// A team larger than a CUDA block, and level-0 scratch beyond shared memory.
template <class Exec>
void check_cuda_team_limits() {
  if constexpr (!grain::test::is_host_exec<Exec>()) {
    using Member = typename grain::TeamPolicy<Exec>::member_type;
    // The kernel is defined here, not inside the throwing lambda (nvcc's extended-lambda rules).
    const auto kernel = GRAIN_LAMBDA(const Member&) {};
    grain::TeamPolicy<Exec> big(3, 128, 32);  // 4096 threads
    EXPECT_TRUE(throws_with([&] { grain::parallel_for(big, kernel); },
                            {"team_size 128", "vector_length 32"}));
    grain::TeamPolicy<Exec> scratch(3, 2, 1);
    scratch.set_scratch_size(0, grain::PerTeam(std::size_t(1) << 30));
    EXPECT_TRUE(throws_with([&] { grain::parallel_for(scratch, kernel); },
                            {"level-0 scratch", "level 1"}));
    // The device still works after the refused launches.
    grain::View<int*, grain::test::ExecMemory<Exec>> ran("ran", 1);
    grain::parallel_for(grain::TeamPolicy<Exec>(3, 2, 1), GRAIN_LAMBDA(const Member& m) {
      grain::single(grain::PerTeam(m), [&]() { grain::atomic_add(&ran(0), 1); });
    });
    EXPECT_EQ(grain::test::to_host(ran)(0), 3);
  } else {
    GTEST_SKIP() << "CUDA only";
  }
}

GRAIN_BACKEND_TEST(Errors, CudaTeamLimits) { check_cuda_team_limits<TypeParam>(); }

TEST(Errors, CudaSpaceWithoutCuda) {
#if defined(GRAIN_ENABLE_CUDA)
  GTEST_SKIP() << "this build has CUDA";
#else
  EXPECT_TRUE(throws_with([] { grain::View<double*, grain::CudaSpace> v("devbuf", 10); },
                          {"CudaSpace", "devbuf", "CUDA"}));
  EXPECT_TRUE(throws_with([] { grain::View<double*, grain::CudaHostPinnedSpace> v("pinbuf", 10); },
                          {"CudaHostPinnedSpace", "pinbuf"}));
  EXPECT_TRUE(throws_with([] { grain::View<double**, grain::CudaSpace> v("empty", 0, 3); },
                          {"CudaSpace", "empty"}));
#endif
}

// ---- exceptions thrown inside host kernel bodies reach the caller -------------------------------
template <class Exec>
void check_kernel_exceptions() {
  if constexpr (grain::test::is_host_exec<Exec>()) {
    using Member = typename grain::TeamPolicy<Exec>::member_type;
    const index_type n = 1000;
    auto thrower = [](index_type i) {
      if (i == 617) grain::impl::throw_error("kernel body failed at ", i);
    };
    EXPECT_TRUE(throws_with([&] { grain::parallel_for(grain::RangePolicy<Exec>(0, n), thrower); },
                            {"kernel body failed at 617"}));
    double s = 0;
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), [&](index_type i, double& v) { thrower(i); v += 1; }, s);
    }, {"617"}));
    int total = 0;
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_scan(grain::RangePolicy<Exec>(0, n), [&](index_type i, int& u, bool) { thrower(i); u += 1; }, total);
    }, {"617"}));
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_for(grain::MDRangePolicy<Exec, grain::Rank<2>>({0, 0}, {n, 2}),
                          [&](index_type i, index_type) { thrower(i); });
    }, {"617"}));
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_reduce(grain::MDRangePolicy<Exec, grain::Rank<3>>({0, 0, 0}, {n, 2, 2}),
                             [&](index_type i, index_type, index_type, double& v) { thrower(i); v += 1; }, s);
    }, {"617"}));
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_for(grain::TeamPolicy<Exec>(n, grain::AUTO), [&](const Member& m) { thrower(m.league_rank()); });
    }, {"617"}));
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_reduce(grain::TeamPolicy<Exec>(n, 1), [&](const Member& m, double& v) {
        grain::parallel_for(grain::TeamThreadRange(m, 3), [&](index_type) { thrower(m.league_rank()); });
        v += 1;
      }, s);
    }, {"617"}));
    // A standard exception passes through unchanged.
    EXPECT_THROW(grain::parallel_for(grain::RangePolicy<Exec>(0, n), [](index_type i) {
      if (i == 3) throw std::out_of_range("plain");
    }), std::out_of_range);
    // The back end still works after a failure.
    long long sum = 0;
    grain::parallel_reduce(grain::RangePolicy<Exec>(0, n), [](index_type i, long long& v) { v += i; }, sum);
    EXPECT_EQ(sum, n * (n - 1) / 2);
  } else {
    GTEST_SKIP() << "exceptions cannot leave device code";
  }
}

GRAIN_BACKEND_TEST(Errors, KernelExceptionsReachTheCaller) { check_kernel_exceptions<TypeParam>(); }

// ---- bounds checking ---------------------------------------------------------------------------
#if defined(GRAIN_DEBUG_BOUNDS)
template <class Exec>
void check_bounds_errors() {
  if constexpr (grain::test::is_host_exec<Exec>()) {
    grain::View<double**> v("boxed", 4, 6);
    EXPECT_TRUE(throws_with([&] { (void)v(4, 0); }, {"boxed", "dimension 0", "extent 4", "index 4"}));
    EXPECT_TRUE(throws_with([&] { (void)v(0, 6); }, {"boxed", "dimension 1", "extent 6"}));
    EXPECT_TRUE(throws_with([&] { (void)v(-1, 0); }, {"boxed", "dimension 0"}));
    grain::View<int***, grain::LayoutLeft> w("cube", 2, 3, 5);
    EXPECT_TRUE(throws_with([&] { (void)w(1, 2, 5); }, {"cube", "dimension 2", "extent 5"}));
    // Inside a kernel: the error reaches the caller.
    EXPECT_TRUE(throws_with([&] {
      grain::parallel_for(grain::RangePolicy<Exec>(0, 5), [=](index_type i) { v(i, 0) = 1.0; });
    }, {"boxed", "dimension 0", "index 4"}));
    EXPECT_NO_THROW((void)v(3, 5));
  } else {
    GTEST_SKIP() << "device bounds failures trap the kernel; not testable in-process";
  }
}

GRAIN_BACKEND_TEST(Errors, DebugBoundsNameLabelAndDimension) { check_bounds_errors<TypeParam>(); }
#endif

}  // namespace
