// The factor match score (FMS) of two Ktensors, as the MATLAB Tensor Toolbox's `score` computes
// it: how well one model's components match the other's, up to permutation and scaling.
//
//   columns normalized to unit 2-norm, the norms moved into the weights;
//   C(a, b) = penalty(lambda_a, lambda_b) * prod over modes |<A_n(:, a), B_n(:, b)>|,
//             penalty = 1 - |lambda_a - lambda_b| / max(lambda_a, lambda_b)   (1 when both are 0),
//             with the normalized weights' magnitudes;
//   components paired greedily: the largest C(a, b) first, its row and column then taken out;
//   score = the mean of the paired C(a, b), over the smaller rank's components.
//
// 1 means the same model (each factor's column signs may differ); 0 means no component matches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/ktensor.hpp"

namespace grain::cp {

struct FactorMatchOptions {
  bool weight_penalty = true;  // false: the congruence of the factors alone (weights ignored)
};

struct ComponentMatch {
  int a = 0, b = 0;   // component of A and of B (0-based)
  double score = 0;   // their C(a, b)
};

struct FactorMatch {
  double score = 0;
  // One pair per component of the smaller rank (A's when the ranks are equal), in that Ktensor's
  // component order.
  std::vector<ComponentMatch> pairs;
};

namespace impl {
// Column norms of a host factor (I x R, row-major) in double.
template <class T>
std::vector<double> host_column_norms(const View<T**, LayoutRight, HostSpace>& F) {
  const std::size_t I = F.extent(0), R = F.extent(1);
  std::vector<double> n(R, 0.0);
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t r = 0; r < R; ++r) n[r] += static_cast<double>(F(i, r)) * static_cast<double>(F(i, r));
  for (double& x : n) x = std::sqrt(x);
  return n;
}

template <class T>
void check_finite_ktensor(const Ktensor<T, HostSpace>& K, const char* name) {
  for (int r = 0; r < K.rank(); ++r)
    if (!std::isfinite(static_cast<double>(K.lambda(r))))
      grain::impl::throw_error("grain::cp::factor_match_score: ", name, "'s weight ", r + 1, " is not finite (",
                               static_cast<double>(K.lambda(r)), ")");
  for (int m = 0; m < K.ndims(); ++m)
    for (index_type i = 0; i < K.dim(m); ++i)
      for (int r = 0; r < K.rank(); ++r)
        if (!std::isfinite(static_cast<double>(K.factors[m](i, r))))
          grain::impl::throw_error("grain::cp::factor_match_score: ", name, "'s mode ", m + 1, " factor has a non-finite entry (",
                                   static_cast<double>(K.factors[m](i, r)), ") at row ", i + 1, ", column ", r + 1);
}
}  // namespace impl

// The factor match score of A and B (host Ktensors of the same shape; the ranks may differ).
template <class T>
FactorMatch factor_match_score(const Ktensor<T, HostSpace>& A, const Ktensor<T, HostSpace>& B,
                               const FactorMatchOptions& opts = {}) {
  if (A.ndims() != B.ndims() || A.dims() != B.dims())
    grain::impl::throw_error("grain::cp::factor_match_score: A is ", dims_string(A.dims()), " and B is ",
                             dims_string(B.dims()), "; the Ktensors must have the same mode sizes");
  impl::check_finite_ktensor(A, "A");
  impl::check_finite_ktensor(B, "B");
  const int RA = A.rank(), RB = B.rank(), N = A.ndims();
  // |weight| times the column norms of every mode: the weights of the normalized model, whose
  // signs the columns take (as the Toolbox's normalize does).
  std::vector<double> la(RA), lb(RB);
  for (int r = 0; r < RA; ++r) la[r] = std::abs(static_cast<double>(A.lambda(r)));
  for (int r = 0; r < RB; ++r) lb[r] = std::abs(static_cast<double>(B.lambda(r)));
  std::vector<double> C(static_cast<std::size_t>(RA) * RB, 1.0);
  for (int m = 0; m < N; ++m) {
    const std::vector<double> na = impl::host_column_norms(A.factors[m]), nb = impl::host_column_norms(B.factors[m]);
    for (int r = 0; r < RA; ++r) la[r] *= na[r];
    for (int r = 0; r < RB; ++r) lb[r] *= nb[r];
    std::vector<double> dot(C.size(), 0.0);
    for (index_type i = 0; i < A.dim(m); ++i)
      for (int a = 0; a < RA; ++a) {
        const double x = static_cast<double>(A.factors[m](i, a));
        for (int b = 0; b < RB; ++b) dot[a * RB + b] += x * static_cast<double>(B.factors[m](i, b));
      }
    // A zero column matches nothing.
    for (int a = 0; a < RA; ++a)
      for (int b = 0; b < RB; ++b)
        C[a * RB + b] *= na[a] > 0 && nb[b] > 0 ? std::abs(dot[a * RB + b]) / (na[a] * nb[b]) : 0.0;
  }
  if (opts.weight_penalty)
    for (int a = 0; a < RA; ++a)
      for (int b = 0; b < RB; ++b) {
        const double big = std::max(la[a], lb[b]);
        C[a * RB + b] *= big > 0 ? 1.0 - std::abs(la[a] - lb[b]) / big : 1.0;
      }
  // Greedy pairing, as the Toolbox does: the best remaining pair first. Taken rows and columns are
  // marked, not overwritten, so that a pair of score 0 is still a pair.
  FactorMatch out;
  const int K = std::min(RA, RB);
  std::vector<char> used_a(RA, 0), used_b(RB, 0);
  for (int k = 0; k < K; ++k) {
    int best_a = -1, best_b = -1;
    for (int a = 0; a < RA; ++a)
      for (int b = 0; !used_a[a] && b < RB; ++b)
        if (!used_b[b] && (best_a < 0 || C[a * RB + b] > C[best_a * RB + best_b])) best_a = a, best_b = b;
    used_a[best_a] = used_b[best_b] = 1;
    out.pairs.push_back({best_a, best_b, C[best_a * RB + best_b]});
    out.score += C[best_a * RB + best_b];
  }
  out.score /= K;
  const bool by_a = RA <= RB;
  std::sort(out.pairs.begin(), out.pairs.end(), [by_a](const ComponentMatch& x, const ComponentMatch& y) {
    return by_a ? x.a < y.a : x.b < y.b;
  });
  return out;
}

}  // namespace grain::cp
