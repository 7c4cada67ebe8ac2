// CP-ALS's R x R solves (LAPACK on the host, cuSOLVER on the GPU) against an independent reference:
// V = Q diag(lambda) Q^T with Q a product of Householder reflections, so that V^-1 (or V^+, with
// some lambda zero) is Q diag(1 / lambda) Q^T, formed in long double without any factorization.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "grain_test.hpp"

namespace {

using grain::index_type;
using Matrix = std::vector<double>;  // R x R, row-major

struct Case {
  Matrix V, reference;  // V and its (pseudo-)inverse
  bool singular = false;
};

// lambda[k] = 0 marks a null direction. Q = H1 H2 H3 with H = I - 2 u u^T / u^T u.
Case make_case(int R, const std::vector<double>& lambda, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<long double> Q(static_cast<std::size_t>(R) * R, 0.0L);
  for (int i = 0; i < R; ++i) Q[static_cast<std::size_t>(i) * R + i] = 1;
  for (int h = 0; h < 3; ++h) {
    std::vector<long double> v(R);
    long double vv = 0;
    for (auto& x : v) {
      x = u(rng);
      vv += x * x;
    }
    for (int i = 0; i < R; ++i) {  // Q = Q H: row i -= 2 (row_i . v) / vv v^T
      long double d = 0;
      for (int k = 0; k < R; ++k) d += Q[static_cast<std::size_t>(i) * R + k] * v[k];
      for (int k = 0; k < R; ++k) Q[static_cast<std::size_t>(i) * R + k] -= 2 * d / vv * v[k];
    }
  }
  Case c;
  c.V.assign(static_cast<std::size_t>(R) * R, 0.0);
  c.reference.assign(static_cast<std::size_t>(R) * R, 0.0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) {
      long double v = 0, p = 0;
      for (int k = 0; k < R; ++k) {
        const long double qq = Q[static_cast<std::size_t>(i) * R + k] * Q[static_cast<std::size_t>(j) * R + k];
        v += qq * lambda[k];
        if (lambda[k] != 0) p += qq / lambda[k];
      }
      c.V[static_cast<std::size_t>(i) * R + j] = static_cast<double>(v);
      c.reference[static_cast<std::size_t>(i) * R + j] = static_cast<double>(p);
    }
  for (double l : lambda) c.singular = c.singular || l == 0;
  return c;
}

// The cases: well conditioned and scaled, moderately ill-conditioned (1e4), singular of several
// ranks (rank 0 too: V^+ of the zero matrix is zero).
std::vector<std::pair<std::string, Case>> cases() {
  std::vector<std::pair<std::string, Case>> out;
  std::uint64_t seed = 1;
  for (int R : {1, 2, 5, 17, 64, 128}) {
    std::vector<double> l(R);
    for (int k = 0; k < R; ++k) l[k] = 1e3 * (1.0 + static_cast<double>(k) / R);
    out.emplace_back("SPD R=" + std::to_string(R), make_case(R, l, seed++));
    for (int k = 0; k < R; ++k) l[k] = std::pow(10.0, -4.0 * k / std::max(1, R - 1));
    out.emplace_back("SPD cond 1e4 R=" + std::to_string(R), make_case(R, l, seed++));
    if (R == 1) continue;
    const int rank = R == 2 ? 1 : R * 3 / 4;
    for (int k = 0; k < R; ++k) l[k] = k < rank ? 1.0 + static_cast<double>(k) / R : 0.0;
    std::shuffle(l.begin(), l.end(), std::mt19937_64(seed));
    out.emplace_back("PSD rank " + std::to_string(rank) + " R=" + std::to_string(R), make_case(R, l, seed++));
  }
  out.emplace_back("zero R=3", make_case(3, {0.0, 0.0, 0.0}, seed++));
  return out;
}

// The solve as CP-ALS does it on Exec, into T: on the host spd_inverse in place; on the GPU
// spd_inverse_cuda into a NaN-poisoned Winv and flag, then, when the flag says so,
// spd_pseudo_inverse_cuda into a re-poisoned Winv.
template <class Exec, class T>
Matrix solve(const Matrix& V, int R, bool* singular) {
  Matrix out = V;
  if constexpr (grain::is_host_execution_space_v<Exec>) {
    *singular = grain::cp::spd_inverse(out, R);
    for (double& x : out) x = static_cast<double>(static_cast<T>(x));
  } else {
#if defined(GRAIN_ENABLE_CUDA)
    using Space = typename Exec::memory_space;
    const index_type RR = static_cast<index_type>(R) * R;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    grain::View<double*, grain::LayoutRight, Space> Vd("V", RR);
    grain::View<T*, grain::LayoutRight, Space> W("Winv", RR), flag("flag", 1);
    grain::View<double*, grain::LayoutRight, Space> work("work", grain::cp::impl::spd_solve_workspace(Vd.data(), R));
    grain::View<double*, grain::LayoutRight, grain::HostSpace> Vh(const_cast<double*>(V.data()), RR);
    grain::View<T*, grain::LayoutRight, grain::HostSpace> Wh("Wh", RR), fh("fh", 1);
    auto poison = [&] {
      for (index_type e = 0; e < RR; ++e) Wh(e) = nan;
      fh(0) = nan;
      grain::deep_copy(W, Wh);
      grain::deep_copy(flag, fh);
    };
    poison();
    grain::deep_copy(Vd, Vh);
    double maxdiag = 0;
    for (int i = 0; i < R; ++i) maxdiag = std::max(maxdiag, std::abs(V[static_cast<std::size_t>(i) * R + i]));
    grain::cp::impl::spd_inverse_cuda(Vd.data(), R, maxdiag * grain::cp::spd_relative_floor(R), W.data(), flag.data(),
                                      work.data());
    grain::cp::impl::spd_solve_join();  // the solve runs on its own stream
    grain::deep_copy(fh, flag);
    EXPECT_TRUE(fh(0) == T(0) || fh(0) == T(1)) << "flag " << fh(0);
    *singular = fh(0) != T(0);
    if (*singular) {
      poison();
      grain::deep_copy(Vd, Vh);
      grain::cp::impl::spd_pseudo_inverse_cuda(Vd.data(), R, W.data(), work.data());
    }
    grain::deep_copy(Wh, W);
    for (index_type e = 0; e < RR; ++e) out[e] = static_cast<double>(Wh(e));
#endif
  }
  return out;
}

template <class Exec, class T>
void check_solves() {
  // Entry errors relative to the largest entry of the reference: the inverse's error grows with
  // the condition number (1e4 at most here) and R.
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
  for (const auto& [name, c] : cases()) {
    const int R = static_cast<int>(std::lround(std::sqrt(static_cast<double>(c.V.size()))));
    bool singular = !c.singular;  // the wrong answer until the solve says otherwise
    const Matrix X = solve<Exec, T>(c.V, R, &singular);
    EXPECT_EQ(singular, c.singular) << name;
    double scale = 0;
    for (double x : c.reference) scale = std::max(scale, std::abs(x));
    const double bound = tol * std::max(scale, 1e-300);
    int bad = 0;
    for (std::size_t e = 0; e < X.size(); ++e) {
      const double diff = std::abs(X[e] - c.reference[e]);
      if (!(diff <= bound) && bad++ < 3)  // NaN fails here
        ADD_FAILURE() << name << ": entry (" << e / R << ", " << e % R << ") = " << X[e] << ", reference "
                      << c.reference[e] << " (tolerance " << bound << ")";
    }
    EXPECT_EQ(bad, 0) << name << ": " << bad << " entries off";
  }
}

GRAIN_BACKEND_TEST(DenseSolve, InverseAndPseudoInverseMatchReference) {
  check_solves<TypeParam, double>();
  if constexpr (!grain::is_host_execution_space_v<TypeParam>) check_solves<TypeParam, float>();
}

// The pseudo-inverse of a definite V is its inverse, and the size check names the mismatch.
TEST(DenseSolve, PseudoInverseOfDefiniteIsInverse) {
  std::vector<double> l(9);
  for (int k = 0; k < 9; ++k) l[k] = 0.5 + k;
  const Case c = make_case(9, l, 99);
  Matrix P = c.V;
  grain::cp::spd_pseudo_inverse(P, 9);
  for (std::size_t e = 0; e < P.size(); ++e)
    EXPECT_TRUE(std::abs(P[e] - c.reference[e]) <= 1e-12) << e << ": " << P[e] << " vs " << c.reference[e];
  Matrix wrong(8, 1.0);
  EXPECT_NE(grain::test::error_of([&] { grain::cp::spd_inverse(wrong, 3); }).find("not R * R"), std::string::npos);
}

}  // namespace
