// Algorithm::Mma: FieldField on the GPU's tensor cores (CUDA builds only), for cells-fastest
// operands (LayoutLeft left, right and out) and for operands whose rows are unit-stride along K
// (LayoutRight). LayoutRight runs, on 9.0 and newer, the rows kernel (below: a cell's 64 x 64
// tile over copies along K) in double for L, R > 32 and in float for the cells rows_default names;
// float's warpgroup kernel through its TMA row copies where they apply (wgmma_k_rows); otherwise
// the copied kernel over their strides (correct, not fast: its runs are single elements there;
// Auto takes blas).
//   double: the FP64 tensor cores (DMMA: mma.sync m16n8k4 on compute capability 9.0, twice the
//           rate of the m8n8k4 that 8.x has), exact double arithmetic;
//   float:  TF32 tensor cores in the 3xTF32 split (mma.sync m16n8k8): each operand x is split
//           into big = tf32(x) and small = x - big (its low bits unused by the MMA: split_tf32),
//           and big*big + big*small + small*big is accumulated in fp32. The dropped small*small
//           term and the rounding of small leave a relative error of about 2^-21 per product, a
//           few fp32 ulps, where one plain TF32 product loses 2^-11 (tests/contract checks it).
//
// Why a kernel of its own: in LayoutLeft the unit-stride index is the cell, so no GEMM library
// can read a cell's matrices, and the portable `block` kernel runs the cell's GEMM on the FMA
// pipes, latency-bound at a quarter of their peak. Here a block of the
// copied kernel takes G consecutive cells and a (32 WL) x (32 WR) tile of their outputs, one warp
// per 32 x 32 part (8 cells, one warp each):
//   * staging: every thread copies elements global -> shared with cp.async, mapped so that G
//     neighbouring threads read G neighbouring cells (64 contiguous bytes in double, 32 in
//     float, for G = 8), in a pipeline of 4 (double) or 2 (float) stages of KC contracted indices
//     (zero-filled past L, R, K and C);
//   * compute: each warp owns one cell's 32 x 32 tile (32 accumulators per thread): per chunk it
//     loads its left and right fragments from shared memory and issues 8 m16n8k4 (or 16 m8n8k4)
//     DMMAs per 4 indices (double) or 8 x 3 TF32 MMAs per 8 indices (float);
//   * results go through shared memory so the stores, too, are cell-contiguous.
// Shared-memory strides are padded so fragment loads, staging stores and the result pass are
// free of bank conflicts (the pads are searched at compile time, and checked by static_assert).
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_per_device.hpp"
#include "grain/core/backend/cuda_runtime.hpp"
#include "mma_common.cuh"
#include "wgmma.hpp"

namespace grain::impl {
namespace {

constexpr int kTile = 32;  // a warp's outputs: kTile x kTile of one cell

// A block's shape: G consecutive cells, each with a WL x WR grid of warps, each warp one 32 x 32
// tile, so the block covers (32 WL) x (32 WR) outputs of G cells. Larger per-cell tiles read each
// staged row fewer times (a cell's left rows are re-read once per tile column, its right rows once
// per tile row); more cells make longer contiguous runs (G elements of one (row, k)).
template <int G_, int WL_, int WR_>
struct MmaBlock {
  static constexpr int G = G_, WL = WL_, WR = WR_;
  static constexpr int warps = G * WL * WR, threads = 32 * warps;
  static constexpr int TL = kTile * WL, TR = kTile * WR;
};

// Whether one warp's shared-memory access (the lanes' element offsets, elements of E = 4 or 8
// bytes, distinct addresses) takes the fewest wavefronts: 8-byte accesses at most 2 lanes per
// 8-byte slot of a 128-byte line (2 wavefronts), 4-byte ones 1 lane per bank.
template <int E>
constexpr bool conflict_free(const int (&off)[32]) {
  constexpr int slots = E == 8 ? 16 : 32;
  int count[32] = {};
  for (int i = 0; i < 32; ++i) ++count[((off[i] % slots) + slots) % slots];
  for (int s = 0; s < slots; ++s)
    if (count[s] > 32 / slots) return false;
  return true;
}

// Staging stores: lane i writes cell i % G, contracted index (i / G) % KC, row i / (G KC) of a
// stage laid out as [cell][row][k] with a row stride rs and a cell stride rows * rs + pad. The
// smallest pad that makes them conflict-free (rows = the operand's rows in the block).
template <int E, int G, int KC, int rows, int rs>
constexpr int staging_pad() {
  constexpr int period = E == 8 ? 16 : 32;
  for (int pad = 0; pad < period; ++pad) {
    int off[32] = {};
    for (int i = 0; i < 32; ++i)
      off[i] = (i % G) * (rows * rs + pad) + ((i / (G * KC)) % rows) * rs + (i / G) % KC;
    if (conflict_free<E>(off)) return pad;
  }
  return -1;
}

// Results leave through shared memory: warp w's 32 x 32 tile at w * oc, rows kOutRow apart. A
// lane writes 2 elements of a row (8-byte stores in float, 16-byte in double): a row stride of 40
// elements puts the 8 rows of a store phase in distinct banks. The read-back takes G cells x 32/G
// columns of one row per warp instruction (cells fastest, as they are stored); where the output
// allows stores of V = 2 or 4 neighbouring cells (8 or 16 bytes), lane i reads cell
// V (i % (G / V)) + v of column i / (G / V), for each v. The warp stride's pad is the smallest even
// one that keeps every such read-back conflict-free.
constexpr int kOutRow = kTile + 8;
template <int E, int G>
constexpr int out_cell() {
  constexpr int period = E == 8 ? 16 : 32;
  for (int pad = 0; pad < period; pad += 2) {  // even: the tile writes are 8- or 16-byte stores
    const int oc = kTile * kOutRow + pad;
    bool ok = true;
    for (int V = 1; V <= 16 / E && V <= G; V *= 2) {
      int off[32] = {};  // cell c's warp for a given (wl, wr) is c + G (wl + WL wr): cells one tile apart
      for (int i = 0; i < 32; ++i) off[i] = V * (i % (G / V)) * oc + i / (G / V);
      ok = ok && conflict_free<E>(off);
    }
    if (ok) return oc;
  }
  return -1;
}

// The row stride (elements) of a stage laid out [row][k] with KC contracted indices: a warp's
// fragment loads (rows lane/4, index lane%4; float: lanes read rows 0-7 x k 0-3 of 4-byte words,
// double: lanes 0-15 rows 0-3 x k 0-3 of 8-byte words) fall in distinct banks with a stride of
// 12 words (float) or of 4 or 12 doubles (mod 16); mma_fragments_ok checks it.
template <int E>
constexpr int mma_row_stride(int KC) {
  return E == 8 ? (KC % 8 == 4 ? KC : KC + 4) : (KC % 32 == 8 ? KC + 4 : KC + 12);
}
template <int E>
constexpr bool mma_fragments_ok(int rs) {
  int off[32] = {};
  for (int i = 0; i < 32; ++i) off[i] = (i >> 2) * rs + (i & 3);
  return conflict_free<E>(off);
}

// The pipeline's shape: KC contracted indices per stage, NS stages in shared memory.
template <class T, class B, int KC, int NS>
struct MmaShape {
  static constexpr int E = static_cast<int>(sizeof(T));
  static_assert(KC % (E == 8 ? 4 : 8) == 0 && B::threads % (B::G * KC) == 0 && NS >= 2, "bad mma pipeline shape");
  static constexpr int rs = mma_row_stride<E>(KC);  // fragment loads conflict-free
  static constexpr int row_step = B::threads / (B::G * KC);  // staging rows s_row + row_step j
  static_assert(B::TL % row_step == 0 && B::TR % row_step == 0, "bad mma staging shape");
  static constexpr int Ja = B::TL / row_step, Jb = B::TR / row_step;
  static constexpr int pad_a = staging_pad<E, B::G, KC, B::TL, rs>();
  static constexpr int pad_b = staging_pad<E, B::G, KC, B::TR, rs>();
  static_assert(pad_a >= 0 && pad_b >= 0, "no conflict-free staging layout");
  static constexpr int cs_a = B::TL * rs + pad_a, cs_b = B::TR * rs + pad_b;  // cell strides
  static constexpr int operand_a = B::G * cs_a;  // the left operand of one stage, in elements
  static constexpr int stage = operand_a + B::G * cs_b;
  static constexpr int oc = out_cell<E, B::G>();
  static_assert(oc > 0, "no conflict-free result layout");
  // The result tiles reuse the staging buffers.
  static constexpr int smem_elems = NS * stage > B::warps * oc ? NS * stage : B::warps * oc;
  static constexpr int smem_bytes = smem_elems * E;
  static_assert(smem_bytes <= 227 * 1024, "mma configuration needs more shared memory than a block gets");
  static_assert(mma_fragments_ok<E>(rs), "fragment loads would conflict");
};

// cp.async and the DMMA / TF32 MMAs exist from compute capability 8.0; the host refuses older
// devices, and a build for them compiles these to a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GRAIN_MMA_DEVICE 1
#endif

// PF = 128: the copy also asks the L2 to fetch the 128-byte block around it (cp.async's .L2::128B
// prefetch size); 0: a plain copy.
template <int PF, class T>
__device__ __forceinline__ void cp_async(T* dst, const T* src, int bytes) {
  static_assert(PF == 0 || PF == 128, "cp_async: prefetch size 0 or 128");
#ifdef GRAIN_MMA_DEVICE
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  constexpr int E = static_cast<int>(sizeof(T));
  if constexpr (PF == 128)
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(E), "r"(bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(E), "r"(bytes) : "memory");
#else
  (void)dst, (void)src, (void)bytes;
  __trap();
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifdef GRAIN_MMA_DEVICE
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#ifdef GRAIN_MMA_DEVICE
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// d (8 x 8, two per lane: row lane/4, columns 2(lane%4) + {0,1}) += a (8 x 4: row lane/4,
// column lane%4) * b (4 x 8: row lane%4, column lane/4).
__device__ __forceinline__ void dmma8(double (&d)[2], double a, double b) {
#ifdef GRAIN_MMA_DEVICE
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}

// The same product over 16 rows (compute capability 9.0): d0, d1 as dmma8's pair for row g =
// lane/4, d2, d3 for row g + 8; a0 = a(g, lane%4), a1 = a(g + 8, lane%4); b as in dmma8.
__device__ __forceinline__ void dmma16(double& d0, double& d1, double& d2, double& d3, double a0, double a1,
                                       double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
               : "d"(a0), "d"(a1), "d"(b));
#else
  (void)d0, (void)d1, (void)d2, (void)d3, (void)a0, (void)a1, (void)b;
  __trap();
#endif
}

// d (16 x 8: rows g, g + 8, columns 2t, 2t + 1 with g = lane/4, t = lane%4) += a (16 x 8: rows
// g, g + 8, columns t, t + 4) * b (8 x 8: rows t, t + 4, column g), TF32 inputs, fp32 sums.
__device__ __forceinline__ void tf32mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#ifdef GRAIN_MMA_DEVICE
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}

// A warp's accumulators: I x J MMA tiles of E results per lane.
template <class T, int I, int J, int E>
struct MmaAccumulators {
  T acc[I][J][E];
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < I; ++i)
#pragma unroll
      for (int j = 0; j < J; ++j)
#pragma unroll
        for (int e = 0; e < E; ++e) acc[i][j][e] = T(0);
  }
};

// A warp's 32 x 32 tile of one cell, in double: 4 x 4 result tiles of 8 x 8. Wide = true issues
// them as 2 x 4 products of 16 x 8 (m16n8k4, Hopper), which the FP64 tensor cores run at twice the
// rate of m8n8k4; the fragments are the same.
template <bool Wide>
struct DmmaTile : MmaAccumulators<double, 4, 4, 2> {
  // fa, fb: this lane's fragment element (row lane/4, index lane%4) of the stage's left and right
  // operands; KC contracted indices, rows rs apart.
  template <int KC, int rs>
  __device__ __forceinline__ void multiply(const double* fa, const double* fb) {
#pragma unroll
    for (int kk = 0; kk < KC; kk += 4) {
      double a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = fa[i * 8 * rs + kk];
        b[i] = fb[i * 8 * rs + kk];
      }
#pragma unroll
      for (int i = 0; i < 4; i += Wide ? 2 : 1)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if constexpr (Wide)
            dmma16(acc[i][j][0], acc[i][j][1], acc[i + 1][j][0], acc[i + 1][j][1], a[i], a[i + 1], b[j]);
          else
            dmma8(acc[i][j], a[i], b[j]);
        }
    }
  }
  // Into so (row stride kOutRow): this lane's two neighbouring results of each 8 x 8 tile.
  __device__ __forceinline__ void write(double* so, int lane) const {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        double2 v;
        v.x = acc[i][j][0];
        v.y = acc[i][j][1];
        *reinterpret_cast<double2*>(so + (i * 8 + (lane >> 2)) * kOutRow + j * 8 + 2 * (lane & 3)) = v;
      }
  }
};

// The same tile in float: 2 x 4 TF32 tiles of 16 x 8, each product as three MMAs (3xTF32).
struct Tf32x3Tile : MmaAccumulators<float, 2, 4, 4> {
  template <int KC, int rs>
  __device__ __forceinline__ void multiply(const float* fa, const float* fb) {
#pragma unroll
    for (int kk = 0; kk < KC; kk += 8) {
      std::uint32_t ab[2][4], as[2][4], bb[4][2], bs[4][2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float* r0 = fa + i * 16 * rs + kk;  // rows g and g + 8, indices t and t + 4
        split_tf32(r0[0], ab[i][0], as[i][0]);
        split_tf32(r0[8 * rs], ab[i][1], as[i][1]);
        split_tf32(r0[4], ab[i][2], as[i][2]);
        split_tf32(r0[8 * rs + 4], ab[i][3], as[i][3]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float* r0 = fb + j * 8 * rs + kk;  // row (field) g, indices t and t + 4
        split_tf32(r0[0], bb[j][0], bs[j][0]);
        split_tf32(r0[4], bb[j][1], bs[j][1]);
      }
      // The small cross terms first, then big * big (the order CUTLASS's 3xTF32 uses: the small
      // terms are summed before the large one swamps them).
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          tf32mma(acc[i][j], as[i], bb[j]);
          tf32mma(acc[i][j], ab[i], bs[j]);
          tf32mma(acc[i][j], ab[i], bb[j]);
        }
    }
  }
  __device__ __forceinline__ void write(float* so, int lane) const {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float2 v;
          v.x = acc[i][j][2 * h];
          v.y = acc[i][j][2 * h + 1];
          *reinterpret_cast<float2*>(so + (i * 16 + h * 8 + g) * kOutRow + j * 8 + 2 * t) = v;
        }
  }
};

// A configuration of the copied kernel: the block shape, the pipeline, in double the DMMA shape,
// and the copies' L2 prefetch size.
template <class T, class B, int KC, int NS, bool Wide, int PF>
struct CopiedConfig {
  using Block = B;
  using Shape = MmaShape<T, B, KC, NS>;
  using Tile = std::conditional_t<std::is_same_v<T, double>, DmmaTile<Wide>, Tf32x3Tile>;
  static constexpr int kc = KC, ns = NS, pf = PF;
};

template <class T, class Cfg>
__global__ void __launch_bounds__(Cfg::Block::threads, Cfg::Block::threads >= 512 ? 1 : 2)
    contract_mma_kernel(const ContractProblem<T> p, const index_type tiles_l, const index_type tiles_r,
                        const int out_vec) {
  using B = typename Cfg::Block;
  using S = typename Cfg::Shape;
  constexpr int KC = Cfg::kc, NS = Cfg::ns, G = B::G;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const index_type tiles = tiles_l * tiles_r;
  const index_type group = blockIdx.x / tiles, t = blockIdx.x % tiles;  // tiles of a cell group adjacent: L2 reuse
  const index_type c0 = group * G, l0 = (t / tiles_r) * B::TL, r0 = (t % tiles_r) * B::TR;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // Staging role: cell s_cell, contracted index s_k of the chunk, rows s_row + row_step j.
  // What does not change along K is computed once: the first row of each operand, the distance
  // between this thread's rows and how many of them exist (none for a cell past C), so the integer
  // pipe is not busy with addresses and bounds per copy.
  const int s_cell = tid % G, s_k = (tid / G) % KC, s_row = tid / (G * KC);
  const index_type c = c0 + s_cell;
  const bool c_ok = c < p.C;
  const index_type c_in = c_ok ? c : 0;
  const T* a_row = p.a + c_in * p.a_c + (l0 + s_row) * p.a_l;
  const T* b_row = p.b + c_in * p.b_c + (r0 + s_row) * p.b_r;
  const index_type a_step = S::row_step * p.a_l, b_step = S::row_step * p.b_r;
  auto rows_in = [&](index_type left, int J) -> int {  // j < J with s_row + row_step j < left
    if (!c_ok || left <= s_row) return 0;
    const index_type n = (left - s_row + S::row_step - 1) / S::row_step;
    return n < J ? static_cast<int>(n) : J;
  };
  const int na = rows_in(p.L - l0, S::Ja), nb = rows_in(p.R - r0, S::Jb);
  T* const sa_base = smem + s_cell * S::cs_a + s_row * S::rs + s_k;
  T* const sb_base = smem + S::operand_a + s_cell * S::cs_b + s_row * S::rs + s_k;
  auto stage = [&](int buf, index_type k0) {
    const index_type k = k0 + s_k;
    const bool k_ok = k < p.K;
    const T* ak = a_row + (k_ok ? p.a_k(k) : 0);
    const T* bk = b_row + (k_ok ? p.b_k(k) : 0);
    T* sa = sa_base + buf * S::stage;
    T* sb = sb_base + buf * S::stage;
    constexpr int bytes = static_cast<int>(sizeof(T));
#pragma unroll
    for (int j = 0; j < S::Ja; ++j) {
      const bool in = k_ok && j < na;
      cp_async<Cfg::pf>(sa + j * S::row_step * S::rs, in ? ak + j * a_step : p.a, in ? bytes : 0);
    }
#pragma unroll
    for (int j = 0; j < S::Jb; ++j) {
      const bool in = k_ok && j < nb;
      cp_async<Cfg::pf>(sb + j * S::row_step * S::rs, in ? bk + j * b_step : p.b, in ? bytes : 0);
    }
  };

  typename Cfg::Tile tile;
  tile.zero();

  // This warp's tile: cell w_cell, rows w_l * 32 on, columns w_r * 32 on. This lane's fragment
  // element: row lane/4, contracted index lane%4 (the same for both operands).
  const int w_cell = warp % G, w_l = (warp / G) % B::WL, w_r = warp / (G * B::WL);
  const int frag = (lane >> 2) * S::rs + (lane & 3);
  const T* frag_a = smem + w_cell * S::cs_a + w_l * kTile * S::rs + frag;
  const T* frag_b = smem + S::operand_a + w_cell * S::cs_b + w_r * kTile * S::rs + frag;
  const index_type chunks = (p.K + KC - 1) / KC;
  // NS - 1 chunks in flight ahead of the one being multiplied; a group is committed every step
  // (empty at the tail) so wait_group's count stays uniform.
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {
    if (s < chunks) stage(s, static_cast<index_type>(s) * KC);
    cp_async_commit();
  }
  for (index_type ch = 0; ch < chunks; ++ch) {
    cp_async_wait<NS - 2>();  // chunk ch has landed (this thread's copies) ...
    __syncthreads();          // ... everyone's; and everyone is done with chunk ch - 1's buffer
    if (ch + NS - 1 < chunks) stage(static_cast<int>((ch + NS - 1) % NS), (ch + NS - 1) * KC);
    cp_async_commit();
    const int off = static_cast<int>(ch % NS) * S::stage;
    tile.template multiply<KC, S::rs>(frag_a + off, frag_b + off);
  }
  cp_async_wait<0>();
  __syncthreads();  // the staging buffers become the result buffer

  tile.write(smem + warp * S::oc, lane);
  __syncthreads();
  // The warp holding cell `cell`'s part of (row, col) of the block's tile.
  auto result = [&](int cell, int row, int col) {
    return smem[(cell + G * (row / kTile + B::WL * (col / kTile))) * S::oc + (row % kTile) * kOutRow + col % kTile];
  };
  // Thread e takes cells c0 + V q .. + V - 1 of one (row, col): V = out_vec neighbouring cells per
  // store where the output allows it (out_cells_vector), else one.
  auto store = [&](auto vec) {
    constexpr int V = decltype(vec)::value, run = G / V;
    for (int e = tid; e < run * B::TL * B::TR; e += B::threads) {
      const int q = e % run, rc = e / run, col = rc % B::TR, row = rc / B::TR;
      const index_type cc = c0 + V * q, l = l0 + row, r = r0 + col;
      if (cc < p.C && l < p.L && r < p.R) {
        Pack<T, V> v;
#pragma unroll
        for (int i = 0; i < V; ++i) v.x[i] = result(V * q + i, row, col);
        store_cells<T, V>(p.out + cc * p.o_c + l * p.o_l + r * p.o_r, v, p.sum_into);
      }
    }
  };
  if constexpr (sizeof(T) == 4 && G % 4 == 0) {
    if (out_vec == 4) return store(std::integral_constant<int, 4>{});
  }
  if constexpr (G % 2 == 0) {
    if (out_vec == 2) return store(std::integral_constant<int, 2>{});
  }
  store(std::integral_constant<int, 1>{});
}

// How many neighbouring cells (1, 2 or, in float, 4) each result store may write at once: cells
// unit-stride in the output, C and the other two strides multiples of it, the output aligned to
// it (so a store never straddles C or a row).
template <class T>
int out_cells_vector(const ContractProblem<T>& p) {
  auto fits = [&](index_type v) {
    return p.o_c == 1 && p.C % v == 0 && p.o_l % v == 0 && p.o_r % v == 0 &&
           reinterpret_cast<std::uintptr_t>(p.out) % (v * sizeof(T)) == 0;
  };
  const int widest = 16 / static_cast<int>(sizeof(T));
  for (int v = widest; v > 1; v /= 2)
    if (fits(v)) return v;
  return 1;
}

// The copied kernel's blocks go in thread-block clusters of 2 on compute capability 9.0 and newer:
// the two blocks of a cluster run in one GPC, and consecutive blocks are tiles of one cell group,
// which stage the same rows, or neighbouring cell groups, whose runs share 128-byte lines. Larger
// clusters are slower, and the persistent packed kernel, whose whole grid must be resident, takes
// none (measured).
constexpr int mma_cluster(int major) { return major >= 9 ? 2 : 1; }
template <class Kernel, class... Args>
void launch_clustered(Kernel kernel, index_type blocks, int threads, int smem, int cluster, Args... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<std::size_t>(smem);
  cudaLaunchAttribute attr[1];
  if (cluster > 1 && blocks % cluster == 0) {
    if (cluster > 8)
      cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                 "algorithm 'mma': cluster size");
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  cuda_check(cudaLaunchKernelEx(&cfg, kernel, args...), "algorithm 'mma': cudaLaunchKernelEx");
}

template <class T, class Cfg>
void launch_mma(const ContractProblem<T>& p, int cluster) {
  using B = typename Cfg::Block;
  using S = typename Cfg::Shape;
  const index_type tiles_l = (p.L + B::TL - 1) / B::TL, tiles_r = (p.R + B::TR - 1) / B::TR;
  const index_type blocks = (p.C + B::G - 1) / B::G * tiles_l * tiles_r;
  if (blocks > 0x7fffffff)
    throw_error(p.function, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  static PerDevice<bool> configured;  // a kernel attribute is the current device's
  configured.get([] {
    cuda_check(cudaFuncSetAttribute(contract_mma_kernel<T, Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    S::smem_bytes),
               "algorithm 'mma': cudaFuncSetAttribute");
    return true;
  });
  launch_clustered(contract_mma_kernel<T, Cfg>, blocks, B::threads, S::smem_bytes, cluster, p, tiles_l, tiles_r,
                   out_cells_vector(p));
  cuda_check_launch("algorithm 'mma': contract_mma_kernel");
}

// ---- Packed operands: 16-byte copies, V = 16 / sizeof(T) cells per fragment load ---------------
//
// Where every (row, k) run of cells starts on 16 bytes (mma_cells_packed: C and the strides
// multiples of V), a block takes G = 16 cells (128-byte runs in double, 64 in float) and stages
// them with 16-byte cp.async copies, V cells each, without transposing: a stage is
// [row][k][pack] with packs of V cells. Each warp owns one pack of V cells and a 32 x 16 part of
// their tiles, so one 16-byte fragment load gives it the element of all V cells: 16-byte copies of
// 16 cells make the loads cheaper than 4- and 8-byte ones (measured). Bank conflicts
// are avoided by permuting the packs of a (row, k) by an XOR with (row & 1) and k's low bits
// (pack_swizzle): the 8 lanes of a quarter-warp read 8 distinct 16-byte bank groups, and the
// copies, 8 lanes to one contiguous run, stay conflict-free.
//
// Persistent: a block per SM takes item after item (item = a cell group x an output tile),
// staging the next item's first chunks while it multiplies, writes and stores the current one, so
// the loads never stop; the results then need their own shared memory beside the stages. With
// Passes > 1 they leave in that many passes of TL / Passes rows, each through the same smaller
// buffer, which leaves room for more stages.
template <class T, int WL_, int WR_, int KC_, int NS_, bool Persistent_ = false, int Passes_ = 1>
struct PackedConfig {
  static constexpr int E = static_cast<int>(sizeof(T)), V = 16 / E, G = 16, run = G / V;
  static constexpr int WL = WL_, WR = WR_, KC = KC_, NS = NS_, passes = Passes_;
  static constexpr bool persistent = Persistent_;
  static_assert(passes == 1 || (WL_ == 1 && (passes == 2 || passes == 4)),
                "packed mma: result passes of 8 or 16 rows of one warp row");
  static constexpr int TL = 32 * WL, TR = 16 * WR;  // a cell's tile; a warp: 32 x 16 of V cells
  static constexpr int warps = run * WL * WR, threads = 32 * warps;
  static constexpr int step = E == 8 ? 4 : 8;  // contracted indices per MMA
  static_assert(KC % step == 0 && NS >= 2, "bad packed mma pipeline");
  // Staging, in 16-byte units: a row of KC x run packs.
  static constexpr int rs = KC * run, a_units = TL * rs, stage_units = (TL + TR) * rs;
  static constexpr int row_step = threads / (run * KC);  // staging rows s_row + row_step j
  static_assert(threads % (run * KC) == 0 && row_step % 2 == 0 && TL % row_step == 0 && TR % row_step == 0,
                "bad packed mma staging shape");
  static constexpr int Ja = TL / row_step, Jb = TR / row_step;
  // Results, in 16-byte units of V cells: (row, col) at row * res_row + col * res_col (+ pack).
  // double: columns 9 units apart, rows 289 (both 1 mod 8); float: columns 4 apart, rows 4 mod 8,
  // packs swizzled by the column pair (res_pack).
  static constexpr int res_col = E == 8 ? run + 1 : run;
  static constexpr int res_row = TR * res_col + (E == 8 ? 1 : 4);
  static constexpr int pass_rows = TL / passes, res_units = pass_rows * res_row;
  static constexpr int res_at = persistent ? NS * stage_units : 0;  // the results' first unit
  static constexpr int smem_bytes =
      16 * (persistent ? NS * stage_units + res_units : NS * stage_units > res_units ? NS * stage_units : res_units);
  static_assert(smem_bytes <= 227 * 1024, "packed mma configuration needs more shared memory than a block gets");
  // The pack permutation of a staged (row, k).
  static constexpr int pack_swizzle(int row, int k) {
    return E == 8 ? (row & 1) | ((k & 3) << 1) : (row & 1) | (k & 2);
  }
  static constexpr int res_unit(int row, int col, int pack) {
    return row * res_row + col * res_col + (E == 8 ? pack : pack ^ ((col >> 1) & 3));
  }
};

// The bank checks of the layouts above, evaluated at compile time over 16-byte units: a
// quarter-warp (8 lanes) must touch 8 distinct units mod 8.
constexpr bool quarter_free(const int (&u)[32]) {
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 8; ++i)
      for (int j = i + 1; j < 8; ++j)
        if ((u[8 * q + i] - u[8 * q + j]) % 8 == 0) return false;
  return true;
}
template <class P>
constexpr bool packed_layout_ok() {
  const int run = P::run;
  auto swz = [](int row, int k) { return P::pack_swizzle(row, k); };
  auto res = [](int row, int col, int pack) { return P::res_unit(row, col, pack); };
  int frag[32] = {}, copy[32] = {}, rw[32] = {}, rr[32] = {};
  for (int pw = 0; pw < run; ++pw) {
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane >> 2, t = lane & 3;
      frag[lane] = g * P::rs + t * run + (pw ^ swz(g, t));  // row g, k t (+ 8 rows, + 4 k: the same pattern)
      rw[lane] = res(g, 2 * t, pw);                          // result write: row g, column 2t
    }
    if (!quarter_free(frag) || !quarter_free(rw)) return false;
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int q = lane % run, k = (lane / run) % P::KC, row = lane / (run * P::KC);
    copy[lane] = row * P::rs + k * run + (q ^ swz(row, k));
    const int rc = lane / run;  // the store pass: pack fastest, then columns
    rr[lane] = res(rc / P::TR, rc % P::TR, q);
  }
  return quarter_free(copy) && quarter_free(rr);
}

// A warp's accumulators for the V cells of its pack x (32 x 16) and its k-step: double, m16n8k4
// DMMA (2 cells); float, 3xTF32 m16n8k8 (4 cells). fa / fb: this lane's first A / B fragment
// pack (row g, k t; column g, k t), rs packs per row.
template <class T>
struct PackedTile {
  static constexpr int V = 16 / static_cast<int>(sizeof(T));
  using Unit = Pack<T, V>;
  T acc[V][2][2][4];  // cell, 16-row tile, 8-column tile, result
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int v = 0; v < V; ++v)
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[v][i][j][e] = T(0);
  }
  template <int KC, int rs, int run>
  __device__ __forceinline__ void multiply(const Unit* fa, const Unit* fb) {
    if constexpr (std::is_same_v<T, double>) {
#pragma unroll
      for (int kk = 0; kk < KC; kk += 4) {
        Unit a[2][2], b[2];  // a: rows g, g + 8 of each 16-row tile, k t; b: column g, k t
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int h = 0; h < 2; ++h) a[i][h] = fa[(16 * i + 8 * h) * rs + kk * run];
#pragma unroll
        for (int j = 0; j < 2; ++j) b[j] = fb[8 * j * rs + kk * run];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int v = 0; v < V; ++v) {
              T(&c)[4] = acc[v][i][j];
              dmma16(c[0], c[1], c[2], c[3], a[i][0].x[v], a[i][1].x[v], b[j].x[v]);
            }
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < KC; kk += 8) {
        Unit a[2][4], b[2][2];  // a: rows g, g + 8 x k t, t + 4 (fragment order); b: k t, t + 4
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const Unit* r = fa + 16 * i * rs + kk * run;
          a[i][0] = r[0];
          a[i][1] = r[8 * rs];
          a[i][2] = r[4 * run];
          a[i][3] = r[8 * rs + 4 * run];
        }
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const Unit* r = fb + 8 * j * rs + kk * run;
          b[j][0] = r[0];
          b[j][1] = r[4 * run];
        }
#pragma unroll
        for (int v = 0; v < V; ++v) {
          std::uint32_t ab[2][4], as[2][4], bb[2][2], bs[2][2];
#pragma unroll
          for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int e = 0; e < 4; ++e) split_tf32(a[i][e].x[v], ab[i][e], as[i][e]);
#pragma unroll
          for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) split_tf32(b[j][e].x[v], bb[j][e], bs[j][e]);
#pragma unroll
          for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) {
              tf32mma(acc[v][i][j], as[i], bb[j]);
              tf32mma(acc[v][i][j], ab[i], bs[j]);
              tf32mma(acc[v][i][j], ab[i], bb[j]);
            }
        }
      }
    }
  }
  // Result (cell v, tile i, j, e): row 16 i + g + 8 (e / 2), column 8 j + 2 t + e % 2; the V cells
  // of one (row, column) leave as one pack. Pass `pass` of P::passes writes only the rows of its
  // P::pass_rows (rows counted from the pass's first; row0 = 0 when passes > 1).
  template <class P>
  __device__ __forceinline__ void write(Unit* res, int row0, int col0, int pack, int lane, int pass = 0) const {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int row = 16 * i + 8 * (e >> 1);  // the first of this result's 8 rows
          if (row / P::pass_rows != pass) continue;
          Unit u;
#pragma unroll
          for (int v = 0; v < V; ++v) u.x[v] = acc[v][i][j][e];
          res[P::res_unit(row0 + row % P::pass_rows + g, col0 + 8 * j + 2 * t + (e & 1), pack)] = u;
        }
  }
};

// A 16-byte copy (zero-filled unless in) asking the L2 for the PF-byte block around it (128, or
// 256 for the rows kernel: the next stage's part of each row as well).
template <int PF = 128, class T>
__device__ __forceinline__ void cp_async16(void* dst, const T* src, bool in) {
  static_assert(PF == 128 || PF == 256, "cp_async16: prefetch size 128 or 256");
#ifdef GRAIN_MMA_DEVICE
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (PF == 256)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(in ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(in ? 16 : 0)
                 : "memory");
#else
  (void)dst, (void)src, (void)in;
  __trap();
#endif
}

template <class T, class P>
__global__ void __launch_bounds__(P::threads, 1)
    contract_mma_packed_kernel(const ContractProblem<T> p, const int tiles_l, const int tiles_r, const int items,
                               const int out_vec) {
  using Vec = Pack<T, P::V>;
  constexpr int V = P::V, G = P::G, run = P::run, KC = P::KC, NS = P::NS, rs = P::rs;
  static_assert(packed_layout_ok<P>(), "packed mma layouts would conflict");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Vec* smem = reinterpret_cast<Vec*>(smem_raw);
  Vec* const res = smem + P::res_at;
  const int tiles = tiles_l * tiles_r;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const index_type chunks = (p.K + KC - 1) / KC;
  // This block's items: blockIdx.x, then gridDim.x on (one item per block unless persistent).
  // Tiles of a cell group are adjacent items: L2 reuse.
  auto origin = [&](int item, index_type& c0, index_type& l0, index_type& r0) {
    const int group = item / tiles, t = item % tiles;
    c0 = static_cast<index_type>(group) * G;
    l0 = static_cast<index_type>(t / tiles_r) * P::TL;
    r0 = static_cast<index_type>(t % tiles_r) * P::TR;
  };

  // Staging role: pack s_q (cells c0 + V s_q ...), contracted index s_k of the chunk, rows
  // s_row + row_step j (all of one parity, so one swizzle per thread). The staging cursor
  // (st_item, st_ch) runs NS - 1 chunks ahead of the multiplication, across items.
  const int s_q = tid % run, s_k = (tid / run) % KC, s_row = tid / (run * KC);
  const int s_unit = s_row * rs + s_k * run + (s_q ^ P::pack_swizzle(s_row, s_k));
  int st_item = blockIdx.x;
  index_type st_ch = 0;
  const T* a_row = p.a;
  const T* b_row = p.b;
  int na = 0, nb = 0;
  auto rows_in = [&](index_type left, int J) -> int {
    if (left <= s_row) return 0;
    const index_type n = (left - s_row + P::row_step - 1) / P::row_step;
    return n < J ? static_cast<int>(n) : J;
  };
  auto aim = [&] {  // the staging cursor's item: its first rows, and how many of them exist
    if (st_item >= items) return;
    index_type c0, l0, r0;
    origin(st_item, c0, l0, r0);
    const index_type c = c0 + V * s_q;
    const bool c_ok = c < p.C;  // C is a multiple of V
    a_row = p.a + (c_ok ? c : 0) + (l0 + s_row) * p.a_l;
    b_row = p.b + (c_ok ? c : 0) + (r0 + s_row) * p.b_r;
    na = c_ok ? rows_in(p.L - l0, P::Ja) : 0;
    nb = c_ok ? rows_in(p.R - r0, P::Jb) : 0;
  };
  const index_type a_step = P::row_step * p.a_l, b_step = P::row_step * p.b_r;
  auto stage = [&](int buf) {  // the cursor's chunk into buffer buf, then the cursor moves on
    if (st_item >= items) return;
    const index_type k = st_ch * KC + s_k;
    const bool k_ok = k < p.K;
    const T* ak = a_row + (k_ok ? p.a_k(k) : 0);
    const T* bk = b_row + (k_ok ? p.b_k(k) : 0);
    Vec* sa = smem + buf * P::stage_units + s_unit;
    Vec* sb = sa + P::a_units;
#pragma unroll
    for (int j = 0; j < P::Ja; ++j) {
      const bool in = k_ok && j < na;
      cp_async16(sa + j * P::row_step * rs, in ? ak + j * a_step : p.a, in);
    }
#pragma unroll
    for (int j = 0; j < P::Jb; ++j) {
      const bool in = k_ok && j < nb;
      cp_async16(sb + j * P::row_step * rs, in ? bk + j * b_step : p.b, in);
    }
    if (++st_ch == chunks) {
      st_ch = 0;
      st_item += gridDim.x;
      aim();
    }
  };

  // This warp: pack w_q, rows w_l * 32 on, columns w_r * 16 on. This lane's fragment unit:
  // row (column) g, contracted index t, its pack swizzled (rows 8 and 16 on keep g's parity, k 4
  // on keeps t's low bits).
  const int w_q = warp % run, w_l = (warp / run) % P::WL, w_r = warp / (run * P::WL);
  const int g = lane >> 2, tk = lane & 3;
  const int f = g * rs + tk * run + (w_q ^ P::pack_swizzle(g, tk));
  const Vec* frag_a = smem + w_l * 32 * rs + f;
  const Vec* frag_b = smem + P::a_units + w_r * 16 * rs + f;
  aim();
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {
    stage(s);
    cp_async_commit();
  }
  PackedTile<T> tile;
  int buf = 0;  // the buffer of the chunk to multiply; the one to stage is buf + NS - 1
  for (int item = blockIdx.x; item < items; item += gridDim.x) {
    tile.zero();
    for (index_type ch = 0; ch < chunks; ++ch) {
      cp_async_wait<NS - 2>();  // this chunk has landed (this thread's copies) ...
      __syncthreads();          // ... everyone's; everyone is done with the buffer staged next
      stage((buf + NS - 1) % NS);
      cp_async_commit();
      tile.template multiply<KC, rs, run>(frag_a + buf * P::stage_units, frag_b + buf * P::stage_units);
      buf = (buf + 1) % NS;
    }
    if constexpr (!P::persistent) {
      cp_async_wait<0>();
      __syncthreads();  // the staging buffers become the result buffer
    }
    // (persistent: every thread passed a barrier inside the loop since its last read of res)
    index_type c0, l0, r0;
    origin(item, c0, l0, r0);
    // Passes of P::pass_rows rows (unrolled, so each pass's accumulators are known at compile time).
#pragma unroll
    for (int pass = 0; pass < P::passes; ++pass) {
      if (pass > 0) __syncthreads();  // the pass before has read res
      tile.template write<P>(res, P::passes == 1 ? w_l * 32 : 0, w_r * 16, w_q, lane, pass);
      __syncthreads();
      const index_type lp = l0 + pass * P::pass_rows;
      for (int e = tid; e < run * P::pass_rows * P::TR; e += P::threads) {
        const int q = e % run, rc = e / run, col = rc % P::TR, row = rc / P::TR;
        const index_type cc = c0 + V * q, l = lp + row, r = r0 + col;
        if (cc < p.C && l < p.L && r < p.R) {
          Vec v = res[P::res_unit(row, col, q)];
          T* o = p.out + cc * p.o_c + l * p.o_l + r * p.o_r;
          if (out_vec == V) {  // V cells per store
            store_cells<T, V>(o, v, p.sum_into);
          } else {
#pragma unroll
            for (int i = 0; i < V; ++i) store_cells<T, 1>(o + i * p.o_c, Pack<T, 1>{{v.x[i]}}, p.sum_into);
          }
        }
      }
    }
  }
  cp_async_wait<0>();
}

template <class T, class P>
void launch_mma_packed(const ContractProblem<T>& p) {
  const index_type tiles_l = (p.L + P::TL - 1) / P::TL, tiles_r = (p.R + P::TR - 1) / P::TR;
  const index_type items = (p.C + P::G - 1) / P::G * tiles_l * tiles_r;
  if (items > 0x7fffffff)
    throw_error(p.function, ": algorithm 'mma': ", items, " thread blocks exceed the grid limit (2^31 - 1)");
  static PerDevice<int> resident_on;
  const int resident = resident_on.get([] {  // blocks a device holds at once (persistent: the grid)
    cuda_check(cudaFuncSetAttribute(contract_mma_packed_kernel<T, P>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    P::smem_bytes),
               "algorithm 'mma': cudaFuncSetAttribute");
    int per_sm = 0;
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, contract_mma_packed_kernel<T, P>, P::threads,
                                                             P::smem_bytes),
               "algorithm 'mma': occupancy");
    return cuda_device().sm_count * (per_sm > 0 ? per_sm : 1);
  });
  const index_type blocks = P::persistent && items > resident ? resident : items;
  contract_mma_packed_kernel<T, P><<<static_cast<unsigned>(blocks), P::threads, P::smem_bytes>>>(
      p, static_cast<int>(tiles_l), static_cast<int>(tiles_r), static_cast<int>(items), out_cells_vector(p));
  cuda_check_launch("algorithm 'mma': contract_mma_packed_kernel");
}

// Whether the packed configurations apply: cells unit-stride in both operands, C and every other
// stride a multiple of V, both operands 16-byte aligned (every (row, k) run of cells then starts
// on 16 bytes, and a pack never straddles C).
template <class T>
bool mma_cells_packed(const ContractProblem<T>& p) {
  return p.cells_packed(16 / sizeof(T));
}

// ---- LayoutRight: rows unit-stride along K ----------------------------------------------------
//
// In LayoutRight a cell's left (L x K) and right (R x K) operands are row-major GEMM operands, so a
// block takes one cell's TL x TR output tile (a warp per 32 x 32 part: DmmaTile in double,
// Tf32x3Tile in float, as above) and
// stages KC contracted indices of its TL left and TR right rows per stage: a copy takes VEC
// neighbouring k of one row (16 bytes where every row starts on 16 bytes: rows_vec), so the
// loads are runs of the rows, where the copied kernel above reads single elements a cell apart.
//   * persistent: one block per slot the device holds, item after item (item = cell x tile x K
//     split), with the staging cursor NS - 1 stages ahead across items, so the loads do not stop
//     at a tile's end;
//   * results: eight rows of a warp's part at a time through its own scratch, then each row
//     leaves as one warp store of 32 neighbouring fields (faster than the fragments' own 8-byte
//     stores, pieces of 8 rows);
//   * copies ask the L2 for the 256-byte block around them (the next stage's part of each row).
// Tiles of 64 x 64 (4 warps, 2 blocks an SM): 128 x 128 tiles allow one block an SM and are
// slower; 2, 3 or 5 stages, 8 or 32 indices a stage, 128 x 64 tiles and the 128-byte L2 fetch are
// level or slower (measured).
template <class T, int WL_, int WR_, int KC_, int NS_, int VEC_>
struct RowsConfig {
  using Elem = T;
  using Tile = std::conditional_t<std::is_same_v<T, double>, DmmaTile<true>, Tf32x3Tile>;
  static constexpr int E = static_cast<int>(sizeof(T));
  static constexpr int WL = WL_, WR = WR_, KC = KC_, NS = NS_, VEC = VEC_;
  static constexpr int TL = kTile * WL, TR = kTile * WR, warps = WL * WR, threads = 32 * warps;
  static constexpr int rs = mma_row_stride<E>(KC);  // MmaShape's
  static constexpr int row_units = KC / VEC, row_step = threads / row_units;
  static_assert(KC % (E == 8 ? 4 : 8) == 0 && KC % VEC == 0 && VEC * E <= 16 && (rs * E) % 16 == 0 &&
                    threads % row_units == 0 && (TL + TR) % row_step == 0 && NS >= 2,
                "bad rows mma shape");
  static constexpr int J = (TL + TR) / row_step;  // copies per thread and stage
  static constexpr int stage = (TL + TR) * rs;     // elements
  static constexpr int scratch = 8 * kOutRow;      // a warp's result rows, elements
  static constexpr int smem_bytes = (NS * stage + warps * scratch) * E;
  static_assert(smem_bytes <= 227 * 1024, "rows mma configuration needs more shared memory than a block gets");
  static_assert(mma_fragments_ok<E>(rs), "rows mma fragment loads would conflict");
};

// Rows 8 q .. 8 q + 7 of a warp's 32 x 32 tile into scr (row stride kOutRow): this lane's two
// neighbouring results of each 8-column block (DmmaTile::write's and Tf32x3Tile::write's layout).
__device__ __forceinline__ void tile_rows8(const DmmaTile<true>& t, int q, double* scr, int lane) {
#pragma unroll
  for (int j = 0; j < 4; ++j)
    *reinterpret_cast<double2*>(scr + (lane >> 2) * kOutRow + j * 8 + 2 * (lane & 3)) =
        make_double2(t.acc[q][j][0], t.acc[q][j][1]);
}
__device__ __forceinline__ void tile_rows8(const Tf32x3Tile& t, int q, float* scr, int lane) {
  const int i = q >> 1, h = q & 1;  // 16-row tile i, its upper or lower 8 rows
#pragma unroll
  for (int j = 0; j < 4; ++j)
    *reinterpret_cast<float2*>(scr + (lane >> 2) * kOutRow + j * 8 + 2 * (lane & 3)) =
        make_float2(t.acc[i][j][2 * h], t.acc[i][j][2 * h + 1]);
}

template <class P>
__global__ void __launch_bounds__(P::threads, 1)
    contract_mma_rows_kernel(const ContractProblem<typename P::Elem> p, const int tiles_l, const int tiles_r,
                             const int splits, const index_type k_split, const index_type items) {
  using T = typename P::Elem;
  constexpr int KC = P::KC, NS = P::NS, rs = P::rs;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const index_type per_cell = static_cast<index_type>(tiles_l) * tiles_r * splits;
  // An item's cell, tile origin and K range [k0, k1); a tile's splits are neighbouring items.
  struct Item {
    index_type c, l0, r0, k0, k1;
  };
  auto item_at = [&](index_type item) {
    Item it;
    it.c = item / per_cell;
    const index_type rem = item % per_cell, t = rem / splits, s = rem % splits;
    it.l0 = t / tiles_r * P::TL;
    it.r0 = t % tiles_r * P::TR;
    it.k0 = s * k_split;
    it.k1 = it.k0 + k_split < p.K ? it.k0 + k_split : p.K;
    return it;
  };

  // Staging role: contracted indices s_k .. s_k + VEC - 1 of a stage, stage rows s_row + row_step j
  // (the left rows first, then the right ones). The cursor (st_item, st_ch) runs NS - 1 stages
  // ahead of the multiplication, across items; aim() points src at its item's rows (null past L
  // or R).
  const int s_k = (tid % P::row_units) * P::VEC, s_row = tid / P::row_units;
  index_type st_item = blockIdx.x, st_ch = 0, st_chunks = 0, st_k0 = 0, st_k1 = 0;
  const T* src[P::J];
  auto aim = [&] {
    if (st_item >= items) return;
    const Item it = item_at(st_item);
    st_k0 = it.k0;
    st_k1 = it.k1;
    st_chunks = (it.k1 - it.k0 + KC - 1) / KC;
#pragma unroll
    for (int j = 0; j < P::J; ++j) {
      const int row = s_row + j * P::row_step;
      if (row < P::TL) {
        const index_type l = it.l0 + row;
        src[j] = l < p.L ? p.a + it.c * p.a_c + l * p.a_l : nullptr;
      } else {
        const index_type r = it.r0 + row - P::TL;
        src[j] = r < p.R ? p.b + it.c * p.b_c + r * p.b_r : nullptr;
      }
    }
  };
  T* const s_base = smem + s_row * rs + s_k;
  auto stage = [&](int buf) {  // the cursor's stage into buffer buf, then the cursor moves on
    if (st_item >= items) return;
    const index_type k = st_k0 + st_ch * KC + s_k;  // VEC > 1: K a multiple of VEC, the copy within K
    const bool k_ok = k < st_k1;
    T* s = s_base + buf * P::stage;
#pragma unroll
    for (int j = 0; j < P::J; ++j) {
      const bool in = k_ok && src[j] != nullptr;
      if constexpr (P::VEC * P::E == 16)
        cp_async16<256>(s + j * P::row_step * rs, in ? src[j] + k : p.a, in);
      else
        cp_async<128>(s + j * P::row_step * rs, in ? src[j] + k : p.a, in ? P::E : 0);
    }
    if (++st_ch == st_chunks) {
      st_ch = 0;
      st_item += gridDim.x;
      aim();
    }
  };

  // This warp: rows w_l * 32 on, columns w_r * 32 on of the tile; this lane's fragment element:
  // row lane/4, contracted index lane%4.
  const int w_l = warp % P::WL, w_r = warp / P::WL;
  const int frag = (lane >> 2) * rs + (lane & 3);
  const T* frag_a = smem + w_l * kTile * rs + frag;
  const T* frag_b = smem + (P::TL + w_r * kTile) * rs + frag;
  T* const scr = smem + NS * P::stage + warp * P::scratch;
  aim();
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {
    stage(s);
    cp_async_commit();
  }
  typename P::Tile tile;
  int buf = 0;  // the buffer of the stage to multiply; the one to fill is buf + NS - 1
  const bool atomic = splits > 1;
  for (index_type item = blockIdx.x; item < items; item += gridDim.x) {
    const Item it = item_at(item);
    const index_type chunks = (it.k1 - it.k0 + KC - 1) / KC;
    tile.zero();
    for (index_type ch = 0; ch < chunks; ++ch) {
      cp_async_wait<NS - 2>();  // this stage has landed (this thread's copies) ...
      __syncthreads();          // ... everyone's; everyone is done with the buffer filled next
      stage((buf + NS - 1) % NS);
      cp_async_commit();
      tile.template multiply<KC, rs>(frag_a + buf * P::stage, frag_b + buf * P::stage);
      buf = (buf + 1) % NS;
    }
    // Eight rows at a time into the scratch (the tiles' conflict-free write pattern), then each
    // row leaves as one store of 32 neighbouring fields.
    const index_type l_first = it.l0 + w_l * kTile, r = it.r0 + w_r * kTile + lane;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      tile_rows8(tile, q, scr, lane);
      __syncwarp();
#pragma unroll
      for (int row = 0; row < 8; ++row) {
        const index_type l = l_first + 8 * q + row;
        if (l < p.L && r < p.R)
          store_cells<T, 1>(p.out + it.c * p.o_c + l * p.o_l + r * p.o_r, Pack<T, 1>{{scr[row * kOutRow + lane]}},
                            p.sum_into, atomic);
      }
      __syncwarp();
    }
  }
  cp_async_wait<0>();
}

// Whether a copy may take 16 bytes (V = 16 / sizeof(T) neighbouring k): K a multiple of V and
// every row and cell of both operands starting on 16 bytes.
template <class T>
bool rows_vec(const ContractProblem<T>& p) {
  constexpr index_type V = 16 / sizeof(T);
  auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  return p.K % V == 0 && p.a_l % V == 0 && p.b_r % V == 0 && p.a_c % V == 0 && p.b_c % V == 0 && aligned(p.a) &&
         aligned(p.b);
}

// K splits (1 or 2) of the rows kernel: 2 where the whole items fill at most half of the device's
// block slots (one round either way, and halves take half as long) with at least 32 stages a
// tile; 1 where the output is accumulated into or not dense (the halves add into a zeroed
// output, exact whichever adds first, as wgmma_splits). Where the items fill more than one round
// the split is slower: more rounds of halves than of whole items.
template <class T>
int rows_splits(const ContractProblem<T>& p, index_type items, index_type slots, int kc) {
  if (p.sum_into || !p.out_dense()) return 1;
  return 2 * items <= slots && (p.K + kc - 1) / kc >= 32 ? 2 : 1;
}

template <class P>
void launch_mma_rows(const ContractProblem<typename P::Elem>& p) {
  const index_type tiles_l = (p.L + P::TL - 1) / P::TL, tiles_r = (p.R + P::TR - 1) / P::TR;
  static PerDevice<int> slots_on;
  const int slots = slots_on.get([] {  // blocks the device holds at once: the persistent grid
    cuda_check(cudaFuncSetAttribute(contract_mma_rows_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    P::smem_bytes),
               "algorithm 'mma': cudaFuncSetAttribute (rows)");
    int per_sm = 0;
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, contract_mma_rows_kernel<P>, P::threads,
                                                             P::smem_bytes),
               "algorithm 'mma': occupancy (rows)");
    return cuda_device().sm_count * (per_sm > 0 ? per_sm : 1);
  });
  const index_type whole = p.C * tiles_l * tiles_r;
  const int splits = rows_splits(p, whole, slots, P::KC);
  // Each split a whole number of stages, so that a split's K range starts on a stage.
  const index_type k_split = ((p.K + splits - 1) / splits + P::KC - 1) / P::KC * P::KC;
  const index_type items = whole * splits;
  const index_type blocks = items < slots ? items : slots;
  if (splits > 1)
    cuda_check(cudaMemsetAsync(p.out, 0, static_cast<std::size_t>(p.C * p.L * p.R) * sizeof(typename P::Elem)),
               "algorithm 'mma': zeroing the output");
  contract_mma_rows_kernel<P><<<static_cast<unsigned>(blocks), P::threads, P::smem_bytes>>>(
      p, static_cast<int>(tiles_l), static_cast<int>(tiles_r), splits, k_split, items);
  cuda_check_launch("algorithm 'mma': contract_mma_rows_kernel");
}

// Whether the rows kernel applies: operands whose rows are unit-stride along one level of K
// (LayoutRight); cells unit-stride (LayoutLeft) take the cells-fastest kernels above.
template <class T>
bool mma_rows(const ContractProblem<T>& p) {
  return !p.cells_unit() && p.k_unit() && p.K > 1;
}

// Where mma runs the rows kernel: compute capability 9.0 and newer, rows unit-stride along K,
// L, R > 32 (27 x 27 cells fit the copied kernel's 32 x 32 tiles better); in float only cells of
// one 64 x 64 tile whose output is under a quarter of the bytes (3 L R < (L + R) K), elsewhere
// the warpgroup kernel is faster (measured).
template <class T>
bool rows_default(const ContractProblem<T>& p, int major) {
  if (major < 9 || !mma_rows(p) || p.L <= 32 || p.R <= 32) return false;
  if constexpr (std::is_same_v<T, float>) return p.L <= 64 && p.R <= 64 && 3 * p.L * p.R < (p.L + p.R) * p.K;
  return true;
}

// The rows kernel: 64 x 64 tiles of 4 warps, 128 bytes of each row a stage (16 contracted indices
// in double, 32 in float), 4 stages; 16-byte copies where rows_vec holds.
template <class T>
void run_mma_rows(const ContractProblem<T>& p) {
  constexpr int V = 16 / sizeof(T), KC = 128 / sizeof(T);
  rows_vec(p) ? launch_mma_rows<RowsConfig<T, 2, 2, KC, 4, V>>(p) : launch_mma_rows<RowsConfig<T, 2, 2, KC, 4, 1>>(p);
}

// The configurations (testing.hpp's MmaConfig names them), cells x per-cell tile, threads:
//   CopiedSm80: 8 x 32 x 32, 256 threads, m8n8k4 DMMA, plain copies; the rule below 9.0.
//   Copied: the same with m16n8k4 DMMA (twice the FP64 rate on 9.0) and copies that ask the L2
//     for their 128-byte block; the rule on 9.0 and newer where nothing below applies.
//   Packed: packed operands (PackedConfig: 16 cells, 16-byte copies), one MMA step a stage, 4
//     stages; double cells of one 32 x 32 tile (L, R <= 32) with K >= 128.
//   PackedPersistent: packed, a block per SM taking item after item; float: 2 stages of two MMA
//     steps, for packed float cells (9.0 and newer, unless Wgmma); double: 4 stages of one, the
//     results leaving in 4 passes of 8 rows so the stages fit, for cells of 2 x 2 tiles
//     (32 < L, R <= 64).
//   Rows: rows unit-stride along K (LayoutRight), 64 x 64 tiles (rows_default).
//   Wgmma: float on the warpgroup MMAs (wgmma_cuda.cu; compute capability 9.0 only), L, R > 32
//     with packed cells, K >= 128 or its TMA row copies (wgmma_k_rows). WgmmaLoads, WgmmaSplit
//     and WgmmaLead2 force choices it makes per problem (tests).
// Packed and PackedPersistent run Copied where mma_cells_packed does not hold, and Packed does in
// float. Pipelines: double 4 indices a stage in 4 stages, float 8 in 2, the fastest measured;
// packed double pays at one tile a cell with long K and, persistent, at 2 x 2 tiles; on larger
// cells the copied kernel's blocks share a cell's rows (measured).
using testing::MmaConfig;
constexpr int kMmaConfigs = static_cast<int>(MmaConfig::Count);
template <class T, bool Wide, int PF>
using Copied = CopiedConfig<T, MmaBlock<8, 1, 1>, sizeof(T) == 8 ? 4 : 8, sizeof(T) == 8 ? 4 : 2, Wide, PF>;
// Packed, 32 x 32 a cell (32 x 16 a warp): X MMA steps a stage, NS stages.
template <class T, int X, int NS, bool Persistent = false, int Passes = 1>
using Packed = PackedConfig<T, 1, 2, X * (sizeof(T) == 8 ? 4 : 8), NS, Persistent, Passes>;
constexpr bool wgmma_config(MmaConfig c) {
  return c == MmaConfig::Wgmma || c == MmaConfig::WgmmaLoads || c == MmaConfig::WgmmaSplit ||
         c == MmaConfig::WgmmaLead2;
}

// k_rows: wgmma_k_rows(p) on a 9.0 device (as contract_mma_any found it).
template <class T>
void run_mma_config(const ContractProblem<T>& p, MmaConfig config, int major, bool k_rows) {
  constexpr bool is_float = std::is_same_v<T, float>;
  const bool packed_config = config == MmaConfig::Packed || config == MmaConfig::PackedPersistent;
  if (packed_config && !mma_cells_packed(p)) config = MmaConfig::Copied;
  if (config == MmaConfig::Packed && is_float) config = MmaConfig::Copied;
  if (config == MmaConfig::Rows) {
    if (mma_rows(p)) return run_mma_rows(p);
    config = MmaConfig::Copied;
  }
  // The warpgroup kernel runs float, and operands whose cells are not unit-stride (LayoutRight)
  // only through its row copies.
  if (wgmma_config(config) && (!is_float || (!p.cells_unit() && !k_rows))) config = MmaConfig::Copied;
  const int cluster = mma_cluster(major);
  switch (config) {
    case MmaConfig::Wgmma:
    case MmaConfig::WgmmaLoads:
    case MmaConfig::WgmmaSplit:
    case MmaConfig::WgmmaLead2:
      if constexpr (is_float)
        contract_wgmma_float(p, out_cells_vector(p), config != MmaConfig::WgmmaLoads, config == MmaConfig::WgmmaSplit,
                             config == MmaConfig::WgmmaLead2 ? 2 : 0);
      break;
    case MmaConfig::Packed:
      if constexpr (!is_float) launch_mma_packed<T, Packed<T, 1, 4>>(p);
      break;
    case MmaConfig::PackedPersistent:
      if constexpr (is_float)
        launch_mma_packed<T, Packed<T, 2, 2, true>>(p);
      else
        launch_mma_packed<T, Packed<T, 1, 4, true, 4>>(p);
      break;
    case MmaConfig::CopiedSm80: launch_mma<T, Copied<T, false, 0>>(p, cluster); break;
    default: launch_mma<T, Copied<T, true, 128>>(p, cluster); break;
  }
}

// The configuration forced by testing::force_mma_config, else Auto.
std::atomic<int> g_forced_config{static_cast<int>(MmaConfig::Auto)};

// The rule (forced: that configuration). Below 9.0 CopiedSm80: no m16n8k4 DMMA there, and the
// other configurations are tuned on 9.0. On 9.0 and newer: Wgmma in float where it applies
// (float_wgmma, 9.0 only), PackedPersistent for other packed float operands and for packed double
// cells of 2 x 2 tiles, Packed for packed double cells of one tile with K >= 128, else Copied.
// Wgmma beats the mma.sync kernels where its 64 x 64 tiles are mostly filled (not on 27 x 27
// cells) and K is long or the TMA copies apply; persistent blocks keep float's loads going where
// K is short (measured).
MmaConfig pick_mma_config(int major, bool float_wgmma, bool float_packed, bool double_packed_one_tile,
                          bool double_packed_2x2) {
  if (const int forced = g_forced_config.load(std::memory_order_relaxed); forced >= 0)
    return static_cast<MmaConfig>(forced);
  if (major < 9) return MmaConfig::CopiedSm80;
  if (float_wgmma) return MmaConfig::Wgmma;
  if (float_packed || double_packed_2x2) return MmaConfig::PackedPersistent;
  return double_packed_one_tile ? MmaConfig::Packed : MmaConfig::Copied;
}

template <class T>
void contract_mma_any(const ContractProblem<T>& p) {
  const char* fn = p.function;
  if (p.C == 0 || p.L == 0 || p.R == 0 || p.K == 0) return;  // the engine handles K = 0
  const CudaDeviceInfo& device = cuda_device();  // the runtime's device, queried once
  const int major = device.cc_major, minor = device.cc_minor;
  if (major < 8)
    throw_error(fn, ": algorithm 'mma' needs FP64 and TF32 tensor cores (compute capability 8.0 or newer); device ",
                device.id, " has ", major, ".", minor);
  const bool packed = mma_cells_packed(p);
  const bool is_float = std::is_same_v<T, float>;
  const bool sm90 = major == 9 && minor == 0;
  bool k_rows = false;  // LayoutRight rows the warpgroup kernel's TMA copies take
  if constexpr (std::is_same_v<T, float>) k_rows = sm90 && wgmma_k_rows(p);
  const bool wgmma =
      is_float && sm90 && p.L > 32 && p.R > 32 && (packed || p.K >= 128 || k_rows) && (p.cells_unit() || k_rows);
  const bool double_one_tile = !is_float && packed && p.L <= 32 && p.R <= 32 && p.K >= 128;
  const bool double_2x2 = !is_float && packed && p.L > 32 && p.L <= 64 && p.R > 32 && p.R <= 64;
  MmaConfig config = pick_mma_config(major, wgmma, is_float && packed, double_one_tile, double_2x2);
  // LayoutRight cells rows_default names (9.0 and newer): the rows kernel's 64 x 64 tiles; on
  // 27 x 27 cells the copied kernel's 32 x 32 tiles waste less.
  if (g_forced_config.load(std::memory_order_relaxed) < 0 && rows_default(p, major)) config = MmaConfig::Rows;
  // Guards for forced configurations: m16n8k4 in double (the copied kernel's, the packed and the
  // rows kernels') needs 9.0; the warpgroup kernel is built for sm_90a alone.
  if (major < 9 && config != MmaConfig::CopiedSm80 && !is_float) config = MmaConfig::CopiedSm80;
  if (wgmma_config(config) && !sm90) config = major >= 9 ? MmaConfig::Copied : MmaConfig::CopiedSm80;
  if (config == MmaConfig::Rows && major < 9) config = MmaConfig::CopiedSm80;
  run_mma_config(p, config, major, k_rows);
}

}  // namespace

void contract_mma_cuda(const ContractProblem<double>& p) { contract_mma_any(p); }
void contract_mma_cuda(const ContractProblem<float>& p) { contract_mma_any(p); }
bool contract_mma_k_rows(const ContractProblem<float>& p) {
  if (cuda_device_count() <= 0) return false;
  const CudaDeviceInfo& device = cuda_device();
  return device.cc_major == 9 && device.cc_minor == 0 && wgmma_k_rows(p);
}
bool contract_mma_rows(const ContractProblem<double>& p) {
  return cuda_device_count() > 0 && rows_default(p, cuda_device().cc_major);
}

namespace testing {
void force_mma_config(MmaConfig config) {
  const int c = static_cast<int>(config);
  if (c < -1 || c >= kMmaConfigs)
    throw_error("grain::impl::testing::force_mma_config: configuration ", c, " is not -1 (Auto) or 0..",
                kMmaConfigs - 1);
  g_forced_config.store(c, std::memory_order_relaxed);
}
}  // namespace testing

}  // namespace grain::impl
