// Algorithm::Block — register blocking: one thread computes a TM x TN block of one cell's
// outputs, its TM left rows and TN right rows streamed once along K into TM * TN register
// accumulators. No scratch and no barriers: each loaded value feeds TN (or TM) FMAs, where flat
// loads two values per FMA and re-reads every row L or R times from memory.
//
// With L, R <= 8 (FieldField Q1) one block is the whole cell in double: every input is read
// exactly once, which is what a bandwidth-bound contraction needs (float: two 8 x 4 blocks, for
// occupancy). Larger cells take 8 x 8 blocks too (64
// accumulators; each loaded value feeds 8 FMAs); rows past L or R are clamped on load (their
// results are not stored), so any extent works.
//
// Thread order follows the layout. Unit-stride cells (LayoutLeft): a group of 32 consecutive
// cells is the fastest index, so a warp's loads coalesce, then the blocks of those cells, so
// the threads that share a cell's rows run close together and meet in cache. Otherwise (LayoutRight)
// the blocks of one cell are consecutive.
//
// DataField (L = 1) takes 1 x 8 blocks: the data row is read once per eight fields instead of
// once per field. DataData (one output per cell) has nothing to block.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T, int TM, int TN>
struct ContractBlockKernel {
  ContractProblem<T> p;
  index_type nbl, nbr;  // blocks along L and R
  bool c_fast;
  static constexpr index_type G = 32;  // cells per group when cells are the unit-stride index

  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, bl, br;
    if (c_fast) {
      if (!split_cell_group<G>(o, p.C, nbl, nbr, c, bl, br)) return;
    } else {
      br = o % nbr;
      const index_type q = o / nbr;
      bl = q % nbl;
      c = q / nbl;
    }
    const index_type l0 = bl * TM, r0 = br * TN;
    // Row offsets, clamped into range (a clamped row is loaded but never stored).
    index_type la[TM], rb[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) la[i] = (l0 + i < p.L ? l0 + i : p.L - 1) * p.a_l;
#pragma unroll
    for (int j = 0; j < TN; ++j) rb[j] = (r0 + j < p.R ? r0 + j : p.R - 1) * p.b_r;
    const T* a = p.a + c * p.a_c;
    const T* b = p.b + c * p.b_c;
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
    // Loads of several k in flight: float moves half the bytes per load, so it unrolls further.
    [[maybe_unused]] constexpr int kUnroll = sizeof(T) == 4 ? 4 : 2;  // nvcc only (GCC ignores the pragma)
    for (index_type k1 = 0; k1 < p.K1; ++k1) {
      const T* a1 = a + k1 * p.a_s1;
      const T* b1 = b + k1 * p.b_s1;
#pragma unroll kUnroll
      for (index_type k0 = 0; k0 < p.K0; ++k0) {
        const T* ak = a1 + k0 * p.a_s0;
        const T* bk = b1 + k0 * p.b_s0;
        T av[TM], bv[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i) av[i] = ak[la[i]];
#pragma unroll
        for (int j = 0; j < TN; ++j) bv[j] = bk[rb[j]];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j)
        if (l0 + i < p.L && r0 + j < p.R) p.store(c, l0 + i, r0 + j, acc[i][j]);
  }
};

template <class Exec, class T, int TM, int TN>
void contract_block_with(const ContractProblem<T>& p) {
  using K = ContractBlockKernel<T, TM, TN>;
  const index_type nbl = (p.L + TM - 1) / TM, nbr = (p.R + TN - 1) / TN;
  const bool c_fast = p.cells_fastest();
  const index_type cells = c_fast ? (p.C + K::G - 1) / K::G * K::G : p.C;
  parallel_for(RangePolicy<Exec>(0, cells * nbl * nbr), K{p, nbl, nbr, c_fast});
}

template <class Exec, class T>
void contract_block(const ContractProblem<T>& p) {
  if (p.L == 1) {
    contract_block_with<Exec, T, 1, 8>(p);
  } else if (sizeof(T) == 4 && p.L <= 8 && p.R <= 8) {
    // Float Q1: two threads per cell (8 x 4 each, 32 accumulators) instead of one 8 x 8 thread.
    // 8 x 8 held 176 registers, 12.5% occupancy and 56% of DRAM bandwidth in float (Nsight
    // Compute); 8 x 4 took FieldField Q1 float from 0.66-0.76 to 0.82-0.87 of the floor on the
    // H200, while double stayed faster with 8 x 8 (docs/variants-s2/q1-8x*.json).
    contract_block_with<Exec, T, 8, 4>(p);
  } else {
    // 8 x 8 for every FieldField shape: on the H200 it beat 4 x 4 blocks by 1.3 to 2.9x on
    // Q2-Q4 (docs/performance.md); at Q1 it is the whole cell.
    contract_block_with<Exec, T, 8, 8>(p);
  }
}

}  // namespace grain::impl
