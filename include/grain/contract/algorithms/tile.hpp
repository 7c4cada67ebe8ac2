// Algorithm::Tile (study §3.4, Figs. 3.21 and 3.27), register-tiled: a team owns CB cells x one
// LT x RT output tile; K advances KB at a time, each step staging left (KB x LT x CB) and right
// (KB x RT x CB) through scratch; every team thread owns a TM x TN block of one cell's outputs
// and keeps it in registers for the whole K loop. Vector and Tensor kernels run on the flattened
// K ("unrolled", as the study did for FieldFieldTensor).
//
// No extent has to divide a tile: partial tiles are zero-padded when loaded and outputs past L or
// R (or cells past C) are not stored.
//
// Staging order follows the layout: with cells as the unit-stride index (LayoutLeft) consecutive
// threads load consecutive cells, otherwise consecutive k, so global loads coalesce either way.
// In scratch the cell index is fastest, so the threads of a warp (consecutive cells, the same
// rows) read consecutive words: no bank conflicts, and the reads of a row broadcast.
//
// Written once for every back end. The host runs a team as one thread, which then plays all
// VT = CB * (LT/TM) * (RT/TN) "virtual threads" of the tile in turn (PER = VT blocks of
// accumulators; on the GPU PER = 1 and the block lives in registers).
//
// FieldField only: with L = 1 or R = 1 a tile would leave most of the team idle.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <int CB_, int LT_, int RT_, int TM_, int TN_, int KB_>
struct TileShape {
  static constexpr int CB = CB_, LT = LT_, RT = RT_, TM = TM_, TN = TN_, KB = KB_;
  static constexpr int NTL = LT / TM, NTR = RT / TN;
  static constexpr int VT = CB * NTL * NTR;  // virtual threads per team
  static_assert(LT % TM == 0 && RT % TN == 0, "tile extents must be multiples of the blocks");
};

template <class T, class S, int PER>
struct ContractTileKernel {
  ContractProblem<T> p;
  index_type ntl, ntr;  // tiles along L and R
  bool c_fast;

  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    constexpr int CB = S::CB, LT = S::LT, RT = S::RT, TM = S::TM, TN = S::TN, KB = S::KB;
    const index_type o = m.league_rank();
    const index_type tr = o % ntr;
    const index_type q = o / ntr;
    const index_type tl = q % ntl;
    const index_type c0 = (q / ntl) * CB;
    const index_type l0 = tl * LT, r0 = tr * RT;
    const auto& scratch = m.team_scratch(0);
    T* as = scratch.template get<T>(static_cast<std::size_t>(KB * LT * CB));
    T* bs = scratch.template get<T>(static_cast<std::size_t>(KB * RT * CB));
    const ContractProblem<T>& P = p;
    const int nt = m.team_size(), rank = m.team_rank();

    T acc[PER][TM][TN];
#pragma unroll
    for (int u = 0; u < PER; ++u)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[u][i][j] = T(0);

    for (index_type k0 = 0; k0 < P.K; k0 += KB) {
      m.team_barrier();  // the previous step's tiles have been consumed
      // Stage: element (kk, x, cb) of left (x < LT) and right (x < RT), cells fastest in scratch.
      auto stage = [&](T* dst, int X, index_type x0, index_type X_all, const T* src, index_type s_c,
                       index_type s_x, bool left) {
        parallel_for(TeamThreadRange(m, index_type(KB) * X * CB), [&](index_type e) {
          index_type cb, x, kk;
          if (c_fast) {
            cb = e % CB;
            const index_type t = e / CB;
            x = t % X;
            kk = t / X;
          } else {
            kk = e % KB;
            const index_type t = e / KB;
            x = t % X;
            cb = t / X;
          }
          const index_type c = c0 + cb, k = k0 + kk;
          T v = T(0);
          if (c < P.C && x0 + x < X_all && k < P.K)
            v = src[c * s_c + (x0 + x) * s_x + (left ? P.a_k(k) : P.b_k(k))];
          dst[(kk * X + x) * CB + cb] = v;
        });
      };
      stage(as, LT, l0, P.L, P.a, P.a_c, P.a_l, true);
      stage(bs, RT, r0, P.R, P.b, P.b_c, P.b_r, false);
      m.team_barrier();
#pragma unroll
      for (int u = 0; u < PER; ++u) {
        const int v = rank + u * nt;
        if (v < S::VT) {
          const int cb = v % CB, t = v / CB;
          const int bl = t / S::NTR, br = t % S::NTR;
          const T* ap = as + (bl * TM) * CB + cb;
          const T* bp = bs + (br * TN) * CB + cb;
#pragma unroll 2
          for (int kk = 0; kk < KB; ++kk) {
            T av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) av[i] = ap[(kk * LT + i) * CB];
#pragma unroll
            for (int j = 0; j < TN; ++j) bv[j] = bp[(kk * RT + j) * CB];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
              for (int j = 0; j < TN; ++j) acc[u][i][j] += av[i] * bv[j];
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int v = rank + u * nt;
      if (v < S::VT) {
        const int cb = v % CB, t = v / CB;
        const index_type c = c0 + cb;
        const index_type lb = l0 + (t / S::NTR) * TM, rb = r0 + (t % S::NTR) * TN;
        if (c < P.C)
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
              if (lb + i < P.L && rb + j < P.R) P.store(c, lb + i, rb + j, acc[u][i][j]);
      }
    }
  }
};

template <class Exec, class T, class S>
void contract_tile_with(const ContractProblem<T>& p) {
  constexpr bool host = is_host_execution_space_v<Exec>;
  // The host team is one thread, which plays every virtual thread; the GPU launches VT threads.
  constexpr int PER = host ? S::VT : 1;
  const index_type ntl = (p.L + S::LT - 1) / S::LT, ntr = (p.R + S::RT - 1) / S::RT;
  const index_type ncb = (p.C + S::CB - 1) / S::CB;
  auto policy = contract_team_policy<Exec>(ncb * ntl * ntr, S::VT);
  const std::size_t bytes = static_cast<std::size_t>(S::KB) * S::CB * (S::LT + S::RT) * sizeof(T);
  policy.set_scratch_size(0, PerTeam(bytes + 64));
  parallel_for(policy, ContractTileKernel<T, S, PER>{p, ntl, ntr, p.cells_fastest()});
}

template <class Exec, class T>
void contract_tile(const ContractProblem<T>& p) {
  if constexpr (is_host_execution_space_v<Exec>) {
    // A cache-sized tile: 4 cells x 16 x 16 outputs in 4 x 4 blocks, 16 k per step.
    contract_tile_with<Exec, T, TileShape<4, 16, 16, 4, 4, 16>>(p);
  } else if (p.L <= 16 && p.R <= 16) {
    // Small cells (Q1): 32 cells x 16 x 16 in 8 x 8 blocks (128 threads).
    contract_tile_with<Exec, T, TileShape<32, 16, 16, 8, 8, 8>>(p);
  } else {
    // The fastest of four shapes measured on sm_90: double 16 cells x
    // 16 x 16 (256 threads, 32 KiB of scratch), float 8 cells x 32 x 32 (512 threads, 32 KiB).
    if constexpr (sizeof(T) == 8) {
      contract_tile_with<Exec, T, TileShape<16, 16, 16, 4, 4, 8>>(p);
    } else {
      contract_tile_with<Exec, T, TileShape<8, 32, 32, 4, 4, 8>>(p);
    }
  }
}

}  // namespace grain::impl
