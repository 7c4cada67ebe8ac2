// Modified Gram-Schmidt: grain's level-1 sequence and the hand-written versions of each back end,
// checked on the host by ||Q^T Q - I||, ||QR - A|| and against R from a Cholesky factorization
// of A^T A (the same upper-triangular factor with a positive diagonal, computed independently).
#include <cmath>
#include <string>
#include <vector>

#include "grain_test.hpp"
#include "gram_schmidt/gram_schmidt.hpp"
#include "gram_schmidt/gram_schmidt_hand.hpp"

namespace {

namespace ex = grain::examples;
using HostMV = grain::View<double**, grain::LayoutRight, grain::HostSpace>;

template <class V>
HostMV to_host(const V& v) {
  HostMV h(grain::WithoutInitializing, "host", v.extent(0), v.extent(1));
  grain::deep_copy(h, v);
  return h;
}

// R from the Cholesky factor of A^T A, in long double.
std::vector<double> cholesky_r(const HostMV& a) {
  const int n = static_cast<int>(a.extent(0)), K = static_cast<int>(a.extent(1));
  std::vector<long double> g(K * K, 0.0L);
  for (int j = 0; j < K; ++j)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < n; ++i) g[j * K + k] += static_cast<long double>(a(i, j)) * a(i, k);
  std::vector<double> r(K * K, 0.0);
  for (int k = 0; k < K; ++k) {
    long double d = g[k * K + k];
    for (int m = 0; m < k; ++m) d -= static_cast<long double>(r[m * K + k]) * r[m * K + k];
    const long double rkk = std::sqrt(d);
    r[k * K + k] = static_cast<double>(rkk);
    for (int j = k + 1; j < K; ++j) {
      long double s = g[k * K + j];
      for (int m = 0; m < k; ++m) s -= static_cast<long double>(r[m * K + k]) * r[m * K + j];
      r[k * K + j] = static_cast<double>(s / rkk);
    }
  }
  return r;
}

void expect_factorization(const HostMV& a, const HostMV& q, const ex::HostMatrix& r,
                          const std::string& who) {
  const int n = static_cast<int>(a.extent(0)), K = static_cast<int>(a.extent(1));
  double orth = 0, res = 0, anorm = 0;
  for (int j = 0; j < K; ++j)
    for (int k = 0; k < K; ++k) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += q(i, j) * q(i, k);
      orth = std::max(orth, std::abs(s - (j == k ? 1.0 : 0.0)));
      if (std::isnan(s)) orth = INFINITY;
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < K; ++j) {
      double qr = 0;
      for (int k = 0; k < K; ++k) qr += q(i, k) * r(k, j);
      res += (a(i, j) - qr) * (a(i, j) - qr);
      anorm += a(i, j) * a(i, j);
    }
  EXPECT_LE(orth, 1e-13) << who << ": ||Q^T Q - I||";
  EXPECT_LE(std::sqrt(res / anorm), 1e-14) << who << ": ||A - QR|| / ||A||";
  const std::vector<double> rc = cholesky_r(a);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < K; ++j)
      ASSERT_TRUE(grain::test::near(r(k, j), rc[k * K + j], 1e-11))
          << who << ": R(" << k << "," << j << ")";
}

enum class Version { grain, hand, cublas, device_scalars };

template <class Exec, class MV>
void factor(Version v, const MV& q, const ex::HostMatrix& r) {
  if (v == Version::grain) {
    ex::modified_gram_schmidt<Exec>(q, r);
  } else if (v == Version::device_scalars) {
    using RV = grain::View<double**, typename Exec::memory_space>;
    const int K = static_cast<int>(q.extent(1));
    RV r_dev("r_dev", K, K), work("work", 2, K);
    grain::test::poison(r_dev);
    ex::modified_gram_schmidt_device_scalars<Exec>(q, r_dev, work, r);
  } else if (v == Version::hand) {
    if constexpr (std::is_same_v<typename MV::array_layout, grain::LayoutLeft>) ex::mgs_hand<Exec>(q, r);
  } else {
#if defined(GRAIN_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, grain::Cuda>)
      ex::mgs_cublas(q.data(), q.extent(0), static_cast<int>(q.extent(1)), r.data());
#endif
  }
}

template <class Exec, class Layout>
void check_factorization(Version v, int n, int K) {
  using MV = grain::View<double**, Layout, typename Exec::memory_space>;
  MV a("a", n, K), q("q", n, K);
  ex::fill_multivector<Exec>(a, 100 + n);
  grain::deep_copy(q, a);
  ex::HostMatrix r("r", K, K);
  grain::test::poison(r);
  factor<Exec>(v, q, r);
  const std::string who = std::string(Exec::name()) + " version " +
                          std::to_string(static_cast<int>(v)) + " n=" + std::to_string(n) +
                          " K=" + std::to_string(K);
  expect_factorization(to_host(a), to_host(q), r, who);
  // The portable checkers agree with the host's (on the small cases: K^2/2 launches each).
  if (K <= 12) {
    EXPECT_LE(ex::mgs_orthogonality_error<Exec>(q), 1e-13) << who;
    EXPECT_LE(ex::mgs_residual<Exec>(a, q, r), 1e-14) << who;
  }
}

template <class Exec>
void check_all_versions() {
  std::vector<Version> versions = {Version::grain, Version::hand, Version::device_scalars};
#if defined(GRAIN_ENABLE_CUDA)
  if (std::is_same_v<Exec, grain::Cuda>) versions.push_back(Version::cublas);
#endif
  for (Version v : versions)
    // Each factorization is ~K^2 launches, so the tests stay below the paper's 32 columns to keep
    // CI (2 cores, ASan) fast; `grain bench paper` verifies K = 32 at every size it times.
    for (auto [n, K] : {std::pair{41, 16}, std::pair{257, 12}, std::pair{101, 7}, std::pair{1, 1}})
      check_factorization<Exec, grain::LayoutLeft>(v, n, K);
}

GRAIN_BACKEND_TEST(GramSchmidt, AllVersionsFactor) { check_all_versions<TypeParam>(); }
GRAIN_BACKEND_TEST(GramSchmidt, GrainLayoutRight) {
  check_factorization<TypeParam, grain::LayoutRight>(Version::grain, 99, 9);
}

// A zero column makes the multivector rank deficient: every version must raise, not divide by 0.
template <class Exec>
void check_rank_deficient_raises() {
  using MV = grain::View<double**, grain::LayoutLeft, typename Exec::memory_space>;
  const int n = 45, K = 5;
  std::vector<Version> versions = {Version::grain, Version::hand, Version::device_scalars};
#if defined(GRAIN_ENABLE_CUDA)
  if (std::is_same_v<Exec, grain::Cuda>) versions.push_back(Version::cublas);
#endif
  for (Version v : versions) {
    MV q("q", n, K);
    ex::fill_multivector<Exec>(q, 3);
    auto h = to_host(q);
    for (int i = 0; i < n; ++i) h(i, 2) = 0.0;
    grain::View<double**, grain::LayoutLeft, grain::HostSpace> hl("hl", n, K);
    grain::deep_copy(hl, h);
    grain::deep_copy(q, hl);
    ex::HostMatrix r("r", K, K);
    try {
      factor<Exec>(v, q, r);
      ADD_FAILURE() << "version " << static_cast<int>(v) << " accepted a zero column";
    } catch (const grain::Error& e) {
      EXPECT_NE(std::string(e.what()).find("column 2 has norm 0"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("rank deficient"), std::string::npos) << e.what();
    }
  }
}
GRAIN_BACKEND_TEST(GramSchmidt, RankDeficientRaises) { check_rank_deficient_raises<TypeParam>(); }

// The portable checkers flag a wrong Q.
template <class Exec>
void check_checkers_flag_wrong_q() {
  using MV = grain::View<double**, grain::LayoutLeft, typename Exec::memory_space>;
  const int n = 65, K = 4;
  MV a("a", n, K), q("q", n, K);
  ex::fill_multivector<Exec>(a, 9);
  grain::deep_copy(q, a);
  ex::HostMatrix r("r", K, K);
  ex::modified_gram_schmidt<Exec>(q, r);
  ex::mv_scale<Exec>(q, 1, 1.001);
  EXPECT_FALSE(ex::mgs_orthogonality_error<Exec>(q) <= 1e-6);
  EXPECT_FALSE(ex::mgs_residual<Exec>(a, q, r) <= 1e-6);
  grain::test::poison(q);
  EXPECT_FALSE(ex::mgs_orthogonality_error<Exec>(q) <= 1.0);
  EXPECT_FALSE(ex::mgs_residual<Exec>(a, q, r) <= 1.0);
}
GRAIN_BACKEND_TEST(GramSchmidt, CheckersFlagWrongQ) { check_checkers_flag_wrong_q<TypeParam>(); }

TEST(GramSchmidt, RejectsBadShapes) {
  grain::View<double**, grain::LayoutLeft, grain::HostSpace> a("a", 10, 4), wide("wide", 3, 4);
  ex::HostMatrix r("r", 4, 4), r_bad("r_bad", 4, 3);
  EXPECT_NE(grain::test::error_of([&] { ex::modified_gram_schmidt<grain::Serial>(a, r_bad); })
                .find("modified_gram_schmidt: argument 'r' has extents (4,3), expected (4,4)"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([&] { ex::modified_gram_schmidt<grain::Serial>(wide, r); })
                .find("needs at least as many rows as columns"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([&] { ex::mgs_hand<grain::Serial>(a, r_bad); }).find("mgs_hand: argument 'r'"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([&] { ex::mgs_residual<grain::Serial>(a, wide, r); }).find("mgs_residual"),
            std::string::npos);
}

TEST(GramSchmidt, TrafficAndWorkCounts) {
  // K = 2: two norms, two scales, one dot and one axpy on vectors of length 10.
  EXPECT_EQ(ex::mgs_bytes(10, 2), 8.0 * 10 * (1 + 2 + 1 + 2 + 2 + 3));
  EXPECT_EQ(ex::mgs_flops(10, 2), 10.0 * (2 + 1 + 2 + 1 + 2 + 2));
}

}  // namespace
