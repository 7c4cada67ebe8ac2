// Algorithm::Flat — one thread per output entry, no cooperation (study §3.1).
//
// The thread order follows the layout, as the study recommends: with cells as the unit-stride
// index (LayoutLeft, the GPU default) consecutive threads take consecutive cells, so a warp's
// loads coalesce; with LayoutRight each thread streams its own contiguous K.
//
// On the CPU with unit-stride cells, one iteration computes a block of W = 8 consecutive cells
// so the inner loop runs across cells and vectorizes (packed FMAs); with unit-stride K the dot
// product keeps eight partial sums (dot_strided). Work is split over all (cell block, l, r), so
// both cores stay busy whenever there are at least two outputs.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T>
struct ContractFlatKernel {
  ContractProblem<T> p;
  bool c_fast;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, l, r;
    split_output(p, c_fast, o, c, l, r);
    const T s = dot_k(p, p.a + c * p.a_c + l * p.a_l, p.b + c * p.b_c + r * p.b_r);
    p.store(c, l, r, s);
  }
};

// Host variant for unit-stride cells: W cells per iteration, vectorized across cells.
template <class T, int W>
struct ContractFlatCellBlockKernel {
  ContractProblem<T> p;
  index_type nblocks;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    const index_type cb = o % nblocks;
    const index_type q = o / nblocks;
    const index_type l = q % p.L, r = q / p.L;
    const index_type c0 = cb * W;
    const T* a = p.a + c0 + l * p.a_l;
    const T* b = p.b + c0 + r * p.b_r;
    if (c0 + W <= p.C) {
      T acc[W];
      for (int w = 0; w < W; ++w) acc[w] = T(0);
      for (index_type k1 = 0; k1 < p.K1; ++k1) {
        const T* a1 = a + k1 * p.a_s1;
        const T* b1 = b + k1 * p.b_s1;
        for (index_type k0 = 0; k0 < p.K0; ++k0) {
          const T* ak = a1 + k0 * p.a_s0;
          const T* bk = b1 + k0 * p.b_s0;
          for (int w = 0; w < W; ++w) acc[w] += ak[w] * bk[w];
        }
      }
      for (int w = 0; w < W; ++w) p.store(c0 + w, l, r, acc[w]);
    } else {
      for (index_type c = c0; c < p.C; ++c) {
        const T s = dot_k(p, p.a + c + l * p.a_l, p.b + c + r * p.b_r);
        p.store(c, l, r, s);
      }
    }
  }
};

template <class Exec, class T>
void contract_flat(const ContractProblem<T>& p) {
  const bool c_fast = p.cells_fastest();
  if constexpr (is_host_execution_space_v<Exec>) {
    if (c_fast && p.C >= 8) {
      constexpr int W = 8;
      const index_type nb = (p.C + W - 1) / W;
      parallel_for(RangePolicy<Exec>(0, nb * p.L * p.R), ContractFlatCellBlockKernel<T, W>{p, nb});
      return;
    }
  }
  parallel_for(RangePolicy<Exec>(0, p.C * p.L * p.R), ContractFlatKernel<T>{p, c_fast});
}

}  // namespace grain::impl
