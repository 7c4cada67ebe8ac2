// MTTKRP (matricized tensor times Khatri-Rao product) for a sparse COO tensor, any mode:
//
//   out(k, r) = sum over nonzeros j with i_n(j) = k of  x_j * prod_{m != n} A_m(i_m(j), r)
//
// Algorithms (Genten: Phipps and Kolda's SIAM CSE 2019 slides, "Parallelize MTTKRP over tensor
// non-zeros" to "Permuted MTTKRP"), each written once against grain's core patterns:
//   atomic      flat over nonzeros, one thread each, atomic_add into out (MTTKRP on slide 13);
//   team        teams of threads over blocks of nonzeros, vector lanes over R, R blocked so one
//               pass touches at most kMttkrpRBlock columns (MTTKRP-B, register row buffers);
//   perm        nonzeros visited in the order of the mode's permutation; a thread reduces its run
//               of equal rows locally and writes with atomics only at the two ends of its chunk
//               (MTTKRP-C: far fewer atomics, and they land near each other). The nonzeros are
//               read from a copy stored in that order (SparseTensor::sorted), so they stream
//               instead of being gathered through the permutation;
//   tiled       perm over a copy ordered by (tile of a mode s, mode n's index): the GPU works
//               through one tile of A_s's rows at a time, so the gathered factors' live part fits
//               the L2 when all of A_s would not; a row of out is then written once per tile
//               (atomically). For modes whose gathered factors exceed the L2;
//   privatized  P private copies of out (a CPU thread's own rows, no atomics), summed afterwards;
//               chosen on the CPU when the copies are small next to the tensor.
// Auto picks per call from the tensor's shape, R and the back end (choose_mttkrp).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cp {

enum class MttkrpAlgorithm { Auto, Atomic, Team, Perm, Tiled, Privatized };
inline constexpr MttkrpAlgorithm kAllMttkrpAlgorithms[] = {
    MttkrpAlgorithm::Auto, MttkrpAlgorithm::Atomic, MttkrpAlgorithm::Team,
    MttkrpAlgorithm::Perm, MttkrpAlgorithm::Tiled,  MttkrpAlgorithm::Privatized};

inline const char* mttkrp_algorithm_name(MttkrpAlgorithm a) {
  switch (a) {
    case MttkrpAlgorithm::Auto: return "auto";
    case MttkrpAlgorithm::Atomic: return "atomic";
    case MttkrpAlgorithm::Team: return "team";
    case MttkrpAlgorithm::Perm: return "perm";
    case MttkrpAlgorithm::Tiled: return "tiled";
    case MttkrpAlgorithm::Privatized: return "privatized";
  }
  return "?";
}

inline MttkrpAlgorithm parse_mttkrp_algorithm(const std::string& s) {
  for (auto a : kAllMttkrpAlgorithms)
    if (s == mttkrp_algorithm_name(a)) return a;
  grain::impl::throw_error("unknown MTTKRP algorithm '", s, "' (auto, atomic, team, perm, tiled, privatized)");
}

// Columns per pass of the team and perm algorithms.
inline constexpr index_type kMttkrpRBlock = 64;
// Private copies may take at most this many bytes in all.
inline constexpr std::size_t kPrivatizedBudget = std::size_t(512) << 20;
// The tiled algorithm keeps at most this many bytes of the gathered factors' columns (one pass)
// live at a time: a part of the GPU's L2 (50 MB on an H100, 60 on an H200), which also holds the
// streamed nonzeros and the output.
inline constexpr double kTiledLiveBytes = 24.0 * (1 << 20);

// Reusable buffers between calls (the private copies), and the tiled algorithm's tile height
// (0: from kTiledLiveBytes; tests and experiments set other heights).
template <class T, class Space>
struct MttkrpWorkspace {
  View<T*, LayoutRight, Space> privatized;
  index_type tiled_rows = 0;
  int lanes = 0;  // GPU: vector lanes per nonzero of perm and tiled (0: run_lanes)
};

// The tiled algorithm's order for mode n: mode s's rows in tiles of rows_per_tile.
struct MttkrpTiledPlan {
  int s = -1;
  index_type rows_per_tile = 1;
  index_type tiles = 1;
};

// s is the other mode with the most rows; a tile holds what kTiledLiveBytes leaves after the
// remaining gathered factors (at least a quarter of it). One tile when everything fits.
template <class T>
MttkrpTiledPlan mttkrp_tiled_plan(const std::vector<index_type>& dims, int n, index_type R,
                                  index_type rows_override = 0) {
  const double row_bytes = double(sizeof(T)) * double(R < kMttkrpRBlock ? R : kMttkrpRBlock);
  MttkrpTiledPlan plan;
  double others = 0;
  for (int m = 0; m < static_cast<int>(dims.size()); ++m) {
    if (m == n) continue;
    others += double(dims[m]) * row_bytes;
    if (plan.s < 0 || dims[m] > dims[plan.s]) plan.s = m;
  }
  const index_type dim_s = dims[plan.s];
  others -= double(dim_s) * row_bytes;
  const double room = std::max(kTiledLiveBytes - others, kTiledLiveBytes / 4);
  plan.rows_per_tile = rows_override > 0 ? rows_override
                                         : std::max<index_type>(1, static_cast<index_type>(room / row_bytes));
  if (plan.rows_per_tile > dim_s) plan.rows_per_tile = dim_s;
  plan.tiles = (dim_s + plan.rows_per_tile - 1) / plan.rows_per_tile;
  return plan;
}

// The copy of X in the tiled order for mode n at rank R (built on first use, cached with X), as
// run_mttkrp reads it: CP-ALS builds it up front.
template <class T, class Space>
const SparseTensor<T, Space>& mttkrp_tiled_copy(const SparseTensor<T, Space>& X, int n, index_type R,
                                                index_type rows_override = 0) {
  const MttkrpTiledPlan plan = mttkrp_tiled_plan<T>(X.dims(), n, R, rows_override);
  return X.tiled(n, plan.s, plan.rows_per_tile);
}

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
// Each pointer is offset to column col0 (the first column of the caller's pass).
template <int NC, class T>
GRAIN_FORCEINLINE_FUNCTION int other_rows(const MttkrpData<T>& d, index_type j, const T** rows,
                                          index_type col0 = 0) {
  const int N = NC > 0 ? NC : d.N;
  const subscript_type* s = d.subs + j * N;
  int q = 0;
  for (int m = 0; m < N; ++m)
    if (m != d.n) rows[q++] = d.fac[m] + static_cast<index_type>(s[m]) * d.R + col0;
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

// One thread's share [lo, hi) of a mode-sorted run of nonzeros, columns [r0, r1): the run of
// equal output rows is reduced in acc (the thread's scratch, r1 - r0 values) and written when the
// row changes. Rows strictly inside the share belong to this thread alone and are stored plainly,
// unless `all_atomic` (the tiled order, where a row recurs in every tile); the share's first and
// last rows may continue in a neighbour's share and are always added atomically.
template <int NC, class T, class Member>
GRAIN_INLINE_FUNCTION void accumulate_runs(const Member& m, const MttkrpData<T>& d, index_type lo,
                                           index_type hi, index_type r0, index_type r1, T* acc,
                                           bool all_atomic) {
  // Nonzeros gathered together: their index and factor-row loads are independent, so U of them
  // are in flight at once instead of one dependent chain (subscripts -> rows) at a time.
  // A one-at-a-time loop is latency-bound on the GPU.
  constexpr int U = 4;
  if (lo >= hi) return;
  const int N = NC > 0 ? NC : d.N;
  const index_type w = r1 - r0;
  index_type row = d.subs[lo * N + d.n];
  const index_type first_row = row;
  parallel_for(ThreadVectorRange(m, w), [&](index_type c) { acc[c] = T(0); });
  auto flush = [&](index_type next) {
    T* o = d.out + row * d.R + r0;
    const bool shared = all_atomic || row == first_row;
    parallel_for(ThreadVectorRange(m, w), [&](index_type c) {
      if (shared) {
        atomic_add(&o[c], acc[c]);
      } else {
        o[c] = acc[c];
      }
      acc[c] = T(0);
    });
    row = next;
  };
  auto load = [&](index_type j, const T** rows) { return other_rows<NC>(d, j, rows, r0); };
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
      q = load(j, rows[u]);
    }
    if (k[0] == row && k[U - 1] == row) {  // sorted: the whole group is in the current run
      parallel_for(ThreadVectorRange(m, w), [&](index_type c) {
        T x = khatri_rao<NC>(rows[0], q, c, v[0]);
#pragma unroll
        for (int u = 1; u < U; ++u) x += khatri_rao<NC>(rows[u], q, c, v[u]);
        acc[c] += x;
      });
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (k[u] != row) flush(k[u]);
        parallel_for(ThreadVectorRange(m, w),
                     [&](index_type c) { acc[c] += khatri_rao<NC>(rows[u], q, c, v[u]); });
      }
    }
  }
  for (; p < hi; ++p) {
    const index_type k = d.subs[p * N + d.n];
    if (k != row) flush(k);
    const T* rows[kMaxSparseModes];
    const int q = load(p, rows);
    const T v = d.vals[p];
    parallel_for(ThreadVectorRange(m, w), [&](index_type c) { acc[c] += khatri_rao<NC>(rows, q, c, v); });
  }
  T* o = d.out + row * d.R + r0;  // the last run may continue in the next share
  parallel_for(ThreadVectorRange(m, w), [&](index_type c) { atomic_add(&o[c], acc[c]); });
}

template <int NC, class T, class Member>
struct MttkrpPerm {
  MttkrpData<T> d;
  index_type chunk, threads_per_team, teams;  // teams: per pass of kMttkrpRBlock columns
  bool all_atomic;                            // the tiled order (rows recur in every tile)

  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    T* acc = m.thread_scratch(0).template get<T>(static_cast<std::size_t>(kMttkrpRBlock));
    // Passes over column blocks are the slowest index: the GPU runs the teams of one pass
    // together, so only that pass's columns of the gathered factors compete for the L2.
    const index_type team = m.league_rank() % teams;
    const index_type r0 = (m.league_rank() / teams) * kMttkrpRBlock;
    const index_type r1 = r0 + kMttkrpRBlock < d.R ? r0 + kMttkrpRBlock : d.R;
    parallel_for(TeamThreadRange(m, threads_per_team), [&](index_type t) {
      const index_type lo = (team * threads_per_team + t) * chunk;
      const index_type hi = lo + chunk < d.nnz ? lo + chunk : d.nnz;
      accumulate_runs<NC>(m, d, lo, hi, r0, r1, acc, all_atomic);
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

// Vector lanes per nonzero of perm and tiled on the GPU: a lane takes 2-4 columns, so a warp
// serves 4 or 2 nonzeros at once and each nonzero's index and address work is spread over fewer
// lanes. 8 lanes at R = 16 and 16 lanes at R = 64 beat a lane per column, and half as many lanes
// again is slower (measured).
template <class Exec>
int run_lanes(index_type w) {
  if (is_host_execution_space_v<Exec>) return 1;
  return w >= 48 ? 16 : w >= 16 ? 8 : vector_lanes<Exec>(w);
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
  const bool runs = alg == MttkrpAlgorithm::Perm || alg == MttkrpAlgorithm::Tiled;
  int vec = runs ? run_lanes<Exec>(rb) : vector_lanes<Exec>(rb);
  if (!host && runs && ws && ws->lanes > 0) vec = std::min(vector_lanes<Exec>(ws->lanes), 32);
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
    case MttkrpAlgorithm::Perm:
    case MttkrpAlgorithm::Tiled: {
      // The nonzeros in the mode's order (perm) or in the tiled order, stored that way once
      // (X.sorted, X.tiled): the kernel streams them in place of the tensor's own order.
      bool all_atomic = false;
      if (alg == MttkrpAlgorithm::Perm) {
        const auto& S = X.sorted(d.n);
        d.subs = S.subscripts().data();
        d.vals = S.values().data();
      } else {
        const MttkrpTiledPlan plan = mttkrp_tiled_plan<T>(X.dims(), d.n, d.R, ws ? ws->tiled_rows : 0);
        const auto& S = X.tiled(d.n, plan.s, plan.rows_per_tile);
        d.subs = S.subscripts().data();
        d.vals = S.values().data();
        all_atomic = plan.tiles > 1;
      }
      // GPU: long enough runs to make the end-of-chunk atomics rare, short enough to leave
      // about 8 thread groups per resident slot (Exec::concurrency() counts resident threads).
      // Passes of 64 columns, one after the other (the pass is the slowest league index). At
      // R = 128 on the 3-way tensor that keeps one pass's 46 MB of gathered factor columns in the
      // L2 instead of all 92 MB; narrower passes (32 or 16 columns) are slower.
      index_type chunk = 4096;
      if (!host) {
        chunk = d.nnz * vec / (static_cast<index_type>(Exec::concurrency()) * 8 + 1);
        chunk = chunk < 16 ? 16 : chunk > 128 ? 128 : chunk;
      }
      const index_type threads = (d.nnz + chunk - 1) / chunk;
      const index_type teams = (threads + team - 1) / team;
      TeamPolicy<Exec> p(teams * nrb, team, vec);
      p.set_scratch_size(0, PerThread(kMttkrpRBlock * sizeof(T)));
      parallel_for(p, MttkrpPerm<NC, T, Member>{d, chunk, team, teams, all_atomic});
      break;
    }
    case MttkrpAlgorithm::Privatized: {
      index_type copies = private_copies<Exec>();
      if (copies > d.nnz) copies = d.nnz > 0 ? d.nnz : 1;
      const double per_copy = double(d.I) * double(d.R) * sizeof(T);
      if (copies > 1 && copies * per_copy > double(kPrivatizedBudget))
        copies = std::max<index_type>(1, static_cast<index_type>(double(kPrivatizedBudget) / per_copy));
      if (copies == 1) {  // one copy: accumulate straight into out, no workspace
        parallel_for(TeamPolicy<Exec>(1, 1, vec), MttkrpPrivate<NC, T, Member>{d, d.out, 1});
        break;
      }
      const std::size_t need = static_cast<std::size_t>(copies * d.I * d.R);
      MttkrpWorkspace<T, Space> local;
      MttkrpWorkspace<T, Space>& w = ws ? *ws : local;
      if (w.privatized.extent(0) < need)
        w.privatized = View<T*, LayoutRight, Space>(WithoutInitializing, "mttkrp_private", need);
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

// The tiled algorithm's cost beyond perm's: one atomic row update per (tile, output row) pair
// its nonzeros touch. Expected pairs when the nonzeros are spread evenly (random tensors).
inline double mttkrp_tiled_row_updates(index_type I, index_type tiles, index_type nnz) {
  const double cells = double(I) * double(tiles);
  return cells * (1.0 - std::exp(-double(nnz) / cells));
}

// Auto: rows hot (16 or more nonzeros per row on average): `perm`, which streams the sorted copy
// and writes each row once — on the GPU (Genten's choice, slides 19-21) and on the CPU, where it
// beats `privatized` on hot rows. On the GPU `tiled` instead when the
// gathered factors need several tiles to fit the L2 and the row updates that adds stay few next
// to the nonzeros (at most 5%), where it beats `perm`. Cold rows: on the GPU `team`;
// on the CPU private copies when they fit (no atomics; with one thread that is plain serial
// MTTKRP), else `perm`.
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
    if (!hot) return MttkrpAlgorithm::Team;
    const MttkrpTiledPlan plan = mttkrp_tiled_plan<T>(X.dims(), n, R);
    if (plan.tiles >= 2 && mttkrp_tiled_row_updates(I, plan.tiles, X.nnz()) <= 0.05 * double(X.nnz()))
      return MttkrpAlgorithm::Tiled;
    return MttkrpAlgorithm::Perm;
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
