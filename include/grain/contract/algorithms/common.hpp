// Launch helpers shared by the contraction algorithms.
#pragma once

#include <algorithm>

#include "grain/contract/problem.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/core/policy.hpp"

namespace grain::impl {

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

inline int round_up_warp(index_type n) {
  const index_type w = (n + 31) / 32 * 32;
  return static_cast<int>(std::min<index_type>(std::max<index_type>(w, 32), 256));
}

}  // namespace grain::impl
