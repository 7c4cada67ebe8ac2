// Team reductions (study §3.2): several threads contribute to one output.
//
//   TeamDepth1  one team per output; its threads take the last contracted index (D2, D or P),
//               each loops over the leading ones; the team reduces (§3.2.1, Fig. 3.2).
//   TeamDepth2  the same with threads over the last two contracted indices (D1 x D2, or P x D)
//               (§3.2.2, Fig. 3.5). Needs two contracted indices: Vector and Tensor kernels.
//   TeamStride  one team of 32 threads per output; threads stride over the flattened K, like an
//               OpenMP collapse (§3.2.3, Figs. 3.8-3.9).
//   TeamSmallK  the special case for short K (§3.2.4, Fig. 3.11): a team of 256 threads packs
//               256 / G outputs, each reduced by G = pow2(min(K, 32)) vector lanes with warp
//               shuffles. The study used atomics into a zeroed output; vector lanes need neither,
//               are deterministic and honour sum_into. Where K is unit-stride and rows are
//               16-byte aligned (LayoutRight, ContractProblem::k_packed) a lane reads 16 bytes
//               per step and G covers K / 4 (float) or K / 2 (double). LayoutRight rows that
//               lie back to back (ContractProblem::k_rows, stage_rows) are staged instead: the
//               team's rows copied into scratch by team_copy_async (cp.async), G lanes per row;
//               small FieldField cells back to back (k_cells) likewise, whole cells at a time.
//               With cells as the unit-stride index (LayoutLeft) lanes on K would read one
//               element per sector, so there the split moves up a level: a team takes 32
//               consecutive cells of one (l, r) and S = 8 slices of K; thread (cell, slice) sums
//               its slice with coalesced loads (A in flight), and the slices are added in scratch
//               in a fixed order (deterministic). This is what long K over few outputs needs on
//               the GPU: 8x the threads of `flat`, each with an eighth of the loop (DataField in
//               float: S = 4 and A = 8, or S = 2, A = 4 and two fields a team sharing their
//               data row in L1; in double from K = 1024: S = 4, each thread two fields of one
//               data row; contract_team_small_k).
//
// The team sizes above are the GPU's; on the CPU a team is one thread and its vector ranges are
// SIMD loops (`omp simd` reductions), so TeamVectorRange is used where a loop should vectorize.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T, int Depth>
struct ContractTeamDepthKernel {
  ContractProblem<T> p;
  bool c_fast;
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    index_type c, l, r;
    split_output(p, c_fast, m.league_rank(), c, l, r);
    const T* a = p.a + c * p.a_c + l * p.a_l;
    const T* b = p.b + c * p.b_c + r * p.b_r;
    // Threads: x2 (Depth 1) or x1 x x2 (Depth 2); loops: the remaining leading indices.
    const index_type nthr = Depth == 1 ? p.x[2] : p.x[1] * p.x[2];
    const ContractProblem<T>& q = p;
    T sum = T(0);
    parallel_reduce(
        TeamVectorRange(m, nthr),
        [&](index_type t, T& v) {
          if (Depth == 1) {
            const T* at = a + t * q.ax[2];
            const T* bt = b + t * q.bx[2];
            for (index_type i0 = 0; i0 < q.x[0]; ++i0)
              for (index_type i1 = 0; i1 < q.x[1]; ++i1)
                v += at[i0 * q.ax[0] + i1 * q.ax[1]] * bt[i0 * q.bx[0] + i1 * q.bx[1]];
          } else {
            const index_type i1 = t / q.x[2], i2 = t - i1 * q.x[2];
            const T* at = a + i1 * q.ax[1] + i2 * q.ax[2];
            const T* bt = b + i1 * q.bx[1] + i2 * q.bx[2];
            for (index_type i0 = 0; i0 < q.x[0]; ++i0) v += at[i0 * q.ax[0]] * bt[i0 * q.bx[0]];
          }
        },
        sum);
    single(PerTeam(m), [&]() { q.store(c, l, r, sum); });
  }
};

template <class T>
struct ContractTeamStrideKernel {
  ContractProblem<T> p;
  bool c_fast;
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    index_type c, l, r;
    split_output(p, c_fast, m.league_rank(), c, l, r);
    const T* a = p.a + c * p.a_c + l * p.a_l;
    const T* b = p.b + c * p.b_c + r * p.b_r;
    const ContractProblem<T>& q = p;
    T sum = T(0);
    parallel_reduce(
        TeamVectorRange(m, p.K), [&](index_type k, T& v) { v += a[q.a_k(k)] * b[q.b_k(k)]; }, sum);
    single(PerTeam(m), [&]() { q.store(c, l, r, sum); });
  }
};

// V > 1: K is unit-stride in both operands and every row starts on a V-element boundary
// (ContractProblem::k_packed), so a lane reads V elements per load: with 16-byte loads a warp's
// reads of neighbouring rows are one contiguous run (LayoutRight).
template <class T, int V = 1>
struct ContractTeamSmallKKernel {
  ContractProblem<T> p;
  bool c_fast;
  index_type outputs;  // C * L * R
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type o = m.league_rank() * m.team_size() + m.team_rank();
    const bool valid = o < outputs;
    index_type c = 0, l = 0, r = 0;
    if (valid) split_output(p, c_fast, o, c, l, r);
    const T* a = p.a + c * p.a_c + l * p.a_l;
    const T* b = p.b + c * p.b_c + r * p.b_r;
    const ContractProblem<T>& q = p;
    T sum = T(0);
    // Every lane takes part in the shuffle reduction; an idle thread reduces an empty range.
    if constexpr (V == 1) {
      parallel_reduce(
          ThreadVectorRange(m, valid ? p.K : 0),
          [&](index_type k, T& v) { v += a[q.a_k(k)] * b[q.b_k(k)]; }, sum);
    } else {
      const auto* ap = reinterpret_cast<const ElementPack<T, V>*>(a);
      const auto* bp = reinterpret_cast<const ElementPack<T, V>*>(b);
      parallel_reduce(
          ThreadVectorRange(m, valid ? p.K / V : 0),
          [&](index_type kv, T& v) {
            const ElementPack<T, V> x = ap[kv], y = bp[kv];
            T s = x.v[0] * y.v[0];
            for (int j = 1; j < V; ++j) s += x.v[j] * y.v[j];
            v += s;
          },
          sum);
    }
    if (valid) single(PerThread(m), [&]() { q.store(c, l, r, sum); });
  }
};

// One contiguous run of global memory bound for team scratch, element e landing at
// dst[skew + e], skew being src's element offset within its 16-byte block: the run's aligned
// 16-byte packs then land on aligned packs of dst. `head` elements precede the first whole pack,
// `packs` packs follow, and the elements from `tail` to n come after them. dst holds n + V - 1.
template <class T>
struct StagedRun {
  static constexpr int V = 16 / sizeof(T);
  T* dst;
  const T* src;
  index_type n, head, packs, tail;
  int skew;
  GRAIN_INLINE_FUNCTION StagedRun(T* d, const T* s, index_type count) : dst(d), src(s), n(count) {
    skew = static_cast<int>((reinterpret_cast<std::uintptr_t>(s) / sizeof(T)) % V);
    head = (V - skew) % V;
    if (head > n) head = n;
    packs = (n - head) / V;
    tail = head + packs * V;
  }
  GRAIN_INLINE_FUNCTION index_type singles() const { return head + (n - tail); }
  // The i-th single element's offset in the run.
  GRAIN_INLINE_FUNCTION index_type single_at(index_type i) const { return i < head ? i : tail + (i - head); }
  GRAIN_INLINE_FUNCTION const ElementPack<T, V>* src_packs() const {
    return reinterpret_cast<const ElementPack<T, V>*>(src + head);
  }
  GRAIN_INLINE_FUNCTION ElementPack<T, V>* dst_packs() const {
    return reinterpret_cast<ElementPack<T, V>*>(dst + skew + head);
  }
};

// Copies two runs into team scratch at once: the packs of both as asynchronous team copies
// (team_copy_async: on the GPU, cp.async, so every pack of the team's tile is in flight at once
// without costing registers, where register-staged copies either keep few loads in flight or
// take so many registers that few teams fit on a multiprocessor), then the few single elements.
// The caller waits (team_copy_wait) and barriers.
template <class Member, class T>
GRAIN_INLINE_FUNCTION void stage_runs(const Member& m, const StagedRun<T>& r0, const StagedRun<T>& r1) {
  m.team_copy_async(r0.dst_packs(), r0.src_packs(), r0.packs);
  m.team_copy_async(r1.dst_packs(), r1.src_packs(), r1.packs);
  const index_type n0 = r0.singles();
  parallel_for(TeamVectorRange(m, n0 + r1.singles()), [&](index_type i) {
    if (i < n0) {
      const index_type e = r0.single_at(i);
      r0.dst[r0.skew + e] = r0.src[e];
    } else {
      const index_type e = r1.single_at(i - n0);
      r1.dst[r1.skew + e] = r1.src[e];
    }
  });
}

// Rows that are not 16-byte packable but lie back to back (ContractProblem::k_rows: LayoutRight
// Data kernels, K unit-stride, odd or misaligned): lanes over K in global memory would leave a
// warp's lanes idle or its loads misaligned (e.g. DataDataScalar Q2, K = 27, far from the floor
// that way). A team takes `rows` consecutive output rows (c, r); their
// elements of right are one contiguous run, and so are the left rows of the cells they span
// (DataData: one per row; DataField: one per cell, shared by its R rows). The team copies both
// runs into scratch with 16-byte loads (stage_runs), then G vector lanes sum each row from scratch
// and reduce with shuffles. G and `rows` come from the row length (contract_team_small_k), so a
// long row (K = 243 floats) gets several lanes instead of one thread, and a team's scratch stays
// small enough for several teams per multiprocessor to overlap copies with sums.
template <class T>
struct ContractTeamSmallKRowsKernel {
  ContractProblem<T> p;
  index_type total;  // C * R rows; row i of right starts at b + i K, its left row at a + (i / R) K
  int rows;          // rows per team
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type K = p.K, R = p.R;
    const index_type row0 = m.league_rank() * rows;
    const index_type n = total - row0 < rows ? total - row0 : rows;
    const index_type c0 = row0 / R, cells = (row0 + n - 1) / R - c0 + 1;
    constexpr int V = 16 / sizeof(T);
    T* sb = m.team_scratch(0).template get<T>(static_cast<std::size_t>(rows * K + V));
    T* sa = m.team_scratch(0).template get<T>(static_cast<std::size_t>(stage_rows_cells(rows, R) * K + V));
    const StagedRun<T> rb(sb, p.b + row0 * K, n * K), ra(sa, p.a + c0 * K, cells * K);
    stage_runs(m, rb, ra);
    m.team_copy_wait();
    m.team_barrier();
    const int skew_b = rb.skew, skew_a = ra.skew;
    const ContractProblem<T>& q = p;
    parallel_for(TeamThreadRange(m, n), [&](index_type i) {
      const index_type row = row0 + i, c = row / R, r = row - c * R;
      const T* xb = sb + skew_b + i * K;
      const T* xa = sa + skew_a + (c - c0) * K;
      // The G lanes of a row read neighbouring elements. With K even, rows start in few banks
      // (K = 64 floats: all in one, 16-way conflicts at G = 2), so a row's lanes start `rot`
      // elements into it (and wrap), chosen so that the warp's rows start G banks apart. Odd K
      // already spreads the rows, and there rotating would only scatter the DataField rows of one
      // cell, which read the same left row (one broadcast unrotated), and make them slower.
      const index_type G = m.vector_length();
      index_type rot = K % 2 ? 0 : ((i * (G - K)) % 32 + 32) % 32;
      if (rot >= K) rot %= K;
      T sum = T(0);
      parallel_reduce(ThreadVectorRange(m, K), [&](index_type t, T& v) {
        const index_type k = t + rot < K ? t + rot : t + rot - K;
        v += xa[k] * xb[k];
      }, sum);
      single(PerThread(m), [&]() { q.store(c, 0, r, sum); });
    });
  }
};

// A flat index o = (c n1 + i) n2 + j and its three parts, advanced by a fixed step with carries
// instead of two divisions per step (the staged cells' loops: a few FMAs per output at K = 8,
// where the divisions would be a large share of the time).
struct CarriedIndex {
  int flat, c, i, j;
  int step, sc, si, sj, n1, n2;
  GRAIN_INLINE_FUNCTION CarriedIndex(int o, int step_, int n1_, int n2_) : flat(o), step(step_), n1(n1_), n2(n2_) {
    const int n = n1 * n2;
    c = o / n, i = (o - c * n) / n2, j = o - c * n - i * n2;
    sc = step / n, si = (step - sc * n) / n2, sj = step - sc * n - si * n2;
  }
  GRAIN_INLINE_FUNCTION void advance() {
    flat += step;
    j += sj;
    if (j >= n2) j -= n2, ++i;
    i += si;
    if (i >= n1) i -= n1, ++c;
    c += sc;
  }
};

// Small FieldField cells whose blocks lie back to back (ContractProblem::k_cells: LayoutRight,
// L x K left and R x K right rows contiguous per cell, cells contiguous): a team takes `cells`
// whole cells, copies their left and right blocks into scratch as two contiguous runs
// (stage_runs), and computes their L x R outputs from scratch, r fastest, G lanes per output.
// `flat` reads each cell's rows once per output row from global memory, well below the floor on
// LayoutRight FieldField Q1.
//
// Where the rows are packed, R is a multiple of 4 and a team has a lane per output row, a thread
// takes four fields at a time (`quads`): units (c, l, quad of r), the quads fastest, each reading
// its left row once for four right rows and storing the four sums with one or two 16-byte stores.
// The one-output form reads 2K elements of scratch per K multiply-adds, and its eight lanes of a
// quarter-warp read eight right rows a row apart, which at FieldFieldScalar Q1 float (K = 8, rows
// of two 16-byte packs) makes many of its shared loads bank conflicts. A thread's reads start
// `rot` packs into its rows (and wrap), rot = (rot_l l + rot_q quad) mod packs, the coefficients
// searched at launch (stage_cells_quad_rotation) for the fewest wavefronts, which leaves no bank
// conflicts, so DRAM, not L1, sets the pace (measured).
template <class T>
struct ContractTeamSmallKCellBlocksKernel {
  ContractProblem<T> p;
  int cells;            // per team
  int rot_l = -1;       // >= 0: four fields at a time, with these rotation coefficients
  int rot_q = 0;
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type K = p.K, L = p.L, R = p.R, LR = L * R;
    const index_type c0 = m.league_rank() * cells;
    const index_type nc = p.C - c0 < cells ? p.C - c0 : cells;
    constexpr int V = 16 / sizeof(T);
    T* sa = m.team_scratch(0).template get<T>(static_cast<std::size_t>(cells * L * K + V));
    T* sb = m.team_scratch(0).template get<T>(static_cast<std::size_t>(cells * R * K + V));
    const StagedRun<T> ra(sa, p.a + c0 * L * K, nc * L * K), rb(sb, p.b + c0 * R * K, nc * R * K);
    stage_runs(m, rb, ra);
    m.team_copy_wait();
    m.team_barrier();
    const T* xa0 = sa + ra.skew;
    const T* xb0 = sb + rb.skew;
    // Rows that start on 16 bytes in scratch (K a multiple of V, both runs unskewed) are read V
    // elements per shared load; 32-bit output arithmetic (a team holds at most 1024 x 256).
    const bool packed = K % V == 0 && ra.skew == 0 && rb.skew == 0;
    const int Ki = static_cast<int>(K), Li = static_cast<int>(L), Ri = static_cast<int>(R);
    const ContractProblem<T>& q = p;
    if (rot_l >= 0 && packed) {
      quads(m, xa0, xb0, c0, static_cast<int>(nc));
      return;
    }
    // Eight neighbouring outputs (r = 0..7 of one l) read eight right rows at once. When a row
    // is a multiple of 4 packs those start in at most two of the eight 16-byte bank groups, so
    // each row's reads start r packs in (and wrap), which spreads them over all eight (double
    // FieldFieldVector/Tensor Q1); with 2 or 6 packs (float K = 8, 24) rotating gains nothing and
    // its arithmetic costs time, so those rows are not rotated.
    const int np = Ki / V;
    const bool rotate = packed && np % 4 == 0;
    // The team's threads take outputs team_size apart, (c, l, r) advanced by carries.
    const int n = static_cast<int>(nc * LR), step = m.team_size();
    for (CarriedIndex at(m.team_rank(), step, Li, Ri); at.flat < n; at.advance()) {
      const int c = at.c, l = at.i, r = at.j;
      const T* xa = xa0 + (c * Li + l) * Ki;
      const T* xb = xb0 + (c * Ri + r) * Ki;
      T sum = T(0);
      if (packed) {
        const auto* pa = reinterpret_cast<const ElementPack<T, V>*>(xa);
        const auto* pb = reinterpret_cast<const ElementPack<T, V>*>(xb);
        const int rot = rotate ? r % np : 0;
        parallel_reduce(ThreadVectorRange(m, K / V), [&](index_type i, T& v) {
          const int kv = static_cast<int>(i) + rot < np ? static_cast<int>(i) + rot : static_cast<int>(i) + rot - np;
          const ElementPack<T, V> x = pa[kv], y = pb[kv];
          T d = x.v[0] * y.v[0];
          for (int j = 1; j < V; ++j) d += x.v[j] * y.v[j];
          v += d;
        }, sum);
      } else {
        parallel_reduce(ThreadVectorRange(m, K), [&](index_type k, T& v) { v += xa[k] * xb[k]; }, sum);
      }
      single(PerThread(m), [&]() { q.store(c0 + c, l, r, sum); });
    }
  }

  template <class Member>
  GRAIN_INLINE_FUNCTION void quads(const Member& m, const T* xa0, const T* xb0, index_type c0, int nc) const {
    constexpr int V = 16 / sizeof(T);
    using P = ElementPack<T, V>;
    const int Ki = static_cast<int>(p.K), Li = static_cast<int>(p.L), Ri = static_cast<int>(p.R);
    const int np = Ki / V, R4 = Ri / 4, U = Li * R4;
    const bool vec_store = p.o_r == 1 && !p.sum_into;
    // Units team_size apart, (c, l, quad) advanced by carries as in the one-output loop.
    const int n = nc * U;
    for (CarriedIndex at(m.team_rank(), m.team_size(), Li, R4); at.flat < n; at.advance()) {
      const int c = at.c, l = at.i, qd = at.j;
      const P* pa = reinterpret_cast<const P*>(xa0 + (c * Li + l) * Ki);
      const P* pb = reinterpret_cast<const P*>(xb0 + (c * Ri + 4 * qd) * Ki);
      int kv = (rot_l * l + rot_q * qd) % np;
      T s[4] = {T(0), T(0), T(0), T(0)};
      for (int i = 0; i < np; ++i) {
        const P x = pa[kv];
        for (int j = 0; j < 4; ++j) {
          const P y = pb[j * np + kv];
          T d = s[j];
          for (int e = 0; e < V; ++e) d += x.v[e] * y.v[e];
          s[j] = d;
        }
        kv = kv + 1 == np ? 0 : kv + 1;
      }
      T* o = p.out_at(c0 + c, l, 4 * qd);
      if (vec_store && reinterpret_cast<std::uintptr_t>(o) % 16 == 0) {
        P* op = reinterpret_cast<P*>(o);
        for (int h = 0; h < 4 / V; ++h) {
          P w;
          for (int e = 0; e < V; ++e) w.v[e] = s[h * V + e];
          op[h] = w;
        }
      } else {
        for (int j = 0; j < 4; ++j) p.store(c0 + c, l, 4 * qd + j, s[j]);
      }
    }
  }
};

// FieldField cells of more than 256 outputs, at most 32 x 32, laid out as k_cells has them
// (ContractProblem::k_cell_tiles: LayoutRight Q2, 27 x 27 over K = 27, 81, 243). Those are too
// many outputs for the staged cells above and too small for cuBLAS's tiles (its strided-batched
// GEMM stays well short of the floor on the float Q2 cases). A team takes
// `groups` consecutive groups of `cells` cells, each in passes of kc contracted indices; a thread
// takes an MB x NB tile of one cell's outputs (units (cell, lb, rb), rb fastest: rows lb + i nl,
// fields rb + j nr, rows and fields past L or R re-read the last one and drop their sums), and
// keeps its sums across a group's passes.
// - Staging: each staged row starts on a 16-byte boundary, ks elements apart (an odd number of
//   16-byte packs), its tail past kc zeroed, so the sums read 16 bytes a load: MB + NB loads for
//   MB x NB x V multiply-adds. The rows of a LayoutRight cell start wherever K puts them (K = 27:
//   at every 4-byte offset), so they are copied one element per cp.async (stage_rows: a row to a
//   group of threads, four rows a loop step).
// - Passes are double-buffered where two buffers fit: while the team sums one pass, the next
//   one's copies are in flight (copy_commit / copy_wait_prior).
// - The sums leave through scratch (the pass's own buffer where `alias`, once every thread is done
//   reading it), so a group's outputs, back to back in LayoutRight, are stored as one run of
//   16-byte stores.
// A host team is one thread (one cell a group, one pass, one buffer): it takes the units in turn.
// Shapes: cell_tiles_shape (problem.hpp).
template <class T, int MB = kCellTileRows, int NB = kCellTileFields>
struct ContractTeamSmallKCellTilesKernel {
  ContractProblem<T> p;
  int cells;   // per group
  int groups;  // per team
  int kc;      // contracted indices per pass
  int ks;      // a staged row's length
  bool two;    // double-buffered
  bool alias;  // outputs gathered in the pass's buffer (one unit a thread)
  static constexpr int V = 16 / static_cast<int>(sizeof(T));
  using P = ElementPack<T, V>;

  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const int L = static_cast<int>(p.L), R = static_cast<int>(p.R), K = static_cast<int>(p.K);
    const int nl = (L + MB - 1) / MB, nr = (R + NB - 1) / NB, per = nl * nr;
    const int rank = m.team_rank(), size = m.team_size();
    const index_type all = (p.C + cells - 1) / cells;  // groups in the call
    const index_type g0 = m.league_rank() * groups;
    const int ng = static_cast<int>(all - g0 < groups ? all - g0 : groups);
    const int chunks = (K + kc - 1) / kc, passes = ng * chunks;
    const std::size_t be = static_cast<std::size_t>(cell_tiles_buffer_elems(cells, L, R, ks));
    T* const buf0 = m.team_scratch(0).template get<T>(be);
    T* const buf1 = two ? m.team_scratch(0).template get<T>(be) : buf0;
    // Shared-memory loads with 32-bit addresses. The hint sits here, on the buffers themselves:
    // placed on the pointers inside tile(), nvcc 13 compiles the path of one unit a thread (alias)
    // into a fall-through to the kernel's end (a branch to an empty block in the PTX), so those
    // threads sum and store nothing and every GPU test of the kernel fails.
    GRAIN_ASSUME_TEAM_SCRATCH(buf0);
    GRAIN_ASSUME_TEAM_SCRATCH(buf1);
    T* const so = alias ? nullptr : m.team_scratch(0).template get<T>(static_cast<std::size_t>(cell_tiles_out_elems<T>(cells, L, R)));
    const StageGeom sg = stage_geom(m);
    auto stage = [&](int pass) {
      T* const bp = two && (pass & 1) ? buf1 : buf0;
      const int gi = pass / chunks, k0 = (pass - gi * chunks) * kc;
      const index_type c0 = (g0 + gi) * cells;
      const int nc = static_cast<int>(p.C - c0 < cells ? p.C - c0 : cells);
      const int n = K - k0 < kc ? K - k0 : kc;
      stage_rows(m, sg, p.a + c0 * p.a_c + k0, nc * L, n, bp);
      stage_rows(m, sg, p.b + c0 * p.b_c + k0, nc * R, n, bp + static_cast<std::size_t>(cells) * L * ks);
      m.copy_commit();
    };
    T acc[MB][NB] = {};
    int oa[MB], ob[NB];  // this thread's unit's rows (one unit a thread where alias)
    unit_rows(rank, nl, nr, per, oa, ob);
    stage(0);
    for (int pass = 0; pass < passes; ++pass) {
      if (two && pass + 1 < passes) {
        stage(pass + 1);
        m.copy_wait_prior();
      } else {
        if (!two && pass > 0) stage(pass);  // one buffer: free since the last pass's barrier
        m.team_copy_wait();
      }
      m.team_barrier();
      T* const bp = two && (pass & 1) ? buf1 : buf0;
      const int gi = pass / chunks, chunk = pass - gi * chunks;
      const bool last = chunk == chunks - 1;
      const index_type c0 = (g0 + gi) * cells;
      const int nc = static_cast<int>(p.C - c0 < cells ? p.C - c0 : cells);
      const int units = nc * per;
      const int packs = ((K - chunk * kc < kc ? K - chunk * kc : kc) + V - 1) / V;
      T* const dst = p.out + c0 * p.o_c;
      const int oskew = static_cast<int>((reinterpret_cast<std::uintptr_t>(dst) / sizeof(T)) % V);
      T* const out = (alias ? bp : so) + oskew;
      if (alias) {  // one unit a thread; the buffer takes the sums once every thread has read it
        if (rank < units) tile(bp, oa, ob, packs, acc, chunk == 0);
        if (last) {
          m.team_barrier();
          if (rank < units) put(rank, nl, nr, per, acc, out);
        }
      } else {  // host teams: the units in turn, one pass; GPU teams: one unit a thread
        for (int u = rank; u < units; u += size) {
          unit_rows(u, nl, nr, per, oa, ob);
          tile(bp, oa, ob, packs, acc, chunk == 0);
          if (last) put(u, nl, nr, per, acc, out);
        }
      }
      if (last) {
        m.team_barrier();
        write_out(m, c0, nc, out);
      }
      m.team_barrier();  // the buffer is free again
    }
  }

  // How a thread copies rows while staging: a row is taken by g threads (the power of two from a
  // pass's kc up to 32), this thread's first row r0 = rank / g and index k = rank mod g, `step`
  // rows at a time (fixed for the launch, so computed once).
  struct StageGeom {
    int g = 1, step = 1, r0 = 0, k = 0;
  };
  template <class Member>
  GRAIN_INLINE_FUNCTION StageGeom stage_geom(const Member& m) const {
    StageGeom sg;
    const int size = m.team_size();
    while (sg.g < kc && sg.g < 32 && sg.g < size) sg.g *= 2;
    sg.step = size / sg.g, sg.r0 = m.team_rank() / sg.g, sg.k = m.team_rank() % sg.g;
    return sg;
  }

  // Copies indices 0 .. n of `rows` rows K apart from src (cp.async, one element each) into
  // rows ks apart from dst, and zeroes each row's elements n .. the next whole pack. Four rows a
  // loop step, with 32-bit offsets from the two bases: a row a step with stepped 64-bit pointers
  // takes 16 instructions a copy, a third of the kernel's instructions.
  template <class Member>
  GRAIN_INLINE_FUNCTION void stage_rows(const Member& m, const StageGeom& sg, const T* src, int rows, int n,
                                        T* dst) const {
    const int K = static_cast<int>(p.K);
    if (sg.r0 < sg.step) {
      const int ss = sg.step * K, ds = sg.step * ks;
      for (int k = sg.k; k < n; k += sg.g) {
        const T* const s = src + k;
        T* const d = dst + k;
        int row = sg.r0, so = sg.r0 * K, dof = sg.r0 * ks;
        for (; row + 3 * sg.step < rows; row += 4 * sg.step, so += 4 * ss, dof += 4 * ds) {
          m.copy_async(d + dof, s + so);
          m.copy_async(d + dof + ds, s + so + ss);
          m.copy_async(d + dof + 2 * ds, s + so + 2 * ss);
          m.copy_async(d + dof + 3 * ds, s + so + 3 * ss);
        }
        for (; row < rows; row += sg.step, so += ss, dof += ds) m.copy_async(d + dof, s + so);
      }
    }
    const int end = (n + V - 1) / V * V;
    if (end > n)
      for (int row = m.team_rank(); row < rows; row += m.team_size())
        for (int e = n; e < end; ++e) dst[row * ks + e] = T(0);
  }

  // A unit's (c, lb, rb) rows: offsets of its MB left and NB right rows within a pass's buffer
  // (the same for every pass), rows and fields past L or R clamped to the last one.
  GRAIN_INLINE_FUNCTION void unit_rows(int u, int nl, int nr, int per, int (&oa)[MB], int (&ob)[NB]) const {
    const int L = static_cast<int>(p.L), R = static_cast<int>(p.R);
    const int c = u / per, q = u - c * per, lb = q / nr, rb = q - lb * nr;
#pragma unroll
    for (int i = 0; i < MB; ++i) oa[i] = (c * L + (lb + i * nl < L ? lb + i * nl : L - 1)) * ks;
#pragma unroll
    for (int j = 0; j < NB; ++j) ob[j] = (cells * L + c * R + (rb + j * nr < R ? rb + j * nr : R - 1)) * ks;
  }

  // acc (zeroed first where `zero`) += the products of a unit's rows (unit_rows: oa, ob past the
  // buffer bp) over the pass's `packs` 16-byte packs of staged indices.
  GRAIN_INLINE_FUNCTION void tile(const T* bp, const int (&oa)[MB], const int (&ob)[NB], int packs, T (&acc)[MB][NB],
                                  bool zero) const {
    const P* xa[MB];
    const P* xb[NB];
#pragma unroll
    for (int i = 0; i < MB; ++i) xa[i] = reinterpret_cast<const P*>(bp + oa[i]);
#pragma unroll
    for (int j = 0; j < NB; ++j) xb[j] = reinterpret_cast<const P*>(bp + ob[j]);
    if (zero) {
#pragma unroll
      for (int i = 0; i < MB; ++i)
#pragma unroll
        for (int j = 0; j < NB; ++j) acc[i][j] = T(0);
    }
    for (int kv = 0; kv < packs; ++kv) {
      P x[MB];
#pragma unroll
      for (int i = 0; i < MB; ++i) x[i] = xa[i][kv];
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        const P y = xb[j][kv];
#pragma unroll
        for (int i = 0; i < MB; ++i)
#pragma unroll
          for (int e = 0; e < V; ++e) acc[i][j] += x[i].v[e] * y.v[e];
      }
    }
  }

  // Unit u's sums into the group's outputs in scratch, (c, l, r) at (c L + l) R + r.
  GRAIN_INLINE_FUNCTION void put(int u, int nl, int nr, int per, const T (&acc)[MB][NB], T* so) const {
    const int L = static_cast<int>(p.L), R = static_cast<int>(p.R);
    const int c = u / per, q = u - c * per, lb = q / nr, rb = q - lb * nr;
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
      for (int j = 0; j < NB; ++j)
        if (lb + i * nl < L && rb + j * nr < R) so[(c * L + lb + i * nl) * R + rb + j * nr] = acc[i][j];
  }

  // The group's outputs from scratch (element e at so[e], so 16-byte aligned where out + c0 o_c
  // is) to out: one run of 16-byte stores where the outputs lie back to back, else one output
  // at a time.
  template <class Member>
  GRAIN_INLINE_FUNCTION void write_out(const Member& m, index_type c0, int nc, const T* so) const {
    const int L = static_cast<int>(p.L), R = static_cast<int>(p.R), n = nc * L * R;
    const ContractProblem<T>& q = p;
    if (p.o_r == 1 && p.o_l == p.R && p.o_c == p.L * p.R) {
      T* dst = p.out + c0 * p.o_c;
      const int oskew = static_cast<int>((reinterpret_cast<std::uintptr_t>(dst) / sizeof(T)) % V);
      const int head = (V - oskew) % V < n ? (V - oskew) % V : n;
      const int packs = (n - head) / V, tail = head + packs * V;
      const P* sp = reinterpret_cast<const P*>(so + head);
      P* dp = reinterpret_cast<P*>(dst + head);
      const bool add = p.sum_into;
      parallel_for(TeamThreadRange(m, packs + head + (n - tail)), [&](index_type i) {
        if (i < packs) {
          P v = sp[i];
          if (add) {
            const P o = dp[i];
            for (int e = 0; e < V; ++e) v.v[e] += o.v[e];
          }
          dp[i] = v;
        } else {
          const int e = static_cast<int>(i - packs) < head ? static_cast<int>(i - packs) : tail + static_cast<int>(i - packs) - head;
          dst[e] = add ? dst[e] + so[e] : so[e];
        }
      });
    } else {
      parallel_for(TeamThreadRange(m, n), [&](index_type i) {
        const int e = static_cast<int>(i), c = e / (L * R), l = (e - c * L * R) / R, r = e - c * L * R - l * R;
        q.store(c0 + c, l, r, so[e]);
      });
    }
  }
};

// A: partial sums of each thread's strided dot products; F: fields a thread (DataField: the data
// row read once for F field rows, dot_strided_rows), so a thread keeps A (F + 1) loads in flight;
// W: groups of F fields a team, one per thread group (the data row shared in L1).
template <class T, int A = 2, int F = 1, int W = 1>
struct ContractTeamSmallKCellsKernel {
  ContractProblem<T> p;
  int slices;  // of K, per cell
  static constexpr index_type G = 32;  // cells per team
  static constexpr int fields = F * W, thread_groups = W;
  static index_type league(const ContractProblem<T>& q) { return (q.C + G - 1) / G * q.L * ((q.R + fields - 1) / fields); }
  template <class Member>
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    constexpr int FW = F * W;
    // Groups of F W fields fastest, then l, then the cell group.
    const index_type groups = (p.R + FW - 1) / FW;
    const index_type rt = m.league_rank() % groups * FW, q = m.league_rank() / groups;
    const index_type l = q % p.L, g = q / p.L;
    T* part = m.team_scratch(0).template get<T>(static_cast<std::size_t>(G * slices * FW));
    const index_type per = (p.K + slices - 1) / slices;
    const ContractProblem<T>& pp = p;
    parallel_for(TeamThreadRange(m, G * slices * W), [&](index_type t) {
      const index_type c = g * G + t % G, s = W == 1 ? t / G : t / G % slices;
      const int w = W == 1 ? 0 : static_cast<int>(t / (G * slices));
      const index_type r0 = rt + w * F;
      const int nf = FW == 1 || pp.R - r0 >= F ? F : pp.R > r0 ? static_cast<int>(pp.R - r0) : 0;
      const index_type k0 = s * per, k1 = k0 + per < pp.K ? k0 + per : pp.K;
      T v[F];
      for (int f = 0; f < F; ++f) v[f] = T(0);
      if (c < pp.C && k0 < k1 && nf > 0) {
        const T* a = pp.a + c * pp.a_c + l * pp.a_l;
        const T* b = pp.b + c * pp.b_c + r0 * pp.b_r;
        if (pp.K1 == 1) {
          if constexpr (F == 1) {
            v[0] = dot_strided<A>(a + k0 * pp.a_s0, pp.a_s0, b + k0 * pp.b_s0, pp.b_s0, k1 - k0);
          } else if (nf == F) {
            dot_strided_rows<A, F>(a + k0 * pp.a_s0, pp.a_s0, b + k0 * pp.b_s0, pp.b_s0, pp.b_r, k1 - k0, v);
          } else {  // the last group of fields, short of F
            for (int f = 0; f < nf; ++f)
              v[f] = dot_strided<A>(a + k0 * pp.a_s0, pp.a_s0, b + f * pp.b_r + k0 * pp.b_s0, pp.b_s0, k1 - k0);
          }
        } else {
          for (index_type k = k0; k < k1; ++k) {
            const T x = a[pp.a_k(k)];
            for (int f = 0; f < nf; ++f) v[f] += x * b[f * pp.b_r + pp.b_k(k)];
          }
        }
      }
      for (int f = 0; f < F; ++f) part[((w * F + f) * slices + s) * G + t % G] = v[f];
    });
    m.team_barrier();
    parallel_for(TeamThreadRange(m, G * FW), [&](index_type t) {
      const index_type c = g * G + t % G;
      const int f = FW == 1 ? 0 : static_cast<int>(t / G);
      if (c >= pp.C || rt + f >= pp.R) return;
      const T* pf = part + f * slices * G + t % G;
      T sum = pf[0];
      for (int s = 1; s < slices; ++s) sum += pf[s * G];
      pp.store(c, l, rt + f, sum);
    });
  }
};

template <class Exec, class T, int Depth>
void contract_team_depth(const ContractProblem<T>& p) {
  const index_type nthr = Depth == 1 ? p.x[2] : p.x[1] * p.x[2];
  const int team = static_cast<int>(std::min<index_type>(std::max<index_type>(nthr, 1), 256));
  parallel_for(contract_team_policy<Exec>(p.C * p.L * p.R, team),
               ContractTeamDepthKernel<T, Depth>{p, p.cells_fastest()});
}

template <class Exec, class T>
void contract_team_stride(const ContractProblem<T>& p) {
  parallel_for(contract_team_policy<Exec>(p.C * p.L * p.R, 32),
               ContractTeamStrideKernel<T>{p, p.cells_fastest()});
}

// Double DataField rows at least this long (LayoutLeft, on the GPU): a team's threads take two
// fields each over 4 slices of K (the data row read once for both; 6 loads in flight) instead of
// one field over 8 slices: faster on the longest rows (DataFieldTensor Q4 double, K = 1944), level
// at K = 576-648; in float, fields a thread gain nothing (measured).
inline constexpr index_type kSmallKFieldPairsK = 1024;

template <class Exec, class T>
void contract_team_small_k(const ContractProblem<T>& p) {
  if (p.cells_fastest()) {
    // 8 slices of K, each thread 2 loads in flight; DataField in float: 8 loads in flight, over
    // 4 slices up to 35000 outputs and 2 above. Where float takes 2 slices, a team takes two
    // fields, one per 64 threads, which meet in L1 on their cells' data row (with one field a
    // team, every field's team would re-read the row from L2, twice the field's bytes of L2
    // traffic), with 4 partial sums a thread: 56 registers, as the one-field kernel, so 9 teams
    // of 128 fit an SM and every team of such a case runs at once, as long teams must. DataField
    // in double from K = 1024 on the GPU: two fields a thread over 4 slices (kSmallKFieldPairsK).
    // A host team is one thread, with one slice.
    const bool float_fields = sizeof(T) == 4 && p.L == 1 && p.R > 1;
    constexpr bool gpu_double = sizeof(T) == 8 && !is_host_execution_space_v<Exec>;
    const bool field_pairs = gpu_double && p.L == 1 && p.R > 1 && p.K >= kSmallKFieldPairsK;
    const int slices = is_host_execution_space_v<Exec> ? 1 : float_fields ? (p.C * p.R <= 35000 ? 4 : 2) : field_pairs ? 4 : 8;
    auto launch = [&](auto kernel) {
      using K = decltype(kernel);
      auto policy = contract_team_policy<Exec>(K::league(p), static_cast<int>(K::G) * kernel.slices * K::thread_groups);
      policy.set_scratch_size(0, PerTeam(static_cast<std::size_t>(K::G * kernel.slices * K::fields) * sizeof(T)));
      parallel_for(policy, kernel);
    };
    if constexpr (!is_host_execution_space_v<Exec> && sizeof(T) == 4) {
      if (float_fields && slices == 2) return launch(ContractTeamSmallKCellsKernel<T, 4, 1, 2>{p, slices});
    }
    if (float_fields) return launch(ContractTeamSmallKCellsKernel<T, 8>{p, slices});
    if constexpr (gpu_double) {
      if (field_pairs) return launch(ContractTeamSmallKCellsKernel<T, 2, 2>{p, slices});
    }
    launch(ContractTeamSmallKCellsKernel<T, 2>{p, slices});
    return;
  }
  // Lanes over K: K or r is the unit-stride index here, never the cell. With K unit-stride and
  // aligned, a lane takes 16 bytes at a time (V elements), and the lanes cover K / V.
  const index_type outputs = p.C * p.L * p.R;
  constexpr int V = 16 / sizeof(T);
  const bool pack = p.k_packed();
  if (p.k_cells()) {
    // Whole small cells staged through scratch (stage_cells_shape, problem.hpp); a host team is
    // one thread, which fills its scratch with one cell at a time.
    int cells = 1, rows = 1, lanes = 1;
    if constexpr (!is_host_execution_space_v<Exec>) stage_cells_shape<T>(p.K, p.L, p.R, cells, rows, lanes);
    ContractTeamSmallKCellBlocksKernel<T> kernel{p, cells};
    if (lanes == 1 && pack && p.R % 4 == 0) {
      // Four fields a thread: as many threads as the team has units, up to kStageRowsThreads.
      const index_type units = static_cast<index_type>(cells) * p.L * (p.R / 4);
      if constexpr (!is_host_execution_space_v<Exec>)
        rows = static_cast<int>(units < kStageRowsThreads ? (units + 31) / 32 * 32 : kStageRowsThreads);
      stage_cells_quad_rotation<T>(p.K, p.L, p.R, rows, kernel.rot_l, kernel.rot_q);
    }
    auto policy = contract_team_policy<Exec>((p.C + cells - 1) / cells, rows, lanes);
    policy.set_scratch_size(0, PerTeam(stage_cells_bytes<T>(cells, p.L, p.R, p.K)));
    parallel_for(policy, kernel);
    return;
  }
  if (p.k_cell_tiles()) {
    // Larger cells: register tiles of staged cells (cell_tiles_shape, problem.hpp).
    const CellTilesShape s = cell_tiles_shape(p, is_host_execution_space_v<Exec>);
    const index_type all = (p.C + s.cells - 1) / s.cells;
    auto policy = contract_team_policy<Exec>((all + s.groups - 1) / s.groups, s.threads);
    policy.set_scratch_size(0, PerTeam(s.bytes));
    parallel_for(policy, ContractTeamSmallKCellTilesKernel<T>{p, s.cells, s.groups, s.kc, s.ks, s.two, s.alias});
    return;
  }
  if (p.stage_rows()) {
    // Rows staged through scratch; the team's shape from stage_rows_shape (problem.hpp); a host
    // team is one thread, which fills its scratch with 8 rows at a time.
    int rows = 8, lanes = 1;
    if constexpr (!is_host_execution_space_v<Exec>) stage_rows_shape<T>(p.K, p.R, rows, lanes);
    auto policy = contract_team_policy<Exec>((outputs + rows - 1) / rows, rows, lanes);
    policy.set_scratch_size(0, PerTeam(stage_rows_bytes<T>(rows, p.R, p.K)));
    const ContractTeamSmallKRowsKernel<T> kernel{p, outputs, rows};
    parallel_for(policy, kernel);
    return;
  }
  const index_type steps = pack ? p.K / V : p.K;
  const int lanes = static_cast<int>(small_k_lanes(steps));
  const int per_team = is_host_execution_space_v<Exec> ? 1 : 256 / lanes;
  const index_type league = (outputs + per_team - 1) / per_team;
  if (pack)
    parallel_for(contract_team_policy<Exec>(league, per_team, lanes),
                 ContractTeamSmallKKernel<T, V>{p, false, outputs});
  else
    parallel_for(contract_team_policy<Exec>(league, per_team, lanes),
                 ContractTeamSmallKKernel<T>{p, false, outputs});
}

}  // namespace grain::impl
