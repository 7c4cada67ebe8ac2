// Algorithm::Mma's warpgroup kernel: FieldField in float on the Hopper tensor cores' asynchronous
// warpgroup MMAs (wgmma, compute capability 9.0 only: this file is compiled for sm_90a alone, see
// CMakeLists.txt), for cells-fastest operands (LayoutLeft), in the 3xTF32 split of mma_cuda.cu,
// and for operands whose rows are unit-stride along K (LayoutRight) through TMA copies of the
// same boxes turned round (TmaStager<R, A, true>; wgmma_k_rows).
//
// Why: mma_cuda.cu's float kernels issue mma.sync per warp, and each warp splits its own fragments
// into TF32 big + small parts every step, which leaves them latency-bound.
// Here each element is split once, as it goes to shared memory, and the products are issued
// asynchronously by a warpgroup from shared memory:
//   * a block takes G = 8 consecutive cells and a 64 x 64 tile of their outputs: 4 warpgroups of 4
//     warps, 2 cells each, two m64n64 fp32 accumulators per warpgroup (64 registers a thread);
//   * each stage is KC = 8 contracted indices, and every thread splits 4 cells x 4 indices of one
//     row (left rows 0-63, right rows 64-127). Where the cells are packed by 4 (cells_packed(4))
//     and K is one level, the Tensor Memory Accelerator copies the stage's two boxes (8 cells x
//     64 rows x 8 indices; zeros past C, L, R and K) into shared memory, 2 stages ahead (3 where
//     a block runs at most 32 stages: wgmma_lead), and the thread reads its values there
//     (TmaStager). Otherwise the thread loads them into registers
//     one stage ahead (LoadStager): 16-byte loads where the cells are packed by 4, 8-byte where
//     by 2, else 4-byte, neighbouring threads on neighbouring cells (32-byte runs of 8 cells);
//   * the split values go to shared memory in the canonical K-major layout wgmma reads without
//     swizzling: core matrices of 8 rows x 4 indices, 128 contiguous bytes (kSbo apart along rows,
//     kLbo apart along k), padded so the 16-byte stores are free of bank conflicts;
//   * per stage a warpgroup issues, per cell, m64n64k8 small x big, big x small, big x big (the
//     small terms first), asynchronously, while the block splits the next stage;
//   * results leave through shared memory so the stores are cell-contiguous, as in mma_cuda.cu;
//   * where the grid's last round of blocks would run mostly empty and K is long, two blocks share
//     each tile's stages and add their halves into the zeroed output (wgmma_splits).
// What bounds it: the L1 / shared memory pipe. Each stage stores 64 KB of split operands, and the
// wgmmas read 96 KB (an m64n64k8 reads 4 KB, what shared memory delivers in the 32 cycles the
// TF32 peak needs for it). With loads through registers, each 16-byte load instruction also
// touches 16 lines (one 32-byte run each), about 900 of the stage's 2200 L1 wavefronts; the TMA
// takes those off the pipe, and the L2 bounds the TMA path instead, its requests being the boxes'
// 32-byte runs. C not a multiple of 4 cannot use it: its rows are not 16-byte aligned, which
// tensor maps need of their strides and of a box's first element. Slower, measured: the left
// operand in registers (wgmma RS), raw cp.async rings (the L1 left beside 200+ KB of shared
// memory is too small for 4- and 8-byte copies), 3 buffers of split operands, 4 cells a block,
// loads that skip L1, software prefetch of later stages, for odd C aligned 16-byte loads and a
// pick or TMA boxes per index class, and TMA multicast to the blocks of a cell group's tiles.
#include <cuda.h>  // CUtensorMap (types only: the encoder comes through cudaGetDriverEntryPointByVersion)
#include <cudaTypedefs.h>

#include <cstdint>
#include <type_traits>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_per_device.hpp"
#include "grain/core/backend/cuda_runtime.hpp"
#include "mma_common.cuh"
#include "wgmma.hpp"

namespace grain::impl {
namespace {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GRAIN_WGMMA_DEVICE 1
#endif

constexpr int kT = 64;   // a cell's tile: kT x kT outputs (one m64n64 accumulator)
constexpr int kKC = 8;   // contracted indices per stage (one k8 step)
constexpr int kSbo = 128;  // between core matrices along rows (8 rows x 16 bytes each)
constexpr int kOutRow = kT + 8;             // result row stride, floats (conflict-free writes)
constexpr int kOutCell = kT * kOutRow + 4;  // result cell stride, floats (conflict-free reads)
constexpr int kNS = 2;                      // buffers of split operands
// out_vec for an output whose fields are unit-stride (LayoutRight): runs of fields, stored in
// 16-byte packs from their first 16-byte boundary.
constexpr int kOutFields = 0;
static_assert(kOutCell % 32 == 4 && kOutRow % 32 == 8, "bad wgmma result layout");

constexpr int kG = 8;          // cells per block
constexpr int kThreads = 512;  // 128 rows x 2 index quads x 2 cell quads; 4 warpgroups, 2 cells each
// One stage in shared memory: per cell its left big, left small, right big and right small parts,
// each 64 rows x 8 indices in core matrices. A store phase (8 lanes of 16 bytes: 2 cell quads x 2
// index quads x 2 rows) hits 8 distinct 16-byte bank groups: rows 1 apart, index quads kLbo / 16 =
// 2 (mod 8), cell quads 4 kCell / 16 = 4.
constexpr int kLbo = 8 * 128 + 32;     // between the two index quads of a part
constexpr int kPart = kLbo + 8 * 128;  // 2080 bytes
constexpr int kCell = 4 * kPart + 16;
constexpr int kStage = kG * kCell;
constexpr int kRes = kG * kOutCell * 4;  // the results, which reuse the stages
static_assert((kLbo / 16) % 8 == 2 && (4 * kCell / 16) % 8 == 4, "wgmma staging stores would conflict");
static_assert(kPart % 16 == 0 && kCell % 16 == 0, "bad wgmma layout");
// Shared memory for a stager with `extra` bytes beyond the split buffers.
constexpr int wg_smem(int extra) {
  return kNS * kStage + extra > kRes ? kNS * kStage + extra : kRes;
}

// split_tf32 (mma_common.cuh) with both parts as floats.
__device__ __forceinline__ void split_tf32_floats(float x, float& big, float& small) {
  std::uint32_t b, s;
  split_tf32(x, b, s);
  big = __uint_as_float(b), small = __uint_as_float(s);
}

// The shared-memory matrix descriptor: start address, leading (k) and stride (row) byte offsets,
// each in 16-byte units; no swizzle.
__device__ __forceinline__ std::uint64_t smem_desc(const void* p) {
  const std::uint32_t a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return static_cast<std::uint64_t>((a & 0x3ffff) >> 4) | (static_cast<std::uint64_t>(kLbo >> 4) << 16) |
         (static_cast<std::uint64_t>(kSbo >> 4) << 32);
}

__device__ __forceinline__ void wg_fence() {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit() {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void wg_wait() {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
// Shared-memory stores by this thread become visible to the tensor cores' (async proxy) reads.
__device__ __forceinline__ void fence_async_smem() {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// d (64 x 64, this warpgroup's accumulator: 32 per thread) += a (64 x 8) * b (64 x 8)^T, TF32
// operands from shared memory, fp32 sums.
__device__ __forceinline__ void wgmma_64x64x8(float (&d)[32], std::uint64_t a, std::uint64_t b) {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(1));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}

// Four neighbouring cells (c .. c + 3) of one (row, k), V at a time; cells at or past C read as
// zero (with V = 4 or 2, C is a multiple of V, so a load is all in or all out).
template <int V>
__device__ __forceinline__ float4 load_cells(const float* q, index_type c, index_type C, bool ok) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (!ok) return v;
  if constexpr (V == 4) {
    if (c < C) v = *reinterpret_cast<const float4*>(q);
  } else if constexpr (V == 2) {
    if (c < C) {
      const float2 h = *reinterpret_cast<const float2*>(q);
      v.x = h.x, v.y = h.y;
    }
    if (c + 2 < C) {
      const float2 h = *reinterpret_cast<const float2*>(q + 2);
      v.z = h.x, v.w = h.y;
    }
  } else {
    if (c < C) v.x = q[0];
    if (c + 1 < C) v.y = q[1];
    if (c + 2 < C) v.z = q[2];
    if (c + 3 < C) v.w = q[3];
  }
  return v;
}

// The TMA descriptors of the left and right operands (unused by LoadStager).
struct WgMaps {
  CUtensorMap a, b;
};

__device__ __forceinline__ std::uint32_t smem_addr(const void* q) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(q));
}
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#endif
}
// This thread arrives, and the phase completes once `bytes` more have landed (the TMA copies').
__device__ __forceinline__ void mbar_expect(std::uint64_t* bar, unsigned bytes) {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
#endif
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
#ifdef GRAIN_WGMMA_DEVICE
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}
// The box at (x, y, z) (cells, rows, contracted index) of `map` into dst, completing on bar.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, int x, int y, int z, std::uint64_t* bar) {
#ifdef GRAIN_WGMMA_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(smem_addr(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)x, (void)y, (void)z, (void)bar;
  __trap();
#endif
}

// A stage's staging role, shared by both ways of loading it: cells c0 + 4 cq .. + 3, indices
// 4 kq .. + 3, row rr of the left (right = false) or right operand, and where the thread's split
// values go: 16 bytes per cell (cell 4 cq + j at + j kCell, small at + kPart).
struct WgRole {
  int cq, kq, rr;
  bool right;
  __device__ int split_offset() const {
    return 4 * cq * kCell + (right ? 2 : 0) * kPart + (rr >> 3) * kSbo + kq * kLbo + (rr & 7) * 16;
  }
};

// x[i] = cells 4 cq .. + 3 of index 4 kq + i: split into big and small and stored at s.
__device__ __forceinline__ void put_split(unsigned char* s, const float4 (&x)[4]) {
  const float* xs = reinterpret_cast<const float*>(x);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float4 big, small;
    split_tf32_floats(xs[0 * 4 + j], big.x, small.x);
    split_tf32_floats(xs[1 * 4 + j], big.y, small.y);
    split_tf32_floats(xs[2 * 4 + j], big.z, small.z);
    split_tf32_floats(xs[3 * 4 + j], big.w, small.w);
    *reinterpret_cast<float4*>(s + j * kCell) = big;
    *reinterpret_cast<float4*>(s + j * kCell + kPart) = small;
  }
}

// Loads through registers, one stage ahead, V cells per load (any C).
template <int V>
struct LoadStager {
  static constexpr int smem = 0;  // beyond the split buffers
  WgRole role;
  const float* src;
  bool row_ok;
  index_type c, ch0;
  float4 x[4];
  __device__ LoadStager(const ContractProblem<float>& p, const WgMaps&, unsigned char*, int tid, index_type c0,
                        index_type l0, index_type r0, index_type first)
      : ch0(first) {
    role.cq = tid & 1, role.kq = (tid >> 1) & 1;
    const int row = tid >> 2;
    role.right = row >= kT, role.rr = row & (kT - 1);
    c = c0 + 4 * role.cq;
    row_ok = role.right ? r0 + role.rr < p.R : l0 + role.rr < p.L;
    src = !row_ok      ? p.a
          : role.right ? p.b + c * p.b_c + (r0 + role.rr) * p.b_r
                       : p.a + c * p.a_c + (l0 + role.rr) * p.a_l;
  }
  __device__ void load(const ContractProblem<float>& p, index_type ch) {  // the block's stage ch
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const index_type k = (ch0 + ch) * kKC + 4 * role.kq + i;
      const bool ok = row_ok && k < p.K;
      const index_type off = ok ? (role.right ? p.b_k(k) : p.a_k(k)) : 0;
      x[i] = load_cells<V>(src + off, c, p.C, ok);
    }
  }
  __device__ void start(const ContractProblem<float>& p, index_type chunks, const WgMaps&, index_type, index_type,
                        index_type) {
    if (chunks > 0) load(p, 0);
  }
  // Stage ch, split, into s; then the next stage's loads.
  __device__ void fill(const ContractProblem<float>& p, index_type ch, index_type chunks, unsigned char* s) {
    put_split(s + role.split_offset(), x);
    if (ch + 1 < chunks) load(p, ch + 1);
  }
  __device__ void after_barrier(const ContractProblem<float>&, index_type, index_type, const WgMaps&, index_type,
                                index_type, index_type) {}
};

// Packed cells (cells_packed(4)) with one-level K: the Tensor Memory Accelerator copies each
// stage's boxes (8 cells x 64 rows x 8 indices of each operand, 32 KB; zeros past C, L, R and K)
// into one of R raw buffers, A stages ahead (A = R - 1 or R: a raw buffer is free once the block
// barrier after its stage's split has passed), with no registers and no load instructions;
// every thread then splits its 4 cells x 4 indices of one row from there. The warp's lanes take 2
// cell quads x 4 rows, so both the raw reads ([index][row][cell]) and the split stores are free
// of bank conflicts.
// Rows = true: the same for operands whose rows are unit-stride along K (LayoutRight): the boxes
// are 8 indices x 64 rows x 8 cells ([cell][row][index] in shared memory, 32-byte rows swizzled by
// the TMA: a row's two 16-byte halves swap where bit 7 of its offset is set), and a warp's lanes
// take 8 neighbouring rows x 2 index quads x 2 cell quads, so the raw reads (one 16-byte load per
// cell: 4 indices of one row) and the split stores are both free of bank conflicts.
template <int R, int A, bool Rows = false>
struct TmaStager {
  static constexpr int box = kG * kT * kKC * 4;  // one operand's box, bytes
  static constexpr int smem = R * 2 * box + R * 8;
  static_assert(A == R || A == R - 1, "TmaStager: A stages ahead need R or R + 1 raw buffers");
  WgRole role;
  unsigned char* raw;  // R stages of [left box][right box]
  std::uint64_t* bar;  // R barriers: stage landed
  int tid;
  index_type ch0;
  __device__ TmaStager(const ContractProblem<float>&, const WgMaps&, unsigned char* base, int tid_, index_type,
                       index_type, index_type, index_type first)
      : raw(base), bar(reinterpret_cast<std::uint64_t*>(base + R * 2 * box)), tid(tid_), ch0(first) {
    int row;
    if constexpr (Rows) {
      row = 8 * (tid >> 5) + (tid & 7);
      role.kq = (tid >> 3) & 1, role.cq = (tid >> 4) & 1;
    } else {
      role.cq = tid & 1;
      row = 4 * (tid >> 4) + ((tid >> 1) & 3);
      role.kq = (tid >> 3) & 1;
    }
    role.right = row >= kT, role.rr = row & (kT - 1);
  }
  __device__ void issue(const WgMaps& maps, index_type ch, index_type c0, index_type l0, index_type r0) {
    const int slot = static_cast<int>(ch % R);
    unsigned char* d = raw + slot * 2 * box;
    mbar_expect(bar + slot, 2 * box);
    const int k0 = static_cast<int>((ch0 + ch) * kKC), c = static_cast<int>(c0);
    if constexpr (Rows) {
      tma_load(d, &maps.a, k0, static_cast<int>(l0), c, bar + slot);
      tma_load(d + box, &maps.b, k0, static_cast<int>(r0), c, bar + slot);
    } else {
      tma_load(d, &maps.a, c, static_cast<int>(l0), k0, bar + slot);
      tma_load(d + box, &maps.b, c, static_cast<int>(r0), k0, bar + slot);
    }
  }
  __device__ void start(const ContractProblem<float>&, index_type chunks, const WgMaps& maps, index_type c0,
                        index_type l0, index_type r0) {
    if (tid == 0) {
      for (int i = 0; i < R; ++i) mbar_init(bar + i, 1);
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (tid == 0)
      for (index_type i = 0; i < A && i < chunks; ++i) issue(maps, i, c0, l0, r0);
  }
  __device__ void fill(const ContractProblem<float>&, index_type ch, index_type, unsigned char* s) {
    const int slot = static_cast<int>(ch % R);
    mbar_wait(bar + slot, static_cast<unsigned>((ch / R) & 1));
    const unsigned char* b = raw + slot * 2 * box + (role.right ? box : 0);
    float4 x[4];
    if constexpr (Rows) {
      float y[4][4];  // y[j][i]: cell 4 cq + j, index 4 kq + i
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        int off = ((4 * role.cq + j) * kT + role.rr) * kKC * 4 + 16 * role.kq;
        off ^= (off >> 3) & 16;  // the TMA's 32-byte swizzle
        *reinterpret_cast<float4*>(y[j]) = *reinterpret_cast<const float4*>(b + off);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) x[i] = make_float4(y[0][i], y[1][i], y[2][i], y[3][i]);
    } else {
      const unsigned char* q = b + ((4 * role.kq * kT + role.rr) * kG + 4 * role.cq) * 4;
#pragma unroll
      for (int i = 0; i < 4; ++i) x[i] = *reinterpret_cast<const float4*>(q + i * kT * kG * 4);
    }
    put_split(s + role.split_offset(), x);
  }
  // Every thread has read stage ch's raw buffer: it takes stage ch + A.
  __device__ void after_barrier(const ContractProblem<float>&, index_type ch, index_type chunks, const WgMaps& maps,
                                index_type c0, index_type l0, index_type r0) {
    if (tid == 0 && ch + A < chunks) issue(maps, ch + A, c0, l0, r0);
  }
};

template <class Stager>
__global__ void __launch_bounds__(kThreads, 1)
    contract_wgmma_kernel(const __grid_constant__ WgMaps maps, const ContractProblem<float> p, const int tiles_l,
                          const int tiles_r, const int out_vec, const int splits) {
  extern __shared__ __align__(128) unsigned char smem[];
  // splits > 1: the stages are shared out among `splits` blocks per tile (part-major, so the tiles
  // of a cell group stay neighbours), which add their sums into the zeroed output.
  const index_type items = gridDim.x / splits, item = blockIdx.x % items, part = blockIdx.x / items;
  const int tiles = tiles_l * tiles_r;
  const index_type group = item / tiles;
  const int t = static_cast<int>(item % tiles);
  const index_type c0 = group * kG, l0 = static_cast<index_type>(t / tiles_r) * kT,
                   r0 = static_cast<index_type>(t % tiles_r) * kT;
  const int tid = threadIdx.x;
  const index_type all = (p.K + kKC - 1) / kKC, share = (all + splits - 1) / splits, first = part * share;
  const index_type chunks = first < all ? (all - first < share ? all - first : share) : 0;
  Stager stager(p, maps, smem + kNS * kStage, tid, c0, l0, r0, first);

  // Compute role: warpgroup wg owns cells 2 wg and 2 wg + 1.
  const int wg = tid >> 7;
  float acc[2][32];
#pragma unroll
  for (int cc = 0; cc < 2; ++cc)
#pragma unroll
    for (int e = 0; e < 32; ++e) acc[cc][e] = 0.f;
  const std::uint64_t desc0 = smem_desc(smem + 2 * wg * kCell);  // buffer 0, cell 2 wg, left big
  auto multiply = [&](int buf) {
    const std::uint64_t d = desc0 + static_cast<std::uint64_t>((buf * kStage) >> 4);
    wg_fence();
#pragma unroll
    for (int cc = 0; cc < 2; ++cc) {
      const std::uint64_t a_big = d + (cc * kCell >> 4), a_small = a_big + (kPart >> 4);
      const std::uint64_t b_big = a_big + (2 * kPart >> 4), b_small = a_big + (3 * kPart >> 4);
      wgmma_64x64x8(acc[cc], a_small, b_big);
      wgmma_64x64x8(acc[cc], a_big, b_small);
      wgmma_64x64x8(acc[cc], a_big, b_big);
    }
    wg_commit();
  };

  stager.start(p, chunks, maps, c0, l0, r0);
  for (index_type ch = 0; ch < chunks; ++ch) {
    const int buf = static_cast<int>(ch % kNS);
    // buf was last read by stage ch - 2, finished by every warpgroup before the last barrier.
    stager.fill(p, ch, chunks, smem + buf * kStage);
    fence_async_smem();
    wg_wait<0>();  // this warpgroup's stage ch - 1 is done
    __syncthreads();
    stager.after_barrier(p, ch, chunks, maps, c0, l0, r0);
    multiply(buf);
  }
  wg_wait<0>();
  __syncthreads();  // every warpgroup is done reading the stages: they become the result buffer

  // Accumulator element e of warp w (in its warpgroup): row 16 w + lane/4 + 8 ((e/2) % 2), column
  // 8 (e/4) + 2 (lane%4) + e%2.
  float* res = reinterpret_cast<float*>(smem);
  {
    const int w = (tid >> 5) & 3, lane = tid & 31;
#pragma unroll
    for (int cc = 0; cc < 2; ++cc) {
      float* rc = res + (2 * wg + cc) * kOutCell + (16 * w + (lane >> 2)) * kOutRow + 2 * (lane & 3);
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float2*>(rc + h * 8 * kOutRow + 8 * j) =
              make_float2(acc[cc][4 * j + 2 * h], acc[cc][4 * j + 2 * h + 1]);
    }
  }
  __syncthreads();
  // The output's fields unit-stride (LayoutRight): each (cell, row) of the tile is a run of up to
  // kT fields, stored as 16-byte packs from its first 16-byte boundary on, 16 threads a run, one
  // pack each; threads 0-2 also store the 0-3 fields before the first pack and threads 13-15 the
  // 0-3 after the last, one at a time: faster than one field a thread.
  if (out_vec == kOutFields) {
    constexpr int slots = kT / 4;
    for (int e = tid; e < kG * kT * slots; e += kThreads) {
      const int slot = e % slots, rw = (e / slots) % kT, q = e / (kT * slots);
      const index_type cc = c0 + q, l = l0 + rw;
      if (cc >= p.C || l >= p.L) continue;
      const int n = static_cast<int>(p.R - r0 < kT ? p.R - r0 : kT);
      float* o = p.out + cc * p.o_c + l * p.o_l + r0;
      const float* s = res + q * kOutCell + rw * kOutRow;  // 16-byte aligned
      const int mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(o) >> 2) & 3);
      const int lead = (4 - mis) & 3, head = lead < n ? lead : n, packs = (n - head) >> 2;
      if (slot < packs) {
        const int c = head + 4 * slot;
        Pack<float, 4> v;
        if (head == 0) {
          const float4 x = *reinterpret_cast<const float4*>(s + c);
          v.x[0] = x.x, v.x[1] = x.y, v.x[2] = x.z, v.x[3] = x.w;
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i) v.x[i] = s[c + i];
        }
        store_cells<float, 4>(o + c, v, p.sum_into, splits > 1);
      }
      int f = -1;  // one field before the first pack or after the last
      if (slot < 3 && slot < head) f = slot;
      if (slot >= slots - 3 && head + 4 * packs + (slot - (slots - 3)) < n) f = head + 4 * packs + (slot - (slots - 3));
      if (f >= 0) {
        Pack<float, 1> v;
        v.x[0] = s[f];
        store_cells<float, 1>(o + f, v, p.sum_into, splits > 1);
      }
    }
    return;
  }
  // Thread e takes cells c0 + W q .. + W - 1 of one (row, col), W = out_vec.
  auto store = [&](auto vec) {
    constexpr int W = decltype(vec)::value, run = kG / W;
    for (int e = tid; e < run * kT * kT; e += kThreads) {
      const int q = e % run, rc = e / run, col = rc % kT, rw = rc / kT;
      const index_type cc = c0 + W * q, l = l0 + rw, r = r0 + col;
      if (cc < p.C && l < p.L && r < p.R) {
        Pack<float, W> v;
#pragma unroll
        for (int i = 0; i < W; ++i) v.x[i] = res[(W * q + i) * kOutCell + rw * kOutRow + col];
        store_cells<float, W>(p.out + cc * p.o_c + l * p.o_l + r * p.o_r, v, p.sum_into, splits > 1);
      }
    }
  };
  if (out_vec == 4) return store(std::integral_constant<int, 4>{});
  if (out_vec == 2) return store(std::integral_constant<int, 2>{});
  store(std::integral_constant<int, 1>{});
}

template <class Stager>
void launch_wgmma(const ContractProblem<float>& p, const WgMaps& maps, int out_vec, int splits) {
  constexpr int smem = wg_smem(Stager::smem);
  static_assert(smem <= 227 * 1024, "wgmma needs more shared memory than a block gets");
  const index_type tiles_l = (p.L + kT - 1) / kT, tiles_r = (p.R + kT - 1) / kT;
  const index_type blocks = (p.C + kG - 1) / kG * tiles_l * tiles_r * splits;
  if (blocks > 0x7fffffff)
    throw_error(p.function, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  static PerDevice<bool> configured;  // a kernel attribute is the current device's
  configured.get([] {
    cuda_check(cudaFuncSetAttribute(contract_wgmma_kernel<Stager>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
               "algorithm 'mma': cudaFuncSetAttribute (wgmma)");
    return true;
  });
  if (splits > 1)  // the blocks add into it (dense output: checked by the caller)
    cuda_check(cudaMemsetAsync(p.out, 0, static_cast<std::size_t>(p.C * p.L * p.R) * sizeof(float)),
               "algorithm 'mma': zeroing the output");
  contract_wgmma_kernel<Stager><<<static_cast<unsigned>(blocks), kThreads, smem>>>(
      maps, p, static_cast<int>(tiles_l), static_cast<int>(tiles_r), out_vec, splits);
  cuda_check_launch("algorithm 'mma': contract_wgmma_kernel");
}

// How many blocks share each tile's stages: 2 where that shortens the grid by 10% or more (one
// block per SM: rounds = ceil(blocks / SMs); halves take half as long), with at least 128 stages
// a tile; 1 where the output is accumulated into or not dense (the halves add into a zeroed
// output, which is exact whichever adds first: 0 + x + y = 0 + y + x). force: 2 whenever allowed
// (tests). Where the rounds shrink less, or K is shorter, the zeroing, the atomic adds and the
// second result pass cost more than the split saves.
int wgmma_splits(const ContractProblem<float>& p, bool force) {
  if (p.sum_into || !p.out_dense()) return 1;
  if (force) return 2;
  const index_type sms = cuda_device().sm_count > 0 ? cuda_device().sm_count : 1;
  const index_type chunks = (p.K + kKC - 1) / kKC;
  const index_type items = (p.C + kG - 1) / kG * ((p.L + kT - 1) / kT) * ((p.R + kT - 1) / kT);
  const index_type one = (items + sms - 1) / sms, two = (2 * items + sms - 1) / sms;  // rounds
  return chunks >= 128 && two * 10 <= one * 18 ? 2 : 1;  // two / 2 <= 0.9 one
}

// The TMA descriptor of one operand: (cells, rows, contracted index) with byte strides (rows,
// k), boxes of 8 x 64 x 8, zeros out of bounds. False where the tensor map cannot describe it.
// L2 promotion 128 bytes: faster than none or 64 bytes, and than 256 at FieldFieldTensor Q4.
// k_rows: an operand whose rows are unit-stride along K (LayoutRight): (contracted index, rows,
// cells) with byte strides (rows, cells), boxes of 8 x 64 x 8 swizzled 32 bytes (TmaStager<..,
// true>); third_stride is then the cell stride.
bool encode_map(CUtensorMap* map, const float* base, index_type C, index_type rows, index_type K, index_type row_stride,
                index_type third_stride, bool k_rows = false) {
  using Encode = PFN_cuTensorMapEncodeTiled_v12000;
  static const Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      fn = nullptr;
    (void)cudaGetLastError();
    return reinterpret_cast<Encode>(fn);
  }();
  constexpr index_type kMaxDim = index_type(1) << 31, kMaxStride = index_type(1) << 40;
  if (!encode || C >= kMaxDim || rows >= kMaxDim || K >= kMaxDim) return false;
  const index_type sr = row_stride * 4, s3 = third_stride * 4;
  if (sr <= 0 || s3 <= 0 || sr % 16 || s3 % 16 || sr >= kMaxStride || s3 >= kMaxStride) return false;
  if (reinterpret_cast<std::uintptr_t>(base) % 16) return false;
  const cuuint64_t first = static_cast<cuuint64_t>(k_rows ? K : C), last = static_cast<cuuint64_t>(k_rows ? C : K);
  const cuuint64_t dims[3] = {first, static_cast<cuuint64_t>(rows), last};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(sr), static_cast<cuuint64_t>(s3)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(k_rows ? kKC : kG), kT, static_cast<cuuint32_t>(k_rows ? kG : kKC)},
                   unit[3] = {1, 1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(base), dims, strides, box, unit,
                CU_TENSOR_MAP_INTERLEAVE_NONE, k_rows ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The tensor maps of both operands' K-contiguous rows (wgmma_k_rows' conditions), false where
// they do not apply.
bool row_maps(const ContractProblem<float>& p, WgMaps* maps) {
  if (p.cells_unit() || !p.rows_along_k() || p.K <= 1) return false;
  return encode_map(&maps->a, p.a, p.C, p.L, p.K, p.a_l, p.a_c, true) &&
         encode_map(&maps->b, p.b, p.C, p.R, p.K, p.b_r, p.b_c, true);
}

// TMA stages in flight: 3 (every raw buffer) where a block runs at most 32 stages, else 2. A short
// tile is the prologue's latency, and the third stage's copy starts with the first two; on longer
// tiles 3 in flight is level or slower (measured).
int wgmma_lead(const ContractProblem<float>& p, int splits) {
  const index_type stages = ((p.K + kKC - 1) / kKC + splits - 1) / splits;
  return stages <= 32 ? 3 : 2;
}

}  // namespace

bool wgmma_k_rows(const ContractProblem<float>& p) {
  WgMaps maps{};
  return row_maps(p, &maps);
}

void contract_wgmma_float(const ContractProblem<float>& p, int out_vec, bool tma, bool force_split, int lead) {
  WgMaps maps{};
  const int splits = wgmma_splits(p, force_split);
  if (!p.cells_unit()) {  // rows unit-stride along K: TMA copies only (LoadStager reads cells-fastest)
    if (!row_maps(p, &maps))
      throw_error(p.function, ": algorithm 'mma': internal error: the warpgroup kernel's row copies do not apply");
    out_vec = p.o_r == 1 ? kOutFields : 1;
    if ((lead ? lead : wgmma_lead(p, splits)) == 3) return launch_wgmma<TmaStager<3, 3, true>>(p, maps, out_vec, splits);
    return launch_wgmma<TmaStager<3, 2, true>>(p, maps, out_vec, splits);
  }
  if (tma && p.cells_packed(4) && p.K1 == 1 && p.K > 1 && encode_map(&maps.a, p.a, p.C, p.L, p.K, p.a_l, p.a_s0) &&
      encode_map(&maps.b, p.b, p.C, p.R, p.K, p.b_r, p.b_s0)) {
    if ((lead ? lead : wgmma_lead(p, splits)) == 3) return launch_wgmma<TmaStager<3, 3>>(p, maps, out_vec, splits);
    return launch_wgmma<TmaStager<3, 2>>(p, maps, out_vec, splits);
  }
  if (p.cells_packed(4)) return launch_wgmma<LoadStager<4>>(p, maps, out_vec, splits);
  if (p.cells_packed(2)) return launch_wgmma<LoadStager<2>>(p, maps, out_vec, splits);
  launch_wgmma<LoadStager<1>>(p, maps, out_vec, splits);
}

}  // namespace grain::impl
