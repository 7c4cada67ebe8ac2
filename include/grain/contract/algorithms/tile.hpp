// Algorithm::Tile (study §3.4, Figs. 3.21 and 3.27): square TS x TS tiles of left (L x K) and
// right (R x K) are staged through scratch, K advancing one tile at a time; Vector and Tensor
// kernels run on the flattened K ("unrolled", as the study did for FieldFieldTensor).
//
// Unlike the study's kernel, no extent has to be a multiple of TS: partial tiles are padded with
// zeros when loaded and the outputs past L or R are not stored.
//
// A team owns CB consecutive cells x one TS x TS output tile. With LayoutRight (CB = 1, TS = 16)
// consecutive threads take consecutive k when loading and consecutive r when computing; with
// cells as the unit-stride index (LayoutLeft on the GPU: CB = 4, TS = 8) consecutive threads take
// consecutive cells, so loads and stores coalesce. Tiles are padded to TS + 1 columns against
// shared-memory bank conflicts. Partial sums live in scratch (one slot per output, touched only
// by its own thread), so the same source runs as one thread per output on the GPU and as a loop
// over the tile on the CPU.
//
// FieldField only: with L = 1 or R = 1 a square tile would leave most of the team idle.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T, int TS>
struct ContractTileKernel {
  ContractProblem<T> p;
  index_type CB;          // cells per team
  index_type ntl, ntr;    // tiles along L and R
  bool c_fast;
  static constexpr int TSP = TS + 1;

  // Splits e in [0, CB*TS*TS) into (cb, i, j): cb fastest with unit-stride cells, else j.
  GRAIN_FORCEINLINE_FUNCTION void split(index_type e, index_type& cb, index_type& i,
                                        index_type& j) const {
    if (c_fast) {
      cb = e % CB;
      const index_type q = e / CB;
      j = q % TS;
      i = q / TS;
    } else {
      j = e % TS;
      const index_type q = e / TS;
      i = q % TS;
      cb = q / TS;
    }
  }

  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type o = m.league_rank();
    const index_type tr = o % ntr;
    const index_type q = o / ntr;
    const index_type tl = q % ntl;
    const index_type c0 = (q / ntl) * CB;
    const index_type l0 = tl * TS, r0 = tr * TS;
    const index_type E = CB * TS * TS;
    const auto& scratch = m.team_scratch(0);
    T* ls = scratch.template get<T>(static_cast<std::size_t>(CB * TS * TSP));
    T* rs = scratch.template get<T>(static_cast<std::size_t>(CB * TS * TSP));
    T* acc = scratch.template get<T>(static_cast<std::size_t>(E));
    const ContractProblem<T>& P = p;

    parallel_for(TeamThreadRange(m, E), [&](index_type e) { acc[e] = T(0); });
    for (index_type kt = 0; kt < P.K; kt += TS) {
      m.team_barrier();  // the previous tile has been consumed
      parallel_for(TeamThreadRange(m, E), [&](index_type e) {
        index_type cb, i, kk;
        split(e, cb, i, kk);
        const index_type c = c0 + cb, k = kt + kk;
        const bool ck = c < P.C && k < P.K;
        const index_type s = (cb * TS + i) * TSP + kk;
        ls[s] = ck && l0 + i < P.L ? P.a[c * P.a_c + (l0 + i) * P.a_l + P.a_k(k)] : T(0);
        rs[s] = ck && r0 + i < P.R ? P.b[c * P.b_c + (r0 + i) * P.b_r + P.b_k(k)] : T(0);
      });
      m.team_barrier();
      parallel_for(TeamThreadRange(m, E), [&](index_type e) {
        index_type cb, i, j;
        split(e, cb, i, j);
        const T* lrow = ls + (cb * TS + i) * TSP;
        const T* rrow = rs + (cb * TS + j) * TSP;
        // TS is a compile-time multiple of 8: fully unrolled, eight partial sums (packed FMAs
        // on the CPU).
        acc[e] += dot_strided(lrow, index_type(1), rrow, index_type(1), index_type(TS));
      });
    }
    parallel_for(TeamThreadRange(m, E), [&](index_type e) {
      index_type cb, i, j;
      split(e, cb, i, j);
      if (c0 + cb < P.C && l0 + i < P.L && r0 + j < P.R) P.store(c0 + cb, l0 + i, r0 + j, acc[e]);
    });
  }
};

template <class Exec, class T, int TS>
void contract_tile_with(const ContractProblem<T>& p, index_type CB) {
  const index_type ntl = (p.L + TS - 1) / TS, ntr = (p.R + TS - 1) / TS;
  const index_type ncb = (p.C + CB - 1) / CB;
  auto policy = contract_team_policy<Exec>(ncb * ntl * ntr, static_cast<int>(CB * TS * TS));
  const std::size_t bytes = static_cast<std::size_t>(CB * TS) *
                            (2 * (TS + 1) + TS) * sizeof(T);
  policy.set_scratch_size(0, PerTeam(bytes + 64));
  parallel_for(policy, ContractTileKernel<T, TS>{p, CB, ntl, ntr, p.cells_fastest()});
}

template <class Exec, class T>
void contract_tile(const ContractProblem<T>& p) {
  if (!is_host_execution_space_v<Exec> && p.cells_fastest()) {
    contract_tile_with<Exec, T, 8>(p, 4);
  } else {
    contract_tile_with<Exec, T, 16>(p, 1);
  }
}

}  // namespace grain::impl
