// For tests only: hooks that force choices the contraction library's rules make per problem, so
// that tests reach every kernel configuration on small problems. Not part of the public API; a
// program that sets them changes which kernels run, not what they compute. Set them from one
// thread, with no contraction running.
#pragma once

namespace grain::impl::testing {

// team-small-k's cell tiles on the GPU (cell_tiles_shape in problem.hpp): each nonzero field
// replaces the rule's value (cells a group, contracted indices a pass, groups a team, scratch
// budget in bytes); zero keeps the rule. Host teams ignore it.
struct CellTilesOverride {
  int cells = 0, kc = 0, groups = 0, budget = 0;
};
inline CellTilesOverride& cell_tiles_override() {
  static CellTilesOverride o;
  return o;
}

}  // namespace grain::impl::testing
