// Auto's model (include/grain/contract/model.hpp): the named constants, the named predicates and
// the two tables (CPU, CUDA). A threshold lives here and nowhere else; each rule says in one line
// why its algorithm wins where its predicate holds. Host-only code.
#include "grain/contract/model.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace grain::impl {

namespace {

using A = ContractAlgorithm;
using F = ContractFacts;

bool ff(const F& f) { return f.family == ContractFamily::FieldField; }
bool df(const F& f) { return f.family == ContractFamily::DataField; }
bool dd(const F& f) { return f.family == ContractFamily::DataData; }
// A threshold that differs by element type.
struct ByType {
  index_type f, d;
  index_type of(const F& x) const { return x.dbl ? d : f; }
};

// ---- the constants --------------------------------------------------------------------------------

// Both.
constexpr index_type kThinFields = 4;  // fewer fields on a side leave block's register blocks mostly empty

// CPU.
constexpr index_type kHostSmallCellOutputs = 64;  // at most 8 x 8 outputs: packing costs more than summing
constexpr index_type kHostFlatMinK = 32;          // shorter rows: block's packed cell is cheap again

// GPU FieldField.
constexpr index_type kBigFields = 16;          // L, R >= 16: cells big enough for GEMM-like kernels
constexpr index_type kWgmmaFields = 32;        // L, R above one 32 x 32 tile: the warpgroup kernel's tiles fill
constexpr index_type kWgmmaMinK = 64;          // shorter K leaves its TMA pipeline unfilled
constexpr index_type kCellTilesMaxK = 32;      // short K leaves cuBLAS's tiles mostly idle ...
constexpr index_type kCellTileBytes = 8192;    // ... while a cell's rows, (L + R) K elements, stage in 8 KiB
constexpr index_type kMmaMinBlocks = 16;       // fewer 8-cell x 32 x 32 blocks leave the GPU idle
constexpr index_type kMmaMinK = 16;            // at K = 8 mma's stages are mostly padding
constexpr index_type kMmaMinFields = 16;       // LayoutRight: cells of at most 16 fields fill a quarter of its 32 x 32 tile
constexpr index_type kMmaLeftMinFields = 9;    // LayoutLeft: under 9 fields a side, block's 8 x 8 registers fill better
constexpr ByType kMmaLeftFilledK{16, 8};       // LayoutLeft: mma from this K times its tiles' filled share (the
                                               // work per padded tile entry); FP64 tensor cores pay sooner
constexpr index_type kThinBlockFields = 3;     // LayoutLeft cells of 3 fields a side with short K ...
constexpr index_type kThinBlockMaxK = 16;      // ... write more than they read: block's stores still win
constexpr index_type kMidBlasOutputs = 192;    // LayoutRight cells of 192+ outputs under 16 fields a side: cuBLAS ...
constexpr index_type kMidBlasK = 24;           // ... from K = 24
constexpr index_type kWideBlasOutputs = 2048;  // LayoutRight cells this wide: cuBLAS's tiles fill at any K
constexpr index_type kThinLanesK = 32;         // LayoutRight cells of 1-3 fields a side: lanes over K from K = 32
constexpr index_type kSmallCellsDoubleOutputs = 64;  // double cells over 64 outputs with long K: cuBLAS
constexpr index_type kSmallCellsDoubleK = 64;
constexpr index_type kSmallBlasOutputs = 32;   // cuBLAS from 32 outputs a cell ...
constexpr index_type kSmallBlasK = 64;         // ... and K = 64
constexpr index_type kLanesMinK = 128;         // team-small-k's lanes pay for rows this long
constexpr ByType kBlockMinThreads{4096, 8192};   // block's one thread per 8 x 8 block needs this many
constexpr index_type kTinyCellOutputs = 64;      // cells of at most 8 x 8 ...
constexpr index_type kTinyCellFlatK = 192;       // ... with rows this long: one 8 x 8 block a cell, too few to pay
constexpr index_type kOneFieldRowsMaxK = 3;      // LayoutLeft cells of 1 x 9+ fields with K <= 3: block, as for DataField

// GPU Data kernels, LayoutLeft.
constexpr index_type kDfBlockMinR = 4;            // float DataField block: 4 < R <= 8 (half-empty below)
constexpr index_type kDfBlockMaxR = 8;
constexpr index_type kDfBlockMaxK = 16;
constexpr index_type kDfBlockMinThreads = 65536;
constexpr index_type kDfTinyRowMinR = 9;          // DataField rows of 1 (float: 2) points over 9+ fields: block
constexpr ByType kDfTinyRowMaxK{2, 1};            // reads each data entry once for 8 fields
constexpr index_type kLeftSplitMinK = 256;        // the K-split team from K = 256 ...
constexpr ByType kLeftSplitOutputs{60000, 70000};    // ... over at most this many outputs (all families)
constexpr index_type kDfFloatSplitMinK = 1536;    // float: still ahead to 70000 outputs from K = 1536
constexpr index_type kDfFloatSplitOutputs = 70000;
constexpr ByType kDdLeftSplitCells{60000, 40000};  // DataData: under this many cells
constexpr index_type kDdFloatSplitMinK = 512;     // float from K = 512: also 100000-400000 cells
constexpr index_type kDdFloatSplitFrom = 100000;
constexpr index_type kDdFloatSplitTo = 400000;

// GPU Data kernels, LayoutRight.
constexpr index_type kStagedRowsMinK = 16;        // staged rows pay from K > 16
constexpr index_type kShortFloatRowK = 24;        // float DataField rows of at most 24 elements ...
constexpr index_type kShortFloatRowFields = 8;    // ... over 8 fields or more: flat's 16-byte loads
constexpr index_type kDdPackedLanesK = 16;        // DataData packed lanes pay from K = 16
constexpr index_type kDfDoublePackedLanesK = 128; // DataField double from K = 128
constexpr index_type kDfFloatPackedLanesK = 64;   // DataField float from K = 64 with busy lanes
constexpr index_type kDdLanesK = 32;              // unpacked rows: DataData lanes from K > 32
constexpr index_type kDfFloatLanesK = 512;        // float DataField keeps flat's row reuse below K = 512 ...
constexpr index_type kDfFloatLanesMaxFields = 64; // ... or over more than 64 fields
constexpr index_type kDfDoubleLanesK = 256;       // double DataField lanes from K > 256
constexpr index_type kDdDoubleLanesK = 11;        // double DataData rows from K = 11: lanes beat flat's one thread a row
constexpr index_type kDfTinyRowsMinR = 3;         // DataField rows of 1 point (float: 1-3) over 3-4 fields: block
constexpr index_type kDfTinyRowsMaxR = 4;
constexpr ByType kDfTinyRowsMaxK{3, 1};
constexpr index_type kUnitCellLanesK = 16;        // FieldField 1 x 1 cells: lanes over K from K = 16

// ---- derived quantities ----------------------------------------------------------------------------

bool big(const F& f) { return f.L >= kBigFields && f.R >= kBigFields; }
bool small_cells(const F& f) { return f.L * f.R <= kHostSmallCellOutputs; }
index_type mma_blocks(const F& f) { return (f.C + 7) / 8 * ((f.L + 31) / 32) * ((f.R + 31) / 32); }
index_type block_threads(const F& f) { return ((f.L + 7) / 8) * ((f.R + 7) / 8) * f.C; }
// K times the share of mma's 32 x 32 tiles that a cell fills: its useful work per padded entry.
double mma_filled_k(const F& f) {
  return static_cast<double>(f.L * f.R) * f.K / (((f.L + 31) / 32) * ((f.R + 31) / 32) * 1024.0);
}

// ---- the CPU table ----------------------------------------------------------------------------------

const ContractRule kHostRules[] = {
    {"ff-thin-cells", A::Flat, [](const F& f) { return ff(f) && std::min(f.L, f.R) < kThinFields; },
     "cells of 1-3 fields a side: block's register panels mostly empty; flat sums in place"},
    {"ff-left-small-cells", A::Flat,
     [](const F& f) { return ff(f) && f.cells_fastest && small_cells(f) && !f.host_cell_vectors; },
     "small LayoutLeft cells without block's cells-as-vectors kernel: packing costs more than summing"},
    {"ff-left", A::Block, [](const F& f) { return ff(f) && f.cells_fastest; },
     "LayoutLeft FieldField: block's per-cell GEMM over a packed right operand reaches the FMA peak"},
    {"ff-right-small-cells", A::Flat,
     [](const F& f) { return ff(f) && small_cells(f) && f.K >= kHostFlatMinK && !f.host_block_kernel; },
     "small cells with long rows and no prefetching, dot or 512-bit block kernel: flat sums in place"},
    {"ff-right", A::Block, [](const F& f) { return ff(f); },
     "FieldField: block's per-cell GEMM over a packed right operand reaches the FMA peak"},
    {"data", A::Flat, [](const F& f) { return !ff(f); },
     "Data kernels: one output per cell or field, streamed at the copy rate by flat's cell blocks"},
};

// ---- the CUDA table ---------------------------------------------------------------------------------

const ContractRule kCudaRules[] = {
    // FieldField.
    {"ff-float-wgmma", A::Mma,
     [](const F& f) {
       return ff(f) && !f.dbl && big(f) && f.L > kWgmmaFields && f.R > kWgmmaFields && f.K >= kWgmmaMinK &&
              f.mma_k_rows;
     },
     "LayoutRight float cells over 32 x 32, long K, compute capability 9.0: the warpgroup kernel beats cuBLAS"},
    {"ff-double-mma-rows", A::Mma,
     [](const F& f) { return ff(f) && f.dbl && big(f) && 3 * f.L * f.R < (f.L + f.R) * f.K && f.mma_rows; },
     "LayoutRight double cells over 32 x 32 with the output under a quarter of the bytes: FP64 tensor cores"},
    {"ff-cell-tiles", A::TeamSmallK,
     [](const F& f) {
       return ff(f) && big(f) && f.k_cell_tiles && f.K <= kCellTilesMaxK &&
              (f.L + f.R) * f.K * (f.dbl ? 8 : 4) <= kCellTileBytes;
     },
     "LayoutRight cells of 16-32 fields with short K: staged cell tiles; cuBLAS's tiles idle"},
    {"ff-big-blas", A::Blas, [](const F& f) { return ff(f) && big(f) && f.blas_applies; },
     "big LayoutRight cells: cuBLAS at the GEMM peak for contiguous matrices"},
    {"ff-left-mma", A::Mma,
     [](const F& f) {
       return ff(f) && f.cells_fastest && f.mma_applies && std::min(f.L, f.R) >= kMmaLeftMinFields &&
              mma_filled_k(f) >= kMmaLeftFilledK.of(f) && mma_blocks(f) >= kMmaMinBlocks;
     },
     "LayoutLeft cells whose K outweighs mma's tile padding: tensor cores read cells-fastest tiles via shared memory"},
    {"ff-big-mma", A::Mma,
     [](const F& f) {
       return ff(f) && !f.cells_fastest && big(f) && f.mma_applies && mma_blocks(f) >= kMmaMinBlocks &&
              f.K >= kMmaMinK && f.L > kMmaMinFields && f.R > kMmaMinFields;
     },
     "big cells without cuBLAS over enough blocks: tensor cores"},
    {"ff-right-wide-blas", A::Blas,
     [](const F& f) { return ff(f) && !big(f) && !f.cells_fastest && f.L * f.R >= kWideBlasOutputs && f.blas_applies; },
     "LayoutRight cells of 2048+ outputs with one side under 16 fields: cuBLAS's tiles fill whatever K"},
    {"ff-right-mid-blas", A::Blas,
     [](const F& f) {
       return ff(f) && !big(f) && !f.cells_fastest && f.L * f.R >= kMidBlasOutputs && f.K >= kMidBlasK &&
              f.blas_applies;
     },
     "LayoutRight cells of many outputs but under 16 fields a side: still cuBLAS's batched GEMM"},
    {"ff-small-right-cells", A::TeamSmallK,
     [](const F& f) {
       return ff(f) && !big(f) && !f.cells_fastest && f.k_cells &&
              !(f.dbl && f.L * f.R > kSmallCellsDoubleOutputs && f.K >= kSmallCellsDoubleK);
     },
     "small LayoutRight cells back to back: team-small-k stages whole cells in one copy"},
    {"ff-small-right-blas", A::Blas,
     [](const F& f) {
       return ff(f) && !big(f) && !f.cells_fastest && f.L * f.R >= kSmallBlasOutputs && f.K >= kSmallBlasK &&
              f.blas_applies;
     },
     "small LayoutRight cells of 32+ outputs with long K: cuBLAS's batched GEMM"},
    {"ff-right-thin-long-k", A::TeamSmallK,
     [](const F& f) { return ff(f) && !f.cells_fastest && std::min(f.L, f.R) < kThinFields && f.K >= kThinLanesK; },
     "LayoutRight cells of 1-3 fields a side with K >= 32: rows like DataData's, lanes over K"},
    {"ff-right-unit-cells", A::TeamSmallK,
     [](const F& f) { return ff(f) && !f.cells_fastest && f.L * f.R == 1 && f.K >= kUnitCellLanesK; },
     "LayoutRight cells of one output with K >= 16: a dot product a cell, lanes over K as for DataData rows"},
    {"ff-small-right-long-k", A::TeamSmallK,
     [](const F& f) { return ff(f) && !big(f) && !f.cells_fastest && f.K >= kLanesMinK; },
     "small LayoutRight cells with long rows: team-small-k's lanes split each row"},
    {"ff-small-right", A::Flat, [](const F& f) { return ff(f) && !big(f) && !f.cells_fastest; },
     "small LayoutRight cells: flat's threads read neighbouring rows of one cell"},
    {"ff-small-left-k-split", A::TeamSmallK,
     [](const F& f) {
       return ff(f) && !big(f) && f.cells_fastest && f.K >= kLeftSplitMinK && f.C * f.L * f.R <= kLeftSplitOutputs.of(f);
     },
     "small LayoutLeft cells, long K over few outputs: the K-split team keeps enough loads in flight"},
    {"ff-left-thin-short-k", A::Block,
     [](const F& f) {
       return ff(f) && f.cells_fastest && std::min(f.L, f.R) == kThinBlockFields && f.K <= kThinBlockMaxK &&
              block_threads(f) >= kBlockMinThreads.of(f);
     },
     "LayoutLeft cells of 3 fields a side with short K: the output outweighs the rows, and block stores it best"},
    {"ff-left-one-field-rows", A::Block,
     [](const F& f) {
       return ff(f) && f.cells_fastest && f.L == 1 && f.R >= kDfTinyRowMinR && f.K <= kOneFieldRowsMaxK;
     },
     "LayoutLeft cells of 1 x 9+ fields (L = 1) with K <= 3: DataField's tiny rows; block reads each entry once for "
     "8 fields (9+ x 1 cells stay on flat)"},
    {"ff-left-thin-cells", A::Flat,
     [](const F& f) { return ff(f) && f.cells_fastest && std::min(f.L, f.R) < kThinFields; },
     "LayoutLeft cells of 1-3 fields a side: block's 8 x 8 registers mostly empty; flat, one thread an output"},
    {"ff-few-blocks", A::Flat,
     [](const F& f) {
       return ff(f) && (block_threads(f) < kBlockMinThreads.of(f) ||
                        (f.L * f.R <= kTinyCellOutputs && f.K >= kTinyCellFlatK));
     },
     "too few 8 x 8 blocks to fill the GPU, or tiny cells with long K: flat, one thread an output"},
    {"ff-block", A::Block, [](const F& f) { return ff(f); },
     "FieldField: block's register block reuses each row 8 times"},
    // Data kernels, LayoutLeft.
    {"data-left-packed", A::Flat, [](const F& f) { return !ff(f) && f.cells_fastest && f.flat_cell_pack; },
     "packed cells over many threads: flat's vector loads of neighbouring cells"},
    {"df-left-float-block", A::Block,
     [](const F& f) {
       return df(f) && f.cells_fastest && !f.dbl && f.R > kDfBlockMinR && f.R <= kDfBlockMaxR &&
              f.K <= kDfBlockMaxK && f.C * ((f.R + 7) / 8) >= kDfBlockMinThreads;
     },
     "float DataField, 5-8 fields, short K, many cells: block reads the data row once for 8 fields"},
    {"df-left-tiny-rows", A::Block,
     [](const F& f) { return df(f) && f.cells_fastest && f.R >= kDfTinyRowMinR && f.K <= kDfTinyRowMaxK.of(f); },
     "DataField rows of 1-2 points over 9+ fields: block reads each data entry once for 8 fields"},
    {"df-left-k-split", A::TeamSmallK,
     [](const F& f) { return df(f) && f.cells_fastest && f.K >= kLeftSplitMinK && f.C * f.R <= kLeftSplitOutputs.of(f); },
     "long K over few outputs: 8 slices of K per 32-cell group keep more loads in flight"},
    {"df-left-float-k-split", A::TeamSmallK,
     [](const F& f) {
       return df(f) && f.cells_fastest && !f.dbl && f.K >= kDfFloatSplitMinK && f.C * f.R <= kDfFloatSplitOutputs;
     },
     "float, longer K: the K-split team stays ahead over more outputs"},
    {"df-left", A::Flat, [](const F& f) { return df(f) && f.cells_fastest; },
     "LayoutLeft DataField: flat's threads of a cell group share the data row in L1"},
    {"dd-left-k-split", A::TeamSmallK,
     [](const F& f) {
       return dd(f) && f.cells_fastest && f.K >= kLeftSplitMinK &&
              (f.C < kDdLeftSplitCells.of(f) ||
               (!f.dbl && f.K >= kDdFloatSplitMinK && f.C >= kDdFloatSplitFrom && f.C <= kDdFloatSplitTo));
     },
     "long rows over few cells (float: also 100000-400000 cells): the K-split team keeps loads in flight"},
    {"dd-left", A::Flat, [](const F& f) { return dd(f) && f.cells_fastest; },
     "LayoutLeft DataData: flat, one thread a cell"},
    // Data kernels, LayoutRight.
    {"df-right-tiny-rows", A::Block,
     [](const F& f) {
       return df(f) && !f.cells_fastest && f.R >= kDfTinyRowsMinR && f.R <= kDfTinyRowsMaxR &&
              f.K <= kDfTinyRowsMaxK.of(f);
     },
     "DataField rows of 1 point (float: 1-3) over 3-4 fields: the output outweighs the rows, block stores it best"},
    {"dd-right-double-mid-k", A::TeamSmallK, [](const F& f) { return dd(f) && !f.cells_fastest && f.dbl && f.K >= kDdDoubleLanesK; },
     "double DataData rows from K = 11: lanes over K beat flat's one thread a row"},
    {"right-staged-rows", A::TeamSmallK,
     [](const F& f) {
       return !ff(f) && f.k_rows && f.K > kStagedRowsMinK &&
              !(df(f) && !f.dbl && f.K <= kShortFloatRowK && f.R >= kShortFloatRowFields);
     },
     "rows back to back of at most 4 KiB: team-small-k stages each row as one contiguous copy"},
    {"dd-right-packed", A::TeamSmallK, [](const F& f) { return dd(f) && f.k_packed && f.K >= kDdPackedLanesK; },
     "16-byte packable rows: a warp's lanes read neighbouring rows as one run"},
    {"df-right-packed-double", A::TeamSmallK,
     [](const F& f) { return df(f) && f.dbl && f.k_packed && f.K >= kDfDoublePackedLanesK; },
     "double DataField packable rows from K = 128: team-small-k's lanes"},
    {"df-right-packed-float", A::TeamSmallK,
     [](const F& f) { return df(f) && !f.dbl && f.k_packed && f.K >= kDfFloatPackedLanesK && f.lanes_busy; },
     "float DataField packable rows from K = 64 with the lanes at least 3/4 busy"},
    {"df-right-packed-float-short", A::Flat, [](const F& f) { return df(f) && !f.dbl && f.k_packed; },
     "float DataField packable rows with idle lanes: flat keeps its reuse of the data row"},
    {"dd-right-long-k", A::TeamSmallK, [](const F& f) { return dd(f) && f.K > kDdLanesK; },
     "DataData rows of odd length or alignment from K > 32: lanes over K"},
    {"df-right-float-long-k", A::TeamSmallK,
     [](const F& f) { return df(f) && !f.dbl && f.K >= kDfFloatLanesK && f.R <= kDfFloatLanesMaxFields; },
     "float DataField, very long rows over few fields: lanes over K"},
    {"df-right-double-long-k", A::TeamSmallK, [](const F& f) { return df(f) && f.dbl && f.K > kDfDoubleLanesK; },
     "double DataField rows longer than 256: lanes over K"},
    {"data-right", A::Flat, [](const F& f) { return !ff(f); },
     "short or unpacked Data rows: flat, one thread an output"},
};

}  // namespace

ContractRuleTable contract_model_rules(bool gpu) {
  if (gpu) return {kCudaRules, std::size(kCudaRules)};
  return {kHostRules, std::size(kHostRules)};
}

const std::vector<ContractAlgorithm>& contract_model_fallback(bool gpu, ContractFamily family) {
  // The order the study's algorithms usually finish in on each back end: the register-blocked and
  // staged ones first, the one-team-per-output ones last.
  static const std::vector<A> gpu_ff{A::Block, A::Blas, A::Mma, A::Flat, A::TeamSmallK, A::Tile, A::AdaptiveSlice,
                                     A::Slice, A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  static const std::vector<A> gpu_df{A::Flat, A::TeamSmallK, A::Block, A::AdaptiveSlice, A::Slice,
                                     A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  static const std::vector<A> gpu_dd{A::Flat, A::TeamSmallK, A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  static const std::vector<A> host_ff{A::Block, A::Flat, A::Tile, A::TeamSmallK, A::AdaptiveSlice, A::Slice,
                                      A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  static const std::vector<A> host_df{A::Flat, A::Block, A::TeamSmallK, A::AdaptiveSlice, A::Slice,
                                      A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  static const std::vector<A> host_dd{A::Flat, A::TeamSmallK, A::TeamStride, A::TeamDepth2, A::TeamDepth1};
  switch (family) {
    case ContractFamily::FieldField: return gpu ? gpu_ff : host_ff;
    case ContractFamily::DataField: return gpu ? gpu_df : host_df;
    case ContractFamily::DataData: break;
  }
  return gpu ? gpu_dd : host_dd;
}

namespace {
bool in_mask(unsigned mask, A a) { return (mask >> static_cast<unsigned>(a)) & 1u; }
}  // namespace

ContractAlgorithm contract_model_pick(const ContractFacts& f, unsigned applicable) {
  const ContractRuleTable t = contract_model_rules(f.gpu);
  for (std::size_t i = 0; i < t.size; ++i)
    if (in_mask(applicable, t.rules[i].pick) && t.rules[i].holds(f)) return t.rules[i].pick;
  for (A a : contract_model_fallback(f.gpu, f.family))
    if (in_mask(applicable, a)) return a;
  return A::Serial;
}

ContractModelDecision contract_model_decide(const ContractFacts& f, unsigned applicable) {
  ContractModelDecision d;
  auto rank = [&](A a) {
    if (in_mask(applicable, a) && std::find(d.ranking.begin(), d.ranking.end(), a) == d.ranking.end())
      d.ranking.push_back(a);
  };
  const ContractRuleTable t = contract_model_rules(f.gpu);
  for (std::size_t i = 0; i < t.size; ++i) {
    const ContractRule& r = t.rules[i];
    if (!r.holds(f)) continue;
    d.holding.push_back(&r);
    if (!d.rule && in_mask(applicable, r.pick)) d.rule = &r;
    rank(r.pick);
  }
  for (A a : contract_model_fallback(f.gpu, f.family)) rank(a);
  for (A a : kAllContractAlgorithms)
    if (a != A::Serial) rank(a);
  d.pick = d.ranking.empty() ? A::Serial : d.ranking.front();
  return d;
}

std::vector<std::pair<std::string, std::string>> contract_facts_lines(const ContractFacts& f) {
  auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
  std::vector<std::pair<std::string, std::string>> v{
      {"kernel", contract_kernel_name(f.kernel)},
      {"family", contract_family_name(f.family)},
      {"element", f.dbl ? "double" : "float"},
      {"C, L, R, K", std::to_string(f.C) + ", " + std::to_string(f.L) + ", " + std::to_string(f.R) + ", " +
                         std::to_string(f.K)},
      {"cells fastest (LayoutLeft)", yes(f.cells_fastest)},
  };
  if (f.gpu) {
    v.insert(v.end(), {{"flat packs cells", yes(f.flat_cell_pack)},
                       {"rows staged (k_rows)", yes(f.k_rows)},
                       {"rows 16-byte packable", yes(f.k_packed)},
                       {"cells staged (k_cells)", yes(f.k_cells)},
                       {"cell tiles", yes(f.k_cell_tiles)},
                       {"packed lanes busy", yes(f.lanes_busy)},
                       {"cuBLAS layout", yes(f.blas_applies)},
                       {"mma layout", yes(f.mma_applies)},
                       {"mma warpgroup rows (float, 9.0)", yes(f.mma_k_rows)},
                       {"mma rows (double, 9.0+)", yes(f.mma_rows)}});
  } else {
    v.insert(v.end(), {{"block cells as vectors", yes(f.host_cell_vectors)},
                       {"block prefetch/dot/512-bit kernel", yes(f.host_block_kernel)}});
  }
  return v;
}

}  // namespace grain::impl
