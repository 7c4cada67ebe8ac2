// Cholesky inverse with a pseudo-inverse fallback for the R x R normal equations of CP-ALS.
#include "grain/cp/dense_solve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace grain::cp {
namespace {

bool cholesky_inverse(std::vector<double>& V, int R) {
  std::vector<double> L(static_cast<std::size_t>(R) * R, 0.0);
  double maxdiag = 0;
  for (int i = 0; i < R; ++i) maxdiag = std::max(maxdiag, std::abs(V[i * R + i]));
  const double floor = maxdiag * R * std::numeric_limits<double>::epsilon() * 16;
  for (int j = 0; j < R; ++j) {
    double d = V[j * R + j];
    for (int k = 0; k < j; ++k) d -= L[j * R + k] * L[j * R + k];
    if (!(d > floor)) return false;  // not (numerically) positive definite; NaN lands here too
    const double ljj = std::sqrt(d);
    L[j * R + j] = ljj;
    for (int i = j + 1; i < R; ++i) {
      double s = V[i * R + j];
      for (int k = 0; k < j; ++k) s -= L[i * R + k] * L[j * R + k];
      L[i * R + j] = s / ljj;
    }
  }
  // W = L^{-1} (lower triangular), row by row: W(i, :) = -(sum_{k<i} L(i, k) W(k, :)) / L(i, i),
  // then V^{-1} = W^T W accumulated a row of W at a time. Every inner loop runs over a
  // contiguous row (vectorizes; R = 128 takes well under a millisecond).
  std::vector<double> W(static_cast<std::size_t>(R) * R, 0.0);
  for (int i = 0; i < R; ++i) {
    double* wi = W.data() + static_cast<std::size_t>(i) * R;
    for (int k = 0; k < i; ++k) {
      const double lik = L[i * R + k];
      const double* wk = W.data() + static_cast<std::size_t>(k) * R;
      for (int c = 0; c <= k; ++c) wi[c] -= lik * wk[c];
    }
    const double inv = 1.0 / L[i * R + i];
    for (int c = 0; c < i; ++c) wi[c] *= inv;
    wi[i] = inv;
  }
  std::fill(V.begin(), V.end(), 0.0);
  for (int k = 0; k < R; ++k) {
    const double* wk = W.data() + static_cast<std::size_t>(k) * R;
    for (int i = 0; i <= k; ++i) {
      const double wki = wk[i];
      double* vi = V.data() + static_cast<std::size_t>(i) * R;
      for (int j = 0; j <= i; ++j) vi[j] += wki * wk[j];
    }
  }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < i; ++j) V[j * R + i] = V[i * R + j];
  return true;
}

void pseudo_inverse(std::vector<double>& V, int R) {
  std::vector<double> A = V, Q(static_cast<std::size_t>(R) * R, 0.0);
  for (int i = 0; i < R; ++i) Q[i * R + i] = 1.0;
  // Cyclic Jacobi rotations until the off-diagonal part is negligible.
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < R; ++j) {
        total += A[i * R + j] * A[i * R + j];
        if (i != j) off += A[i * R + j] * A[i * R + j];
      }
    if (off <= total * 1e-30 || off == 0) break;
    for (int p = 0; p < R; ++p)
      for (int q = p + 1; q < R; ++q) {
        const double apq = A[p * R + q];
        if (apq == 0) continue;
        const double theta = (A[q * R + q] - A[p * R + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < R; ++k) {  // A = J^T A J
          const double akp = A[k * R + p], akq = A[k * R + q];
          A[k * R + p] = c * akp - s * akq;
          A[k * R + q] = s * akp + c * akq;
        }
        for (int k = 0; k < R; ++k) {
          const double apk = A[p * R + k], aqk = A[q * R + k];
          A[p * R + k] = c * apk - s * aqk;
          A[q * R + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < R; ++k) {
          const double qkp = Q[k * R + p], qkq = Q[k * R + q];
          Q[k * R + p] = c * qkp - s * qkq;
          Q[k * R + q] = s * qkp + c * qkq;
        }
      }
  }
  double wmax = 0;
  for (int i = 0; i < R; ++i) wmax = std::max(wmax, std::abs(A[i * R + i]));
  const double tol = wmax * R * std::numeric_limits<double>::epsilon() * 16;
  std::vector<double> inv(R);
  for (int i = 0; i < R; ++i) inv[i] = std::abs(A[i * R + i]) > tol ? 1.0 / A[i * R + i] : 0.0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) {
      double s = 0;
      for (int k = 0; k < R; ++k) s += Q[i * R + k] * inv[k] * Q[j * R + k];
      V[i * R + j] = s;
    }
}

}  // namespace

bool spd_inverse(std::vector<double>& V, int R) {
  std::vector<double> copy = V;
  if (cholesky_inverse(V, R)) return false;
  V = copy;
  pseudo_inverse(V, R);
  return true;
}

}  // namespace grain::cp
