// Which algorithms apply to a call, and the Auto rule.
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
// Auto (the model; a tuning file from `grain tune` overrides it per device and shape class):
//   CPU (Serial, OpenMP): FieldField block — each cell's GEMM over its right operand packed
//       into field panels, MR x NR register blocks (ContractBlockHostGemmKernel) — except cells
//       of at most 8 x 8 outputs with K >= 32 in LayoutRight (in double, only from K = 257,
//       where block no longer prefetches the next cell), or at most 8 x 8 in LayoutLeft: flat.
//       Data kernels: flat — vectorized across cells (LayoutLeft) or along K (LayoutRight),
//       split over every output so all cores work.
//   GPU, FieldField: blas (cuBLAS) when it applies (LayoutRight) and L, R >= 16 — a tuned
//       vendor GEMM, 2 to 40x ahead of every portable algorithm on Q2 to Q4 (H200,
//       docs/performance.md), except in float for L, R > 32 with K >= 64 on compute capability
//       9.0 where mma's warpgroup kernel takes the rows through TMA copies (contract_mma_k_rows;
//       H100, session 25: 1.07-1.21x cuBLAS), and in double for L, R > 32 on 9.0 and newer where the
//       output is under a quarter of the bytes (3 L R < (L + R) K), where mma's rows kernel takes
//       them (contract_mma_rows; H100, session 29: 1.02-1.30x cuBLAS); in LayoutLeft with L, R >= 16: mma (tensor cores: DMMA in double,
//       3xTF32 in float) when K >= 16 (or in double with L, R <= 64) and it gets 16 blocks;
//       LayoutRight with smaller cells (Q1): team-small-k's staged cells where they lie back to
//       back (k_cells; not in double from 12 x 12 and K = 64), else blas from 8 x 8 and K = 64, else
//       team-small-k for K >= 128, else flat; otherwise (LayoutLeft) team-small-k when
//       K >= 1536 over at most 60000 outputs, flat for cells of at most 4 x 4 with K >= 192
//       (float: 512), block — register-blocked, each input row read once per block (Q1: once in
//       all) — unless the cells give block fewer than 8192 threads (float: 4096), where flat is
//       faster.
//   GPU, Data kernels, LayoutLeft, cells packed (C a multiple of 4 floats / 2 doubles, or 2
//       floats) over at least 50000 float / 100000 double threads of V cells: flat, V cells per
//       thread and load (flat_cell_pack). Otherwise:
//   GPU, DataField, LayoutLeft: block (1 x 8) in float when 4 < R <= 8 and K <= 16 and the cells give
//       it 65536 threads — the data row read once; team-small-k (8 slices of K per 32 cells)
//       in double when K >= 512 over at most 70000 outputs; else flat (a warp's 32 cells, the
//       data row shared in L1 across fields; in float under 2^18 outputs or from K = 128, 8
//       partial sums).
//   GPU, DataData, LayoutLeft: flat — a warp takes 32 consecutive cells, every load coalesces —
//       except team-small-k for K >= 512 under 40000 cells, or in float over 100000-400000.
//   GPU, LayoutRight: rows back to back of at most 4 KiB (k_rows) with K > 16: team-small-k
//       (rows staged through scratch by cp.async, or its packed lanes where they are busy and
//       the rows long: ContractProblem::stage_rows), except float DataField rows of K <= 24 over
//       8 fields or more (flat); else with 16-byte packable rows (k_packed)
//       team-small-k's packed lanes for DataData from K = 16 and DataField from K = 128 (double)
//       or 64 (float, lanes 3/4 busy); otherwise DataData flat when K <= 32, else team-small-k;
//       DataField flat, except team-small-k in float for K >= 512 with R <= 64, in double K > 256.
#pragma once

#include <string>
#include <type_traits>

#include "grain/contract/algorithms/host_simd.hpp"  // host_prefetch_next_cell, host_dot_cells, host_zmm_cells
#include "grain/contract/engine.hpp"                  // contract_mma_k_rows (CUDA builds)
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/tuning.hpp"  // issue 4: the measured winners of `grain tune`

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
      // LayoutLeft (cells unit-stride), or LayoutRight: rows unit-stride along K, the output's
      // fields unit-stride (float on compute capability 9.0 with K a multiple of 4 takes the
      // warpgroup kernel's row copies; on 9.0 and newer, double with L, R > 32 and some float
      // cells the rows kernel's copies along K; the rest the per-element copies of its other
      // kernels).
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
  // [issue 4: tuning file] The winner `grain tune` measured for this device, back end and shape
  // class, when the file has one that applies; else the model below (contract/tuning.hpp).
  if (const ContractAlgorithm tuned = contract_tuned_algorithm(p, e);
      tuned != ContractAlgorithm::Auto && contract_not_applicable(p, tuned, e).empty())
    return tuned;
  const int family = contract_kernel_family(p.kernel);
  if (e != ContractExec::Cuda) {
    // FieldField on the CPU: block's per-cell GEMM over a packed right operand. AMD EPYC (2 cores,
    // AVX-512), session 11, LayoutRight suite: 1.2-2.9x ahead of flat on every Q2-Q4 case, and
    // 0.79-4.3x one OpenBLAS GEMM per cell (behind on the four Q2 Vector and Tensor cases,
    // 0.79-0.98x). At Q1 it is ahead of flat with K = 8 and even at K = 24, while flat's rows
    // (vectorized along K) were 1.3-1.7x ahead at K = 72: with 8 x 8 cells, packing the right
    // operand costs more than its 8 rows of FMAs. In LayoutLeft block packs strided operands and
    // was still 1.2-17x ahead of flat's cell-vectorized rows with more than 8 x 8 outputs per
    // cell; flat was 1.1-1.8x ahead on the Q1 cases and FieldFieldVector Q2. Session 15: where
    // block prefetches the next cell (host_prefetch_next_cell), it is ahead at FieldFieldTensor Q1
    // double too (8.6 against flat's 11.3 ms, 2 threads, 128 MiB), not in float (9.5 against 8.6).
    if (family == 2) {
      const bool small_cells = p.L * p.R <= 64;
      // LayoutLeft: block's cells-as-vectors kernel where it applies (host_cell_vectors, with 16
      // cells: the three operands cells-fastest, K one level), 2.0-4.4x faster than the old block
      // at Q1 (session 21), where flat had been ahead of the old block.
      const bool cell_vectors = host_cell_vectors(p, 16);
      if (p.cells_fastest()) return small_cells && !cell_vectors ? ContractAlgorithm::Flat : ContractAlgorithm::Block;
      const bool block_prefetches = sizeof(T) == 8 && host_prefetch_next_cell(p.K * index_type(sizeof(T)));
      // Session 18: block's dot kernel (host_dot_cells: FieldFieldTensor Q1 float) took 9.33 ms
      // against flat's 10.4 (medians of six alternating rounds, 2 threads, 128 MiB; in cache one
      // thread 0.067 against 0.092).
      const bool block_dots = host_dot_cells(sizeof(T), p.a_k_unit() && p.b_k_unit(), p.L, p.R, p.K);
      // Session 36: block's 512-bit cell kernel (host_zmm_cells) took FieldFieldTensor Q1 float from
      // the dot kernel's 51-52 GB/s to 70-71, double from 52-53 to 68 (fast memory phase, 2
      // threads, 128 MiB).
      const bool block_zmm = host_zmm_cells(p.a_k_unit() && p.b_k_unit(), p.R, p.K);
      return small_cells && p.K >= 32 && !block_prefetches && !block_dots && !block_zmm ? ContractAlgorithm::Flat
                                                                                       : ContractAlgorithm::Block;
    }
    return ContractAlgorithm::Flat;
  }
  if (family == 2) {
    const bool big = p.L >= 16 && p.R >= 16;
#if defined(GRAIN_ENABLE_CUDA)
    // LayoutRight float on compute capability 9.0: mma's warpgroup kernel (3xTF32) over TMA row
    // copies, results in 16-byte packs of fields. H100, session 25, run 8, two rounds (ms, against
    // cuBLAS strided-batched in the same run): FieldFieldScalar Q3 0.582-0.589 / 0.682-0.713, Q4
    // 0.757-0.768 / 0.807-0.829; FieldFieldVector Q3 0.505-0.513 / 0.543-0.563, Q4 0.722-0.727 /
    // 0.800-0.805; FieldFieldTensor Q3 0.474-0.475 / 0.516-0.535, Q4 0.731-0.748 / 0.832-0.863
    // (1.07-1.21x). From K = 64, the shortest measured; cells of at most 32 x 32 (Q2) stay on
    // cuBLAS (its 64 x 64 tiles would be mostly padding). Elsewhere cuBLAS (blas).
    if constexpr (std::is_same_v<T, float>) {
      if (big && p.L > 32 && p.R > 32 && p.K >= 64 && contract_mma_k_rows(p)) return ContractAlgorithm::Mma;
    }
    // LayoutRight double on compute capability 9.0 and newer, L, R > 32: mma's rows kernel (DMMA
    // over 64 x 64 tiles, whole-row result stores) where the output is under a quarter of the bytes
    // moved (3 L R < (L + R) K). H100, session 29, run 4, two rounds (ms, against cuBLAS
    // strided-batched in the same run): FieldFieldScalar Q4 0.544-0.545 / 0.685-0.700,
    // FieldFieldVector Q3 0.436-0.437 / 0.445-0.457, Q4 0.465-0.470 / 0.606-0.621, FieldFieldTensor
    // Q3 0.400-0.401 / 0.439-0.448, Q4 0.466-0.475 / 0.574-0.587 (1.02-1.30x); FieldFieldScalar Q3,
    // whose output is a third of the bytes, 0.612 / 0.555-0.568 stays on cuBLAS.
    if constexpr (std::is_same_v<T, double>) {
      if (big && 3 * p.L * p.R < (p.L + p.R) * p.K && contract_mma_rows(p)) return ContractAlgorithm::Mma;
    }
#endif
    // LayoutRight float cells of 16-32 x 16-32 (more than 256 outputs: k_cell_tiles) with K <= 32
    // (FieldFieldScalar Q2): team-small-k's cell tiles (3 x 9 outputs a thread over staged rows).
    // H100, session 27, run 4, two rounds:
    // FieldFieldScalar Q2 float 0.719 / 0.719 ms against cuBLAS's 0.816 / 0.786 (1.09-1.13x). With
    // longer K (FieldFieldVector / FieldFieldTensor Q2) and in double cuBLAS stays ahead
    // (0.83-0.88x and 0.68-0.78x).
    if constexpr (std::is_same_v<T, float>) {
      if (big && p.k_cell_tiles() && p.K <= 32) return ContractAlgorithm::TeamSmallK;
    }
    if (big && contract_not_applicable(p, ContractAlgorithm::Blas, e).empty()) return ContractAlgorithm::Blas;
    // LayoutLeft: the tensor cores (mma: DMMA in double, 3xTF32 in float). `grain tune` on the
    // H100 (session 4) found mma fastest in every L, R >= 16 shape with K >= 16, by up to 3.2x
    // also with few cells (87 cells of 125 x 125); at K = 8 block won in float (7-36%) and in
    // double at 125 x 125 (1.56x), where mma's 8-index stages are mostly padding.
    // Few blocks: session 4 had flat 1.17x ahead at 17 blocks (134 cells of 27 x 27, K = 4608);
    // since session 7's mma (m16n8k4, the L2 prefetch) the H100 tune had mma ahead in every such
    // shape from 17 blocks up, by 1.12x there and 1.5-2.8x at 28-60 blocks (session 7, run 16).
    // Fewer than 16 blocks was not measured and keeps the old choice.
    const index_type mma_blocks = (p.C + 7) / 8 * ((p.L + 31) / 32) * ((p.R + 31) / 32);
    if (big && contract_not_applicable(p, ContractAlgorithm::Mma, e).empty() && mma_blocks >= 16 &&
        (p.K >= 16 || (sizeof(T) == 8 && p.L <= 64 && p.R <= 64)))
      return ContractAlgorithm::Mma;
    // Small cells in LayoutRight. Where their blocks lie back to back (k_cells) team-small-k
    // stages whole cells through scratch with cp.async: H100 session 9, FieldField Q1 0.81-0.87
    // of the floor against flat's 0.45-0.73 (docs/variants-s9/run12), and in the LayoutRight
    // tune over 4-12 fields and K = 8-576 (run 15) within 10% of the best in every such class
    // but double 12 x 12 cells from K = 64, where cuBLAS was 1.07-1.24x ahead. Cells too large
    // to stage: cuBLAS from 8 x 8 and K = 64 (2.4-6.3x ahead of flat at K = 192-576; at K = 8
    // it is 3x behind flat, session 9 run 13), team-small-k's lanes
    // for long rows of smaller cells (4 x 4, K = 576 double: 1.26x ahead of flat), else flat
    // (a warp's 8 x 8 blocks would read 32 cells' rows at a stride of a whole cell; flat's
    // one-output threads read neighbouring rows of one cell instead).
    if (!big && !p.cells_fastest()) {
      if (p.k_cells() && !(sizeof(T) == 8 && p.L * p.R > 64 && p.K >= 64)) return ContractAlgorithm::TeamSmallK;
      if (p.L * p.R >= 64 && p.K >= 64 && contract_not_applicable(p, ContractAlgorithm::Blas, e).empty())
        return ContractAlgorithm::Blas;
      return p.K >= 128 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    }
    // Small LayoutLeft cells with K >= 1536 over few outputs: the K-split team (team-small-k's
    // LayoutLeft form) was 1.09-2.95x ahead of flat and block in the H100 tune (session 4). Since
    // flat's float threads keep 8 partial sums, the H100 tune (session 7, run 16) had the team
    // ahead only up to 58000 outputs (every such shape) and flat ahead from 69000 (1.11-1.70x).
    if (!big && p.cells_fastest() && p.K >= 1536 && p.C * p.L * p.R <= 60000) return ContractAlgorithm::TeamSmallK;
    // Too few cells for block's one-thread-per-8x8-block (long K at a fixed memory budget): under
    // 8192 such threads in double, 4096 in float, flat's one thread per output wins (`grain tune`
    // on the H200: 1.1-5.2x in every such sweep shape; in float the H100 tune of session 7 had
    // block 1.10-1.13x ahead at 6500-7300 threads and flat ahead at 2200-2700); so does it for
    // cells of at most 4 x 4 with K >= 192 in double, K >= 512 in float (H100 tune, session 4:
    // 1.09-2.47x ahead of block; session 7: block 1.06-1.24x ahead in float at K = 192-243).
    const index_type block_threads = ((p.L + 7) / 8) * ((p.R + 7) / 8) * p.C;
    const bool dbl = sizeof(T) == 8;
    if (block_threads < (dbl ? 8192 : 4096) || (p.L * p.R <= 16 && p.K >= (dbl ? 192 : 512)))
      return ContractAlgorithm::Flat;
    return ContractAlgorithm::Block;
  }
  if (p.cells_fastest()) {
    // Packed cells over many threads: flat reads V neighbouring cells per load
    // (ContractProblem::flat_cell_pack) and was ahead of block and team-small-k wherever that
    // applied in the suite (H100, session 10, run 7: DataFieldScalar Q1 float 1.00 against
    // block's 0.88, DataDataVector Q4 / DataDataTensor Q3 float 0.97 / 0.99 against
    // team-small-k's 0.88 / 0.89).
    if (p.flat_cell_pack() > 0) return ContractAlgorithm::Flat;
    if (family == 1) {
      // DataField, from the H100 (session 4 suite and `grain tune`, docs/performance.md). Since
      // flat's threads of one cell group share the data row in L1, block's 1 x 8 threads win only
      // in float with very short rows (K <= 16, R <= 8) over 65536 threads: DataFieldScalar Q1
      // float, 1.03-1.18x; in double flat was ahead by 1.26-1.38x on every Q1 case.
      const index_type block_threads = p.C * ((p.R + 7) / 8);
      // With 4 fields or fewer the 1 x 8 block is half empty: flat was 1.25x ahead at R = 4, K = 8
      // (H100 tune, session 7, run 16).
      if (sizeof(T) == 4 && p.R > 4 && p.R <= 8 && p.K <= 16 && block_threads >= 65536) return ContractAlgorithm::Block;
      // Long K over few outputs, in double: 8 slices of K per 32-cell group (team-small-k's
      // LayoutLeft form). The H100 tune (session 4): 1.04-1.24x ahead of flat in every shape with
      // K >= 512 and at most 66000 outputs; the suite: 1.22x on DataFieldTensor Q4 double (34500
      // outputs), behind by 4-18% at 100000 and more. In float, flat's threads keep 16 loads in
      // flight when they are this few (kFlatFewOutputs) and were ahead: DataFieldTensor Q4 float
      // (69000 outputs) 1.14x (session 7). Session 17 gave float's team-small-k 8 loads in flight
      // over 2 slices there (contract_team_small_k): at K = 1944 it was 1.19x / 1.10x ahead of
      // flat at 51750 / 69000 outputs (DataFieldTensor Q4 float at 384 / 512 MiB), 1.24x behind at
      // 86250, where its teams no longer fit the GPU at once; at K = 648 (DataFieldVector Q4)
      // flat stayed ahead from 103500 outputs.
      const index_type outputs = p.C * p.R;
      if (p.K >= 512 && outputs <= (sizeof(T) == 8 ? 70000 : 35000)) return ContractAlgorithm::TeamSmallK;
      if (sizeof(T) == 4 && p.K >= 1536 && outputs <= 70000) return ContractAlgorithm::TeamSmallK;
      return ContractAlgorithm::Flat;
    }
    // DataData: flat, except long rows, where the K-split team (8 slices per 32 cells) keeps more
    // loads in flight (H100, session 4): under 40000 cells with K >= 512 it was 1.02-4.4x ahead
    // (tune), and in float over 100000-400000 cells 1.02-1.06x (DataDataVector Q4, DataDataTensor
    // Q3); in double above 40000 cells and at 69000 float cells flat was ahead or even.
    if (p.K >= 512 && (p.C < 40000 || (sizeof(T) == 4 && p.C >= 100000 && p.C <= 400000)))
      return ContractAlgorithm::TeamSmallK;
    return ContractAlgorithm::Flat;
  }
  // LayoutRight. Rows back to back of at most 4 KiB (k_rows) with K > 16: team-small-k, which
  // stages them through scratch with cp.async (or runs its packed lanes where those are busy:
  // ContractProblem::stage_rows). H100, session 9 (docs/variants-s9/run6): staged rows reached
  // 0.86-0.94 of the floor on every DataData and DataField case with K = 27-243 (flat 0.13-0.74,
  // the session-7 staging 0.56-0.95) and 0.87-0.91 at K = 24-72 where packed lanes idled
  // (0.38-0.77); flat stays ahead only on K <= 16.
  // Except DataField rows of at most 24 floats over 8 fields or more: flat, whose thread reads its
  // field's row in one to six 16-byte loads. H100, session 19 (docs/variants-s19, run 1, `grain
  // tune`): DataFieldVector Q1 float (K = 24, R = 8) 0.236 against team-small-k's 0.247 ms
  // (sessions 13-18's suites: 0.89-0.91 of the floor against 0.84-0.86); K = 18 with R = 16 / 27
  // 0.248 / 0.241 against 0.253 / 0.255; team-small-k stayed ahead at K = 18 with 4 fields, at
  // K = 36 for every R in 4-27, and at DataFieldScalar Q2 float (K = 27: 1.19x).
  const bool short_float_fields = family == 1 && sizeof(T) == 4 && p.K <= 24 && p.R >= 8;
  if (p.k_rows() && p.K > 16 && !short_float_fields) return ContractAlgorithm::TeamSmallK;
  // Where K is unit-stride with aligned rows (k_packed), team-small-k's lanes
  // read 16 bytes each, and a warp's loads of neighbouring rows are one run (H100, session 6,
  // docs/variants-s6/run9-data-right.json): it reached 0.92-1.02 of the floor on every DataData
  // case with K >= 64 (flat: 0.13-0.52) and 0.78-0.90 at K = 24, and on DataField it was ahead of
  // flat by 1.22-2.40x from K = 128 (float from K = 64 with 64 fields, 1.82x; double at K = 64
  // flat was 1.19x ahead), while flat kept the short rows over few fields (K <= 72 with 8 fields:
  // 1.3-1.7x).
  if (p.k_packed()) {
    if (family == 0) return p.K >= 16 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    if (sizeof(T) == 8) return p.K >= 128 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
    // Float from K = 64 when the lanes are mostly busy: packs / (lanes x rounds) >= 3/4. The H100
    // tune (run 17) had team-small-k 1.8-2.0x ahead at K = 64 (16 packs on 16 lanes) with 8 and
    // 27 fields, while the suite had flat 1.42x ahead at K = 72 (18 packs on 32 lanes).
    const index_type packs = p.K / 4, lanes = small_k_lanes(packs);
    const index_type slots = (packs + lanes - 1) / lanes * lanes;
    return p.K >= 64 && 4 * packs >= 3 * slots ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
  }
  // Otherwise (odd K, misaligned rows) lanes read one element each. Short K: flat (a thread's row
  // is a few sectors); long K: lanes over K, except DataField in float, where flat's reuse of the
  // data row still wins unless K is long and the cell has at most 64 fields: DataFieldTensor Q3
  // float (K = 576, R = 64) ran 1.48x faster on team-small-k (H100, session 4, run 16), while at
  // R = 125 flat stayed ahead (DataFieldVector Q4, K = 648: 1.28x; DataFieldTensor Q4: 1.14x).
  if (family == 0) return p.K <= 32 ? ContractAlgorithm::Flat : ContractAlgorithm::TeamSmallK;
  if (sizeof(T) == 4) return p.K >= 512 && p.R <= 64 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
  return p.K > 256 ? ContractAlgorithm::TeamSmallK : ContractAlgorithm::Flat;
}

}  // namespace grain::impl
