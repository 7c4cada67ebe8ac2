// MTTKRP (matricized tensor times Khatri-Rao product) for a sparse COO tensor, any mode:
//
//   out(k, r) = sum over nonzeros j with i_n(j) = k of  x_j * prod_{m != n} A_m(i_m(j), r)
//
// Algorithms (Genten, 002 slides "Parallelize MTTKRP over tensor non-zeros" to "Permuted
// MTTKRP"), each written once against grain's core patterns:
//   atomic      flat over nonzeros, one thread each, atomic_add into out (MTTKRP on slide 13);
//   team        teams of threads over blocks of nonzeros, vector lanes over R, R blocked so one
//               pass touches at most kMttkrpRBlock columns (MTTKRP-B, register row buffers);
//   perm        nonzeros visited in the order of the mode's permutation; a thread reduces its run
//               of equal rows locally and writes with atomics only at the two ends of its chunk
//               (MTTKRP-C: far fewer atomics, and they land near each other). The nonzeros are
//               read from a copy stored in that order (SparseTensor::sorted), so they stream
//               instead of being gathered through the permutation;
//   privatized  P private copies of out (a CPU thread's own rows, no atomics), summed afterwards;
//               chosen on the CPU when the copies are small next to the tensor.
// Auto picks per call from the tensor's shape, R and the back end (choose_mttkrp).
#pragma once

#include <string>

#include "grain/core.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cp {

enum class MttkrpAlgorithm { Auto, Atomic, Team, Perm, Privatized };

inline const char* mttkrp_algorithm_name(MttkrpAlgorithm a) {
  switch (a) {
    case MttkrpAlgorithm::Auto: return "auto";
    case MttkrpAlgorithm::Atomic: return "atomic";
    case MttkrpAlgorithm::Team: return "team";
    case MttkrpAlgorithm::Perm: return "perm";
    case MttkrpAlgorithm::Privatized: return "privatized";
  }
  return "?";
}

inline MttkrpAlgorithm parse_mttkrp_algorithm(const std::string& s) {
  for (auto a : {MttkrpAlgorithm::Auto, MttkrpAlgorithm::Atomic, MttkrpAlgorithm::Team,
                 MttkrpAlgorithm::Perm, MttkrpAlgorithm::Privatized})
    if (s == mttkrp_algorithm_name(a)) return a;
  grain::impl::throw_error("unknown MTTKRP algorithm '", s, "' (auto, atomic, team, perm, privatized)");
}

// Columns per pass of the team and perm algorithms.
inline constexpr index_type kMttkrpRBlock = 64;
// Private copies may take at most this many bytes in all.
inline constexpr std::size_t kPrivatizedBudget = std::size_t(512) << 20;

// Reusable buffers between calls (the private copies).
template <class T, class Space>
struct MttkrpWorkspace {
  View<T*, LayoutRight, Space> privatized;
};

namespace impl {

template <class T>
struct MttkrpData {
  const subscript_type* subs;
  const T* vals;
  const T* fac[kMaxSparseModes];
  T* out;
  int N, n;
  index_type R, nnz, I;
};

// Pointers to the factor rows of nonzero j in every mode but n. NC > 0: the mode count is a
// compile-time constant (the common 3-way case unrolls fully).
template <int NC, class T>
GRAIN_FORCEINLINE_FUNCTION int other_rows(const MttkrpData<T>& d, index_type j, const T** rows) {
  const int N = NC > 0 ? NC : d.N;
  const subscript_type* s = d.subs + j * N;
  int q = 0;
  for (int m = 0; m < N; ++m)
    if (m != d.n) rows[q++] = d.fac[m] + static_cast<index_type>(s[m]) * d.R;
  return q;
}

template <int NC, class T>
GRAIN_FORCEINLINE_FUNCTION T khatri_rao(const T* const* rows, int q, index_type r, T v) {
  if constexpr (NC > 0) {
#pragma unroll
    for (int k = 0; k < NC - 1; ++k) v *= rows[k][r];
  } else {
    for (int k = 0; k < q; ++k) v *= rows[k][r];
  }
  return v;
}

template <int NC, class T>
struct MttkrpAtomic {
  MttkrpData<T> d;
  GRAIN_INLINE_FUNCTION void operator()(index_type j) const {
    const T* rows[kMaxSparseModes];
    const int q = other_rows<NC>(d, j, rows);
    const T v = d.vals[j];
    const int N = NC > 0 ? NC : d.N;
    T* o = d.out + static_cast<index_type>(d.subs[j * N + d.n]) * d.R;
    for (index_type r = 0; r < d.R; ++r) atomic_add(&o[r], khatri_rao<NC>(rows, q, r, v));
  }
};

template <int NC, class T, class Member>
struct MttkrpTeam {
  MttkrpData<T> d;
  index_type per_team, nrb;
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type blk = m.league_rank() / nrb;
    const index_type r0 = (m.league_rank() % nrb) * kMttkrpRBlock;
    const index_type r1 = r0 + kMttkrpRBlock < d.R ? r0 + kMttkrpRBlock : d.R;
    const index_type j0 = blk * per_team;
    const index_type j1 = j0 + per_team < d.nnz ? j0 + per_team : d.nnz;
    const int N = NC > 0 ? NC : d.N;
    parallel_for(TeamThreadRange(m, j0, j1), [&](index_type j) {
      const T* rows[kMaxSparseModes];
      const int q = other_rows<NC>(d, j, rows);
      const T v = d.vals[j];
      T* o = d.out + static_cast<index_type>(d.subs[j * N + d.n]) * d.R;
      parallel_for(ThreadVectorRange(m, r0, r1),
                   [&](index_type r) { atomic_add(&o[r], khatri_rao<NC>(rows, q, r, v)); });
    });
  }
};

template <int NC, class T, class Member>
struct MttkrpPerm {
  MttkrpData<T> d;
  index_type chunk, threads_per_team, teams;  // teams: per pass of kMttkrpRBlock columns
  // Nonzeros gathered together: their index and factor-row loads are independent, so U of
  // them are in flight at once instead of one dependent chain (subscripts -> rows) at
  // a time. Measured on the H200: the one-at-a-time loop was latency-bound (docs/performance.md).
  static constexpr int U = 4;

  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    T* acc = m.thread_scratch(0).template get<T>(static_cast<std::size_t>(kMttkrpRBlock));
    // Passes over column blocks are the slowest index: the GPU runs the teams of one pass
    // together, so only that pass's columns of the gathered factors compete for the L2.
    const index_type team = m.league_rank() % teams;
    const index_type r0 = (m.league_rank() / teams) * kMttkrpRBlock;
    const index_type r1 = r0 + kMttkrpRBlock < d.R ? r0 + kMttkrpRBlock : d.R;
    const int N = NC > 0 ? NC : d.N;
    parallel_for(TeamThreadRange(m, threads_per_team), [&](index_type t) {
      const index_type lo = (team * threads_per_team + t) * chunk;
      const index_type hi = lo + chunk < d.nnz ? lo + chunk : d.nnz;
      if (lo >= hi) return;
      index_type row = d.subs[lo * N + d.n];
      const index_type first_row = row;
      parallel_for(ThreadVectorRange(m, r0, r1), [&](index_type r) { acc[r - r0] = T(0); });
      // The run of `row` is complete: only the chunk's first row can be shared with the previous
      // chunk; rows strictly inside the chunk belong to this thread alone.
      auto flush = [&](index_type next) {
        T* o = d.out + row * d.R;
        const bool shared = row == first_row;
        parallel_for(ThreadVectorRange(m, r0, r1), [&](index_type r) {
          if (shared) {
            atomic_add(&o[r], acc[r - r0]);
          } else {
            o[r] = acc[r - r0];
          }
          acc[r - r0] = T(0);
        });
        row = next;
      };
      index_type p = lo;
      for (; p + U <= hi; p += U) {
        index_type k[U];
        T v[U];
        const T* rows[U][kMaxSparseModes];
        int q = 0;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const index_type j = p + u;
          k[u] = d.subs[j * N + d.n];
          v[u] = d.vals[j];
          q = other_rows<NC>(d, j, rows[u]);
        }
        if (k[0] == row && k[U - 1] == row) {  // sorted: the whole group is in the current run
          parallel_for(ThreadVectorRange(m, r0, r1), [&](index_type r) {
            T c = khatri_rao<NC>(rows[0], q, r, v[0]);
#pragma unroll
            for (int u = 1; u < U; ++u) c += khatri_rao<NC>(rows[u], q, r, v[u]);
            acc[r - r0] += c;
          });
        } else {
#pragma unroll
          for (int u = 0; u < U; ++u) {
            if (k[u] != row) flush(k[u]);
            parallel_for(ThreadVectorRange(m, r0, r1),
                         [&](index_type r) { acc[r - r0] += khatri_rao<NC>(rows[u], q, r, v[u]); });
          }
        }
      }
      for (; p < hi; ++p) {
        const index_type j = p;
        const index_type k = d.subs[j * N + d.n];
        if (k != row) flush(k);
        const T* rows[kMaxSparseModes];
        const int q = other_rows<NC>(d, j, rows);
        const T v = d.vals[j];
        parallel_for(ThreadVectorRange(m, r0, r1),
                     [&](index_type r) { acc[r - r0] += khatri_rao<NC>(rows, q, r, v); });
      }
      T* o = d.out + row * d.R;  // the last run may continue in the next chunk
      parallel_for(ThreadVectorRange(m, r0, r1), [&](index_type r) { atomic_add(&o[r], acc[r - r0]); });
    });
  }
};

// Copy c accumulates nonzeros [c * nnz / P, (c+1) * nnz / P) into its own I x R block.
template <int NC, class T, class Member>
struct MttkrpPrivate {
  MttkrpData<T> d;
  T* priv;
  index_type copies;
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type c = m.league_rank();
    const index_type lo = d.nnz * c / copies, hi = d.nnz * (c + 1) / copies;
    T* base = priv + c * d.I * d.R;
    const int N = NC > 0 ? NC : d.N;
    for (index_type j = lo; j < hi; ++j) {
      const T* rows[kMaxSparseModes];
      const int q = other_rows<NC>(d, j, rows);
      const T v = d.vals[j];
      T* o = base + static_cast<index_type>(d.subs[j * N + d.n]) * d.R;
      parallel_for(ThreadVectorRange(m, d.R), [&](index_type r) { o[r] += khatri_rao<NC>(rows, q, r, v); });
    }
  }
};

template <class Exec>
int vector_lanes(index_type rb) {
  if (is_host_execution_space_v<Exec>) return 1;
  return rb >= 32 ? 32 : rb >= 16 ? 16 : rb >= 8 ? 8 : rb >= 4 ? 4 : rb >= 2 ? 2 : 1;
}

template <class Exec>
index_type private_copies() {
  if (is_host_execution_space_v<Exec>) return Exec::concurrency();
  return 4 * 132;  // on a GPU: a few copies per SM; never chosen by Auto there
}

template <int NC, class Exec, class T, class Space>
void run_mttkrp(MttkrpAlgorithm alg, MttkrpData<T> d, const SparseTensor<T, Space>& X,
                MttkrpWorkspace<T, Space>* ws) {
  using Member = typename TeamPolicy<Exec>::member_type;
  constexpr bool host = is_host_execution_space_v<Exec>;
  const index_type rb = d.R < kMttkrpRBlock ? d.R : kMttkrpRBlock;
  const index_type nrb = (d.R + kMttkrpRBlock - 1) / kMttkrpRBlock;
  const int vec = vector_lanes<Exec>(rb);
  const int team = host ? 1 : (128 / vec > 1 ? 128 / vec : 1);
  switch (alg) {
    case MttkrpAlgorithm::Atomic:
      parallel_for(RangePolicy<Exec>(0, d.nnz), MttkrpAtomic<NC, T>{d});
      break;
    case MttkrpAlgorithm::Team: {
      const index_type per_team = host ? 512 : team * 2;
      TeamPolicy<Exec> p(((d.nnz + per_team - 1) / per_team) * nrb, team, vec);
      parallel_for(p, MttkrpTeam<NC, T, Member>{d, per_team, nrb});
      break;
    }
    case MttkrpAlgorithm::Perm: {
      // The nonzeros in the mode's order, stored that way once (X.sorted): the kernel streams
      // them in place of the tensor's own order.
      const auto& S = X.sorted(d.n);
      d.subs = S.subscripts().data();
      d.vals = S.values().data();
      // GPU: long enough runs to make the end-of-chunk atomics rare, short enough to leave
      // about 8 thread groups per resident slot (Exec::concurrency() counts resident threads).
      // Passes of 64 columns, one after the other (the pass is the slowest league index). At
      // R = 128 on the 3-way tensor that keeps one pass's 46 MB of gathered factor columns in the
      // L2 instead of all 92 MB, and the modes took 10-15% less time on the H100 (session 4);
      // narrower passes (32 or 16 columns) were 20-60% slower at R = 64 and 128 on both Genten tensors.
      index_type chunk = 4096;
      if (!host) {
        chunk = d.nnz * vec / (static_cast<index_type>(Exec::concurrency()) * 8 + 1);
        chunk = chunk < 16 ? 16 : chunk > 128 ? 128 : chunk;
      }
      const index_type threads = (d.nnz + chunk - 1) / chunk;
      const index_type teams = (threads + team - 1) / team;
      TeamPolicy<Exec> p(teams * nrb, team, vec);
      p.set_scratch_size(0, PerThread(kMttkrpRBlock * sizeof(T)));
      parallel_for(p, MttkrpPerm<NC, T, Member>{d, chunk, team, teams});
      break;
    }
    case MttkrpAlgorithm::Privatized: {
      index_type copies = private_copies<Exec>();
      if (copies > d.nnz) copies = d.nnz > 0 ? d.nnz : 1;
      const double per_copy = double(d.I) * double(d.R) * sizeof(T);
      if (copies > 1 && copies * per_copy > double(kPrivatizedBudget))
        copies = std::max<index_type>(1, static_cast<index_type>(double(kPrivatizedBudget) / per_copy));
      const std::size_t need = static_cast<std::size_t>(copies * d.I * d.R);
      MttkrpWorkspace<T, Space> local;
      MttkrpWorkspace<T, Space>& w = ws ? *ws : local;
      if (w.privatized.extent(0) < need)
        w.privatized = View<T*, LayoutRight, Space>(WithoutInitializing, "mttkrp_private", need);
      if (copies == 1) {  // one copy: accumulate straight into out
        parallel_for(TeamPolicy<Exec>(1, 1, vec), MttkrpPrivate<NC, T, Member>{d, d.out, 1});
        break;
      }
      View<T*, LayoutRight, Space> priv(w.privatized.data(), need);
      deep_copy(priv, T(0));
      parallel_for(TeamPolicy<Exec>(copies, 1, vec), MttkrpPrivate<NC, T, Member>{d, priv.data(), copies});
      parallel_for(RangePolicy<Exec>(0, d.I * d.R), SumSlicesFunctor<T>{priv.data(), d.out, d.I * d.R, copies});
      break;
    }
    case MttkrpAlgorithm::Auto:
      grain::impl::throw_error("grain::cp::mttkrp: internal error (Auto not resolved)");
  }
}

}  // namespace impl

// Auto: rows hot (16 or more nonzeros per row on average): `perm`, which streams the sorted copy
// and writes each row once — on the GPU (Genten's choice, slides 19-21) and on the CPU, where it
// beat `privatized` by 5-26% per mode on the 1M-nonzero tensor at R = 16 and 64 (2 threads,
// docs/performance.md). Cold rows: on the GPU `team`; on the CPU private copies when they fit
// (no atomics; with one thread that is plain serial MTTKRP), else `perm`.
template <class Exec, class T, class Space>
MttkrpAlgorithm choose_mttkrp(const SparseTensor<T, Space>& X, int n, index_type R) {
  const index_type I = X.dim(n);
  const bool hot = X.nnz() >= 16 * I;
  if constexpr (is_host_execution_space_v<Exec>) {
    if (hot) return MttkrpAlgorithm::Perm;
    const index_type copies = impl::private_copies<Exec>();
    const double bytes = double(copies) * I * R * sizeof(T);
    if (copies == 1 || (bytes <= double(kPrivatizedBudget) && copies * I <= X.nnz()))
      return MttkrpAlgorithm::Privatized;
    return MttkrpAlgorithm::Perm;
  } else {
    return hot ? MttkrpAlgorithm::Perm : MttkrpAlgorithm::Team;
  }
}

// out = MTTKRP of X with the factors of K for mode n (out is I_n x R; overwritten). Returns the
// algorithm that ran. Asynchronous on the GPU: it returns once the kernels are queued, so the
// host can work meanwhile (CP-ALS inverts its R x R system there); fence Exec before reading out.
template <class Exec, class T, class Space>
MttkrpAlgorithm mttkrp_launch(const SparseTensor<T, Space>& X, const Ktensor<T, Space>& K, int n,
                              const View<T**, LayoutRight, Space>& out,
                              MttkrpAlgorithm alg = MttkrpAlgorithm::Auto,
                              MttkrpWorkspace<T, Space>* ws = nullptr) {
  static_assert(std::is_same_v<typename Exec::memory_space, Space> ||
                    (is_host_execution_space_v<Exec> && Space::host_accessible),
                "grain::cp::mttkrp: the tensor must live where Exec runs");
  const int N = X.ndims();
  if (K.ndims() != N || X.dims() != K.dims())
    grain::impl::throw_error("grain::cp::mttkrp: tensor ", dims_string(X.dims()), " and Ktensor ",
                      dims_string(K.dims()), " differ in shape");
  if (n < 0 || n >= N) grain::impl::throw_error("grain::cp::mttkrp: mode ", n, " of a ", N, "-way tensor");
  const index_type R = K.rank();
  if (static_cast<index_type>(out.extent(0)) != X.dim(n) || static_cast<index_type>(out.extent(1)) != R)
    grain::impl::throw_error("grain::cp::mttkrp: argument 'out' has extents ", out.shape(), ", expected (",
                      X.dim(n), ",", R, ")");
  if (alg == MttkrpAlgorithm::Auto) alg = choose_mttkrp<Exec>(X, n, R);
  impl::MttkrpData<T> d{X.subscripts().data(), X.values().data(), {}, out.data(), N, n,
                        R, X.nnz(), X.dim(n)};
  for (int m = 0; m < N; ++m) d.fac[m] = K.factors[m].data();
  deep_copy(out, T(0));
  if (X.nnz() > 0) {
    if (N == 3)
      impl::run_mttkrp<3, Exec>(alg, d, X, ws);
    else if (N == 4)
      impl::run_mttkrp<4, Exec>(alg, d, X, ws);
    else
      impl::run_mttkrp<0, Exec>(alg, d, X, ws);
  }
  return alg;
}

// The same, synchronous (fences Exec).
template <class Exec, class T, class Space>
MttkrpAlgorithm mttkrp(const SparseTensor<T, Space>& X, const Ktensor<T, Space>& K, int n,
                       const View<T**, LayoutRight, Space>& out,
                       MttkrpAlgorithm alg = MttkrpAlgorithm::Auto,
                       MttkrpWorkspace<T, Space>* ws = nullptr) {
  alg = mttkrp_launch<Exec>(X, K, n, out, alg, ws);
  Exec().fence();
  return alg;
}

}  // namespace grain::cp
