// Modified Gram-Schmidt QR of an N x K multivector (Edwards, Sunderland et al. 2011, §V,
// Figure 6) as a sequence of grain level-1 operations, each one parallel_for or parallel_reduce:
//
//   for k = 0..K-1:   r_kk = ||a_k||;  a_k *= 1/r_kk                (norm, scale)
//                     for j = k+1..K-1:  r_kj = <a_k, a_j>;  a_j -= r_kj a_k   (dot, axpy)
//
// The multivector is a rank-2 View (N, K). Its columns are what the operations stream through,
// so benchmarks store it LayoutLeft in every space (each column contiguous, as a Tpetra/Epetra
// multivector); the kernels accept any layout, and the tests run LayoutRight too.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "grain/core.hpp"
#include "../hex_gradient/hex_gradient.hpp"  // hash_unit

namespace grain::examples {

inline constexpr int kGramSchmidtColumns = 32;

// The host matrix R (K x K, upper triangular) that the factorization returns.
using HostMatrix = View<double**, LayoutRight, HostSpace>;

// Traffic and work of one factorization, in doubles moved and flops (2 per multiply-add):
// K norms (read N, 2N flops), K scales (read+write N, N flops), K(K-1)/2 dots (read 2N, 2N
// flops) and as many axpys (read 2N, write N, 2N flops).
inline double mgs_bytes(double n, int k) {
  const double pairs = 0.5 * k * (k - 1);
  return 8.0 * n * (3.0 * k + 5.0 * pairs);
}
inline double mgs_flops(double n, int k) {
  const double pairs = 0.5 * k * (k - 1);
  return n * (3.0 * k + 4.0 * pairs);
}

// ---- level-1 operations on columns of a multivector ---------------------------------------------

// <a(:, j), a(:, k)>
template <class Exec, class MV>
double mv_dot(const MV& a, int j, int k) {
  double sum = 0;
  parallel_reduce(RangePolicy<Exec>(0, static_cast<index_type>(a.extent(0))),
                  GRAIN_LAMBDA(index_type i, double& s) { s += a(i, j) * a(i, k); }, sum);
  return sum;
}

// a(:, k) *= alpha
template <class Exec, class MV>
void mv_scale(const MV& a, int k, double alpha) {
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(a.extent(0))),
               GRAIN_LAMBDA(index_type i) { a(i, k) *= alpha; });
}

// a(:, j) += alpha * a(:, k)
template <class Exec, class MV>
void mv_axpy(const MV& a, int j, double alpha, int k) {
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(a.extent(0))),
               GRAIN_LAMBDA(index_type i) { a(i, j) += alpha * a(i, k); });
}

inline void check_mgs_shapes(std::size_t n, std::size_t k, const HostMatrix& r, const char* who) {
  if (r.extent(0) != k || r.extent(1) != k)
    impl::throw_error(who, ": argument 'r' has extents ", r.shape(), ", expected (", k, ",", k,
                      ") for a multivector of ", k, " columns");
  if (n < k)
    impl::throw_error(who, ": argument 'a' has extents (", n, ",", k, "): a QR factorization needs at "
                      "least as many rows as columns");
}

inline void check_mgs_pivot(double norm, int k, const char* who) {
  if (!(norm > 0) || !std::isfinite(norm))
    impl::throw_error(who, ": column ", k, " has norm ", norm,
                      " after orthogonalization against the previous columns: the multivector "
                      "is rank deficient (or holds NaN/inf)");
}

// In place: a becomes Q (orthonormal columns), r receives R, with A = Q R.
template <class Exec, class MV>
void modified_gram_schmidt(const MV& a, const HostMatrix& r) {
  static_assert(MV::rank == 2, "modified_gram_schmidt: the multivector is a rank-2 View (N, K)");
  const int K = static_cast<int>(a.extent(1));
  check_mgs_shapes(a.extent(0), a.extent(1), r, "modified_gram_schmidt");
  for (int k = 0; k < K; ++k) {
    const double norm = std::sqrt(mv_dot<Exec>(a, k, k));
    check_mgs_pivot(norm, k, "modified_gram_schmidt");
    r(k, k) = norm;
    for (int j = 0; j < k; ++j) r(k, j) = 0.0;
    mv_scale<Exec>(a, k, 1.0 / norm);
    for (int j = k + 1; j < K; ++j) {
      const double rkj = mv_dot<Exec>(a, k, j);
      r(k, j) = rkj;
      mv_axpy<Exec>(a, j, -rkj, k);
    }
  }
}

// ---- the same factorization without host round trips ----------------------------------------------
//
// grain's parallel_reduce hands its result to the host, so the sequence above waits for the device
// after each of its K(K+1)/2 reductions. This variant keeps R on the device: each dot is a team
// reduction that adds its team's partial sum atomically into R, and the scale and axpy that
// follow read their coefficient from there. Same operations, same traffic, no synchronization
// until R is copied back at the end. Still one portable source.

// Teams for a reduction over n entries: about one per resident block on the GPU (256 threads
// each), one per thread on the CPU.
template <class Exec>
index_type reduction_league(index_type n) {
  const index_type threads = Exec::concurrency();
  const index_type team = is_host_execution_space_v<Exec> ? 1 : 256;
  index_type league = threads / team;
  if (league < 1) league = 1;
  const index_type useful = (n + team - 1) / team;  // no team without work
  return league < useful ? league : (useful > 0 ? useful : 1);
}

// out(0) += <a(:, j), a(:, k)>, where out is a 0-offset slot of a View in Exec's space.
template <class Exec, class MV, class Slot>
void mv_dot_into(const MV& a, int j, int k, const Slot& out, int oi, int oj) {
  const index_type n = static_cast<index_type>(a.extent(0));
  const index_type league = reduction_league<Exec>(n);
  const index_type chunk = (n + league - 1) / league;
  using Member = typename TeamPolicy<Exec>::member_type;
  parallel_for(TeamPolicy<Exec>(league, AUTO), GRAIN_LAMBDA(const Member& m) {
    const index_type b = m.league_rank() * chunk;
    const index_type e = b + chunk < n ? b + chunk : n;
    double sum = 0;
    parallel_reduce(
        TeamThreadRange(m, b, e), [&](index_type i, double& s) { s += a(i, j) * a(i, k); }, sum);
    single(PerTeam(m), [&] { atomic_add(&out(oi, oj), sum); });
  });
}

// In place, as modified_gram_schmidt; r_dev (K x K, zero-filled here) is in Exec's space and
// holds R on return, r (host) too. work (2 x K) holds squared norms and reciprocals.
template <class Exec, class MV, class RV>
void modified_gram_schmidt_device_scalars(const MV& a, const RV& r_dev, const RV& work,
                                          const HostMatrix& r) {
  static_assert(MV::rank == 2 && RV::rank == 2, "modified_gram_schmidt_device_scalars: rank-2 Views");
  const int K = static_cast<int>(a.extent(1));
  const index_type n = static_cast<index_type>(a.extent(0));
  check_mgs_shapes(a.extent(0), a.extent(1), r, "modified_gram_schmidt_device_scalars");
  if (r_dev.extent(0) != std::size_t(K) || r_dev.extent(1) != std::size_t(K) ||
      work.extent(0) != 2 || work.extent(1) != std::size_t(K))
    impl::throw_error("modified_gram_schmidt_device_scalars: 'r_dev' has extents ", r_dev.shape(),
                      " and 'work' ", work.shape(), ", expected (", K, ",", K, ") and (2,", K, ")");
  deep_copy(r_dev, 0.0);
  deep_copy(work, 0.0);
  for (int k = 0; k < K; ++k) {
    mv_dot_into<Exec>(a, k, k, work, 0, k);
    parallel_for(RangePolicy<Exec>(0, 1), GRAIN_LAMBDA(index_type) {
      const double norm = sqrt(work(0, k));
      r_dev(k, k) = norm;
      work(1, k) = 1.0 / norm;
    });
    parallel_for(RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type i) { a(i, k) *= work(1, k); });
    for (int j = k + 1; j < K; ++j) {
      mv_dot_into<Exec>(a, k, j, r_dev, k, j);
      parallel_for(RangePolicy<Exec>(0, n),
                   GRAIN_LAMBDA(index_type i) { a(i, j) -= r_dev(k, j) * a(i, k); });
    }
  }
  deep_copy(r, r_dev);
  for (int k = 0; k < K; ++k) check_mgs_pivot(r(k, k), k, "modified_gram_schmidt_device_scalars");
}

// ---- inputs and checks ---------------------------------------------------------------------------

// Entries uniform in [-1, 1), reproducible from the seed, generated where the View lives.
template <class Exec, class MV>
void fill_multivector(const MV& a, std::uint64_t seed) {
  const int K = static_cast<int>(a.extent(1));
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(a.extent(0))),
               GRAIN_LAMBDA(index_type i) {
                 for (int k = 0; k < K; ++k)
                   a(i, k) = hash_unit(seed * 0x9e3779b97f4a7c15ull +
                                       static_cast<std::uint64_t>(i) * 64u + k);
               });
}

// max_{j,k} |(Q^T Q - I)_jk|, from K(K+1)/2 grain dots where Q lives (NaN gives +inf).
template <class Exec, class MV>
double mgs_orthogonality_error(const MV& q) {
  const int K = static_cast<int>(q.extent(1));
  double worst = 0;
  for (int j = 0; j < K; ++j)
    for (int k = j; k < K; ++k) {
      const double e = std::abs(mv_dot<Exec>(q, j, k) - (j == k ? 1.0 : 0.0));
      worst = e <= worst ? worst : (std::isnan(e) ? INFINITY : e);
    }
  return worst;
}

// One column of R, passed by value into the residual kernel.
struct MgsColumn {
  double v[64];
};

// ||A - Q R||_F / ||A||_F, computed column by column where A and Q live.
template <class Exec, class MV, class MV2>
double mgs_residual(const MV2& a, const MV& q, const HostMatrix& r) {
  const int K = static_cast<int>(q.extent(1));
  if (a.extent(0) != q.extent(0) || a.extent(1) != q.extent(1))
    impl::throw_error("mgs_residual: 'a' has extents ", a.shape(), " but 'q' has ", q.shape());
  check_mgs_shapes(q.extent(0), q.extent(1), r, "mgs_residual");
  if (K > 64) impl::throw_error("mgs_residual: at most 64 columns, got ", K);
  double num = 0, den = 0;
  for (int j = 0; j < K; ++j) {
    MgsColumn c{};
    for (int k = 0; k <= j; ++k) c.v[k] = r(k, j);
    double nj = 0, dj = 0;
    parallel_reduce(RangePolicy<Exec>(0, static_cast<index_type>(a.extent(0))),
                    GRAIN_LAMBDA(index_type i, double& s) {
                      double qr = 0;
                      for (int k = 0; k <= j; ++k) qr += q(i, k) * c.v[k];
                      const double d = a(i, j) - qr;
                      s += d * d;
                    },
                    nj);
    dj = mv_dot<Exec>(a, j, j);
    num += nj;
    den += dj;
  }
  const double rel = std::sqrt(num / den);
  return std::isnan(rel) ? INFINITY : rel;
}

}  // namespace grain::examples
