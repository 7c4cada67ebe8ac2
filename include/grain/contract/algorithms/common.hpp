// Launch helpers shared by the contraction algorithms.
#pragma once

#include <algorithm>

#include "grain/contract/problem.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/core/policy.hpp"

namespace grain::impl {

// V neighbouring elements read as one aligned access (16 bytes for V = 16 / sizeof(T)).
template <class T, int V>
struct alignas(sizeof(T) * V) ElementPack {
  T v[V];
};

// A team policy that asks for `team` threads on the GPU and the one-thread host team on the CPU
// (the host back end runs a team as one thread; its vector lanes are SIMD loops).
template <class Exec>
TeamPolicy<Exec> contract_team_policy(index_type league, int team, int vector_length = 1) {
  if constexpr (is_host_execution_space_v<Exec>) {
    return TeamPolicy<Exec>(league, AUTO, vector_length);
  } else {
    return TeamPolicy<Exec>(league, std::max(1, team), vector_length);
  }
}

// Decomposes an output number into (c, l, r): c fastest when cells are the unit-stride index
// (LayoutLeft: consecutive GPU threads coalesce), else r fastest (LayoutRight).
template <class T>
GRAIN_FORCEINLINE_FUNCTION void split_output(const ContractProblem<T>& p, bool c_fast,
                                             index_type o, index_type& c, index_type& l,
                                             index_type& r) {
  if (c_fast) {
    c = o % p.C;
    const index_type q = o / p.C;
    l = q % p.L;
    r = q / p.L;
  } else {
    r = o % p.R;
    const index_type q = o / p.R;
    l = q % p.L;
    c = q / p.L;
  }
}

// Unit-stride cells on a GPU: a group of G consecutive cells is the fastest index (a warp's loads
// coalesce), then j < nj, then i < ni, then the group, so the threads that share a cell's rows run
// in the same or neighbouring thread blocks and meet in L1. Returns false past the last cell (the
// range is padded to whole groups).
template <index_type G>
GRAIN_FORCEINLINE_FUNCTION bool split_cell_group(index_type o, index_type C, index_type ni, index_type nj,
                                                 index_type& c, index_type& i, index_type& j) {
  const index_type cg = o % G;
  index_type q = o / G;
  j = q % nj;
  q /= nj;
  i = q % ni;
  c = (q / ni) * G + cg;
  return c < C;
}

inline int round_up_warp(index_type n) {
  const index_type w = (n + 31) / 32 * 32;
  return static_cast<int>(std::min<index_type>(std::max<index_type>(w, 32), 256));
}

}  // namespace grain::impl
