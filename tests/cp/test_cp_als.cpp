// CP-ALS: recovers a planted low-rank tensor, fit never decreases, reproducible from a seed.
#include <unistd.h>

#include "cp_test_util.hpp"
#include "grain_test.hpp"

namespace {

using grain::test::random_ktensor_tensor;

using grain::index_type;

template <class Exec>
grain::cp::CpAlsResult run(const grain::SparseTensor<double>& H, int R, std::uint64_t seed,
                           int maxiters, double tol, std::vector<std::vector<double>>* factors,
                           grain::cp::MttkrpAlgorithm alg = grain::cp::MttkrpAlgorithm::Auto,
                           int* notes = nullptr, grain::cp::DenseSolve solve = grain::cp::DenseSolve::Auto) {
  using Space = typename Exec::memory_space;
  auto X = H.template to_space<Space>();
  auto M = grain::cp::random_ktensor<double, Space>(X.dims(), R, seed);
  grain::cp::CpAlsOptions o;
  o.maxiters = maxiters;
  o.tol = tol;
  o.mttkrp = alg;
  o.solve = solve;
  auto res = grain::cp::cp_als<Exec>(X, M, o, {}, [&](const std::string&) {
    if (notes) ++*notes;
  });
  if (factors) {
    factors->clear();
    for (int m = 0; m < M.ndims(); ++m) {
      auto h = grain::create_mirror(M.factors[m]);
      grain::deep_copy(h, M.factors[m]);
      factors->emplace_back(h.data(), h.data() + h.size());
    }
  }
  return res;
}

template <class Exec>
void check_planted() {
  grain::GenerateOptions g;
  g.kind = grain::GeneratorKind::LowRank;
  g.dims = {13, 17, 11};
  g.rank = 3;
  g.support = 4;
  g.seed = 5;
  auto H = grain::generate_sparse<double>(g);
  for (auto alg : {grain::cp::MttkrpAlgorithm::Auto, grain::cp::MttkrpAlgorithm::Perm,
                   grain::cp::MttkrpAlgorithm::Atomic}) {
    auto res = run<Exec>(H, 3, 11, 150, 1e-7, nullptr, alg);
    EXPECT_TRUE(res.fit > 0.999) << "fit " << res.fit << " after " << res.iterations.size()
                                 << " iterations, " << grain::cp::mttkrp_algorithm_name(alg);
    // Near fit 1 the residual ||X||^2 + ||M||^2 - 2<X,M> cancels to rounding, so the fit itself
    // carries an error of about sqrt(eps) ~ 1.5e-8: that is the rounding allowed here.
    for (std::size_t i = 1; i < res.iterations.size(); ++i)
      EXPECT_TRUE(res.iterations[i].fit >= res.iterations[i - 1].fit - 1e-7)
          << "iteration " << i + 1 << ": " << res.iterations[i].fit << " after "
          << res.iterations[i - 1].fit;
  }
  // 4-way too.
  g.dims = {7, 9, 8, 6};
  g.support = 3;
  auto H4 = grain::generate_sparse<double>(g);
  auto res = run<Exec>(H4, 3, 12, 150, 1e-7, nullptr);
  EXPECT_TRUE(res.fit > 0.999) << "4-way fit " << res.fit;
}
GRAIN_BACKEND_TEST(CpAls, RecoversPlantedLowRank) { check_planted<TypeParam>(); }

template <class Exec>
void check_monotone_and_reproducible() {
  auto H = random_ktensor_tensor({20, 30, 25}, 3000, 4, 9);
  std::vector<std::vector<double>> a, b;
  auto r1 = run<Exec>(H, 5, 77, 25, 0.0, &a);
  auto r2 = run<Exec>(H, 5, 77, 25, 0.0, &b);
  ASSERT_EQ(r1.iterations.size(), 25u);
  for (std::size_t i = 1; i < r1.iterations.size(); ++i)
    EXPECT_TRUE(r1.iterations[i].fit >= r1.iterations[i - 1].fit - 1e-9)
        << "iteration " << i + 1 << ": " << r1.iterations[i].fit << " after " << r1.iterations[i - 1].fit;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t m = 0; m < a.size(); ++m)
    for (std::size_t e = 0; e < a[m].size(); ++e) ASSERT_TRUE(grain::test::near(a[m][e], b[m][e], 1e-9));
  EXPECT_TRUE(grain::test::near(r1.fit, r2.fit, 1e-12));
  EXPECT_TRUE(r1.fit > 0.0 && r1.fit < 1.0);
}
GRAIN_BACKEND_TEST(CpAls, FitNeverDecreasesAndSeedReproduces) { check_monotone_and_reproducible<TypeParam>(); }

// A GPU run's R x R systems solved on the device (cuSOLVER) and on the host (LAPACK) give the same
// factors, to rounding (on a host back end both solve on the host).
template <class Exec>
void check_solve_places_agree() {
  auto H = random_ktensor_tensor({40, 30, 50}, 5000, 6, 21);
  std::vector<std::vector<double>> a, b;
  const auto A = grain::cp::MttkrpAlgorithm::Auto;
  auto rh = run<Exec>(H, 6, 5, 8, 0.0, &a, A, nullptr, grain::cp::DenseSolve::Host);
  auto rd = run<Exec>(H, 6, 5, 8, 0.0, &b, A, nullptr, grain::cp::DenseSolve::Device);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t m = 0; m < a.size(); ++m)
    for (std::size_t e = 0; e < a[m].size(); ++e)
      ASSERT_TRUE(grain::test::near(a[m][e], b[m][e], 1e-7)) << "mode " << m << " entry " << e;
  EXPECT_TRUE(grain::test::near(rh.fit, rd.fit, 1e-9)) << rh.fit << " vs " << rd.fit;
  EXPECT_TRUE(rh.fit > 0.0 && rh.fit < 1.0);
}
GRAIN_BACKEND_TEST(CpAls, HostAndDeviceSolvesAgree) { check_solve_places_agree<TypeParam>(); }

template <class Exec>
void check_singular() {
  // A 2 x 2 matrix at rank 3: the other mode's 2 x 3 factor has a rank-2 Gram matrix, so every
  // 3 x 3 system is singular.
  grain::SparseTensor<double> H({2, 2}, 3);
  H.subscripts()(0, 0) = 0; H.subscripts()(0, 1) = 1;
  H.subscripts()(1, 0) = 1; H.subscripts()(1, 1) = 0;
  H.subscripts()(2, 0) = 1; H.subscripts()(2, 1) = 1;
  H.values()(0) = 2.0;
  H.values()(1) = 1.0;
  H.values()(2) = 0.5;
  for (auto solve : {grain::cp::DenseSolve::Device, grain::cp::DenseSolve::Host}) {
    int notes = 0;
    auto res = run<Exec>(H, 3, 3, 10, 0.0, nullptr, grain::cp::MttkrpAlgorithm::Auto, &notes, solve);
    EXPECT_TRUE(res.used_pseudo_inverse) << grain::cp::dense_solve_name(solve);
    EXPECT_EQ(notes, 1) << grain::cp::dense_solve_name(solve);
    EXPECT_TRUE(std::isfinite(res.fit) && res.fit > 0.99) << res.fit << " " << grain::cp::dense_solve_name(solve);
  }
}
GRAIN_BACKEND_TEST(CpAls, SingularSystemUsesPseudoInverseOnce) { check_singular<TypeParam>(); }

// Values that overflow float on the way (their squares do) stop the run with an error naming the
// iteration, instead of NaN factors and a NaN fit.
template <class Exec>
void check_non_finite_stops() {
  using Space = typename Exec::memory_space;
  auto Hd = random_ktensor_tensor({20, 30, 25}, 2000, 3, 4);
  grain::SparseTensor<float> H(Hd.dims(), Hd.nnz());
  for (index_type j = 0; j < Hd.nnz(); ++j) {
    for (int m = 0; m < Hd.ndims(); ++m) H.subscripts()(j, m) = Hd.subscripts()(j, m);
    H.values()(j) = static_cast<float>(Hd.values()(j)) * 3e37f;
  }
  auto X = H.template to_space<Space>();
  auto M = grain::cp::random_ktensor<float, Space>(X.dims(), 3, 1);
  grain::cp::CpAlsOptions o;
  o.maxiters = 5;
  o.tol = 0;
  try {
    (void)grain::cp::cp_als<Exec>(X, M, o);
    ADD_FAILURE() << "no error for data that overflows float";
  } catch (const grain::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("iteration 1"), std::string::npos) << what;
    EXPECT_NE(what.find("finite"), std::string::npos) << what;
  }
}
GRAIN_BACKEND_TEST(CpAls, NonFiniteValuesStopTheRun) { check_non_finite_stops<TypeParam>(); }

// The dense kernels of CP-ALS (Gram, B W, column norms, column scaling) against plain double loops
// on random data. I = 1000 gives the GPU Gram several row slices and a short last one (I = 3: one).
template <class Exec, class T>
void check_dense_kernels() {
  using Space = typename Exec::memory_space;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  const double tol = std::is_same_v<T, float> ? 2e-4 : 1e-12;
  grain::View<T*, grain::LayoutRight, Space> buf;  // reused across shapes, as CP-ALS does
  for (index_type I : {3, 1000, 4099})
    for (index_type R : {1, 5, 17, 64}) {
      grain::View<T**, grain::LayoutRight, grain::HostSpace> Ah("A", I, R), Wh("W", R, R);
      for (std::size_t e = 0; e < Ah.size(); ++e) Ah.data()[e] = static_cast<T>(u(rng));
      for (std::size_t e = 0; e < Wh.size(); ++e) Wh.data()[e] = static_cast<T>(u(rng));
      grain::View<T**, grain::LayoutRight, Space> A("A", I, R);  // a copy, even on the host
      deep_copy(A, Ah);
      grain::View<T*, grain::LayoutRight, Space> W("W1", R * R);
      deep_copy(W, grain::View<T*, grain::LayoutRight, grain::HostSpace>(Wh.data(), R * R));
      const std::string at = "I=" + std::to_string(I) + " R=" + std::to_string(R);
      const auto G = grain::cp::gram<Exec>(A, &buf);
      double gmax = 0;
      for (index_type r = 0; r < R; ++r)
        for (index_type c = 0; c < R; ++c) {
          double ref = 0;
          for (index_type i = 0; i < I; ++i) ref += double(Ah(i, r)) * double(Ah(i, c));
          gmax = std::max(gmax, std::abs(G[r * R + c] - ref) / (1 + std::abs(ref)));
        }
      EXPECT_LT(gmax, tol * I) << "gram " << at;
      grain::View<T**, grain::LayoutRight, Space> out("out", I, R);
      grain::cp::times_matrix<Exec>(A, W, out);
      auto oh = grain::create_mirror(out);
      deep_copy(oh, out);
      double omax = 0;
      for (index_type i = 0; i < I; ++i)
        for (index_type c = 0; c < R; ++c) {
          double ref = 0;
          for (index_type k = 0; k < R; ++k) ref += double(Ah(i, k)) * double(Wh(k, c));
          omax = std::max(omax, std::abs(double(oh(i, c)) - ref));
        }
      EXPECT_LT(omax, tol * R) << "times_matrix " << at;
      for (bool max_norm : {false, true}) {
        const auto n = grain::cp::column_norms<Exec>(A, max_norm);
        for (index_type r = 0; r < R; ++r) {
          double ref = 0;
          for (index_type i = 0; i < I; ++i)
            ref = max_norm ? std::max(ref, std::abs(double(Ah(i, r)))) : ref + double(Ah(i, r)) * double(Ah(i, r));
          if (!max_norm) ref = std::sqrt(ref);
          EXPECT_NEAR(n[r], ref, tol * (1 + ref) * 4) << "column_norms " << at << " max " << max_norm << " r " << r;
        }
      }
      std::vector<double> sc(R);
      for (auto& v : sc) v = u(rng);
      grain::cp::scale_columns<Exec>(A, sc);
      auto sh = grain::create_mirror(A);
      deep_copy(sh, A);
      for (index_type i = 0; i < I; i += 7)
        for (index_type r = 0; r < R; ++r)
          ASSERT_NEAR(double(sh(i, r)), double(Ah(i, r)) * double(T(sc[r])), tol) << "scale_columns " << at;
    }
}
GRAIN_BACKEND_TEST(Ktensor, DenseKernelsMatchReference) {
  check_dense_kernels<TypeParam, double>();
  check_dense_kernels<TypeParam, float>();
}

TEST(CpAls, BadArguments) {
  auto H = grain::SparseTensor<double>({3, 3}, 1);
  H.values()(0) = 1;
  auto M = grain::cp::random_ktensor<double, grain::HostSpace>({3, 4}, 2, 1);
  grain::cp::CpAlsOptions o;
  EXPECT_THROW(grain::cp::cp_als<grain::Serial>(H, M, o), grain::Error);
  auto M2 = grain::cp::random_ktensor<double, grain::HostSpace>({3, 3}, 2, 1);
  o.maxiters = 0;
  EXPECT_THROW(grain::cp::cp_als<grain::Serial>(H, M2, o), grain::Error);
  auto Z = grain::SparseTensor<double>({3, 3}, 1);  // value 0: norm 0
  o.maxiters = 5;
  EXPECT_THROW(grain::cp::cp_als<grain::Serial>(Z, M2, o), grain::Error);
}

TEST(Ktensor, TextRoundTripAndErrors) {
  auto K = grain::cp::random_ktensor<double, grain::HostSpace>({4, 3}, 2, 5);
  K.lambda(1) = 0.1234567890123;
  const std::string prefix = ::testing::TempDir() + "grain_kt_" + std::to_string(::getpid());
  grain::cp::write_ktensor(prefix, K);
  auto L = grain::cp::read_ktensor<double>(prefix, {4, 3}, 2);
  for (int m = 0; m < 2; ++m)
    for (std::size_t e = 0; e < K.factors[m].size(); ++e)
      ASSERT_EQ(K.factors[m].data()[e], L.factors[m].data()[e]);
  EXPECT_EQ(L.lambda(1), K.lambda(1));
  EXPECT_THROW((void)grain::cp::read_ktensor<double>(prefix, {5, 3}, 2), grain::Error);
  EXPECT_THROW((void)grain::cp::read_ktensor<double>(prefix, {4, 3}, 3), grain::Error);
  EXPECT_THROW((void)grain::cp::read_ktensor<double>(prefix + "_missing", {4, 3}, 2), grain::Error);
}

}  // namespace
