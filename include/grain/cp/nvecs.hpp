// The nvecs start of CP-ALS (the Tensor Toolbox's cp_als 'nvecs' init): each mode's factor holds
// the leading R left singular vectors of the tensor's unfolding X_(n), which are the leading
// eigenvectors of X_(n) X_(n)^T.
//
// A block power (subspace) iteration with Rayleigh-Ritz finds them for every mode size: a block Q
// of R + 10 orthonormal columns, Y = X_(n) (X_(n)^T Q) computed over the nonzeros, the Ritz pairs
// of Q^T Y, Q = orth(Y) (LAPACK's QR), until the R leading Ritz pairs' residuals fall below the
// tolerance. X_(n) X_(n)^T itself is I_n x I_n, out of reach for large modes; the iteration needs
// I_n x (R + 10). A fiber (the nonzeros sharing every index but mode n's) of one nonzero x at row i
// adds x^2 Q(i, :) to Y(i, :): those, most fibers of a sparse tensor, are summed per row once, so
// that only longer fibers scatter into Y.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/dense_solve.hpp"
#include "grain/cp/ktensor.hpp"

namespace grain::cp {

struct NvecsOptions {
  std::uint64_t seed = 1;  // the random block the iteration starts from
  // A start needs the leading subspace, not the vectors to rounding, and each block iteration is
  // a pass over the nonzeros: a mode stops after maxiters, or once every leading Ritz pair's residual
  // |X_(n) X_(n)^T u - theta u| is at most tol times the largest Ritz value (0: 1e-6, or
  // 10 sqrt(machine epsilon) of a coarser element type).
  int maxiters = 30;
  double tol = 0;
  bool absolute = false;   // entries replaced by their magnitudes (a non-negative start)
};

namespace impl {

// Columns of the block handled by one item of NvecsProductFunctor: the fiber's partial products
// stay in registers.
inline constexpr index_type kNvecsColumns = 16;

// Y(i, :) = d(i) Q(i, :), element by element: the fibers of one nonzero, d(i) being the sum of
// their squares at row i.
template <class T>
struct NvecsDiagonalFunctor {
  const T* d;
  const T* Q;
  T* Y;
  index_type b;
  GRAIN_INLINE_FUNCTION void operator()(index_type e) const { Y[e] = d[e / b] * Q[e]; }
};

// Y(i_n(j), c) += x_j z(c) over the nonzeros j of a fiber f of two or more, z(c) = sum over those
// j of x_j Q(i_n(j), c): with NvecsDiagonalFunctor, Y = X_(n) X_(n)^T Q. One fiber and one block
// of kNvecsColumns columns per item. Fibers share rows of Y: atomic adds.
template <class T>
struct NvecsProductFunctor {
  const subscript_type* subs;
  const T* vals;
  const index_type* order;    // the nonzeros fiber by fiber
  const index_type* offsets;  // fiber f is order[offsets[f] .. offsets[f + 1])
  const index_type* fibers;   // the fibers of two or more nonzeros
  const T* Q;
  T* Y;
  int N, n;
  index_type b, blocks;
  GRAIN_INLINE_FUNCTION void operator()(index_type item) const {
    const index_type f = fibers[item / blocks], c0 = (item % blocks) * kNvecsColumns;
    const index_type w = b - c0 < kNvecsColumns ? b - c0 : kNvecsColumns;
    T z[kNvecsColumns] = {};
    for (index_type k = offsets[f]; k < offsets[f + 1]; ++k) {
      const index_type j = order[k];
      const T* q = Q + static_cast<index_type>(subs[j * N + n]) * b + c0;
      for (index_type c = 0; c < w; ++c) z[c] += vals[j] * q[c];
    }
    for (index_type k = offsets[f]; k < offsets[f + 1]; ++k) {
      const index_type j = order[k];
      T* y = Y + static_cast<index_type>(subs[j * N + n]) * b + c0;
      for (index_type c = 0; c < w; ++c) atomic_add(y + c, vals[j] * z[c]);
    }
  }
};

// The nonzeros of mode n's fibers: `order` lists them fiber by fiber (sorted by their indices in
// the other modes), fiber f being order[offsets[f] .. offsets[f + 1]).
inline void mode_fibers(const subscript_type* subs, index_type nnz, int N, int n, std::vector<index_type>& order,
                        std::vector<index_type>& offsets) {
  order.resize(nnz);
  std::iota(order.begin(), order.end(), index_type(0));
  const auto less = [&](index_type a, index_type b) {
    for (int m = 0; m < N; ++m)
      if (m != n && subs[a * N + m] != subs[b * N + m]) return subs[a * N + m] < subs[b * N + m];
    return false;
  };
  std::sort(order.begin(), order.end(), less);
  offsets.assign(1, 0);
  for (index_type k = 1; k <= nnz; ++k)
    if (k == nnz || less(order[k - 1], order[k])) offsets.push_back(k);
}

}  // namespace impl

// The nvecs start for rank R: factor n is the leading R eigenvectors of X_(n) X_(n)^T (each
// column's largest-magnitude entry positive, as the Toolbox's nvecs makes it), the weights 1.
// Every mode gets its vectors: the non-negative update starts from the factor being updated.
template <class Exec, class T, class Space>
Ktensor<T, Space> nvecs_ktensor(const SparseTensor<T, Space>& X, int R, const NvecsOptions& opts = {}) {
  const int N = X.ndims();
  if (R < 1) grain::impl::throw_error("grain::cp::nvecs_ktensor: rank ", R, " must be at least 1");
  for (int n = 0; n < N; ++n)
    if (X.dim(n) < R)
      grain::impl::throw_error("grain::cp::nvecs_ktensor: rank ", R, " exceeds mode ", n + 1, "'s size ", X.dim(n),
                               "; nvecs has at most as many vectors as the mode has indices (use a random start)");
  if (opts.maxiters < 1) grain::impl::throw_error("grain::cp::nvecs_ktensor: maxiters ", opts.maxiters, " must be at least 1");
  const double tol = opts.tol > 0 ? opts.tol : std::max(1e-6, 10 * std::sqrt(double(std::numeric_limits<T>::epsilon())));
  Ktensor<T, Space> K(X.dims(), R);
  deep_copy(K.lambda, T(1));
  const index_type nnz = X.nnz();
  auto subs_h = create_mirror_view(X.subscripts());
  deep_copy(subs_h, X.subscripts());
  auto vals_h = create_mirror_view(X.values());
  deep_copy(vals_h, X.values());
  std::mt19937_64 g(opts.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<index_type> order, offsets;
  for (int n = 0; n < N; ++n) {
    const index_type I = X.dim(n);
    const index_type b = std::min<index_type>(I, R + 10);
    impl::mode_fibers(subs_h.data(), nnz, N, n, order, offsets);
    const index_type F = static_cast<index_type>(offsets.size()) - 1;
    std::vector<index_type> long_fibers;
    View<T*, LayoutRight, Space> d("nvecs_diagonal", I);
    auto d_h = create_mirror_view(d);
    deep_copy(d_h, T(0));
    for (index_type f = 0; f < F; ++f) {
      if (offsets[f + 1] - offsets[f] > 1) {
        long_fibers.push_back(f);
      } else {
        const index_type j = order[offsets[f]];
        d_h(subs_h.data()[j * N + n]) += vals_h(j) * vals_h(j);
      }
    }
    deep_copy(d, d_h);
    const index_type L = static_cast<index_type>(long_fibers.size());
    View<index_type*, LayoutRight, Space> order_d(WithoutInitializing, "nvecs_order", nnz),
        offsets_d(WithoutInitializing, "nvecs_offsets", F + 1), fibers_d(WithoutInitializing, "nvecs_fibers", L);
    deep_copy(order_d, View<index_type*, LayoutRight, HostSpace>(order.data(), nnz));
    deep_copy(offsets_d, View<index_type*, LayoutRight, HostSpace>(offsets.data(), F + 1));
    deep_copy(fibers_d, View<index_type*, LayoutRight, HostSpace>(long_fibers.data(), L));
    View<T**, LayoutRight, Space> Qd(WithoutInitializing, "nvecs_block", I, b), Yd(WithoutInitializing, "nvecs_product", I, b);
    auto Qd_h = create_mirror_view(Qd);
    auto Yd_h = create_mirror_view(Yd);
    const index_type blocks = (b + impl::kNvecsColumns - 1) / impl::kNvecsColumns;
    // Q column-major in double on the host (LAPACK's layout).
    std::vector<double> Q(static_cast<std::size_t>(I * b)), H(static_cast<std::size_t>(b * b));
    for (double& q : Q) q = u(g);
    orthonormalize_columns(Q, I, static_cast<int>(b));
    for (int it = 1;; ++it) {
      for (index_type i = 0; i < I; ++i)
        for (index_type c = 0; c < b; ++c) Qd_h(i, c) = static_cast<T>(Q[c * I + i]);
      deep_copy(Qd, Qd_h);
      parallel_for(RangePolicy<Exec>(0, I * b), impl::NvecsDiagonalFunctor<T>{d.data(), Qd.data(), Yd.data(), b});
      parallel_for(RangePolicy<Exec>(0, L * blocks),
                   impl::NvecsProductFunctor<T>{X.subscripts().data(), X.values().data(), order_d.data(),
                                                offsets_d.data(), fibers_d.data(), Qd.data(), Yd.data(), N, n, b,
                                                blocks});
      deep_copy(Yd_h, Yd);
      // Rayleigh-Ritz: H = Q^T Y (symmetrized), summed row by row over the row-major copies (each
      // row's b x b outer product stays in cache), then its eigenpairs, ascending.
      std::fill(H.begin(), H.end(), 0.0);
      for (index_type i = 0; i < I; ++i)
        for (index_type r = 0; r < b; ++r) {
          const double q = static_cast<double>(Qd_h(i, r));
          for (index_type c = 0; c < b; ++c) H[r * b + c] += q * static_cast<double>(Yd_h(i, c));
        }
      for (index_type r = 0; r < b; ++r)
        for (index_type c = r + 1; c < b; ++c) H[r * b + c] = H[c * b + r] = 0.5 * (H[r * b + c] + H[c * b + r]);
      const std::vector<double> theta = symmetric_eigen(H, static_cast<int>(b));
      // The Ritz vectors of the R largest values, U = Q W, and their residuals Y W - theta U.
      std::vector<double> U(static_cast<std::size_t>(I) * R), res2(R, 0.0);
      for (index_type i = 0; i < I; ++i)
        for (int k = 0; k < R; ++k) {
          const double* wk = H.data() + (b - 1 - k) * b;
          double qu = 0, yu = 0;
          for (index_type c = 0; c < b; ++c) {
            qu += static_cast<double>(Qd_h(i, c)) * wk[c];
            yu += static_cast<double>(Yd_h(i, c)) * wk[c];
          }
          U[k * I + i] = qu;
          res2[k] += (yu - theta[b - 1 - k] * qu) * (yu - theta[b - 1 - k] * qu);
        }
      const double scale = std::max(std::abs(theta[b - 1]), std::numeric_limits<double>::min());
      double worst = 0;
      for (int k = 0; k < R; ++k) worst = std::max(worst, std::sqrt(res2[k]) / scale);
      if (worst <= tol || it >= opts.maxiters || b == I) {
        // b == I: Q spans everything, so the Ritz vectors are exact.
        auto Kh = create_mirror_view(K.factors[n]);
        for (int k = 0; k < R; ++k) {
          index_type big = 0;
          for (index_type i = 1; i < I; ++i)
            if (std::abs(U[k * I + i]) > std::abs(U[k * I + big])) big = i;
          const double sign = U[k * I + big] < 0 ? -1.0 : 1.0;
          for (index_type i = 0; i < I; ++i) {
            const double v = sign * U[k * I + i];
            Kh(i, k) = static_cast<T>(opts.absolute ? std::abs(v) : v);
          }
        }
        deep_copy(K.factors[n], Kh);
        break;
      }
      for (index_type i = 0; i < I; ++i)
        for (index_type c = 0; c < b; ++c) Q[c * I + i] = static_cast<double>(Yd_h(i, c));
      orthonormalize_columns(Q, I, static_cast<int>(b));
    }
  }
  return K;
}

}  // namespace grain::cp
