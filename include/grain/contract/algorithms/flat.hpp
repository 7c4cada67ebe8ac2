// Algorithm::Flat — one thread per output entry, no cooperation (study §3.1; "the study" in
// these headers is Collins et al. 2015, "Parallelizing Intrepid Tensor Contractions Using Kokkos").
//
// The thread order follows the layout, as the study recommends: with cells as the unit-stride
// index (LayoutLeft, the GPU default) consecutive threads take consecutive cells, so a warp's
// loads coalesce; with LayoutRight each thread streams its own contiguous K.
//
// On the GPU, where a Data kernel's cells are packed (C and the strides multiples of 4 floats or
// 2 doubles, or 2 floats) and there are enough threads, a thread takes V neighbouring cells and
// reads them with one 16-byte (or 8-byte) load per operand (ContractFlatCellPackKernel).
//
// On the CPU with unit-stride cells, the Data kernels (L = 1) run ContractFlatCellStreamKernel:
// an iteration takes a block of up to 4 KB of cells and a group of output rows, and streams K in
// steps of 8 along the block's cells. FieldField keeps ContractFlatCellBlockKernel: one
// iteration computes a block of W = 8 consecutive cells so the inner loop runs across cells and
// vectorizes (packed FMAs). With unit-stride K one iteration computes a left row against the
// right fields four at a time, eight partial sums each (the Data kernels with GCC: a block of
// cells an iteration, ContractFlatDataRowsKernel). Work is split over all (cell block, l, r) or
// all rows (c, l), so both cores stay busy whenever there are at least two of them.
#pragma once

#include <algorithm>
#include <type_traits>

#include "grain/contract/algorithms/common.hpp"
#include "grain/contract/algorithms/host_simd.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

// A: partial sums (dot_strided) of a LayoutLeft thread's strided dot product.
template <class T, int A = 2>
struct ContractFlatKernel {
  ContractProblem<T> p;
  bool c_fast;
  static constexpr index_type G = 32;  // cells per group when cells are the unit-stride index
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, l, r;
    if (c_fast) {
      // Groups of 32 cells, then r, then l: the threads that share a cell's left row (every r)
      // meet in L1; in plain cells-fastest order they would be a whole C apart and meet only in L2.
      if (!split_cell_group<G>(o, p.C, p.L, p.R, c, l, r)) return;
    } else {
      split_output(p, c_fast, o, c, l, r);
    }
    const T s = dot_k<A>(p, p.a + c * p.a_c + l * p.a_l, p.b + c * p.b_c + r * p.b_r);
    p.store(c, l, r, s);
  }
};

// GPU variant for unit-stride cells whose runs start on V-element boundaries
// (ContractProblem::cells_packed): a thread takes V neighbouring cells of one (l, r) and reads
// them with one 8- or 16-byte load per operand and k, A steps of K loaded ahead of their
// multiply-adds. Groups of G threads (G V cells) fastest, then r, then l, as in
// ContractFlatKernel.
template <class T, int V, int A>
struct ContractFlatCellPackKernel {
  ContractProblem<T> p;
  static constexpr index_type G = 32;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    using P = ElementPack<T, V>;
    index_type q, l, r;
    if (!split_cell_group<G>(o, p.C / V, p.L, p.R, q, l, r)) return;
    const index_type c0 = q * V;
    T s[V];
    for (int v = 0; v < V; ++v) s[v] = T(0);
    const index_type sx = p.a_s0 / V, sy = p.b_s0 / V;
    for (index_type k1 = 0; k1 < p.K1; ++k1) {
      const P* x = reinterpret_cast<const P*>(p.a + c0 + l * p.a_l + k1 * p.a_s1);
      const P* y = reinterpret_cast<const P*>(p.b + c0 + r * p.b_r + k1 * p.b_s1);
      index_type k = 0;
      for (; k + A <= p.K0; k += A, x += A * sx, y += A * sy) {
        P xs[A], ys[A];
        for (int j = 0; j < A; ++j) {
          xs[j] = x[j * sx];
          ys[j] = y[j * sy];
        }
        for (int j = 0; j < A; ++j)
          for (int v = 0; v < V; ++v) s[v] += xs[j].v[v] * ys[j].v[v];
      }
      for (; k < p.K0; ++k, x += sx, y += sy) {
        const P xk = *x, yk = *y;
        for (int v = 0; v < V; ++v) s[v] += xk.v[v] * yk.v[v];
      }
    }
    for (int v = 0; v < V; ++v) p.store(c0 + v, l, r, s[v]);
  }
};

// GPU variant for unit-stride float cells whose runs do not start on 4-cell boundaries (C not a
// multiple of 4, ContractProblem::flat_cell_shift): a thread takes 4 neighbouring cells of one
// (l, r) as in ContractFlatCellPackKernel, and reads each row's 4 elements from the two 16-byte
// aligned packs that hold them (the second is the neighbouring thread's first, so an L1 hit; read
// even where the row is not shifted), keeping the ones it needs by the row's shift (warp-uniform: the
// threads of a warp read the same row). A warp's loads then cover 512 aligned bytes (16 sectors, 17
// with the shift) where 4-byte loads of 32 cells covered 128 bytes in 5 sectors, the boundary
// sectors fetched again by the neighbouring group. The last packs of a row, whose second pack
// could lie past the array, read their cells one at a time.
template <class T, int A>
struct ContractFlatCellShiftKernel {
  static_assert(sizeof(T) == 4, "16-byte packs of 4 elements");
  using P = ElementPack<T, 4>;
  ContractProblem<T> p;
  static constexpr index_type G = 32;
  // The 4 elements q[e .. e + 3], q 16-byte aligned.
  GRAIN_FORCEINLINE_FUNCTION static void load4(const T* q, index_type e, T (&out)[4]) {
    const int m = static_cast<int>(e & 3);
    const P* c = reinterpret_cast<const P*>(q + (e - m));
    const P lo = c[0], hi = c[1];  // both always: a conditional load compiles to a branch
    const T w[8] = {lo.v[0], lo.v[1], lo.v[2], lo.v[3], hi.v[0], hi.v[1], hi.v[2], hi.v[3]};
    T t[5];
    for (int i = 0; i < 5; ++i) t[i] = (m & 2) ? w[i + 2] : w[i];
    for (int i = 0; i < 4; ++i) out[i] = (m & 1) ? t[i + 1] : t[i];
  }
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type q, l, r;
    if (!split_cell_group<G>(o, (p.C + 3) / 4, p.L, p.R, q, l, r)) return;
    const index_type c0 = q * 4;
    if (c0 + 8 > p.C) {  // the row's last packs: cells one at a time
      for (index_type c = c0; c < c0 + 4 && c < p.C; ++c)
        p.store(c, l, r, dot_k<A>(p, p.a + c + l * p.a_l, p.b + c + r * p.b_r));
      return;
    }
    T s[4] = {T(0), T(0), T(0), T(0)};
    for (index_type k1 = 0; k1 < p.K1; ++k1) {
      index_type ex = c0 + l * p.a_l + k1 * p.a_s1, ey = c0 + r * p.b_r + k1 * p.b_s1;
      index_type k = 0;
      for (; k + A <= p.K0; k += A, ex += A * p.a_s0, ey += A * p.b_s0) {
        T xs[A][4], ys[A][4];
        for (int j = 0; j < A; ++j) {
          load4(p.a, ex + j * p.a_s0, xs[j]);
          load4(p.b, ey + j * p.b_s0, ys[j]);
        }
        for (int j = 0; j < A; ++j)
          for (int v = 0; v < 4; ++v) s[v] += xs[j][v] * ys[j][v];
      }
      for (; k < p.K0; ++k, ex += p.a_s0, ey += p.b_s0) {
        T xk[4], yk[4];
        load4(p.a, ex, xk);
        load4(p.b, ey, yk);
        for (int v = 0; v < 4; ++v) s[v] += xk[v] * yk[v];
      }
    }
    for (int v = 0; v < 4; ++v) p.store(c0 + v, l, r, s[v]);
  }
};

// GPU variant for LayoutLeft cells with several fields: a thread takes two fields r, r + 1 of one
// (c, l), reading the left row once for both, A partial sums each (A steps of K loaded ahead).
// Half the threads of ContractFlatKernel, each with two dependent-load chains of K / A rounds
// instead of one of K / 8; used where that fits the grid in one wave of resident threads
// (flat_field_pairs, contract_flat).
template <class T, int A>
struct ContractFlatPairKernel {
  ContractProblem<T> p;
  static constexpr index_type G = 32;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    index_type c, l, rp;
    if (!split_cell_group<G>(o, p.C, p.L, (p.R + 1) / 2, c, l, rp)) return;
    const index_type r = 2 * rp;
    const bool two = r + 1 < p.R;
    const T* a = p.a + c + l * p.a_l;
    const T* b0 = p.b + c + r * p.b_r;
    const T* b1 = two ? b0 + p.b_r : b0;
    T s0 = T(0), s1 = T(0);
    for (index_type k1 = 0; k1 < p.K1; ++k1) {
      const T* x = a + k1 * p.a_s1;
      const T* y0 = b0 + k1 * p.b_s1;
      const T* y1 = b1 + k1 * p.b_s1;
      T u[A], v[A];
      for (int j = 0; j < A; ++j) u[j] = v[j] = T(0);
      index_type i = 0;
      for (; i + A <= p.K0; i += A) {
        T xs[A], ys[A], zs[A];
        for (int j = 0; j < A; ++j) {
          xs[j] = x[(i + j) * p.a_s0];
          ys[j] = y0[(i + j) * p.b_s0];
          zs[j] = y1[(i + j) * p.b_s0];
        }
        for (int j = 0; j < A; ++j) u[j] += xs[j] * ys[j], v[j] += xs[j] * zs[j];
      }
      for (; i < p.K0; ++i) u[0] += x[i * p.a_s0] * y0[i * p.b_s0], v[0] += x[i * p.a_s0] * y1[i * p.b_s0];
      for (int w = A / 2; w > 0; w /= 2)
        for (int j = 0; j < w; ++j) u[j] += u[j + w], v[j] += v[j + w];
      s0 += u[0], s1 += v[0];
    }
    p.store(c, l, r, s0);
    if (two) p.store(c, l, r + 1, s1);
  }
};

// Below this many outputs a GPU holds every flat thread at once (132 SMs x 2048 on sm_90), so
// each thread's own loads in flight set the bandwidth: float threads then keep 8 partial sums (16
// loads in flight) instead of 2. With more outputs, and in double, 8 gain nothing; 4, 16 or 32 are
// slower than 8 (measured).
constexpr index_type kFlatFewOutputs = index_type(1) << 18;
// The pair kernel launched as teams of `team` threads (a block each on the GPU), thread t of team
// g taking pair-thread g team + t: teams of 64 (kFlatPairTeam) are faster than a range of
// 256-thread blocks and the steadiest of the team sizes (measured).
inline constexpr int kFlatPairTeam = 64;
template <class T>
struct ContractFlatPairTeams {
  ContractFlatPairKernel<T, 4> k;
  int team;
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type base = static_cast<index_type>(m.league_rank()) * team;
    parallel_for(TeamThreadRange(m, team), [&](index_type t) { k(base + t); });
  }
};

// Whether the float threads with 8 partial sums (ContractFlatKernel<T, 8>) go two fields a thread
// instead (ContractFlatPairKernel<T, 4>): where their grid needs more than one wave of resident
// threads but at most two. They take 48 registers (ptxas, sm_90): 5 blocks of 256 per SM, 5/8 of
// the `concurrency` threads a GPU holds. Inside that window (e.g. LayoutLeft DataFieldVector Q4
// float, 1.22 waves) pairs reach more of the copy floor; outside it, with fewer or more waves,
// they are slower (measured).
inline bool flat_field_pairs(index_type outputs, index_type R, index_type concurrency) {
  const index_type wave = concurrency / 8 * 5;
  return R >= 2 && outputs > wave && outputs <= 2 * wave;
}

// Float threads keep 8 partial sums over more outputs too where K is at least this long: the long
// K hides the extra sums' cost (e.g. DataFieldScalar Q4 float, K = 216, cells not packed), while
// other LayoutLeft float Data cases are level either way (measured).
constexpr index_type kFlatLongK = 128;

// Host variant for unit-stride cells: W cells per iteration, vectorized across cells.
template <class T, int W>
struct ContractFlatCellBlockKernel {
  ContractProblem<T> p;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    // r fastest, then l, cell block slowest: the left rows of (cb, l) stay in L1 across r and
    // the right rows of cb in L2 across l (cell blocks fastest would reuse nothing).
    const index_type r = o % p.R;
    const index_type q = o / p.R;
    const index_type l = q % p.L, cb = q / p.L;
    const index_type c0 = cb * W;
    const T* a = p.a + c0 + l * p.a_l;
    const T* b = p.b + c0 + r * p.b_r;
    if (c0 + W <= p.C) {
      T acc[W];
      for (int w = 0; w < W; ++w) acc[w] = T(0);
      for (index_type k1 = 0; k1 < p.K1; ++k1) {
        const T* a1 = a + k1 * p.a_s1;
        const T* b1 = b + k1 * p.b_s1;
        for (index_type k0 = 0; k0 < p.K0; ++k0) {
          const T* ak = a1 + k0 * p.a_s0;
          const T* bk = b1 + k0 * p.b_s0;
          GRAIN_SIMD
          for (int w = 0; w < W; ++w) acc[w] += ak[w] * bk[w];
        }
      }
      for (int w = 0; w < W; ++w) p.store(c0 + w, l, r, acc[w]);
    } else {
      for (index_type c = c0; c < p.C; ++c) {
        const T s = dot_k(p, p.a + c + l * p.a_l, p.b + c + r * p.b_r);
        p.store(c, l, r, s);
      }
    }
  }
};

// Host variant for cells the unit-stride index of all three operands (LayoutLeft), the Data
// kernels: an item is a block of `cells` neighbouring cells x `rows` output rows (l, r), r
// fastest. K goes in steps of KC; each step adds KC products into the item's outputs, V cells at
// a time, reading KC rows of each operand along the block's cells. ContractFlatCellBlockKernel
// reads a row's 8 cells (32 or 64 bytes, a line shared with the next block) per step of K, each
// from a line of its own far from the last, which no prefetcher follows; here a row's cells are
// one run of up to 4 KB (flat_stream_plan), and with the whole of C in one block the rows of one
// step are one contiguous run. The outputs stay in cache between steps (the plan keeps an item's
// within kFlatStreamOutBytes); the Data operand's KC rows, the same for every output row of the
// item, in L1. DataField's field rows are prefetched kFlatStreamPrefetchBytes ahead along their
// stream: where the item holds all of C, a step's field rows lie back to back (row r + 1 starts
// where row r ends), so the prefetch runs on into the next rows; where it holds a block of cells,
// past a row's end it asks for the start of the next output row's (b_r further on).

// How far ahead ContractFlatCellStreamKernel prefetches DataField's field rows: the hardware
// prefetchers alone leave DataField well below the copy rate. The prefetch runs on across row
// ends (see above), since rows can be shorter than the distance; 768 or 1536 bytes are no better.
// The data's rows are not prefetched (no steady gain), nor is DataData (both operands streamed,
// no reuse: prefetches make it slower).
inline constexpr index_type kFlatStreamPrefetchBytes = 1024;

template <class T>
struct ContractFlatCellStreamKernel {
  static constexpr int V = 16;  // cells per register block
  static constexpr int KC = 8;  // steps of K per pass over the item's outputs
  ContractProblem<T> p;
  index_type cells, rows, blocks;

  // One output row's n cells: out[c] (or 0) + sum over the M steps (M = 0: m < KC steps) of
  // a[ao[j] + c] * b[bo[j] + c]. A compile-time M lets the compiler keep the sums in registers.
  // pf > 0: b's rows are prefetched pf cells ahead while that stays within the avail cells that
  // follow b (the rest of the row, or of the step's back-to-back field rows); after that, the
  // cells pf - (n - c) into b_next's rows (the next output row's), where there is one.
  template <int M>
  static void row(const T* a, const T* b, T* out, index_type n, const index_type* ao, const index_type* bo, int m,
                  bool from_zero, index_type pf, index_type avail, const T* b_next) {
    const int steps = M > 0 ? M : m;
    index_type c = 0;
    for (; c + V <= n; c += V) {
      T acc[V];
      GRAIN_SIMD
      for (int v = 0; v < V; ++v) acc[v] = from_zero ? T(0) : out[c + v];
      // The cells pf ahead along this block's stream, at step offset 0 (null: none to ask for).
      const T* ahead = pf == 0                                   ? nullptr
                       : c + pf < avail                          ? b + c + pf
                       : b_next != nullptr && c + pf < 2 * n     ? b_next + (c + pf - n)
                                                                 : nullptr;
      GRAIN_HOST_UNROLL
      for (int j = 0; j < steps; ++j) {
        const T* x = a + ao[j] + c;
        const T* y = b + bo[j] + c;
        if (ahead != nullptr) host_prefetch_span(ahead + bo[j], V * index_type(sizeof(T)));
        GRAIN_SIMD
        for (int v = 0; v < V; ++v) acc[v] += x[v] * y[v];
      }
      GRAIN_SIMD
      for (int v = 0; v < V; ++v) out[c + v] = acc[v];
    }
    // The last n % V cells side by side (independent sums), vectorized across them (with AVX-512,
    // masked): GCC otherwise vectorizes the loop over the steps, with gathers, which is much slower
    // where C is small (e.g. 138 cells).
    const int rest = static_cast<int>(n - c);
    GRAIN_SIMD
    for (int v = 0; v < rest; ++v) {
      T s = from_zero ? T(0) : out[c + v];
      for (int j = 0; j < steps; ++j) s += a[ao[j] + c + v] * b[bo[j] + c + v];
      out[c + v] = s;
    }
  }

  void operator()(index_type o) const {
    const index_type cb = o % blocks, g = o / blocks;
    const index_type c0 = cb * cells, n = std::min(cells, p.C - c0);
    // DataField only (R > 1): the fields' rows stream from memory while the data's stay in cache.
    const index_type pf = p.R > 1 ? kFlatStreamPrefetchBytes / index_type(sizeof(T)) : 0;
    const bool contiguous = n == p.C && p.b_r == p.C;  // a step's field rows are one run
    const index_type q0 = g * rows, q1 = std::min(p.L * p.R, q0 + rows);
    index_type ao[KC], bo[KC];
    for (index_type k = 0; k < p.K; k += KC) {
      const int m = static_cast<int>(std::min<index_type>(KC, p.K - k));
      for (int j = 0; j < m; ++j) ao[j] = p.a_k(k + j), bo[j] = p.b_k(k + j);
      const bool from_zero = k == 0 && !p.sum_into;
      for (index_type q = q0; q < q1; ++q) {
        const index_type l = q / p.R, r = q - l * p.R;
        const T* a = p.a + c0 + l * p.a_l;
        const T* b = p.b + c0 + r * p.b_r;
        T* out = p.out_at(c0, l, r);
        const T* b_next = !contiguous && q + 1 < q1 && r + 1 < p.R ? b + p.b_r : nullptr;
        const index_type avail = contiguous ? (p.R - r) * n : n;
        if (m == KC) {
          row<KC>(a, b, out, n, ao, bo, m, from_zero, pf, avail, b_next);
        } else {
          row<0>(a, b, out, n, ao, bo, m, from_zero, pf, avail, b_next);
        }
      }
    }
  }
};

// An item's outputs in ContractFlatCellStreamKernel: at most this many bytes, re-read from cache
// at every step of K.
inline constexpr index_type kFlatStreamOutBytes = index_type(256) << 10;

// ContractFlatCellStreamKernel's items: blocks of up to 4 KB of cells (all of C where it is at
// most one and a half times that), their number a multiple of the threads; then as many of the
// L x R output rows an item as keep its outputs within kFlatStreamOutBytes and give each thread
// an item where the rows allow; where cell blocks and row groups are still fewer than the
// threads, blocks of fewer cells (whole register blocks). One item a thread, not several: with
// all of C in one block, each thread then walks its rows' runs of every step of K back to back
// (34 KB at DataFieldTensor Q4 float, 138 cells x 62 rows) rather than a few KB, which streams
// faster (measured).
struct FlatStreamPlan {
  index_type cells, rows, blocks, items;
};
inline FlatStreamPlan flat_stream_plan(index_type C, index_type outs, index_type elem, index_type threads) {
  constexpr index_type V = 16;
  threads = std::max<index_type>(threads, 1);
  const index_type run = 4096 / elem;
  index_type blocks = C <= run + run / 2 ? 1 : (C + run - 1) / run;
  if (blocks > 1) blocks = (blocks + threads - 1) / threads * threads;
  index_type cells = std::max<index_type>(1, (C + blocks - 1) / blocks);
  if (blocks > 1) cells = (cells + V - 1) / V * V;
  blocks = std::max<index_type>(1, (C + cells - 1) / cells);
  index_type rows = std::max<index_type>(1, std::min(outs, kFlatStreamOutBytes / (cells * elem)));
  const index_type groups_wanted = (threads + blocks - 1) / blocks;
  if ((outs + rows - 1) / rows < groups_wanted) rows = std::max<index_type>(1, (outs + groups_wanted - 1) / groups_wanted);
  if (blocks == 1 && rows < outs) {  // row groups a multiple of the threads: equal shares
    const index_type g = ((outs + rows - 1) / rows + threads - 1) / threads * threads;
    rows = std::max<index_type>(1, (outs + g - 1) / g);
  }
  const index_type groups = (outs + rows - 1) / rows;
  if (blocks * groups < threads) {  // few cells and rows (DataData under 1.5 runs): finer blocks
    const index_type want = (threads + groups - 1) / groups;
    cells = std::max(V, C / want / V * V);
    blocks = (C + cells - 1) / cells;
  }
  return {cells, rows, blocks, blocks * groups};
}

// DataData rows of at most this many bytes take ContractFlatCellRowsKernel (W cells at a time),
// much faster on short rows (DataDataScalar Q1, K = 8). Longer rows keep one row at a time: W rows
// streamed together are slower from K = 64 floats / 27 doubles, presumably because the hardware
// prefetcher does not follow 2 W streams. DataField rows gain nothing from W-field blocks.
inline constexpr index_type kFlatShortRow = 192;

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// Host variant for one output per cell with unit-stride K (LayoutRight DataData): W cells per
// iteration, W lanes along K each; the W sums leave as one vector (a W x W transpose, then W - 1
// adds) instead of a horizontal sum and a call per cell.
template <class T>
struct ContractFlatCellRowsKernel {
  static constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));
  using HV = HostVector<T, W>;
  ContractProblem<T> p;
  void operator()(index_type o) const {
    const index_type c0 = o * W, K = p.K0;
    if (c0 + W > p.C) {
      for (index_type c = c0; c < p.C; ++c)
        p.store(c, 0, 0, dot_strided(p.a + c * p.a_c, index_type(1), p.b + c * p.b_c, index_type(1), K));
      return;
    }
    const typename HV::V s = HV::dot_lanes(K, p.a + c0 * p.a_c, p.a_c, p.b + c0 * p.b_c, p.b_c);
    if (p.o_c == 1 && !p.sum_into) {
      HV::store(p.out_at(c0, 0, 0), s);
    } else {
      for (int w = 0; w < W; ++w) p.store(c0 + w, 0, 0, s[w]);
    }
  }
};
#endif

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// Host variant for the Data kernels' rows with unit-stride K (LayoutRight, L = 1): an iteration
// takes `cells` consecutive cells, and each cell's right rows go W at a time as in
// ContractFlatRowKernel (W sums along K leaving as one vector), the rest one at a time. The
// problem's fields are read into locals once per iteration, and whether whole vectors are stored
// is a template parameter (the branch-free stores are measurably faster). Short cells prefetch
// the operands of a cell `ahead` of the current one (host_prefetch_cells). On short cells
// (DataFieldScalar Q1) this is clearly faster than ContractFlatRowKernel's one row an iteration.
template <class T>
struct ContractFlatDataRowsKernel {
  static constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));
  using HV = HostVector<T, W>;
  ContractProblem<T> p;
  index_type cells;
  index_type ahead = 0;  // prefetch the operands of the cell this many cells ahead (0: none)
  void operator()(index_type o) const {
    if (p.o_r == 1 && !p.sum_into) {
      run<true>(o);
    } else {
      run<false>(o);
    }
  }
  // Direct: the fields unit-stride in out and nothing to add (whole vectors stored).
  template <bool Direct>
  void run(index_type o) const {
    const T* const A = p.a;
    const T* const B = p.b;
    T* const O = p.out;
    const index_type ac = p.a_c, bc = p.b_c, br = p.b_r, oc = p.o_c, orr = Direct ? 1 : p.o_r, R = p.R, K = p.K0;
    const bool add = !Direct && p.sum_into, direct = Direct;
    const index_type c0 = o * cells, c1 = c0 + cells < p.C ? c0 + cells : p.C;
    for (index_type c = c0; c < c1; ++c) {
      const T* a = A + c * ac;
      const T* b = B + c * bc;
      T* out = O + c * oc;
      if (ahead > 0 && c + ahead < p.C) {
        host_prefetch_rows(a + ahead * ac, 1, K, K);
        host_prefetch_rows(b + ahead * bc, R, br, K);
      }
      index_type r = 0;
      for (; r + W <= R; r += W) {
        const typename HV::V s = HV::dot_lanes(K, a, 0, b + r * br, br);
        if (direct) {
          HV::store(out + r, s);
        } else {
          for (int w = 0; w < W; ++w) out[(r + w) * orr] = add ? out[(r + w) * orr] + s[w] : s[w];
        }
      }
      for (; r < R; ++r) {
        const T s = dot_strided(a, index_type(1), b + r * br, index_type(1), K);
        out[r * orr] = add ? out[r * orr] + s : s;
      }
    }
  }
};
#endif

// Cells an iteration of ContractFlatDataRowsKernel: about 4 KB of right rows (`cell_bytes` a
// cell), at most 64, and at least 16 iterations a thread.
inline index_type flat_cells_per_item(index_type C, index_type cell_bytes, index_type threads) {
  const index_type most = C / (16 * (threads > 1 ? threads : 1));
  index_type cells = 4096 / (cell_bytes > 1 ? cell_bytes : 1);
  cells = cells < 64 ? cells : 64;
  cells = cells < most ? cells : most;
  return cells > 1 ? cells : 1;
}

// Host variant for unit-stride K (LayoutRight; with GCC, FieldField and AMD's long DataField rows,
// the Data kernels' other rows taking ContractFlatDataRowsKernel): one iteration per left row
// (c, l), right fields
// in blocks of four, so each load of the left row feeds four FMAs and the index arithmetic is
// paid once per row instead of once per output. With GCC, blocks of W fields (a vector's lanes)
// first: W vector sums along K whose W totals leave as one vector (HostVector::sum_lanes), where
// the blocks of four end in four horizontal sums and four scalar stores.
//
// On AMD CPUs (host_cpu_is_amd), DataField rows longer than kFlatShortRow go one field at a time
// instead: each field row is read once, and W (or 4) of them side by side are W short streams
// where one field after another is one long one (the rows of a cell are contiguous); on AMD this
// is markedly faster, on Intel slower, so elsewhere the blocks stay.
// FieldField keeps the blocks everywhere: its right rows are re-read for each left row, from cache
// after the first, and without the blocks it is much slower.
template <class T>
struct ContractFlatRowKernel {
  ContractProblem<T> p;
  bool one_field_at_a_time = false;
  GRAIN_INLINE_FUNCTION void operator()(index_type o) const {
    const index_type c = o / p.L, l = o - c * p.L;
    const T* a = p.a + c * p.a_c + l * p.a_l;
    const T* b = p.b + c * p.b_c;
    const index_type K = p.K0;
    index_type r = 0;
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
    constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));
    using HV = HostVector<T, W>;
    for (; !one_field_at_a_time && r + W <= p.R; r += W) {
      const typename HV::V s = HV::dot_lanes(K, a, 0, b + r * p.b_r, p.b_r);
      if (p.o_r == 1 && !p.sum_into) {
        HV::store(p.out_at(c, l, r), s);
      } else {
        for (int w = 0; w < W; ++w) p.store(c, l, r + w, s[w]);
      }
    }
#endif
    for (; !one_field_at_a_time && r + 4 <= p.R; r += 4) {
      const T* b0 = b + r * p.b_r;
      const T* b1 = b0 + p.b_r;
      const T* b2 = b1 + p.b_r;
      const T* b3 = b2 + p.b_r;
      T acc0[8] = {}, acc1[8] = {}, acc2[8] = {}, acc3[8] = {};
      index_type k = 0;
      for (; k + 8 <= K; k += 8) {
        // Vectorize across the eight lanes, not along k (which GCC would otherwise pick, with
        // slow in-order reductions).
        GRAIN_SIMD
        for (int w = 0; w < 8; ++w) {
          const T x = a[k + w];
          acc0[w] += x * b0[k + w];
          acc1[w] += x * b1[k + w];
          acc2[w] += x * b2[k + w];
          acc3[w] += x * b3[k + w];
        }
      }
      for (; k < K; ++k) {
        const T x = a[k];
        acc0[0] += x * b0[k];
        acc1[0] += x * b1[k];
        acc2[0] += x * b2[k];
        acc3[0] += x * b3[k];
      }
      T s[4] = {};
      for (int w = 0; w < 8; ++w) {
        s[0] += acc0[w];
        s[1] += acc1[w];
        s[2] += acc2[w];
        s[3] += acc3[w];
      }
      for (int j = 0; j < 4; ++j) p.store(c, l, r + j, s[j]);
    }
    for (; r < p.R; ++r) p.store(c, l, r, dot_strided(a, index_type(1), b + r * p.b_r, index_type(1), K));
  }
};

template <class Exec, class T>
void contract_flat(const ContractProblem<T>& p) {
  const bool c_fast = p.cells_fastest();
  if constexpr (is_host_execution_space_v<Exec>) {
    if (c_fast && p.o_c == 1 && p.L == 1) {  // the Data kernels
      const FlatStreamPlan plan = flat_stream_plan(p.C, p.L * p.R, index_type(sizeof(T)), Exec::concurrency());
      parallel_for(RangePolicy<Exec>(0, plan.items), ContractFlatCellStreamKernel<T>{p, plan.cells, plan.rows, plan.blocks});
      return;
    }
    if (c_fast && p.C >= 8) {
      constexpr int W = 8;
      const index_type nb = (p.C + W - 1) / W;
      parallel_for(RangePolicy<Exec>(0, nb * p.L * p.R), ContractFlatCellBlockKernel<T, W>{p});
      return;
    }
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
    if (p.L == 1 && p.R == 1 && p.k_unit() && p.K * index_type(sizeof(T)) <= kFlatShortRow &&
        p.C >= 2 * ContractFlatCellRowsKernel<T>::W) {
      constexpr index_type W = ContractFlatCellRowsKernel<T>::W;
      parallel_for(RangePolicy<Exec>(0, (p.C + W - 1) / W), ContractFlatCellRowsKernel<T>{p});
      return;
    }
#endif
    if (p.k_unit() && p.C * p.L >= 2) {
      const bool one = p.L == 1 && p.K * index_type(sizeof(T)) > kFlatShortRow && host_cpu_is_amd();
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
      if (p.L == 1 && !one) {
        const index_type cells = flat_cells_per_item(p.C, p.R * p.K * index_type(sizeof(T)), Exec::concurrency());
        const index_type ahead = host_prefetch_cells((p.R + 1) * p.K * index_type(sizeof(T)));
        parallel_for(RangePolicy<Exec>(0, (p.C + cells - 1) / cells), ContractFlatDataRowsKernel<T>{p, cells, ahead});
        return;
      }
#endif
      parallel_for(RangePolicy<Exec>(0, p.C * p.L), ContractFlatRowKernel<T>{p, one});
      return;
    }
  }
  using K = ContractFlatKernel<T>;
  const index_type cells = c_fast ? (p.C + K::G - 1) / K::G * K::G : p.C;
  if constexpr (!is_host_execution_space_v<Exec>) {
    // V neighbouring cells per thread and load where the cells are packed and the threads many
    // (ContractProblem::flat_cell_pack); 4 steps of K ahead, which beats 2 on most Data cases and
    // 8 on the long-K ones (measured).
    auto packs = [&](auto vc) {
      using PK = ContractFlatCellPackKernel<T, decltype(vc)::value, 4>;
      const index_type groups = (p.C / decltype(vc)::value + PK::G - 1) / PK::G;
      parallel_for(RangePolicy<Exec>(0, groups * PK::G * p.L * p.R), PK{p});
    };
    if (c_fast) {
      const int v = p.flat_cell_pack();
      if (v == 16 / static_cast<int>(sizeof(T))) return packs(std::integral_constant<int, 16 / sizeof(T)>{});
      if constexpr (sizeof(T) == 4) {
        if (v == 2) return packs(std::integral_constant<int, 2>{});
        if (v == 0 && p.flat_cell_shift()) {  // not packed at all: shifted packs of 4
          using SK = ContractFlatCellShiftKernel<T, 4>;
          const index_type groups = ((p.C + 3) / 4 + SK::G - 1) / SK::G;
          parallel_for(RangePolicy<Exec>(0, groups * SK::G * p.L * p.R), SK{p});
          return;
        }
      }
    }
  }
  if constexpr (!is_host_execution_space_v<Exec> && sizeof(T) == 4) {
    if (c_fast && (p.C * p.L * p.R < kFlatFewOutputs || p.K >= kFlatLongK)) {
      if (flat_field_pairs(p.C * p.L * p.R, p.R, Exec::concurrency())) {
        using PK = ContractFlatPairKernel<T, 4>;
        const index_type n = cells * p.L * ((p.R + 1) / 2);
        constexpr int team = kFlatPairTeam;
        parallel_for(contract_team_policy<Exec>((n + team - 1) / team, team), ContractFlatPairTeams<T>{PK{p}, team});
        return;
      }
      parallel_for(RangePolicy<Exec>(0, cells * p.L * p.R), ContractFlatKernel<T, 8>{p, c_fast});
      return;
    }
  }
  parallel_for(RangePolicy<Exec>(0, cells * p.L * p.R), K{p, c_fast});
}

}  // namespace grain::impl
