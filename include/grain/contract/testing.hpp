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

// Algorithm::Mma's configurations (src/contract/mma_cuda.cu), each one its rule picks on some
// problem and device, and three forcings of choices the warpgroup kernel makes per problem. A
// forced configuration that does not apply to the problem, element type or device runs the
// copied kernel.
enum class MmaConfig : int {
  Auto = -1,         // the rule
  CopiedSm80,        // copied kernel, 8 cells x 32 x 32 a block, m8n8k4 DMMA, plain copies: the rule below 9.0
  Copied,            // the same with m16n8k4 DMMA (9.0) and copies that prefetch their 128-byte L2 block
  Packed,            // packed operands, 4 stages: double cells of one 32 x 32 tile (float runs Copied)
  PackedPersistent,  // packed and persistent: float cells, double cells of 2 x 2 tiles (results in 4 passes)
  Rows,              // rows kernel, 64 x 64 tiles: LayoutRight (rows unit-stride along K), 9.0 and newer
  Wgmma,             // float warpgroup kernel (sm_90a): TMA copies where they apply, else register loads
  WgmmaLoads,        // Wgmma with register loads where the TMA copies would apply
  WgmmaSplit,        // Wgmma with each tile's stages shared by 2 blocks wherever the output allows it
  WgmmaLead2,        // Wgmma with 2 TMA stages in flight whatever K
  Count
};

inline const char* mma_config_name(MmaConfig c) {
  switch (c) {
    case MmaConfig::Auto: return "auto";
    case MmaConfig::CopiedSm80: return "copied-sm80";
    case MmaConfig::Copied: return "copied";
    case MmaConfig::Packed: return "packed";
    case MmaConfig::PackedPersistent: return "packed-persistent";
    case MmaConfig::Rows: return "rows";
    case MmaConfig::Wgmma: return "wgmma";
    case MmaConfig::WgmmaLoads: return "wgmma-loads";
    case MmaConfig::WgmmaSplit: return "wgmma-split";
    case MmaConfig::WgmmaLead2: return "wgmma-lead2";
    case MmaConfig::Count: break;
  }
  return "?";
}

#if defined(GRAIN_ENABLE_CUDA)
// Forces mma's configuration for every later call (Auto: back to the rule). Raises grain::Error
// for a value outside Auto .. Count - 1.
void force_mma_config(MmaConfig c);
#endif

}  // namespace grain::impl::testing
