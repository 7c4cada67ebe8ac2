// Algorithm::Block — register blocking: one thread computes a TM x TN block of one cell's
// outputs, its TM left rows and TN right rows streamed once along K into TM * TN register
// accumulators. No scratch and no barriers: each loaded value feeds TN (or TM) FMAs, where flat
// loads two values per FMA and re-reads every row L or R times from memory.
//
// With L, R <= 8 (FieldField Q1) one block is the whole cell in double: every input is read
// exactly once, which is what a bandwidth-bound contraction needs (float: two 8 x 4 blocks, for
// occupancy). Larger cells take 8 x 8 blocks too (64
// accumulators; each loaded value feeds 8 FMAs); rows past L or R are clamped on load (their
// results are not stored), so any extent works.
//
// Thread order follows the layout. Unit-stride cells (LayoutLeft): a group of 32 consecutive
// cells is the fastest index, so a warp's loads coalesce, then the blocks of those cells, so
// the threads that share a cell's rows run close together and meet in cache. Otherwise (LayoutRight)
// the blocks of one cell are consecutive.
//
// DataField (L = 1) takes 1 x 8 blocks: the data row is read once per eight fields instead of
// once per field. DataData (one output per cell) has nothing to block.
//
// On the CPU, FieldField runs each cell's GEMM the way a BLAS does (ContractBlockHostGemmKernel):
// the right operand of a cell is packed once, transposed into panels of NR fields (k-major, the
// NR fields of one k contiguous), and every block of MR left rows streams along K, each left
// value broadcast against the panel's NR fields: MR x NR accumulators in vector registers, one
// vector load of the panel per MR vector FMAs. The rows go in blocks of as equal a size as MR
// allows, and where they are 193 B to 2 KiB long the thread prefetches its next cell's operands
// across the current cell's blocks (host_prefetch_next_cell). Cells whose right operand is one
// short panel (FieldField Q1) take a range kernel instead, one cell per iteration
// (ContractBlockHostCellKernel). (The portable per-thread block
// above keeps scalar accumulators; `flat`'s CPU rows vectorize along K but end every output with a
// horizontal sum and re-read each left row once per four fields.)
#pragma once

#include <limits>
#include <type_traits>
#include <vector>

#include "grain/contract/algorithms/common.hpp"
#include "grain/contract/algorithms/host_simd.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T, int TM, int TN>
struct ContractBlockKernel {
  ContractProblem<T> p;
  index_type nbl, nbr;  // blocks along L and R
  bool c_fast;
  static constexpr index_type G = 32;  // cells per group when cells are the unit-stride index

  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, bl, br;
    if (c_fast) {
      if (!split_cell_group<G>(o, p.C, nbl, nbr, c, bl, br)) return;
    } else {
      br = o % nbr;
      const index_type q = o / nbr;
      bl = q % nbl;
      c = q / nbl;
    }
    const index_type l0 = bl * TM, r0 = br * TN;
    // Row offsets, clamped into range (a clamped row is loaded but never stored).
    index_type la[TM], rb[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) la[i] = (l0 + i < p.L ? l0 + i : p.L - 1) * p.a_l;
#pragma unroll
    for (int j = 0; j < TN; ++j) rb[j] = (r0 + j < p.R ? r0 + j : p.R - 1) * p.b_r;
    const T* a = p.a + c * p.a_c;
    const T* b = p.b + c * p.b_c;
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
    // Loads of several k in flight: float moves half the bytes per load, so it unrolls further.
    [[maybe_unused]] constexpr int kUnroll = sizeof(T) == 4 ? 4 : 2;  // nvcc only (GCC ignores the pragma)
    for (index_type k1 = 0; k1 < p.K1; ++k1) {
      const T* a1 = a + k1 * p.a_s1;
      const T* b1 = b + k1 * p.b_s1;
#pragma unroll kUnroll
      for (index_type k0 = 0; k0 < p.K0; ++k0) {
        const T* ak = a1 + k0 * p.a_s0;
        const T* bk = b1 + k0 * p.b_s0;
        T av[TM], bv[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i) av[i] = ak[la[i]];
#pragma unroll
        for (int j = 0; j < TN; ++j) bv[j] = bk[rb[j]];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j)
        if (l0 + i < p.L && r0 + j < p.R) p.store(c, l0 + i, r0 + j, acc[i][j]);
  }
};

template <class Exec, class T, int TM, int TN>
void contract_block_with(const ContractProblem<T>& p) {
  using K = ContractBlockKernel<T, TM, TN>;
  const index_type nbl = (p.L + TM - 1) / TM, nbr = (p.R + TN - 1) / TN;
  const bool c_fast = p.cells_fastest();
  const index_type cells = c_fast ? (p.C + K::G - 1) / K::G * K::G : p.C;
  parallel_for(RangePolicy<Exec>(0, cells * nbl * nbr), K{p, nbl, nbr, c_fast});
}

// ---- host FieldField: per-cell GEMM over a packed right operand ---------------------------------

// Packing W fields of the right operand (rows b0 + j * ldb, unit-stride along K) into a panel:
// dst[k * NR + j] = b0[j * ldb + k] for j < n, k < K, and 0 for n <= j < W (the last fields of a
// panel).
//
// With GCC (host code): W x W blocks transposed in registers, log2(W) rounds of interleaving
// shuffles (GCC vector extensions), several times faster than scalar copies; with scalar copies
// packing takes a large share of a mid-sized cell's time (measured).
//
// Otherwise: scalar copies, k by k from K = kHostPackByK, else field by field. Field by field,
// every store lands on another cache line; from K = 512 those K lines do not stay in L1 between
// fields, so k by k is faster there, while for shorter K field by field is faster.
inline constexpr index_type kHostPackByK = 512;
template <class T, int W, int NR>
inline void host_pack_fields(const T* b0, index_type ldb, index_type K, T* dst, int n = W) {
  index_type k = 0;
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
  using HV = HostVector<T, W>;
  for (; k + W <= K; k += W) {  // rows j of the block in, k columns out
    typename HV::V x[W];
    GRAIN_HOST_UNROLL
    for (int j = 0; j < W; ++j) x[j] = j < n ? HV::load(b0 + j * ldb + k) : typename HV::V{};
    HV::transpose(x);
    GRAIN_HOST_UNROLL
    for (int j = 0; j < W; ++j) HV::store(dst + (k + j) * NR, x[j]);
  }
#endif
  if (K - k >= kHostPackByK) {
    for (; k < K; ++k)
      for (int j = 0; j < W; ++j) dst[k * NR + j] = j < n ? b0[j * ldb + k] : T(0);
  } else {
    for (int j = 0; j < W; ++j)
      for (index_type kk = k; kk < K; ++kk) dst[kk * NR + j] = j < n ? b0[j * ldb + kk] : T(0);
  }
}

// acc[i][j] = sum_k a[i * lda + k] * bt[k * NR + j]: MR left rows (unit-stride along K) against
// one packed panel of NR fields. The j loops are the vector lanes; MR x NR / (vector width)
// accumulators stay in registers (12 of the 16 with MR = 6 and NR two vectors wide).
// K >= 1. The first k sets the accumulators: zeroing them first compiles to a `rep stos` of the
// array on the stack with GCC's generic x86-64 tuning, a real cost on small cells.
// With Add, acc holds earlier partial sums (an earlier chunk of K) and the first k adds to them.
template <class T, int MR, int NR, bool Add = false>
GRAIN_FORCEINLINE void host_gemm_rows(index_type K, const T* a, index_type lda, const T* bt, T (&acc)[MR][NR]) {
  for (int i = 0; i < MR; ++i) {
    const T x = a[i * lda];
    GRAIN_SIMD
    for (int j = 0; j < NR; ++j) {
      if constexpr (Add)
        acc[i][j] += x * bt[j];
      else
        acc[i][j] = x * bt[j];
    }
  }
  for (index_type k = 1; k < K; ++k) {
    const T* bk = bt + k * NR;
    for (int i = 0; i < MR; ++i) {
      const T x = a[i * lda + k];
      GRAIN_SIMD
      for (int j = 0; j < NR; ++j) acc[i][j] += x * bk[j];
    }
  }
}

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// The same product with the accumulators as vector registers (GCC vector extensions): acc[i][v]
// holds fields v W .. v W + W - 1 of left row i. tick() once per k after the first (a
// HostLinePrefetcher, or HostNoTick).
struct HostNoTick {
  void tick() {}
};
template <class T, int MR, int NV, int W = kHostVectorBytes / sizeof(T), bool Add = false, class Tick>
GRAIN_FORCEINLINE void host_gemm_rows_vec(index_type K, const T* a, index_type lda, const T* bt,
                                          typename HostVector<T, W>::V (&acc)[MR][NV], Tick& tick) {
  using V = typename HostVector<T, W>::V;
  const V* b = reinterpret_cast<const V*>(bt);
  GRAIN_HOST_UNROLL
  for (int i = 0; i < MR; ++i) {
    const T x = a[i * lda];
    GRAIN_HOST_UNROLL
    for (int v = 0; v < NV; ++v) {
      if constexpr (Add)
        acc[i][v] += x * b[v];
      else
        acc[i][v] = x * b[v];
    }
  }
  for (index_type k = 1; k < K; ++k) {
    tick.tick();
    b += NV;
    GRAIN_HOST_UNROLL
    for (int i = 0; i < MR; ++i) {
      const T x = a[i * lda + k];
      GRAIN_HOST_UNROLL
      for (int v = 0; v < NV; ++v) acc[i][v] += x * b[v];
    }
  }
}
#endif

// f(std::integral_constant<int, m>{}) for a run-time 1 <= m <= M.
template <int M, class F>
GRAIN_FORCEINLINE void host_rows_dispatch(int m, F& f) {
  if constexpr (M > 1) {
    if (m < M) return host_rows_dispatch<M - 1>(m, f);
  }
  f(std::integral_constant<int, M>{});
}

// The chunk of K that `block`'s CPU team kernel runs at a time: all of K where a chunk's bytes
// (per k: `per_k`, the packed panels' fields and the team's left rows) take at most
// kHostChunkBytes, else as equal chunks as keep each within it, so that the left rows of a chunk
// stay in L2 across its panels instead of coming again from L3 or memory for each (without
// chunks, FieldFieldTensor Q4 double, 125 x 125 with K = 1944, packs 2 MB of panels per cell and
// re-reads its 1.9 MB of left rows once per panel). Budgets of 128-512 KiB perform alike; smaller
// chunks that keep one panel in L1 gain nothing (measured).
inline constexpr index_type kHostChunkBytes = 262144;
inline index_type host_k_chunk(index_type K, index_type per_k, index_type budget = kHostChunkBytes) {
  const index_type most = budget / per_k;
  if (K <= most || most < 1) return K;
  const index_type chunks = (K + most - 1) / most;
  return (K + chunks - 1) / chunks;
}

// One team (one host thread) per (cell, panel of left rows), K in chunks of kc (host_k_chunk).
// Per chunk, the cell's right operand is packed as ceil(R / NR) panels of kc x NR (fields past R
// zero), and every block of rows runs along the chunk against each panel; between chunks the
// partial sums wait in scratch. Where the left rows are not unit-stride along K (LayoutLeft, a
// broadcast), the team's left rows are first packed row by row.
template <class T, int NR, int MR, int VB = kHostVectorBytes>
struct ContractBlockHostGemmKernel {
#ifndef GRAIN_HOST_SHUFFLE_TRANSPOSE
  static_assert(VB == kHostVectorBytes, "other vector widths need GCC's vector extensions");
#endif
  ContractProblem<T> p;
  index_type panels, rows;  // left-row panels per cell, rows per panel
  bool a_unit;              // left rows unit-stride along K: read in place
  bool prefetch;            // ask for the next cell's operands while this one computes
  index_type kc;            // K in chunks of kc; kc < K: partial sums in scratch

  static std::size_t scratch_bytes(const ContractProblem<T>& p, index_type rows, bool a_unit, index_type kc) {
    const index_type np = (p.R + NR - 1) / NR;
    return (static_cast<std::size_t>(np * NR * kc) + (a_unit ? 0 : static_cast<std::size_t>(rows * p.K)) +
            (kc < p.K ? static_cast<std::size_t>(rows * np * NR) : 0)) *
               sizeof(T) + 64;
  }

  // Indices k_begin .. k_begin + n - 1 of row base (strides s1, s0 of the two K levels) into
  // dst[(k - k_begin) * step].
  void gather_row(const T* base, index_type s1, index_type s0, T* dst, index_type step, index_type k_begin,
                  index_type n) const {
    index_type k1 = k_begin / p.K0, k0 = k_begin % p.K0;
    for (index_type i = 0; i < n; ++i) {
      dst[i * step] = base[k1 * s1 + k0 * s0];
      if (++k0 == p.K0) k0 = 0, ++k1;
    }
  }

  template <class Member>
  void operator()(const Member& m) const {
    const index_type c = m.league_rank() / panels, l_begin = (m.league_rank() % panels) * rows;
    const index_type l_end = l_begin + rows < p.L ? l_begin + rows : p.L;
    if (l_begin >= l_end) return;
    const index_type K = p.K, np = (p.R + NR - 1) / NR, chunks = (K + kc - 1) / kc;
    T* bt = m.team_scratch(0).template get<T>(static_cast<std::size_t>(np * NR * kc));
    const bool b_unit = p.b_k_unit();
    constexpr int W = VB / static_cast<int>(sizeof(T));  // NR is W or 2W
    const index_type n = l_end - l_begin, blocks = (n + MR - 1) / MR;
    // The next cell's operands (the next team of this thread), a share before each block of rows.
    HostLinePrefetcher pf;
    if (prefetch && panels == 1 && c + 1 < p.C && b_unit && a_unit) {
      const index_type E = static_cast<index_type>(sizeof(T));
      pf = HostLinePrefetcher(reinterpret_cast<const char*>(p.a + (c + 1) * p.a_c), p.L, p.a_l * E,
                              reinterpret_cast<const char*>(p.b + (c + 1) * p.b_c), p.R, p.b_r * E, K * E,
                              chunks * np * blocks);
    }
    const T* a = p.a + c * p.a_c + l_begin * p.a_l;
    index_type lda = p.a_l;
    if (!a_unit) {
      T* ap = m.team_scratch(0).template get<T>(static_cast<std::size_t>(rows * K));
      for (index_type l = l_begin; l < l_end; ++l)
        gather_row(p.a + c * p.a_c + l * p.a_l, p.a_s1, p.a_s0, ap + (l - l_begin) * K, 1, 0, K);
      a = ap;
      lda = K;
    }
    // Partial sums between chunks: row i, field j at part[i * np * NR + j].
    const index_type ldp = np * NR;
    T* part = chunks > 1 ? m.team_scratch(0).template get<T>(static_cast<std::size_t>(rows * ldp)) : nullptr;
    for (index_type k0 = 0; k0 < K; k0 += kc) {
      const index_type kn = K - k0 < kc ? K - k0 : kc;
      const bool first = k0 == 0, last = k0 + kn == K;
      for (index_type q = 0; q < np; ++q) {
        T* panel = bt + q * NR * kn;
        const index_type r0 = q * NR;
        for (int h = 0; h < NR; h += W) {  // W fields at a time
          if (b_unit && r0 + h < p.R) {    // the last W fields padded with zeros
            const index_type left = p.R - r0 - h;
            host_pack_fields<T, W, NR>(p.b + c * p.b_c + (r0 + h) * p.b_r + k0, p.b_r, kn, panel + h,
                                       left < W ? static_cast<int>(left) : W);
            continue;
          }
          for (int j = h; j < h + W; ++j) {
            if (r0 + j < p.R) {
              gather_row(p.b + c * p.b_c + (r0 + j) * p.b_r, p.b_s1, p.b_s0, panel + j, NR, k0, kn);
            } else {
              for (index_type k = 0; k < kn; ++k) panel[k * NR + j] = T(0);
            }
          }
        }
      }
      for (index_type q = 0; q < np; ++q) {
        const T* panel = bt + q * NR * kn;
        const index_type r0 = q * NR, nr = p.R - r0 < NR ? p.R - r0 : NR;
        index_type l = l_begin;
        auto rows_of = [&](auto mr) {
          constexpr int M = decltype(mr)::value;
          T acc[M][NR];
          T* pp = part + (l - l_begin) * ldp + r0;
          const T* al = a + (l - l_begin) * lda + k0;
          pf.step();
          if constexpr (VB != kHostVectorBytes) {
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
            // Wider vectors than the compiler's own choice: explicit vector accumulators.
            using HV = HostVector<T, W>;
            typename HV::V vacc[M][NR / W];
            HostNoTick none;
            if (first) {
              host_gemm_rows_vec<T, M, NR / W, W>(kn, al, lda, panel, vacc, none);
            } else {
              for (int i = 0; i < M; ++i)
                for (int v = 0; v < NR / W; ++v) vacc[i][v] = HV::load(pp + i * ldp + v * W);
              host_gemm_rows_vec<T, M, NR / W, W, true>(kn, al, lda, panel, vacc, none);
            }
            for (int i = 0; i < M; ++i)
              for (int v = 0; v < NR / W; ++v) HV::store((last ? acc[i] : pp + i * ldp) + v * W, vacc[i][v]);
#endif
          } else {
            if (first) {
              host_gemm_rows<T, M, NR>(kn, al, lda, panel, acc);
            } else {
              for (int i = 0; i < M; ++i)
                for (int j = 0; j < NR; ++j) acc[i][j] = pp[i * ldp + j];
              host_gemm_rows<T, M, NR, true>(kn, al, lda, panel, acc);
            }
            if (!last) {
              for (int i = 0; i < M; ++i)
                for (int j = 0; j < NR; ++j) pp[i * ldp + j] = acc[i][j];
            }
          }
          if (last) {
            for (int i = 0; i < M; ++i) {
              T* o = p.out_at(c, l + i, r0);
              if (nr == NR && p.o_r == 1) {
                if (p.sum_into) {
                  GRAIN_SIMD
                  for (int j = 0; j < NR; ++j) o[j] += acc[i][j];
                } else {
                  GRAIN_SIMD
                  for (int j = 0; j < NR; ++j) o[j] = acc[i][j];
                }
              } else {
                for (index_type j = 0; j < nr; ++j) p.store(c, l + i, r0 + j, acc[i][j]);
              }
            }
          }
          l += M;
        };
        // The rows in ceil(n / MR) blocks of as equal a size as possible (27 rows: 6 6 5 5 5, not
        // 6 6 6 6 2 1): a block of M rows keeps 2M accumulator chains, and below about 8 of them
        // the FMA latency, not the FMA pipes, sets its pace.
        for (index_type bl = 0; bl < blocks; ++bl)
          host_rows_dispatch<MR>(static_cast<int>(n / blocks + (bl < n % blocks ? 1 : 0)), rows_of);
      }
    }
  }
};

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// Cells whose right operand is one short panel (R <= NR, K * NR <= kHostCellPanel: FieldField Q1,
// 8 x 8 fields, K = 8 to 72) take ContractBlockHostCellKernel: one iteration of a range per cell,
// the panel on the stack, the accumulators vector registers whose loops are unrolled (so they stay
// in registers), the row blocks worked out once per launch, the prefetches spread one line per k.
// The team kernel's per-cell bookkeeping (scratch, panel loop, prefetcher set-up, run-time row
// blocks, accumulators and transposes spilled to the stack) costs more than a Q1 cell's 512 FMAs:
// about twice the instructions per cell (measured).
inline constexpr index_type kHostCellPanel = 1024;

// Every one-panel cell takes the cell kernel, FieldFieldVector Q1 double (rows of 192 bytes)
// included: with whole cells prefetched ahead (host_prefetch_cells) it is the faster kernel from
// memory too.

// Asks the caches for cell c's two operands whole (its L left and R right rows of K elements,
// unit-stride along K): the cell kernels' cells ahead (host_prefetch_cells).
template <class T>
GRAIN_FORCEINLINE void host_prefetch_cell(const ContractProblem<T>& p, index_type c) {
  host_prefetch_rows(p.a + c * p.a_c, p.L, p.a_l, p.K);
  host_prefetch_rows(p.b + c * p.b_c, p.R, p.b_r, p.K);
}

template <class T, int NR, int MR>
struct ContractBlockHostCellKernel {
  static constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));
  static constexpr int NV = NR / W;
  using HV = HostVector<T, W>;
  using V = typename HV::V;
  ContractProblem<T> p;
  int blocks, rows_base, rows_extra;  // ceil(L / MR) blocks of rows_base (+1 for the first rows_extra)
  bool prefetch;                      // ask for the next cell's operands while this one computes
  index_type ahead = 0;               // prefetch the operands of the cell this far ahead, whole (0: none)

  void operator()(index_type c) const {
    alignas(64) T bt[kHostCellPanel];
    const index_type K = p.K;
    const T* b = p.b + c * p.b_c;
    if (ahead > 0 && c + ahead < p.C) host_prefetch_cell(p, c + ahead);
    for (int h = 0; h < NR; h += W) {
      if (h + W <= p.R) {
        host_pack_fields<T, W, NR>(b + h * p.b_r, p.b_r, K, bt + h);
      } else {
        for (index_type k = 0; k < K; ++k)
          for (int j = h; j < h + W; ++j) bt[k * NR + j] = j < p.R ? b[j * p.b_r + k] : T(0);
      }
    }
    if (prefetch && c + 1 < p.C) {
      const index_type E = static_cast<index_type>(sizeof(T));
      HostLinePrefetcher pf(reinterpret_cast<const char*>(p.a + (c + 1) * p.a_c), p.L, p.a_l * E,
                            reinterpret_cast<const char*>(b + p.b_c), p.R, p.b_r * E, K * E, 1);
      pf.spread_over(blocks * (K - 1));
      rows(c, bt, pf);
    } else {
      HostNoTick none;
      rows(c, bt, none);
    }
  }

  // The cell's left rows in blocks against the packed panel; tick.tick() once per k of a block.
  template <class Tick>
  GRAIN_FORCEINLINE void rows(index_type c, const T* bt, Tick& tick) const {
    const index_type K = p.K;
    const T* a = p.a + c * p.a_c;
    const bool rows_whole = p.R == NR && p.o_r == 1 && !p.sum_into;  // a row of outputs: NV vector stores
    index_type l = 0;
    T* o = p.out_at(c, 0, 0);
    auto rows_of = [&](auto mr) {
      constexpr int M = decltype(mr)::value;
      V acc[M][NV];
      host_gemm_rows_vec<T, M, NV>(K, a + l * p.a_l, p.a_l, bt, acc, tick);
      if (rows_whole) {
        GRAIN_HOST_UNROLL
        for (int i = 0; i < M; ++i, o += p.o_l)
          GRAIN_HOST_UNROLL
          for (int v = 0; v < NV; ++v) HV::store(o + v * W, acc[i][v]);
      } else {
        for (int i = 0; i < M; ++i) {
          T row[NR];
          for (int v = 0; v < NV; ++v) HV::store(row + v * W, acc[i][v]);
          for (index_type j = 0; j < p.R; ++j) p.store(c, l + i, j, row[j]);
        }
      }
      l += M;
    };
    for (int bl = 0; bl < blocks; ++bl) host_rows_dispatch<MR>(rows_base + (bl < rows_extra ? 1 : 0), rows_of);
  }
};
#endif

#ifdef GRAIN_HOST_ZMM_CELLS
// ContractBlockHostCellZmmKernel: LayoutRight FieldField cells of at most 8 right fields with K =
// 8, 16, 24 or 72 (host_zmm_cells: FieldField Q1), one iteration of a range per cell, on 512-bit
// registers. The right operand's rows are taken as columns of 8-byte words (a
// double, or two neighbouring floats along K) and transposed 8 x 8 in registers: bt[j] holds word
// j of each of the 8 right rows. A left row's word, broadcast, times bt[j] then adds, in lane
// (r, h), the products of index 2j + h (float) or j (double) of left row l and right row r; in
// float the two lanes of a field are added at the end (a shuffle of two rows' accumulators). So a
// left row takes K / 2 (float) or K (double) 512-bit FMAs where ContractBlockHostCellKernel's
// 256-bit panel takes K or 2K, with no panel stored and loaded again, and the transpose is 8-byte
// words, 8 x 8 once per 8 of them.
// Two left rows a block: 1, 4 or 8 rows are slower, and with 8 (16 accumulator chains) double
// K = 24 needs more than 32 registers for its 24 transposed words, the accumulators and the
// transpose's index vectors, and spills.
// On cores with full 512-bit FMA units this kernel runs FieldField Q1 faster than
// ContractBlockHostCellKernel and FieldFieldTensor Q1 float faster than ContractBlockHostDotKernel
// wherever memory bandwidth allows; where memory is slow they are level.
// At K = 72 (36 float or 72 double words) the compiler keeps part of bt on the stack. Cells too
// long to prefetch whole (double K = 72, 9 KB) take the next cell's rows spread over the blocks.
template <class T, int K>
struct ContractBlockHostCellZmmKernel {
  static constexpr int E = 8 / static_cast<int>(sizeof(T));  // elements an 8-byte word
  static constexpr int J = K / E;                              // words of a row
  static_assert(K % 8 == 0 && J <= 72, "K a multiple of 8, at most 72 words");
  static constexpr int MR = 2;  // left rows a block (one pair of float rows for the shuffle)
  using HD = HostVector<double, 8>;
  using D = typename HD::V;
  using HT = HostVector<T, 64 / sizeof(T)>;
  using VT = typename HT::V;
  ContractProblem<T> p;
  index_type ahead;  // prefetch the operands of the cell this far ahead, whole (0: none)
  bool whole;        // 8 right fields, output rows unit-stride and overwritten: vector stores

  static ContractBlockHostCellZmmKernel make(const ContractProblem<T>& p, index_type ahead) {
    return {p, ahead, p.R == 8 && p.o_r == 1 && !p.sum_into};
  }

  void operator()(index_type c) const {
    if (ahead > 0 && c + ahead < p.C) host_prefetch_cell(p, c + ahead);
    if (whole)
      cell<true>(c);
    else
      cell<false>(c);
  }

  template <bool Whole>
  GRAIN_FORCEINLINE void cell(index_type c) const {
    const T* a = p.a + c * p.a_c;
    D bt[J];
    transpose_words<Whole>(p.b + c * p.b_c, bt, std::make_index_sequence<(J + 7) / 8>{});
    index_type l = 0;
    const bool spread = ahead == 0 && c + 1 < p.C;
    auto rows_of = [&](auto mr) {
      constexpr int M = decltype(mr)::value;
      if (spread) {
        // Cells too long to ask for whole (over 8 KB: host_prefetch_cells gives 0 ahead): the next
        // cell's rows, a share of both operands before each block (the block's left rows and as
        // many right rows), so its misses overlap this cell's FMAs. This order is faster than
        // HostLinePrefetcher's (all left rows, then the right ones, in equal shares a block).
        host_prefetch_rows(p.a + (c + 1) * p.a_c + l * p.a_l, M, p.a_l, index_type(K));
        const index_type r0 = l * p.R / p.L, r1 = l + M >= p.L ? p.R : (l + M) * p.R / p.L;
        if (r1 > r0) host_prefetch_rows(p.b + (c + 1) * p.b_c + r0 * p.b_r, r1 - r0, p.b_r, index_type(K));
      }
      const T* row[M];
      VT acc[M];
      GRAIN_HOST_UNROLL
      for (int i = 0; i < M; ++i) row[i] = a + (l + i) * p.a_l, acc[i] = word(row[i], 0) * VT(bt[0]);
      GRAIN_HOST_UNROLL
      for (int j = 1; j < J; ++j)
        GRAIN_HOST_UNROLL
        for (int i = 0; i < M; ++i) acc[i] += word(row[i], j) * VT(bt[j]);
      if constexpr (sizeof(T) == 8) {
        GRAIN_HOST_UNROLL
        for (int i = 0; i < M; ++i) {
          if constexpr (Whole) {
            HT::store(p.out_at(c, l + i, 0), acc[i]);
          } else {
            alignas(64) T res[8];
            HT::store(res, acc[i]);
            put_fields(p, c, l + i, res);
          }
        }
      } else {
        // Lanes 2r and 2r + 1 of a row's accumulator are its field r: two rows at a time, row i
        // in lanes 0-7 of s, row i + 1 in lanes 8-15.
        using MI = typename HT::M;
        constexpr MI even = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
        constexpr MI odd = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
        GRAIN_HOST_UNROLL
        for (int i = 0; i < M; i += 2) {
          const VT next = i + 1 < M ? acc[i + 1] : VT{};
          const VT s = __builtin_shuffle(acc[i], next, even) + __builtin_shuffle(acc[i], next, odd);
          alignas(64) T res[16];
          HT::store(res, s);  // Whole: compiles to the two halves' stores
          if constexpr (Whole) {
            std::memcpy(p.out_at(c, l + i, 0), res, 8 * sizeof(T));
            if (i + 1 < M) std::memcpy(p.out_at(c, l + i + 1, 0), res + 8, 8 * sizeof(T));
          } else {
            put_fields(p, c, l + i, res);
            if (i + 1 < M) put_fields(p, c, l + i + 1, res + 8);
          }
        }
      }
      l += M;
    };
    for (index_type left = p.L; left > 0; left -= MR) host_rows_dispatch<MR>(static_cast<int>(left < MR ? left : MR), rows_of);
  }

  // bt[j] = word j of right rows 0-7 (rows past R zero), 8 words at a time.
  template <bool Whole, std::size_t... Q>
  GRAIN_FORCEINLINE void transpose_words(const T* b, D (&bt)[J], std::index_sequence<Q...>) const {
    (transpose_eight<Whole, static_cast<int>(Q) * 8>(b, bt), ...);
  }
  template <bool Whole, int J0>
  GRAIN_FORCEINLINE void transpose_eight(const T* b, D (&bt)[J]) const {
    constexpr int n = J - J0 < 8 ? J - J0 : 8;
    D x[8];
    GRAIN_HOST_UNROLL
    for (int r = 0; r < 8; ++r) {
      const double* w = reinterpret_cast<const double*>(b + r * p.b_r + J0 * E);
      // A masked load for a part of 8 words: a copy into a zeroed vector goes through the stack,
      // a store of 32 bytes then a load of 64 that cannot take it forwarded.
      if constexpr (n == 8)
        x[r] = Whole || r < p.R ? D(_mm512_loadu_pd(w)) : D{};
      else
        x[r] = Whole || r < p.R ? D(_mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1), w)) : D{};
    }
    HD::transpose(x);
    GRAIN_HOST_UNROLL
    for (int i = 0; i < n; ++i) bt[J0 + i] = x[i];
  }

  // Word j of a left row, broadcast to every word of a vector.
  static GRAIN_FORCEINLINE VT word(const T* row, int j) {
    if constexpr (sizeof(T) == 8) {
      const T w = row[j];
      return VT{w, w, w, w, w, w, w, w};
    } else {
      double w;
      std::memcpy(&w, row + 2 * j, 8);
      return VT(D{w, w, w, w, w, w, w, w});
    }
  }
  // Fields 0 .. R - 1 of output row (c, l) from row[], out of line (its calls spill no registers
  // in the kernel).
  static __attribute__((noinline)) void put_fields(const ContractProblem<T>& p, index_type c, index_type l, const T* row) {
    for (index_type j = 0; j < p.R; ++j) p.store(c, l, j, row[j]);
  }
};
#endif

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// ContractBlockHostDotKernel: one iteration per cell, TL x TR blocks of outputs, each output a
// vector of W partial sums along K (TL x TR accumulators: 32 vector registers at 8 x 4, which
// AVX-512 machines have), so each step of W along K loads TL + TR vectors for TL x TR FMAs and
// packs nothing; the sums leave through HostVector::sum_lanes, W at a time. Preconditions: both
// operands unit-stride along K, K a multiple of W, L and R multiples of TL and TR.
//
// Used (host_dot_cells) for float cells of at most W fields (where the cell kernel's panel is one
// vector wide and so needs a broadcast per FMA) with K >= 8 W and L, R multiples of 8 and 4:
// FieldFieldTensor Q1 float (8 x 8 fields, K = 72), where it beats the cell kernel in cache and
// from memory. Not used for FieldFieldVector Q1 float (K = 3 W: the cell kernel is faster), Q3
// cells (64 x 64: the packed team kernel is faster) or double (faster in cache, but slower from
// memory than the cell kernel with the next cell prefetched).
template <class T, int TL, int TR>
struct ContractBlockHostDotKernel {
  static constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));
  static_assert((TL * TR) % W == 0, "whole groups of W sums");
  static constexpr int G = TL * TR / W;
  using HV = HostVector<T, W>;
  using V = typename HV::V;
  ContractProblem<T> p;
  bool prefetch;  // ask for the next cell's operands while this one computes

  void operator()(index_type c) const {
    const T* a = p.a + c * p.a_c;
    const T* b = p.b + c * p.b_c;
    if (prefetch && c + 1 < p.C) {
      const index_type E = static_cast<index_type>(sizeof(T));
      HostLinePrefetcher pf(reinterpret_cast<const char*>(a + p.a_c), p.L, p.a_l * E,
                            reinterpret_cast<const char*>(b + p.b_c), p.R, p.b_r * E, p.K * E, 1);
      pf.spread_over((p.L / TL) * (p.R / TR) * (p.K / W));
      for (index_type l = 0; l < p.L; l += TL)
        for (index_type r = 0; r < p.R; r += TR) block(c, l, r, a + l * p.a_l, b + r * p.b_r, pf);
    } else {
      HostNoTick none;
      for (index_type l = 0; l < p.L; l += TL)
        for (index_type r = 0; r < p.R; r += TR) block(c, l, r, a + l * p.a_l, b + r * p.b_r, none);
    }
  }

  template <class Tick>
  GRAIN_FORCEINLINE void block(index_type c, index_type l, index_type r, const T* a, const T* b, Tick& tick) const {
    const index_type K = p.K, la = p.a_l, lb = p.b_r;
    V acc[TL * TR];
    {
      V x[TL], y[TR];
      GRAIN_HOST_UNROLL
      for (int i = 0; i < TL; ++i) x[i] = HV::load(a + i * la);
      GRAIN_HOST_UNROLL
      for (int j = 0; j < TR; ++j) y[j] = HV::load(b + j * lb);
      GRAIN_HOST_UNROLL
      for (int i = 0; i < TL; ++i)
        GRAIN_HOST_UNROLL
        for (int j = 0; j < TR; ++j) acc[i * TR + j] = x[i] * y[j];
    }
    for (index_type k = W; k < K; k += W) {
      tick.tick();
      V x[TL], y[TR];
      GRAIN_HOST_UNROLL
      for (int i = 0; i < TL; ++i) x[i] = HV::load(a + i * la + k);
      GRAIN_HOST_UNROLL
      for (int j = 0; j < TR; ++j) y[j] = HV::load(b + j * lb + k);
      GRAIN_HOST_UNROLL
      for (int i = 0; i < TL; ++i)
        GRAIN_HOST_UNROLL
        for (int j = 0; j < TR; ++j) acc[i * TR + j] += x[i] * y[j];
    }
    const bool rows_whole = p.o_r == 1 && !p.sum_into;
    GRAIN_HOST_UNROLL
    for (int g = 0; g < G; ++g) {
      V grp[W];
      GRAIN_HOST_UNROLL
      for (int w = 0; w < W; ++w) grp[w] = acc[g * W + w];
      alignas(sizeof(V)) T s[W];
      HV::store(s, HV::sum_lanes(grp));
      // lane w is output (i, j) = divmod(g W + w, TR)
      if (rows_whole && W % TR == 0) {
        GRAIN_HOST_UNROLL
        for (int h = 0; h < W / TR; ++h) {
          const int i = (g * W) / TR + h;
          std::memcpy(p.out_at(c, l + i, r), s + h * TR, TR * sizeof(T));
        }
      } else {
        for (int w = 0; w < W; ++w) {
          const int f = g * W + w;
          p.store(c, l + f / TR, r + f % TR, s[w]);
        }
      }
    }
  }
};

#endif

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// How many indices ahead ContractBlockHostCellVecKernel's packing prefetches its lines, into L2:
// without prefetches the packing waits on memory at Q3, further ahead is slower, and prefetching
// into L1 is slower than into L2 (measured).
inline constexpr index_type kHostCellPrefetchK = 4;

// ContractBlockHostCellVecKernel prefetches the lines of the next team's first packed chunk into
// L2 while its last chunk's register blocks run, spread evenly over them, where that chunk takes
// at most this many bytes (FieldField Q1's chunks). Larger packings (1-4 MiB, Q2-Q4) are not
// prefetched: the prefetches would evict the current panels from a 1 MiB L2. Nor is a team's own
// next chunk of K: that is no faster (measured).
inline constexpr index_type kHostCellAheadBytes = index_type(256) << 10;

// LayoutLeft cells on the CPU (cells the unit-stride index of left, right and out; K one strided
// level): W neighbouring cells per vector, one team (one thread) per group of W cells. K runs in
// chunks of kc (a packed panel of MR left rows within kHostCellPanelBytes). Per chunk the team
// packs both operands into its scratch, panels of MR left rows and of NR right rows, the rows of
// one index k side by side (rows past L or R zero); then each left panel, in L1, runs against
// every right panel: MR x NR vector accumulators, MR + NR vector loads per k for MR x NR vector
// FMAs. The outputs are loaded, added to and stored again between chunks. The last C % W cells,
// fewer than a vector, come from one more group that ends at C (overlapping the one before)
// computed into scratch, of which only those cells are stored.
// Packing reads each line once per chunk. Read in place, every vector load would be a line of its
// own (rows C elements apart, k steps C L apart) that no hardware prefetcher follows, and each
// left row would be read again for every block of right rows and each right row for every block
// of left rows. Prefetching the next chunk a share before each block, a separate path for whole
// blocks, 6 x 4 blocks and 32 KiB panels gain nothing here.
template <class T, int MR, int NR, int VB>
struct ContractBlockHostCellVecKernel {
  static constexpr int W = VB / static_cast<int>(sizeof(T));
  static constexpr int MRows = MR;
  using HV = HostVector<T, W>;
  using V = typename HV::V;
  ContractProblem<T> p;
  index_type kc;
  index_type groups = 1;  // groups of W cells a team, packed together (host_cell_groups)
  bool nt_stores = false;  // groups_from's output runs with streaming stores (host_stream_outputs)

  static index_type padded(index_type n, index_type b) { return (n + b - 1) / b * b; }
  // One group's packed chunk of both operands, in elements.
  static index_type panel_elems(const ContractProblem<T>& p, index_type kc) {
    return (padded(p.L, MR) + padded(p.R, NR)) * kc * W;
  }
  // The packed chunks of `groups` groups, then the last group's outputs (scratch), each 64-byte
  // aligned.
  static std::size_t scratch_bytes(const ContractProblem<T>& p, index_type kc, index_type groups = 1) {
    const std::size_t panels = static_cast<std::size_t>(groups * panel_elems(p, kc));
    return (panels + static_cast<std::size_t>(groups * W * p.L * p.R)) * sizeof(T) + 128;
  }
  static T* align64(void* q) {
    const std::uintptr_t u = reinterpret_cast<std::uintptr_t>(q);
    return reinterpret_cast<T*>((u + 63) / 64 * 64);
  }

  // Rows 0 .. n - 1 of an operand for `g` groups of cells side by side (group q's W cells q W on
  // from base; rows rs, indices ks apart), indices k0 .. k0 + kn - 1, into panels of B rows: group
  // q's panel j has its index k at dst[q stride + ((j kn + k) B + i) W], rows past n zero. Every
  // load is one line of the operand, read once per chunk here instead of once per block of the
  // other operand's rows; each row's g lines are read one after another, a run of g W cells. The
  // lines kHostCellPrefetchK indices ahead are prefetched into L2 (their runs are too short for
  // the hardware's prefetchers).
  template <int B>
  static void pack_groups(const T* base, index_type n, index_type rs, index_type ks, index_type k0, index_type kn,
                          T* dst, index_type g, index_type stride) {
    for (index_type r0 = 0; r0 < n; r0 += B) {
      T* d = dst + r0 * kn * W;
      const int m = static_cast<int>(n - r0 < B ? n - r0 : B);
      const T* s = base + r0 * rs + k0 * ks;
      for (index_type k = 0; k < kn; ++k, s += ks, d += B * W) {
        if (k + kHostCellPrefetchK < kn) {
          for (int i = 0; i < m; ++i)
            for (index_type q = 0; q < g; ++q) __builtin_prefetch(s + kHostCellPrefetchK * ks + i * rs + q * W, 0, 2);
        }
        for (int i = 0; i < B; ++i) {
          if (i < m) {
            for (index_type q = 0; q < g; ++q) HV::store(d + q * stride + i * W, HV::load(s + i * rs + q * W));
          } else {
            for (index_type q = 0; q < g; ++q) HV::store(d + q * stride + i * W, V{});
          }
        }
      }
    }
  }

  // Outputs (c0 + w, l + i, r + j), i < m, j < n, at o[i * ol + j * orr] + w, from the packed panels
  // ap (MR rows) and bp (NR rows) of kn indices; add: to what is there.
  // Not inlined: inlined into the team's loops, GCC 12 spills x and y to the stack every index;
  // on its own it keeps the MR x NR + MR + NR vectors in registers.
  __attribute__((noinline)) void block(const T* ap, const T* bp, index_type kn, T* o, index_type ol,
                                       index_type orr, int m, int n, bool add) const {
    V acc[MR][NR];
    GRAIN_HOST_UNROLL
    for (int i = 0; i < MR; ++i) {
      GRAIN_HOST_UNROLL
      for (int j = 0; j < NR; ++j) acc[i][j] = add && i < m && j < n ? HV::load(o + i * ol + j * orr) : V{};
    }
    for (index_type k = 0; k < kn; ++k, ap += MR * W, bp += NR * W) {
      V x[MR], y[NR];
      GRAIN_HOST_UNROLL
      for (int i = 0; i < MR; ++i) x[i] = HV::load(ap + i * W), HV::pin(x[i]);
      GRAIN_HOST_UNROLL
      for (int j = 0; j < NR; ++j) y[j] = HV::load(bp + j * W), HV::pin(y[j]);
      GRAIN_HOST_UNROLL
      for (int i = 0; i < MR; ++i) {
        GRAIN_HOST_UNROLL
        for (int j = 0; j < NR; ++j) acc[i][j] += x[i] * y[j];
      }
    }
    GRAIN_HOST_UNROLL
    for (int i = 0; i < MR; ++i) {
      GRAIN_HOST_UNROLL
      for (int j = 0; j < NR; ++j)
        if (i < m && j < n) HV::store(o + i * ol + j * orr, acc[i][j]);
    }
  }

  // The group of cells c0 .. c0 + W - 1, every output, into o (strides 1, ol, orr); sum_into: added.
  // Per chunk of K both operands are packed (ap, bp), then each panel of MR left rows (in L1) runs
  // against every panel of NR right rows.
  void group(index_type c0, T* o, index_type ol, index_type orr, bool sum_into, T* ap, T* bp) const {
    for (index_type k0 = 0; k0 < p.K; k0 += kc) {
      const index_type kn = p.K - k0 < kc ? p.K - k0 : kc;
      pack_groups<MR>(p.a + c0, p.L, p.a_l, p.a_s0, k0, kn, ap, 1, 0);
      pack_groups<NR>(p.b + c0, p.R, p.b_r, p.b_s0, k0, kn, bp, 1, 0);
      blocks(ap, bp, kn, o, ol, orr, k0 > 0 || sum_into);
    }
  }

  // The lines of a packing (g groups' rows of both operands, kn indices from base), prefetched
  // into L2 a share at a time (step), in the order pack_groups reads them.
  struct Ahead {
    const T* base[2] = {nullptr, nullptr};
    index_type rows[2] = {0, 0}, rs[2] = {0, 0}, ks[2] = {0, 0}, kn = 0, g = 0;
    index_type k = 0, row = 0, q = 0;
    int op = 2, share = 0;  // op 2: done
    void step() {
      for (int n = share; n > 0 && op < 2; --n) {
        __builtin_prefetch(base[op] + row * rs[op] + k * ks[op] + q * W, 0, 2);
        if (++q < g) continue;
        q = 0;
        if (++k < kn) continue;
        k = 0;
        if (++row < rows[op]) continue;
        row = 0, ++op;
      }
    }
  };

  // The Ahead of the next team's first chunk (its whole groups, from cells c0 + g W), made during
  // this team's last chunk (k0, kn) and spread over `blocks` register blocks; none during an
  // earlier chunk, for the last team, or where that chunk exceeds kHostCellAheadBytes.
  Ahead ahead_of(index_type c0, index_type g, index_type k0, index_type kn, index_type blocks) const {
    Ahead a;
    if (k0 + kn < p.K) return a;  // not the team's last chunk
    const index_type nc = c0 + g * W;
    const index_type ng = nc < p.C ? ((p.C - nc) / W < g ? (p.C - nc) / W : g) : 0;
    const index_type nkn = p.K < kc ? p.K : kc;
    const index_type lines = ng * (p.L + p.R) * nkn;
    if (ng <= 0 || lines * W * static_cast<index_type>(sizeof(T)) > kHostCellAheadBytes) return a;
    a.base[0] = p.a + nc, a.base[1] = p.b + nc;
    a.rows[0] = p.L, a.rows[1] = p.R, a.rs[0] = p.a_l, a.rs[1] = p.b_r, a.ks[0] = p.a_s0, a.ks[1] = p.b_s0;
    a.kn = nkn, a.g = ng, a.op = 0;
    a.share = static_cast<int>((lines + blocks - 1) / blocks);
    return a;
  }

  // One group's packed chunk (ap, bp: kn indices) against every pair of left and right panels;
  // ahead's share of prefetches after each block.
  void blocks(const T* ap, const T* bp, index_type kn, T* o, index_type ol, index_type orr, bool add,
              Ahead* ahead = nullptr) const {
    for (index_type l = 0; l < p.L; l += MR) {
      const int m = static_cast<int>(p.L - l < MR ? p.L - l : MR);
      for (index_type r = 0; r < p.R; r += NR) {
        const int n = static_cast<int>(p.R - r < NR ? p.R - r : NR);
        block(ap + l * kn * W, bp + r * kn * W, kn, o + l * ol + r * orr, ol, orr, m, n, add);
        if (ahead) ahead->step();
      }
    }
  }

  // The g whole groups of cells from c0, packed together per chunk of K (pack_groups), then each
  // group's blocks as in group(), into scratch `os` (output (l, r) a run of g W cells); the runs
  // are then stored (or added) whole, where stored in place they would be lines C elements apart;
  // with nt_stores, through host_stream_run (and a fence at the end).
  void groups_from(index_type c0, index_type g, T* ap, T* os) const {
    const index_type stride = panel_elems(p, kc), ol = g * W, orr = g * W * p.L;
    T* bp = ap + padded(p.L, MR) * kc * W;
    for (index_type k0 = 0; k0 < p.K; k0 += kc) {
      const index_type kn = p.K - k0 < kc ? p.K - k0 : kc;
      pack_groups<MR>(p.a + c0, p.L, p.a_l, p.a_s0, k0, kn, ap, g, stride);
      pack_groups<NR>(p.b + c0, p.R, p.b_r, p.b_s0, k0, kn, bp, g, stride);
      Ahead ahead = ahead_of(c0, g, k0, kn, g * ((p.L + MR - 1) / MR) * ((p.R + NR - 1) / NR));
      for (index_type q = 0; q < g; ++q)
        blocks(ap + q * stride, bp + q * stride, kn, os + q * W, ol, orr, k0 > 0, &ahead);
    }
    for (index_type r = 0; r < p.R; ++r)
      for (index_type l = 0; l < p.L; ++l) {
        T* o = p.out_at(c0, l, r);
        const T* s = os + l * ol + r * orr;
        if (p.sum_into) {
          for (index_type w = 0; w < g * W; w += W) HV::store(o + w, HV::load(o + w) + HV::load(s + w));
        } else if (nt_stores) {
          host_stream_run(o, s, g * W);
        } else {
          for (index_type w = 0; w < g * W; w += W) HV::store(o + w, HV::load(s + w));
        }
      }
    if (nt_stores) host_stream_fence();
  }

  template <class Member>
  void operator()(const Member& mb) const {
    const std::size_t panels = static_cast<std::size_t>(panel_elems(p, kc));
    T* ap = align64(mb.team_scratch(0).get_shmem(scratch_bytes(p, kc, groups)));
    T* bp = ap + padded(p.L, MR) * kc * W;
    const index_type first = static_cast<index_type>(mb.league_rank()) * groups * W;
    const index_type whole = (p.C - first) / W < groups ? (p.C - first) / W : groups;
    if (whole > 1) groups_from(first, whole, ap, align64(ap + groups * panels));
    if (whole == 1) group(first, p.out_at(first, 0, 0), p.o_l, p.o_r, p.sum_into, ap, bp);
    const index_type c0 = first + whole * W;
    if (whole == groups || c0 >= p.C) return;
    // The last C % W cells: the whole last vector of cells (C >= W), overlapping the group before,
    // into scratch, of which only those cells are stored.
    const index_type s = p.C - W;
    T* tmp = align64(ap + panels);
    group(s, tmp, W, W * p.L, false, ap, bp);
    for (index_type c = c0; c < p.C; ++c)
      for (index_type l = 0; l < p.L; ++l)
        for (index_type r = 0; r < p.R; ++r) p.store(c, l, r, tmp[static_cast<std::size_t>(c - s + l * W + r * W * p.L)]);
  }
};

// The K chunk of ContractBlockHostCellVecKernel: one packed panel of MR left rows within 16 KiB
// (host_k_chunk), so it stays in L1 while the right panels stream past it.
inline constexpr index_type kHostCellPanelBytes = index_type(16) << 10;

// Groups of W cells a team of ContractBlockHostCellVecKernel packs together: as many as keep the
// packed chunks (`group_bytes` a group) within 4 MiB, at most 8 (512-byte runs of cells), at least
// 4 teams a thread. With one group a team each operand row is read as single lines C elements
// apart, 2 L K + L R streams, more than the hardware's prefetchers follow; several groups make
// those reads runs of g W cells, which read faster, while the packed data of a team's later groups
// waits in L3. More than 8 groups, or a smaller budget, are slower on cores with 1 MiB of L2; on
// cores with 2 MiB of L2 and slower memory the choice makes little difference.
inline index_type host_cell_groups(index_type C, index_type W, index_type group_bytes, index_type threads) {
  index_type g = (index_type(4096) << 10) / (group_bytes > 0 ? group_bytes : 1);
  g = g < 8 ? g : 8;
  const index_type most = C / (W * 4 * (threads > 1 ? threads : 1));
  g = g < most ? g : most;
  return g > 1 ? g : 1;
}

#endif

// Panels of fields two vectors wide (one where R fits in one vector, with 8 rows per block: Q1
// float's 8 x 8 cells); rows split into panels only where the cells are too few to keep every
// thread busy (the right operand is then packed once per panel).
template <class Exec, class T>
void contract_block_host_gemm(const ContractProblem<T>& p) {
  constexpr int V = kHostVectorBytes / static_cast<int>(sizeof(T));
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
  // LayoutLeft cells: W cells a vector (ContractBlockHostCellVecKernel), 64-byte vectors with
  // 4 x 4 blocks where AVX-512 is used for wide panels, else the build's width with 3 x 3 blocks
  // (16 vector registers); K in chunks that keep one packed left panel within kHostCellPanelBytes.
  auto cell_vectors = [&](auto* kernel_type) {
    using K = std::remove_pointer_t<decltype(kernel_type)>;
    if (!host_cell_vectors(p, K::W)) return false;
    const index_type kc = host_k_chunk(p.K, K::MRows * K::W * static_cast<index_type>(sizeof(T)), kHostCellPanelBytes);
    const index_type g = host_cell_groups(p.C, K::W, K::panel_elems(p, kc) * static_cast<index_type>(sizeof(T)),
                                          Exec::concurrency());
    TeamPolicy<Exec> policy((p.C + g * K::W - 1) / (g * K::W), AUTO);
    policy.set_scratch_size(0, PerTeam(K::scratch_bytes(p, kc, g)));
    const bool nt = host_stream_outputs(p.L, p.R, p.K, p.C * p.L * p.R * static_cast<index_type>(sizeof(T)), p.sum_into);
    parallel_for(policy, K{p, kc, g, nt});
    return true;
  };
  if (host_wide_panels(sizeof(T), std::numeric_limits<int>::max())) {
    if (cell_vectors(static_cast<ContractBlockHostCellVecKernel<T, 4, 4, 64>*>(nullptr))) return;
  } else {
    if (cell_vectors(static_cast<ContractBlockHostCellVecKernel<T, 3, 3, kHostVectorBytes>*>(nullptr))) return;
  }
#ifdef GRAIN_HOST_ZMM_CELLS
  if (host_zmm_cells(p.a_k_unit() && p.b_k_unit(), p.R, p.K)) {
    const index_type ahead = host_prefetch_cells((p.L + p.R) * p.K * static_cast<index_type>(sizeof(T)));
    auto zmm = [&](auto k) {
      parallel_for(RangePolicy<Exec>(0, p.C), ContractBlockHostCellZmmKernel<T, decltype(k)::value>::make(p, ahead));
    };
    if (p.K == 8) return zmm(std::integral_constant<int, 8>{});
    if (p.K == 16) return zmm(std::integral_constant<int, 16>{});
    if (p.K == 72) return zmm(std::integral_constant<int, 72>{});
    return zmm(std::integral_constant<int, 24>{});
  }
#endif
  if (host_dot_cells(sizeof(T), p.a_k_unit() && p.b_k_unit(), p.L, p.R, p.K)) {
    const bool prefetch = host_prefetch_next_cell(p.K * static_cast<index_type>(sizeof(T)));
    parallel_for(RangePolicy<Exec>(0, p.C), ContractBlockHostDotKernel<T, 8, 4>{p, prefetch});
    return;
  }
#endif
  auto run = [&](auto nr, auto mr, auto vb) {
    constexpr int NR = decltype(nr)::value, MR = decltype(mr)::value, VB = decltype(vb)::value;
    using K = ContractBlockHostGemmKernel<T, NR, MR, VB>;
    const index_type threads = Exec::concurrency();
    index_type panels = 1;
    if (p.C < 4 * threads) {
      const index_type most = (p.L + MR - 1) / MR;
      panels = (4 * threads + p.C - 1) / p.C;
      panels = panels < most ? panels : most;
    }
    index_type rows = (p.L + panels - 1) / panels;
    rows = (rows + MR - 1) / MR * MR;
    const bool a_unit = p.a_k_unit();
    const bool prefetch = host_prefetch_next_cell(p.K * static_cast<index_type>(sizeof(T)));
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
    if constexpr (VB == kHostVectorBytes) {
      if (panels == 1 && p.R <= NR && a_unit && p.b_k_unit() &&
          p.K * NR <= kHostCellPanel) {
        const int blocks = static_cast<int>((p.L + MR - 1) / MR);
        const int base = static_cast<int>(p.L / blocks), extra = static_cast<int>(p.L % blocks);
        const index_type ahead = prefetch ? 0 : host_prefetch_cells((p.L + p.R) * p.K * static_cast<index_type>(sizeof(T)));
        parallel_for(RangePolicy<Exec>(0, p.C), ContractBlockHostCellKernel<T, NR, MR>{p, blocks, base, extra, prefetch, ahead});
        return;
      }
    }
#endif
    const index_type kc = host_k_chunk(p.K, ((p.R + NR - 1) / NR * NR + rows) * static_cast<index_type>(sizeof(T)));
    TeamPolicy<Exec> policy(p.C * panels, AUTO);
    policy.set_scratch_size(0, PerTeam(K::scratch_bytes(p, rows, a_unit, kc)));
    parallel_for(policy, K{p, panels, rows, a_unit, prefetch, kc});
  };
  using Bytes = std::integral_constant<int, kHostVectorBytes>;
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
  if (host_wide_panels(sizeof(T), p.R))  // AVX-512 on Intel: panels of two 512-bit vectors
    return run(std::integral_constant<int, 4 * V>{}, std::integral_constant<int, 6>{},
               std::integral_constant<int, 2 * kHostVectorBytes>{});
#endif
  if (p.R <= V)
    run(std::integral_constant<int, V>{}, std::integral_constant<int, 8>{}, Bytes{});
  else
    run(std::integral_constant<int, 2 * V>{}, std::integral_constant<int, 6>{}, Bytes{});
}

template <class Exec, class T>
void contract_block(const ContractProblem<T>& p) {
  if constexpr (is_host_execution_space_v<Exec>) {
    if (contract_kernel_family(p.kernel) == ContractFamily::FieldField) return contract_block_host_gemm<Exec, T>(p);
  }
  if (p.L == 1) {
    contract_block_with<Exec, T, 1, 8>(p);
  } else if (sizeof(T) == 4 && p.L <= 8 && p.R <= 8) {
    // Float Q1: two threads per cell (8 x 4 each, 32 accumulators) instead of one 8 x 8 thread:
    // in float an 8 x 8 thread needs so many registers that occupancy, and with it the DRAM
    // bandwidth reached, drops. Double is faster with 8 x 8.
    contract_block_with<Exec, T, 8, 4>(p);
  } else {
    // 8 x 8 for every other FieldField shape: on the GPU it beats 4 x 4 blocks on Q2-Q4; at Q1 it
    // is the whole cell.
    contract_block_with<Exec, T, 8, 8>(p);
  }
}

}  // namespace grain::impl
