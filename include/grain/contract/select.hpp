// Which algorithms apply to a call, and the Auto rule (docs/contractions.md states it with one
// line of reason per branch; the measurements behind each threshold are in git's history).
//
// Applicability (asking for an algorithm outside it raises grain::Error; Auto never picks it):
//   serial, flat, team-depth-1, team-stride, team-small-k   every kernel
//   team-depth-2                                            Vector and Tensor kernels
//   slice, adaptive-slice                                   DataField and FieldField
//   tile                                                    FieldField
//   block                                                   DataField and FieldField
//   blas                                                    FieldField on Cuda, LayoutRight
//                                                           left/right/out (cuBLAS needs
//                                                           unit-stride rows)
//   mma                                                     FieldField on Cuda, LayoutLeft
//                                                           left/right/out (cells are the
//                                                           unit-stride index) or LayoutRight
//                                                           ones (rows unit-stride along K)
//
// Auto: the tuning file's winner for the device, back end and shape class (`grain tune`,
// tuning.hpp) where it has one that applies, else the model in contract_auto_algorithm.
#pragma once

#include <string>
#include <type_traits>

#include "grain/contract/algorithms/host_simd.hpp"  // host_prefetch_next_cell, host_dot_cells, host_zmm_cells
#include "grain/contract/engine.hpp"                  // contract_mma_k_rows (CUDA builds)
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/tuning.hpp"  // the measured winners of `grain tune`

namespace grain::impl {

// Empty string when `a` applies, else the reason.
template <class T>
std::string contract_not_applicable(const ContractProblem<T>& p, ContractAlgorithm a,
                                    ContractExec e) {
  const int family = contract_kernel_family(p.kernel);
  switch (a) {
    case ContractAlgorithm::TeamDepth2:
      if (contract_kernel_contracted(p.kernel) < 2)
        return "team-depth-2 maps threads onto two contracted indices; Scalar kernels have one";
      return {};
    case ContractAlgorithm::Slice:
    case ContractAlgorithm::AdaptiveSlice:
      if (family == 0)
        return std::string(contract_algorithm_name(a)) +
               " stages a left row for several right fields; DataData kernels have one output "
               "per cell and no reuse";
      return {};
    case ContractAlgorithm::Tile:
      if (family != 2) return "tile needs left and right fields (FieldField kernels only)";
      return {};
    case ContractAlgorithm::Block:
      if (family == 0) return "block blocks a cell's outputs; DataData kernels have one output per cell";
      return {};
    case ContractAlgorithm::Blas:
      if (family != 2) return "blas is a batched GEMM: FieldField kernels only";
      if (e != ContractExec::Cuda)
        return "blas (cuBLAS strided-batched GEMM) runs on the GPU only: pass CudaSpace Views";
      if (!(p.k_unit() && (p.L <= 1 || p.a_l >= p.K) && (p.R <= 1 || p.b_r >= p.K) &&
            (p.o_r == 1 || p.R <= 1)))
        return "blas needs LayoutRight left, right and out (cuBLAS takes matrices with "
               "unit-stride rows; in LayoutLeft the cells are the unit-stride index)";
      return {};
    case ContractAlgorithm::Mma:
      if (family != 2) return "mma runs each cell's GEMM on tensor cores: FieldField kernels only";
      if (e != ContractExec::Cuda) return "mma (tensor cores) runs on the GPU only: pass CudaSpace Views";
      // LayoutLeft (cells unit-stride), or LayoutRight: rows unit-stride along K and the output's
      // fields unit-stride (src/contract/mma_cuda.cu picks the kernel that reads them).
      if (!(p.cells_unit() && (p.o_c == 1 || p.C <= 1)) && !p.rows_along_k())
        return "mma needs LayoutLeft left, right and out (cells unit-stride) or LayoutRight ones (rows "
               "unit-stride along the contracted indices)";
      return {};
    default:
      return {};
  }
}

template <class T>
ContractAlgorithm contract_auto_algorithm(const ContractProblem<T>& p, ContractExec e) {
  // The winner `grain tune` measured for this device, back end and shape class, when the tuning
  // file has one that applies; else the model below.
  if (const ContractAlgorithm tuned = contract_tuned_algorithm(p, e);
      tuned != ContractAlgorithm::Auto && contract_not_applicable(p, tuned, e).empty())
    return tuned;
  const int family = contract_kernel_family(p.kernel);
  if (e != ContractExec::Cuda) {
    if (family == 2) {
      // CPU FieldField: block's per-cell GEMM over a packed right operand reaches the FMA peak on
      // large cells; flat where a cell of at most 8 x 8 outputs costs more to pack than to sum.
      const bool small_cells = p.L * p.R <= 64;
      // LayoutLeft: block where its cells-as-vectors kernel applies (16 cells a vector), else
      // flat for small cells.
      const bool cell_vectors = host_cell_vectors(p, 16);
      if (p.cells_fastest()) return small_cells && !cell_vectors ? ContractAlgorithm::Flat : ContractAlgorithm::Block;
      // LayoutRight small cells with K >= 32: flat, unless block prefetches the next cell
      // (double), or has its dot or 512-bit cell kernel for the shape.
      const bool block_prefetches = sizeof(T) == 8 && host_prefetch_next_cell(p.K * index_type(sizeof(T)));
      const bool block_dots = host_dot_cells(sizeof(T), p.a_k_unit() && p.b_k_unit(), p.L, p.R, p.K);
      const bool block_zmm = host_zmm_cells(p.a_k_unit() && p.b_k_unit(), p.R, p.K);
      return small_cells && p.K >= 32 && !block_prefetches && !block_dots && !block_zmm ? ContractAlgorithm::Flat
                                                                                       : ContractAlgorithm::Block;
    }
    return ContractAlgorithm::Flat;
  }
  if (family == 2) {
    const bool big = p.L >= 16 && p.R >= 16;
#if defined(GRAIN_ENABLE_CUDA)
    // LayoutRight float, L, R > 32, K >= 64, on compute capability 9.0: mma's warpgroup kernel over
    // TMA row copies, ahead of cuBLAS's float GEMMs on these batches (32 x 32 cells stay on cuBLAS).
    if constexpr (std::is_same_v<T, float>) {
      if (big && p.L > 32 && p.R > 32 && p.K >= 64 && contract_mma_k_rows(p)) return ContractAlgorithm::Mma;
    }
    // LayoutRight double, L, R > 32, on 9.0 and newer, output under a quarter of the bytes moved
    // (3 L R < (L + R) K): mma's rows kernel; the FP64 tensor cores outrun cuBLAS there.
    if constexpr (std::is_same_v<T, double>) {
      if (big && 3 * p.L * p.R < (p.L + p.R) * p.K && contract_mma_rows(p)) return ContractAlgorithm::Mma;
    }
#endif
    // LayoutRight float cells of 16-32 x 16-32 (k_cell_tiles) with K <= 32: team-small-k's cell
    // tiles; short K leaves cuBLAS's tiles mostly idle.
    if constexpr (std::is_same_v<T, float>) {
      if (big && p.k_cell_tiles() && p.K <= 32) return ContractAlgorithm::TeamSmallK;
    }
    // Other big LayoutRight cells: cuBLAS, at the GEMM peak for contiguous matrices.
    if (big && contract_not_applicable(p, ContractAlgorithm::Blas, e).empty()) return ContractAlgorithm::Blas;
    // Big LayoutLeft cells: the tensor cores (mma), which read cells-fastest matrices through
    // shared memory, from 16 blocks and K >= 16 (double: also shorter K up to 64 x 64 cells); at
    // K = 8 its stages are mostly padding.
    const index_type mma_blocks = (p.C + 7) / 8 * ((p.L + 31) / 32) * ((p.R + 31) / 32);
    if (big && contract_not_applicable(p, ContractAlgorithm::Mma, e).empty() && mma_blocks >= 16 &&
        (p.K >= 16 || (sizeof(T) == 8 && p.L <= 64 && p.R <= 64)))
      return ContractAlgorithm::Mma;
    // Small LayoutRight cells: team-small-k stages whole cells that lie back to back (k_cells;
    // not double cells over 64 outputs with K >= 64, where cuBLAS is ahead); cuBLAS from 8 x 8
    // and K = 64; team-small-k's lanes for long rows (K >= 128); else flat, whose threads read
    // neighbouring rows of one cell.
    if (!big && !p.cells_fastest()) {
      if (p.k_cells() && !(sizeof(T) == 8 && p.L * p.R > 64 && p.K >= 64)) return ContractAlgorithm::TeamSmallK;
      if (p.L * p.R >= 64 && p.K >= 64 && contract_not_applicable(p, ContractAlgorithm::Blas, e).empty())
        return ContractAlgorithm::Blas;
      return p.K >= 128 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    }
    // Small LayoutLeft cells, K >= 1536 over at most 60000 outputs: the K-split team, whose slices
    // keep enough loads in flight where one thread an output would not fill the GPU.
    if (!big && p.cells_fastest() && p.K >= 1536 && p.C * p.L * p.R <= 60000) return ContractAlgorithm::TeamSmallK;
    // Flat where block's one thread per 8 x 8 block would get under 8192 threads (float: 4096),
    // or for cells of at most 4 x 4 with K >= 192 (float: 512); else block, whose register block
    // reuses each row 8 times.
    const index_type block_threads = ((p.L + 7) / 8) * ((p.R + 7) / 8) * p.C;
    const bool dbl = sizeof(T) == 8;
    if (block_threads < (dbl ? 8192 : 4096) || (p.L * p.R <= 16 && p.K >= (dbl ? 192 : 512)))
      return ContractAlgorithm::Flat;
    return ContractAlgorithm::Block;
  }
  if (p.cells_fastest()) {
    // Packed cells over many threads: flat, V neighbouring cells a load (flat_cell_pack); vector
    // loads cut the instructions per byte.
    if (p.flat_cell_pack() > 0) return ContractAlgorithm::Flat;
    if (family == 1) {
      // DataField: block's 1 x 8 threads in float for 4 < R <= 8, K <= 16 over 65536 threads (the
      // data row read once for 8 fields; at R <= 4 the block is half empty).
      const index_type block_threads = p.C * ((p.R + 7) / 8);
      if (sizeof(T) == 4 && p.R > 4 && p.R <= 8 && p.K <= 16 && block_threads >= 65536) return ContractAlgorithm::Block;
      // Long K over few outputs: 8 slices of K per 32-cell group (team-small-k's LayoutLeft form)
      // keep more loads in flight than one thread an output; else flat, whose threads of a cell
      // group share the data row in L1.
      const index_type outputs = p.C * p.R;
      if (p.K >= 512 && outputs <= (sizeof(T) == 8 ? 70000 : 35000)) return ContractAlgorithm::TeamSmallK;
      if (sizeof(T) == 4 && p.K >= 1536 && outputs <= 70000) return ContractAlgorithm::TeamSmallK;
      return ContractAlgorithm::Flat;
    }
    // DataData: flat, except long rows (K >= 512) under 40000 cells, or in float over
    // 100000-400000 cells, where the K-split team keeps more loads in flight.
    if (p.K >= 512 && (p.C < 40000 || (sizeof(T) == 4 && p.C >= 100000 && p.C <= 400000)))
      return ContractAlgorithm::TeamSmallK;
    return ContractAlgorithm::Flat;
  }
  // LayoutRight rows back to back of at most 4 KiB (k_rows) with K > 16: team-small-k, which
  // stages each row as one contiguous copy (or runs its packed lanes: ContractProblem::stage_rows);
  // except float DataField rows of at most 24 elements over 8 fields or more: flat, whose thread
  // reads its row in one to six 16-byte loads.
  const bool short_float_fields = family == 1 && sizeof(T) == 4 && p.K <= 24 && p.R >= 8;
  if (p.k_rows() && p.K > 16 && !short_float_fields) return ContractAlgorithm::TeamSmallK;
  // 16-byte packable rows (k_packed): team-small-k's lanes read 16 bytes each and a warp's loads
  // of neighbouring rows are one run; they pay from K = 16 (DataData) or 128 (DataField double).
  if (p.k_packed()) {
    if (family == 0) return p.K >= 16 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    if (sizeof(T) == 8) return p.K >= 128 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    // Float DataField from K = 64 where the lanes are mostly busy: packs / (lanes x rounds) >= 3/4.
    const index_type packs = p.K / 4, lanes = small_k_lanes(packs);
    const index_type slots = (packs + lanes - 1) / lanes * lanes;
    return p.K >= 64 && 4 * packs >= 3 * slots ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
  }
  // Other rows (odd K, misaligned): lanes read one element each. Flat for short K; lanes over K
  // from K > 32 (DataData) or K > 256 (DataField double); float DataField keeps flat's reuse of
  // the data row unless K >= 512 over at most 64 fields.
  if (family == 0) return p.K <= 32 ? ContractAlgorithm::Flat : ContractAlgorithm::TeamSmallK;
  if (sizeof(T) == 4) return p.K >= 512 && p.R <= 64 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
  return p.K > 256 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
}

}  // namespace grain::impl
