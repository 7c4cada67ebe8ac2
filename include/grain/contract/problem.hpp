// The engine's description of one call: every one of the nine kernels becomes
//
//     out[c, l, r] = sum_k left[c, l, k] * right[c, r, k]        (L = 1 and/or R = 1 for Data)
//
// with run-time strides, so LayoutRight and LayoutLeft Views (and the broadcast of a DataField
// `data` array whose point extent is 1) all reach the same kernels.
//
// Contracted indices are kept twice:
//  * logically, padded to three (x0, x1, x2) = (1, 1, P) | (1, P, D) | (P, D1, D2), with a stride
//    per operand (stride 0 = broadcast). The team-depth algorithms map threads onto the last one
//    or two of them, as in the study;
//  * canonically, as k = k1 * K0 + k0 (K0 the memory-fastest run that is uniformly strided in
//    both operands). Without broadcast K1 = 1 and K0 = K: one strided loop, stride 1 for
//    LayoutRight inputs. A broadcast splits K at the point/component boundary.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <cstddef>
#include <cstdint>
#include <string>

#include "grain/contract/testing.hpp"  // cell_tiles_override (tests only)
#include "grain/core/config.hpp"
#include "grain/core/error.hpp"
#include "grain/core/policy.hpp"

namespace grain {

enum class ContractKernel {
  DataDataScalar,
  DataDataVector,
  DataDataTensor,
  DataFieldScalar,
  DataFieldVector,
  DataFieldTensor,
  FieldFieldScalar,
  FieldFieldVector,
  FieldFieldTensor
};

inline const char* contract_kernel_name(ContractKernel k) {
  switch (k) {
    case ContractKernel::DataDataScalar: return "DataDataScalar";
    case ContractKernel::DataDataVector: return "DataDataVector";
    case ContractKernel::DataDataTensor: return "DataDataTensor";
    case ContractKernel::DataFieldScalar: return "DataFieldScalar";
    case ContractKernel::DataFieldVector: return "DataFieldVector";
    case ContractKernel::DataFieldTensor: return "DataFieldTensor";
    case ContractKernel::FieldFieldScalar: return "FieldFieldScalar";
    case ContractKernel::FieldFieldVector: return "FieldFieldVector";
    case ContractKernel::FieldFieldTensor: return "FieldFieldTensor";
  }
  return "?";
}

inline constexpr ContractKernel kAllContractKernels[] = {
    ContractKernel::DataDataScalar,   ContractKernel::DataDataVector,   ContractKernel::DataDataTensor,
    ContractKernel::DataFieldScalar,  ContractKernel::DataFieldVector,  ContractKernel::DataFieldTensor,
    ContractKernel::FieldFieldScalar, ContractKernel::FieldFieldVector, ContractKernel::FieldFieldTensor};

// The kernel named `name` (contract_kernel_name's spelling); grain::Error for any other name.
inline ContractKernel parse_contract_kernel(const std::string& name) {
  for (ContractKernel k : kAllContractKernels)
    if (name == contract_kernel_name(k)) return k;
  impl::throw_error("grain: unknown contraction kernel '", name,
                    "' (DataDataScalar, DataDataVector, DataDataTensor, DataFieldScalar, "
                    "DataFieldVector, DataFieldTensor, FieldFieldScalar, FieldFieldVector, "
                    "FieldFieldTensor)");
}

// The public function that computes `k` ("grain::contract_field_field_scalar", ...).
inline const char* contract_function_name(ContractKernel k) {
  switch (k) {
    case ContractKernel::DataDataScalar: return "grain::contract_data_data_scalar";
    case ContractKernel::DataDataVector: return "grain::contract_data_data_vector";
    case ContractKernel::DataDataTensor: return "grain::contract_data_data_tensor";
    case ContractKernel::DataFieldScalar: return "grain::contract_data_field_scalar";
    case ContractKernel::DataFieldVector: return "grain::contract_data_field_vector";
    case ContractKernel::DataFieldTensor: return "grain::contract_data_field_tensor";
    case ContractKernel::FieldFieldScalar: return "grain::contract_field_field_scalar";
    case ContractKernel::FieldFieldVector: return "grain::contract_field_field_vector";
    case ContractKernel::FieldFieldTensor: return "grain::contract_field_field_tensor";
  }
  return "?";
}

// The three kinds of contraction: which operands carry a field index.
enum class ContractFamily {
  DataData,   // out (C): no field index
  DataField,  // out (C,F): the right operand's fields
  FieldField  // out (C,L,R): left and right fields
};
inline constexpr ContractFamily contract_kernel_family(ContractKernel k) {
  return static_cast<ContractFamily>(static_cast<int>(k) / 3);
}
inline const char* contract_family_name(ContractFamily f) {
  switch (f) {
    case ContractFamily::DataData: return "DataData";
    case ContractFamily::DataField: return "DataField";
    case ContractFamily::FieldField: return "FieldField";
  }
  return "?";
}
// Number of contracted indices: 1 (Scalar), 2 (Vector), 3 (Tensor).
inline constexpr int contract_kernel_contracted(ContractKernel k) { return static_cast<int>(k) % 3 + 1; }
// The kernel of a family (0 DataData, 1 DataField, 2 FieldField: the templates' encoding) with NK
// contracted indices (1, 2, 3).
inline constexpr ContractKernel contract_kernel_of(int family, int nk) {
  return static_cast<ContractKernel>(3 * family + nk - 1);
}
inline constexpr ContractKernel contract_kernel_of(ContractFamily family, int nk) {
  return contract_kernel_of(static_cast<int>(family), nk);
}

namespace impl {

// team-small-k's staged rows and cells (ContractTeamSmallKRowsKernel, ...CellBlocksKernel): the
// longest row staged (bytes), the scratch a team may take (bytes: several teams per
// multiprocessor, so one team's copy overlaps another's sums) and a GPU team's threads.
inline constexpr index_type kStageRowsMaxRow = 4096;
inline constexpr std::size_t kStageRowsScratch = 32768;
inline constexpr int kStageRowsThreads = 128;
// Staged rows take up to 48 KiB a team: twice the rows that 32 KiB hold, which is faster on
// LayoutRight DataFieldTensor Q2 and DataFieldScalar Q3 (measured).
inline constexpr std::size_t kStageRowsTeamScratch = 49152;

// team-small-k's vector lanes per output for `steps` loop steps along K: the power of two that
// covers them, at most a warp (its launch, and Auto's estimate of how busy those lanes are).
inline index_type small_k_lanes(index_type steps) {
  index_type lanes = 1;
  while (lanes < steps && lanes < 32) lanes *= 2;
  return lanes;
}

template <class T>
struct ContractProblem {
  ContractKernel kernel = ContractKernel::DataDataScalar;
  const char* function = "";
  bool sum_into = false;

  index_type C = 0, L = 1, R = 1, K = 0;
  // Logical contracted indices, padded to three.
  index_type x[3] = {1, 1, 0};
  index_type ax[3] = {0, 0, 0}, bx[3] = {0, 0, 0};
  // Non-contracted strides.
  index_type a_c = 0, a_l = 0, b_c = 0, b_r = 0, o_c = 0, o_l = 0, o_r = 0;
  // Canonical two-level K.
  index_type K1 = 1, K0 = 0, a_s1 = 0, a_s0 = 0, b_s1 = 0, b_s0 = 0;

  const T* a = nullptr;
  const T* b = nullptr;
  T* out = nullptr;

  // Offsets of flattened k (k1 * K0 + k0) in each operand; the division only with a broadcast.
  GRAIN_FORCEINLINE_FUNCTION index_type a_k(index_type k) const {
    if (K1 == 1) return k * a_s0;
    const index_type k1 = k / K0;
    return k1 * a_s1 + (k - k1 * K0) * a_s0;
  }
  GRAIN_FORCEINLINE_FUNCTION index_type b_k(index_type k) const {
    if (K1 == 1) return k * b_s0;
    const index_type k1 = k / K0;
    return k1 * b_s1 + (k - k1 * K0) * b_s0;
  }
  GRAIN_FORCEINLINE_FUNCTION T* out_at(index_type c, index_type l, index_type r) const {
    return out + c * o_c + l * o_l + r * o_r;
  }
  // Writes or accumulates one result.
  GRAIN_FORCEINLINE_FUNCTION void store(index_type c, index_type l, index_type r, T v) const {
    T* o = out_at(c, l, r);
    *o = sum_into ? *o + v : v;
  }
  // The output is dense, C x L x R elements back to back in LayoutLeft or LayoutRight order (mma's
  // K splits zero it with one memset and add into it).
  GRAIN_INLINE_FUNCTION bool out_dense() const {
    return (o_c == 1 && o_l == C && o_r == C * L) || (o_r == 1 && o_l == R && o_c == L * R);
  }
  // Cells unit-stride in both inputs (LayoutLeft; with C = 1 whatever the layout says).
  GRAIN_INLINE_FUNCTION bool cells_unit() const { return a_c == 1 && b_c == 1; }
  // Cells are the unit-stride index of both inputs (LayoutLeft): threads should take consecutive c.
  GRAIN_INLINE_FUNCTION bool cells_fastest() const { return cells_unit() && C > 1; }
  // Contracted index contiguous in both operands. A single element (K <= 1, whose strides
  // canonicalize() zeroes) counts as contiguous, so that blas takes C = L = R = P = 1 LayoutRight
  // calls.
  GRAIN_INLINE_FUNCTION bool k_unit() const { return a_k_unit() && b_k_unit(); }
  // The same for one operand (the CPU block reads unit-stride left rows in place and packs its
  // right rows with whole-vector transposes).
  GRAIN_INLINE_FUNCTION bool a_k_unit() const { return K1 == 1 && (K0 <= 1 || a_s0 == 1); }
  GRAIN_INLINE_FUNCTION bool b_k_unit() const { return K1 == 1 && (K0 <= 1 || b_s0 == 1); }
  // Both inputs' rows unit-stride along K and the output's fields unit-stride (LayoutRight
  // FieldField, as a row-major GEMM per cell reads and writes it).
  GRAIN_INLINE_FUNCTION bool rows_along_k() const { return k_unit() && (o_r == 1 || R <= 1); }

  // Cells unit-stride in both inputs and every (row, k) run of cells starting on a V-element
  // boundary: C and every other input stride multiples of V, both inputs aligned to V elements.
  // A GPU thread then reads V neighbouring cells per load (`flat`'s ContractFlatCellPackKernel;
  // `mma`'s packed operands with V = 16 / sizeof(T)).
  bool cells_packed(index_type V) const {
    auto aligned = [&](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % (V * sizeof(T)) == 0; };
    return a_c == 1 && b_c == 1 && C % V == 0 && a_l % V == 0 && b_r % V == 0 && a_s0 % V == 0 &&
           b_s0 % V == 0 && (K1 == 1 || (a_s1 % V == 0 && b_s1 % V == 0)) && aligned(a) && aligned(b);
  }
  // GPU `flat` on the Data kernels in LayoutLeft: how many neighbouring cells a thread reads per
  // load (16 / sizeof(T), or 2 in float where C is only even), 0 where the cells are not packed
  // or the packed threads would be too few: packs pay from 50000 float / 100000 double threads,
  // and fewer threads leave the GPU short of loads in flight (measured).
  // Float DataField with fewer than 100000 threads of 4 cells takes 2-cell packs where those make
  // at least 50000 threads: twice the threads, faster on DataFieldTensor Q3 float.
  int flat_cell_pack() const {
    if (contract_kernel_family(kernel) == ContractFamily::FieldField) return 0;
    constexpr index_type W = 16 / sizeof(T);
    const index_type v = cells_packed(W) ? W : (sizeof(T) == 4 && cells_packed(2) ? 2 : 0);
    if (v == 0) return 0;
    if (v == 4 && sizeof(T) == 4 && contract_kernel_family(kernel) == ContractFamily::DataField && C / 4 * L * R < 100000 &&
        C / 2 * L * R >= 50000)
      return 2;
    return C / v * L * R >= (sizeof(T) == 4 ? 50000 : 100000) ? static_cast<int>(v) : 0;
  }
  // GPU `flat` on the float Data kernels in LayoutLeft whose cells are unit-stride but not packed
  // (C odd, or a stride; both arrays 16-byte aligned): whether a thread takes 4 neighbouring cells
  // read through shifted 16-byte packs (ContractFlatCellShiftKernel). Only with K <= 72 over 2^18
  // threads or more: it pays on the Q1 Data cases, and with long K the shifted reads cost more
  // than they save; even C takes the 2-cell packs (flat_cell_pack).
  bool flat_cell_shift() const {
    auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
    return sizeof(T) == 4 && contract_kernel_family(kernel) != ContractFamily::FieldField && a_c == 1 && b_c == 1 && !cells_packed(2) &&
           aligned(a) && aligned(b) && K <= 72 && (C + 3) / 4 * L * R >= (index_type(1) << 18);
  }
  // Whether K may be read 16 bytes (V = 16 / sizeof(T) elements) at a time: unit-stride and one
  // level in both operands, a multiple of V, and every row and cell starting V-aligned
  // (team-small-k's LayoutRight lanes, and Auto's choice of them).
  bool k_packed() const {
    constexpr index_type V = 16 / sizeof(T);
    auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
    return K1 == 1 && a_s0 == 1 && b_s0 == 1 && K % V == 0 && a_c % V == 0 && a_l % V == 0 && b_c % V == 0 &&
           b_r % V == 0 && aligned(a) && aligned(b);
  }

  // Whether team-small-k may stage whole rows instead (LayoutRight Data kernels whose K is
  // unit-stride but not packable): one left row (L = 1), each operand's rows back to back (right:
  // C x R rows of K, left: C rows of K), and a row of at most kStageRowsMaxRow bytes, so a team's
  // scratch holds at least a row of each operand.
  GRAIN_INLINE_FUNCTION bool k_rows() const {
    return L == 1 && K > 1 && K1 == 1 && a_s0 == 1 && b_s0 == 1 && (R == 1 || b_r == K) && b_c == R * K &&
           a_c == K && K * index_type(sizeof(T)) <= kStageRowsMaxRow;
  }

  // Whether team-small-k stages whole cells instead (small FieldField cells in LayoutRight): K
  // unit-stride, each cell's left (L x K) and right (R x K) blocks contiguous and the cells back
  // to back, at most 256 outputs per cell, and one cell's blocks within the team's scratch.
  GRAIN_INLINE_FUNCTION bool k_cells() const {
    return L > 1 && R > 1 && L * R <= 256 && K > 1 && K1 == 1 && a_s0 == 1 && b_s0 == 1 && a_l == K &&
           b_r == K && a_c == L * K && b_c == R * K &&
           (L + R) * K * index_type(sizeof(T)) + 32 <= index_type(kStageRowsScratch);
  }

  // Whether team-small-k takes register tiles of staged cells (ContractTeamSmallKCellTilesKernel):
  // FieldField cells of more than 256 outputs (k_cells' limit) and at most 32 x 32, laid out as
  // k_cells has them (LayoutRight Q2: K unit-stride, each cell's rows and the cells back to back).
  GRAIN_INLINE_FUNCTION bool k_cell_tiles() const {
    return L > 1 && R > 1 && L * R > 256 && L <= 32 && R <= 32 && K > 1 && K1 == 1 && a_s0 == 1 && b_s0 == 1 &&
           a_l == K && b_r == K && a_c == L * K && b_c == R * K;
  }

  // Whether team-small-k stages rows (k_rows) rather than run lanes over them: always where the
  // rows are not 16-byte packable; where they are, unless the packed lanes are mostly busy
  // (packs / (lanes x rounds) >= 3/4) on rows long enough for lanes to win: DataData from K = 64,
  // DataField from K = 512. Shorter rows, or idle lanes, copy faster staged (measured).
  bool stage_rows() const {
    if (!k_rows()) return false;
    if (!k_packed()) return true;
    constexpr index_type V = 16 / sizeof(T);
    const index_type packs = K / V, lanes = small_k_lanes(packs);
    const index_type slots = (packs + lanes - 1) / lanes * lanes;
    const bool busy = 4 * packs >= 3 * slots;
    return !(busy && K >= (R == 1 ? 64 : 512));
  }

  // Builds the canonical two-level K from the logical indices: drop extent-1 indices, order the
  // rest by right's stride (right is never broadcast), merge neighbours that are uniformly strided
  // in both operands.
  void canonicalize() {
    K = x[0] * x[1] * x[2];
    struct Dim {
      index_type e, a, b;
    };
    Dim d[3];
    int n = 0;
    for (int i = 0; i < 3; ++i)
      if (x[i] != 1) d[n++] = Dim{x[i], ax[i], bx[i]};
    for (int i = 1; i < n; ++i)  // insertion sort of at most three
      for (int j = i; j > 0 && d[j].b < d[j - 1].b; --j) {
        const Dim t = d[j];
        d[j] = d[j - 1];
        d[j - 1] = t;
      }
    Dim m[3];
    int nm = 0;
    for (int i = 0; i < n; ++i) {
      if (nm > 0 && d[i].a == m[nm - 1].a * m[nm - 1].e && d[i].b == m[nm - 1].b * m[nm - 1].e) {
        m[nm - 1].e *= d[i].e;
      } else {
        m[nm++] = d[i];
      }
    }
    if (nm == 0) {
      K1 = 1;
      K0 = K;  // 0 or 1
      a_s0 = b_s0 = 1;
      a_s1 = b_s1 = 0;
      if (K == 1) {
        a_s0 = 0;
        b_s0 = 0;
      }
    } else if (nm == 1) {
      K1 = 1;
      K0 = m[0].e;
      a_s0 = m[0].a;
      b_s0 = m[0].b;
    } else if (nm == 2) {
      K0 = m[0].e;
      a_s0 = m[0].a;
      b_s0 = m[0].b;
      K1 = m[1].e;
      a_s1 = m[1].a;
      b_s1 = m[1].b;
    } else {
      throw_error(function, ": internal error: contracted indices of 'left' and 'right' cannot be "
                  "flattened into two strided levels (mixed layouts?)");
    }
  }
};

// ---- small building blocks shared by the algorithms --------------------------------------------


// Scratch bytes for a staged run of n elements: room for its 16-byte skew (StagedRun), rounded
// to 16 bytes as team scratch hands it out.
template <class T>
std::size_t stage_run_bytes(index_type n) {
  return (static_cast<std::size_t>(n) * sizeof(T) + 16 + 15) / 16 * 16;
}
// Cells that `rows` consecutive rows of R per cell can span, and the team's scratch bytes: the
// right rows and those cells' left rows.
GRAIN_INLINE_FUNCTION index_type stage_rows_cells(index_type rows, index_type R) {
  const index_type c = R == 1 ? rows : (rows + R - 2) / R + 1;
  return c < rows ? c : rows;
}
template <class T>
std::size_t stage_rows_bytes(index_type rows, index_type R, index_type K) {
  return stage_run_bytes<T>(rows * K) + stage_run_bytes<T>(stage_rows_cells(rows, R) * K);
}
// A GPU team of staged rows: kStageRowsThreads threads as `rows` rows of `lanes` vector lanes,
// rows the largest power of two whose scratch fits kStageRowsTeamScratch (several teams per
// multiprocessor, so one team's copy overlaps another's sums), lanes the rest of the threads (at
// most a warp per row).
template <class T>
void stage_rows_shape(index_type K, index_type R, int& rows, int& lanes) {
  rows = kStageRowsThreads;
  while (rows > 1 && stage_rows_bytes<T>(rows, R, K) > kStageRowsTeamScratch) rows /= 2;
  lanes = kStageRowsThreads / rows < 32 ? kStageRowsThreads / rows : 32;
}

// Staged cells (ContractTeamSmallKCellBlocksKernel): a team's scratch bytes for `cells` cells,
// and its shape: the largest power of two of cells within kStageRowsScratch, kStageRowsThreads
// threads as rows (one output each per pass) of `lanes` lanes, lanes only where a team has fewer
// outputs than threads.
template <class T>
std::size_t stage_cells_bytes(index_type cells, index_type L, index_type R, index_type K) {
  return stage_run_bytes<T>(cells * L * K) + stage_run_bytes<T>(cells * R * K);
}
template <class T>
void stage_cells_shape(index_type K, index_type L, index_type R, int& cells, int& rows, int& lanes) {
  cells = 1;
  while (cells < 1024 && stage_cells_bytes<T>(2 * cells, L, R, K) <= kStageRowsScratch) cells *= 2;
  const index_type outputs = static_cast<index_type>(cells) * L * R;
  rows = outputs < kStageRowsThreads ? static_cast<int>(outputs) : kStageRowsThreads;
  lanes = kStageRowsThreads / rows < 32 ? kStageRowsThreads / rows : 32;
  while (lanes & (lanes - 1)) lanes &= lanes - 1;  // a power of two
}

// team-small-k's cell tiles (ContractTeamSmallKCellTilesKernel, where k_cell_tiles holds): a
// thread sums an MB x NB tile of one cell's outputs, rows l, l + nl, ... and fields r, r + nr, ...
// (nl = ceil(L / MB), nr = ceil(R / NB); 3 x 9 covers the Q2 cells' 27 x 27 exactly in 27 units);
// a team stages groups of `cells` cells in passes of kc contracted indices, each staged row ks
// elements long (a whole number of 16-byte packs, an odd number of them, so that 8 threads'
// 16-byte loads of neighbouring rows fall in distinct banks).
inline constexpr int kCellTileRows = 3, kCellTileFields = 9;
inline constexpr std::size_t kCellTilesScratch = 98304;

// A pass's buffer (the group's left rows, then its right rows, ks elements apart) and the
// outputs' area (a group's outputs plus a 16-byte skew), in elements; one place for the kernel
// and its shape.
GRAIN_INLINE_FUNCTION constexpr index_type cell_tiles_buffer_elems(index_type cells, index_type L, index_type R,
                                                                   index_type ks) {
  return cells * (L + R) * ks;
}
template <class T>
GRAIN_INLINE_FUNCTION constexpr index_type cell_tiles_out_elems(index_type cells, index_type L, index_type R) {
  return cells * L * R + 16 / static_cast<index_type>(sizeof(T));
}
// A staged row's length for kc indices: whole 16-byte packs, an odd number of them.
template <class T>
GRAIN_INLINE_FUNCTION constexpr index_type cell_tiles_row_stride(index_type kc) {
  constexpr index_type V = 16 / static_cast<index_type>(sizeof(T));
  const index_type packs = (kc + V - 1) / V;
  return (packs % 2 ? packs : packs + 1) * V;
}

// The shape of a launch: cells a group, groups a team, kc indices a pass, ks the staged row
// length, whether passes are double-buffered (two) and whether a group's outputs are gathered in
// the pass's own buffer (alias: one unit a thread, the buffer large enough), team threads and
// scratch bytes.
struct CellTilesShape {
  int cells = 1, groups = 1, kc = 1, ks = 1, threads = 1;
  bool two = false, alias = false;
  std::size_t bytes = 0;
};

// The rule on the GPU: the cell count up to 8 whose units fill whole warps best (27-unit cells:
// 7, 189 of 192 threads), or 2 where one pass at that count covers K (below); the longest pass
// (kc) whose two buffers fit kCellTilesScratch, the passes then evened out over K; groups a team
// so that a team runs about 4 passes (tests force other values: testing::cell_tiles_override).
// A host team is one thread: one cell a group, one pass of all of K, one buffer, outputs apart.
template <class T>
CellTilesShape cell_tiles_shape(const ContractProblem<T>& p, bool host) {
  const index_type L = p.L, R = p.R, K = p.K;
  const index_type per = ((L + kCellTileRows - 1) / kCellTileRows) * ((R + kCellTileFields - 1) / kCellTileFields);
  CellTilesShape s;
  // Scratch hands out 16-byte multiples; a buffer is one already (ks whole packs).
  auto bytes = [&](index_type c, index_type ks, int buffers, bool alias) {
    const std::size_t outs = alias ? 0 : static_cast<std::size_t>(cell_tiles_out_elems<T>(c, L, R)) * sizeof(T);
    return static_cast<std::size_t>(buffers) * static_cast<std::size_t>(cell_tiles_buffer_elems(c, L, R, ks)) * sizeof(T) +
           (outs + 15) / 16 * 16;
  };
  if (host) {
    s.kc = static_cast<int>(K), s.ks = static_cast<int>(cell_tiles_row_stride<T>(K));
    s.bytes = bytes(1, s.ks, 1, false);
    return s;
  }
  const testing::CellTilesOverride& o = testing::cell_tiles_override();
  const std::size_t budget = o.budget > 0 ? static_cast<std::size_t>(o.budget) : kCellTilesScratch;
  // Outputs in the pass's buffer where they fit it (every thread holds at most one unit).
  auto alias_ok = [&](index_type c, index_type ks) {
    return cell_tiles_out_elems<T>(c, L, R) <= cell_tiles_buffer_elems(c, L, R, ks);
  };
  auto fits = [&](index_type c, index_type kc, int buffers) {
    const index_type ks = cell_tiles_row_stride<T>(kc);
    return bytes(c, ks, buffers, alias_ok(c, ks)) <= budget;
  };
  double best = -1;
  for (index_type c = 1; c <= 8 && c * per <= 256; ++c) {
    const double fill = static_cast<double>(c * per) / static_cast<double>((c * per + 31) / 32 * 32);
    if (fill >= best) best = fill, s.cells = static_cast<int>(c);
  }
  // Where one pass covers all of K at that cell count, teams of 2 cells instead (at least a warp
  // of units): their smaller scratch lets 8 teams share an SM instead of 2 (16 warps against 12),
  // faster on FieldFieldScalar Q2 float; where K takes several passes 2-cell teams are slower.
  if (2 * per >= 32 && 2 * per <= 256 && fits(s.cells, K, 2)) s.cells = 2;
  if (o.cells > 0) s.cells = o.cells;
  const index_type c = s.cells, units = c * per;
  s.threads = static_cast<int>((units + 31) / 32 * 32);
  index_type kc = K;
  if (o.kc > 0) {
    kc = std::min<index_type>(o.kc, K);
  } else {
    if (!fits(c, K, 2)) {
      // The longest pass that fits: staged rows are an odd number of packs, so try those (a pass
      // of packs x V indices has rows exactly that long), longest first.
      constexpr index_type V = 16 / static_cast<index_type>(sizeof(T));
      index_type packs = cell_tiles_row_stride<T>(K) / V;
      while (packs > 1 && !fits(c, packs * V, 2)) packs -= 2;
      kc = fits(c, packs * V, 2) ? std::min<index_type>(K, packs * V) : 1;
    }
    const index_type chunks = (K + kc - 1) / kc;
    kc = (K + chunks - 1) / chunks;
  }
  const index_type chunks = (K + kc - 1) / kc;
  s.kc = static_cast<int>(kc), s.ks = static_cast<int>(cell_tiles_row_stride<T>(kc));
  s.two = fits(c, kc, 2);
  s.alias = alias_ok(c, s.ks);
  s.groups = o.groups > 0 ? o.groups : static_cast<int>(std::max<index_type>(1, 4 / chunks));
  s.bytes = bytes(c, s.ks, s.two ? 2 : 1, s.alias);
  return s;
}

// team-small-k's staged cells four fields a thread (ContractTeamSmallKCellBlocksKernel::quads):
// the rotation coefficients (rot_l, rot_q) with the fewest shared-memory wavefronts, simulated for
// the first warp's 16-byte loads in a team of `threads` (units (c, l, quad), quads fastest; a
// quarter-warp's loads of one wavefront each where no two distinct packs share a bank group).
// The search runs on the host at every launch, so the last answer is kept per host thread (a
// search takes about as long as a FieldFieldTensor Q1 double kernel).
template <class T>
void stage_cells_quad_rotation(index_type K, index_type L, index_type R, int threads, int& rot_l, int& rot_q) {
  thread_local index_type last[4] = {-1, -1, -1, -1};
  thread_local int last_rot[2] = {0, 0};
  if (last[0] == K && last[1] == L && last[2] == R && last[3] == threads) {
    rot_l = last_rot[0], rot_q = last_rot[1];
    return;
  }
  const int np = static_cast<int>(K / (16 / static_cast<index_type>(sizeof(T))));
  const int Li = static_cast<int>(L), Ri = static_cast<int>(R), R4 = Ri / 4, U = Li * R4;
  const int lanes = threads < 32 ? threads : 32;
  const int most = np < 8 ? np : 8;
  long best = -1;
  rot_l = 0, rot_q = 0;
  for (int a = 0; a < most; ++a)
    for (int b = 0; b < most; ++b) {
      long cost = 0;
      for (int step = 0; step < (np < 4 ? np : 4); ++step)
        for (int load = 0; load < 5; ++load)  // the left row, then the four right rows
          for (int q0 = 0; q0 < lanes; q0 += 8) {
            int addr[8], n = 0;
            for (int t = q0; t < q0 + 8 && t < lanes; ++t) {
              const int c = t / U, l = (t - c * U) / R4, qd = t - c * U - l * R4;
              const int row = load == 0 ? c * Li + l : c * Ri + 4 * qd + (load - 1);
              const int x = row * np + (step + a * l + b * qd) % np;
              bool seen = false;
              for (int i = 0; i < n; ++i) seen = seen || addr[i] == x;
              if (!seen) addr[n++] = x;
            }
            int per_group[8] = {}, worst = 0;
            for (int i = 0; i < n; ++i) {
              const int g = ++per_group[addr[i] % 8];
              worst = g > worst ? g : worst;
            }
            cost += worst;
          }
      if (best < 0 || cost < best) best = cost, rot_l = a, rot_q = b;
    }
  last[0] = K, last[1] = L, last[2] = R, last[3] = threads;
  last_rot[0] = rot_l, last_rot[1] = rot_q;
}

// F strided dot products sharing x: out[f] = sum over i < n of x[i*sx] * y[f*ry + i*sy]. A
// partial sums each, each step's A (F + 1) loads issued before its multiply-adds, so a GPU thread
// keeps A (F + 1) loads in flight and reads each x once for its F rows (LayoutLeft: the data row
// of several fields, or one left row for several right rows).
template <int A, int F, class T>
GRAIN_FORCEINLINE_FUNCTION void dot_strided_rows(const T* x, index_type sx, const T* y, index_type sy,
                                                 index_type ry, index_type n, T (&out)[F]) {
  static_assert(A >= 1 && (A & (A - 1)) == 0, "dot_strided_rows: A must be a power of two");
  T s[F][A];
  for (int f = 0; f < F; ++f)
    for (int j = 0; j < A; ++j) s[f][j] = T(0);
  index_type i = 0;
  for (; i + A <= n; i += A) {
    T xs[A], ys[F][A];
    for (int j = 0; j < A; ++j) {
      xs[j] = x[(i + j) * sx];
      for (int f = 0; f < F; ++f) ys[f][j] = y[f * ry + (i + j) * sy];
    }
    for (int j = 0; j < A; ++j)
      for (int f = 0; f < F; ++f) s[f][j] += xs[j] * ys[f][j];
  }
  for (int j = 0; j + 1 < A; ++j)
    if (i + j < n)
      for (int f = 0; f < F; ++f) s[f][j] += x[(i + j) * sx] * y[f * ry + (i + j) * sy];
  for (int f = 0; f < F; ++f) {
    for (int w = A / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) s[f][j] += s[f][j + w];
    out[f] = s[f][0];
  }
}

// Sum of x[i*sx] * y[i*sy] over n. The unit-stride branch keeps eight independent partial sums
// so the compiler vectorizes it without reassociating (packed FMAs on the CPU); the strided
// branch is the LayoutLeft case: A partial sums, each step's 2 A loads issued before its
// multiply-adds, so a GPU thread keeps 2 A loads in flight (A = 8 for flat's float threads when
// there are fewer of them than the GPU holds).
template <int A = 2, class T>
GRAIN_FORCEINLINE_FUNCTION T dot_strided(const T* x, index_type sx, const T* y, index_type sy,
                                         index_type n) {
  if (sx == 1 && sy == 1) {
    T acc[8] = {T(0), T(0), T(0), T(0), T(0), T(0), T(0), T(0)};
    index_type i = 0;
    for (; i + 8 <= n; i += 8) {
      GRAIN_SIMD
      for (int j = 0; j < 8; ++j) acc[j] += x[i + j] * y[i + j];
    }
    for (; i < n; ++i) acc[0] += x[i] * y[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  }
  static_assert(A >= 1 && (A & (A - 1)) == 0, "dot_strided: A must be a power of two");
  T s[A];
  for (int j = 0; j < A; ++j) s[j] = T(0);
  index_type i = 0;
  for (; i + A <= n; i += A) {
    T xs[A], ys[A];
    for (int j = 0; j < A; ++j) {
      xs[j] = x[(i + j) * sx];
      ys[j] = y[(i + j) * sy];
    }
    for (int j = 0; j < A; ++j) s[j] += xs[j] * ys[j];
  }
  for (int j = 0; j + 1 < A; ++j)
    if (i + j < n) s[j] += x[(i + j) * sx] * y[(i + j) * sy];
  for (int w = A / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) s[j] += s[j + w];
  return s[0];
}

// The full contraction of one (c, l, r) over the canonical two-level K.
template <int A = 2, class T>
GRAIN_FORCEINLINE_FUNCTION T dot_k(const ContractProblem<T>& p, const T* a, const T* b) {
  T s = T(0);
  for (index_type k1 = 0; k1 < p.K1; ++k1)
    s += dot_strided<A>(a + k1 * p.a_s1, p.a_s0, b + k1 * p.b_s1, p.b_s0, p.K0);
  return s;
}

}  // namespace impl
}  // namespace grain
