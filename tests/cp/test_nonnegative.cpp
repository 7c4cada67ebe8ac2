// Non-negative CP-ALS (HALS updates): no negative entry ever, a fit that never decreases, and the
// planted non-negative model recovered (factor match score against the truth).
#include "cp_test_util.hpp"
#include "grain_test.hpp"

namespace {

using grain::index_type;

template <class Space>
grain::cp::Ktensor<double, grain::HostSpace> host_copy(const grain::cp::Ktensor<double, Space>& M) {
  return M.template to_space<grain::HostSpace>();
}

grain::cp::Ktensor<double, grain::HostSpace> planted(const grain::PlantedModel& pm, const std::vector<index_type>& dims) {
  const int R = static_cast<int>(pm.lambda.size());
  grain::cp::Ktensor<double, grain::HostSpace> K(dims, R);
  for (int r = 0; r < R; ++r) K.lambda(r) = pm.lambda[r];
  for (std::size_t m = 0; m < dims.size(); ++m)
    for (std::size_t e = 0; e < pm.factors[m].size(); ++e) K.factors[m].data()[e] = pm.factors[m][e];
  return K;
}

// Every entry >= 0 (NaN fails), the weights too.
::testing::AssertionResult non_negative(const grain::cp::Ktensor<double, grain::HostSpace>& K) {
  for (int r = 0; r < K.rank(); ++r)
    if (!(K.lambda(r) >= 0)) return ::testing::AssertionFailure() << "weight " << r << " is " << K.lambda(r);
  for (int m = 0; m < K.ndims(); ++m)
    for (index_type i = 0; i < K.dim(m); ++i)
      for (int r = 0; r < K.rank(); ++r)
        if (!(K.factors[m](i, r) >= 0))
          return ::testing::AssertionFailure() << "mode " << m + 1 << " (" << i << ", " << r << ") is " << K.factors[m](i, r);
  return ::testing::AssertionSuccess();
}

template <class Exec>
void check_recovers_planted() {
  using Space = typename Exec::memory_space;
  grain::GenerateOptions g;
  g.kind = grain::GeneratorKind::LowRank;
  g.dims = {23, 17, 19};
  g.rank = 4;
  g.support = 6;
  g.seed = 8;
  grain::PlantedModel pm;
  const auto H = grain::generate_sparse<double>(g, &pm);
  const auto X = H.template to_space<Space>();
  const auto truth = planted(pm, g.dims);
  grain::cp::CpAlsOptions o;
  o.nonnegative = true;
  o.maxiters = 500;
  o.tol = 1e-10;
  for (std::uint64_t seed : {1, 2, 3}) {
    auto M = grain::cp::random_ktensor<double, Space>(X.dims(), 4, seed);
    // Each iteration's model is checked, not only the last.
    bool all_non_negative = true;
    o.after_iteration = [&](const grain::cp::CpAlsIteration&) {
      all_non_negative = all_non_negative && non_negative(host_copy(M));
      return true;
    };
    const auto res = grain::cp::cp_als<Exec>(X, M, o);
    const auto K = host_copy(M);
    EXPECT_TRUE(all_non_negative) << "seed " << seed;
    EXPECT_TRUE(non_negative(K)) << "seed " << seed;
    EXPECT_TRUE(res.fit > 0.99) << "seed " << seed << ": fit " << res.fit;
    const double fms = grain::cp::factor_match_score(K, truth).score;
    EXPECT_TRUE(fms >= 0.9) << "seed " << seed << ": factor match score " << fms;
    for (std::size_t i = 1; i < res.iterations.size(); ++i)
      EXPECT_TRUE(res.iterations[i].fit >= res.iterations[i - 1].fit - 1e-7)
          << "seed " << seed << " iteration " << i + 1 << ": " << res.iterations[i].fit << " after "
          << res.iterations[i - 1].fit;
  }
}
GRAIN_BACKEND_TEST(CpAlsNonnegative, RecoversAPlantedNonNegativeModel) { check_recovers_planted<TypeParam>(); }

// Data of both signs: the constraint binds (some entries end at the floor) and the fit stays below
// the unconstrained one's, never decreasing.
template <class Exec>
void check_signed_data() {
  using Space = typename Exec::memory_space;
  auto H = grain::test::random_ktensor_tensor({30, 25, 20}, 2500, 5, 13);
  grain::test::fill_random(H.values(), 17);
  const auto X = H.template to_space<Space>();
  grain::cp::CpAlsOptions o;
  o.maxiters = 60;
  o.tol = 0;
  auto Mu = grain::cp::random_ktensor<double, Space>(X.dims(), 5, 4);
  const auto free = grain::cp::cp_als<Exec>(X, Mu, o);
  o.nonnegative = true;
  auto M = grain::cp::random_ktensor<double, Space>(X.dims(), 5, 4);
  const auto res = grain::cp::cp_als<Exec>(X, M, o);
  const auto K = host_copy(M);
  EXPECT_TRUE(non_negative(K));
  int floored = 0;  // entries at the updates' floor, normalized
  for (int m = 0; m < 3; ++m)
    for (std::size_t e = 0; e < K.factors[m].size(); ++e) floored += K.factors[m].data()[e] < 1e-12;
  EXPECT_TRUE(floored > 0) << "the constraint never bound";
  EXPECT_TRUE(res.fit > 0 && res.fit < free.fit) << res.fit << " vs unconstrained " << free.fit;
  for (std::size_t i = 1; i < res.iterations.size(); ++i)
    EXPECT_TRUE(res.iterations[i].fit >= res.iterations[i - 1].fit - 1e-9)
        << "iteration " << i + 1 << ": " << res.iterations[i].fit << " after " << res.iterations[i - 1].fit;
}
GRAIN_BACKEND_TEST(CpAlsNonnegative, SignedDataNeverGivesANegativeEntry) { check_signed_data<TypeParam>(); }

}  // namespace
