// Slicing (study §3.3, Fig. 3.15): a team stages rows of `left` (all of K) in scratch, then each
// thread computes one output of those rows against one `right` field, reading the staged row
// from scratch (shared memory on the GPU).
//
//   Slice          one left row per team, one thread per right field (the study's version);
//   AdaptiveSlice  ceil(128 / R) rows per team (at most L, and what fits in 48 KiB of scratch),
//                  so small R still gives a team enough threads (the study's "two slices").
//
// For DataField the staged row is the `data` row of a cell (L = 1) and the threads take the
// fields. DataData has no reuse (L = R = 1): slicing does not apply there.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T>
struct ContractSliceKernel {
  ContractProblem<T> p;
  index_type rows;    // left rows per team
  index_type groups;  // ceil(L / rows)
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type c = m.league_rank() / groups;
    const index_type l0 = (m.league_rank() - c * groups) * rows;
    const index_type nr = l0 + rows <= p.L ? rows : p.L - l0;
    const index_type K = p.K;
    T* s = m.team_scratch(0).template get<T>(static_cast<std::size_t>(rows * K));
    const ContractProblem<T>& q = p;
    const T* a = p.a + c * p.a_c + l0 * p.a_l;
    parallel_for(TeamVectorRange(m, nr * K), [&](index_type e) {
      const index_type row = e / K, k = e - row * K;
      s[e] = a[row * q.a_l + q.a_k(k)];
    });
    m.team_barrier();
    const T* b = p.b + c * p.b_c;
    parallel_for(TeamThreadRange(m, nr * p.R), [&](index_type i) {
      const index_type row = i / q.R, r = i - row * q.R;
      const T* srow = s + row * K;
      const T* br = b + r * q.b_r;
      T sum = T(0);
      for (index_type k1 = 0; k1 < q.K1; ++k1)
        sum += dot_strided(srow + k1 * q.K0, index_type(1), br + k1 * q.b_s1, q.b_s0, q.K0);
      q.store(c, l0 + row, r, sum);
    });
  }
};

// Rows per team for AdaptiveSlice.
template <class T>
index_type contract_slice_rows(const ContractProblem<T>& p) {
  const index_type want = (128 + p.R - 1) / p.R;
  const index_type fit = std::max<index_type>(1, (48 * 1024) / (static_cast<index_type>(sizeof(T)) * std::max<index_type>(p.K, 1)));
  return std::max<index_type>(1, std::min({want, p.L, fit}));
}

template <class Exec, class T>
void contract_slice(const ContractProblem<T>& p, bool adaptive) {
  const index_type rows = adaptive ? contract_slice_rows(p) : 1;
  const index_type groups = (p.L + rows - 1) / rows;
  const int team = static_cast<int>(std::min<index_type>(rows * p.R, 256));
  auto policy = contract_team_policy<Exec>(p.C * groups, team);
  policy.set_scratch_size(0, PerTeam(static_cast<std::size_t>(rows * p.K) * sizeof(T)));
  parallel_for(policy, ContractSliceKernel<T>{p, rows, groups});
}

}  // namespace grain::impl
