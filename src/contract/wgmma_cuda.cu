// Algorithm::Mma's warpgroup kernel: FieldField in float on the Hopper tensor cores' asynchronous
// warpgroup MMAs (wgmma, compute capability 9.0 only: this file is compiled for sm_90a alone, see
// CMakeLists.txt), for cells-fastest operands (LayoutLeft), in the 3xTF32 split of mma_cuda.cu.
//
// Why: mma_cuda.cu's float kernels issue mma.sync per warp, and each warp splits its own fragments
// into TF32 big + small parts every step; Nsight Compute had the packed one latency-bound (8 warps
// per SM, tensor pipe 26%) and the copied one, for odd C, further behind cuBLAS (docs/performance.md,
// sessions 10-12). Here each element is split once, as it goes to shared memory, and the products
// are issued asynchronously by a warpgroup from shared memory:
//   * a block takes G = 8 consecutive cells and a 64 x 64 tile of their outputs: 4 warpgroups of 4
//     warps, 2 cells each, two m64n64 fp32 accumulators per warpgroup (64 registers a thread);
//   * each stage is KC = 8 contracted indices. Every thread loads 4 cells x 4 indices of one row
//     (left rows 0-63, right rows 64-127) into registers, one stage ahead: 16-byte loads where the
//     cells are packed by 4 (cells_packed(4)), 8-byte where by 2, else 4-byte; neighbouring threads
//     take neighbouring cells, so a warp reads 32-byte runs of 8 cells;
//   * it splits them and stores big and small in the canonical K-major layout wgmma reads without
//     swizzling: core matrices of 8 rows x 4 indices, 128 contiguous bytes (kSbo apart along rows,
//     kLbo apart along k), padded so these 16-byte stores are free of bank conflicts;
//   * per stage a warpgroup issues, per cell, m64n64k8 small x big, big x small, big x big (the
//     small terms first), asynchronously, while the block loads and splits the next stage;
//   * results leave through shared memory so the stores are cell-contiguous, as in mma_cuda.cu.
// What bounds it (H100, session 13, docs/performance.md): each stage moves 160 KB through shared
// memory (64 KB of split operands stored, 96 KB read by the wgmmas: an m64n64k8 reads 4 KB, as
// much as shared memory delivers in the 32 cycles the TF32 peak needs for it), and the registers
// hold one stage in flight (124 registers at 512 threads). Measured and not kept (runs 2-5): the
// left operand in registers (wgmma RS: 112 KB a stage, but its fragment loads and split sit
// between the barrier and the wgmmas), raw cp.async rings (more shared-memory traffic; with 200+
// KB of shared memory the L1 left is too small for the 4- and 8-byte copies), 3 buffers of split
// operands, 4 cells a block (2 blocks an SM; 16-byte runs), loads that skip L1.
#include <cstdint>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_runtime.hpp"
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
constexpr int kSmem = kNS * kStage > kG * kOutCell * 4 ? kNS * kStage : kG * kOutCell * 4;  // results reuse the stages
static_assert((kLbo / 16) % 8 == 2 && (4 * kCell / 16) % 8 == 4, "wgmma staging stores would conflict");
static_assert(kPart % 16 == 0 && kCell % 16 == 0 && kSmem <= 227 * 1024, "bad wgmma layout");

// x = big + small, big = x rounded to TF32, small = x - big (mma_cuda.cu's split_tf32: the MMA
// ignores small's low 13 bits, a loss under 2^-21 of x).
__device__ __forceinline__ void split_tf32(float x, float& big, float& small) {
  big = __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
  small = x - big;
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

template <int V>
__global__ void __launch_bounds__(kThreads, 1)
    contract_wgmma_kernel(const ContractProblem<float> p, const int tiles_l, const int tiles_r, const int out_vec) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int tiles = tiles_l * tiles_r;
  const index_type group = blockIdx.x / tiles;
  const int t = static_cast<int>(blockIdx.x % tiles);
  const index_type c0 = group * kG, l0 = static_cast<index_type>(t / tiles_r) * kT,
                   r0 = static_cast<index_type>(t % tiles_r) * kT;
  const int tid = threadIdx.x;

  // Staging role: cells c0 + 4 cq .. + 3, indices 4 kq .. + 3 of each stage, row `row` of the left
  // (row < 64) or right operand.
  const int cq = tid & 1, kq = (tid >> 1) & 1, row = tid >> 2;
  const bool right = row >= kT;
  const int rr = row & (kT - 1);
  const index_type c = c0 + 4 * cq;
  const bool row_ok = right ? r0 + rr < p.R : l0 + rr < p.L;
  const float* src = right ? p.b + c * p.b_c + (r0 + rr) * p.b_r : p.a + c * p.a_c + (l0 + rr) * p.a_l;
  if (!row_ok) src = p.a;
  // This thread's 16-byte slot of a stage: cell 4 cq + j at + j cell, small at + part.
  const int st_off = 4 * cq * kCell + (right ? 2 : 0) * kPart + (rr >> 3) * kSbo + kq * kLbo + (rr & 7) * 16;
  const index_type chunks = (p.K + kKC - 1) / kKC;

  float4 x[4];  // the next stage: x[i] = cells of index 4 kq + i
  auto load = [&](index_type ch) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const index_type k = ch * kKC + 4 * kq + i;
      const bool ok = row_ok && k < p.K;
      const index_type off = ok ? (right ? p.b_k(k) : p.a_k(k)) : 0;
      x[i] = load_cells<V>(src + off, c, p.C, ok);
    }
  };
  auto put = [&](int buf) {  // split x into big and small, stored per cell as 4 indices of one row
    unsigned char* s = smem + buf * kStage + st_off;
    const float* xs = reinterpret_cast<const float*>(x);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 big, small;
      split_tf32(xs[0 * 4 + j], big.x, small.x);
      split_tf32(xs[1 * 4 + j], big.y, small.y);
      split_tf32(xs[2 * 4 + j], big.z, small.z);
      split_tf32(xs[3 * 4 + j], big.w, small.w);
      *reinterpret_cast<float4*>(s + j * kCell) = big;
      *reinterpret_cast<float4*>(s + j * kCell + kPart) = small;
    }
  };

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

  if (chunks > 0) load(0);
  for (index_type ch = 0; ch < chunks; ++ch) {
    const int buf = static_cast<int>(ch % kNS);
    put(buf);  // buf was last read by stage ch - 2, finished by every warpgroup before the last barrier
    if (ch + 1 < chunks) load(ch + 1);
    fence_async_smem();
    wg_wait<0>();  // this warpgroup's stage ch - 1 is done
    __syncthreads();
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
  // Thread e takes cells c0 + W q .. + W - 1 of one (row, col), W = out_vec.
  auto store = [&](auto vec) {
    constexpr int W = decltype(vec)::value, run = kG / W;
    for (int e = tid; e < run * kT * kT; e += kThreads) {
      const int q = e % run, rc = e / run, col = rc % kT, rw = rc / kT;
      const index_type cc = c0 + W * q, l = l0 + rw, r = r0 + col;
      if (cc < p.C && l < p.L && r < p.R) {
        float v[W];
#pragma unroll
        for (int i = 0; i < W; ++i) v[i] = res[(W * q + i) * kOutCell + rw * kOutRow + col];
        float* o = p.out + cc * p.o_c + l * p.o_l + r * p.o_r;
        if constexpr (W == 4) {
          float4 u = make_float4(v[0], v[1], v[2], v[3]);
          if (p.sum_into) {
            const float4 w4 = *reinterpret_cast<const float4*>(o);
            u.x += w4.x, u.y += w4.y, u.z += w4.z, u.w += w4.w;
          }
          *reinterpret_cast<float4*>(o) = u;
        } else if constexpr (W == 2) {
          float2 u = make_float2(v[0], v[1]);
          if (p.sum_into) {
            const float2 w2 = *reinterpret_cast<const float2*>(o);
            u.x += w2.x, u.y += w2.y;
          }
          *reinterpret_cast<float2*>(o) = u;
        } else {
          *o = p.sum_into ? *o + v[0] : v[0];
        }
      }
    }
  };
  if (out_vec == 4) return store(std::integral_constant<int, 4>{});
  if (out_vec == 2) return store(std::integral_constant<int, 2>{});
  store(std::integral_constant<int, 1>{});
}

template <int V>
void launch_wgmma(const ContractProblem<float>& p, int out_vec) {
  const index_type tiles_l = (p.L + kT - 1) / kT, tiles_r = (p.R + kT - 1) / kT;
  const index_type blocks = (p.C + kG - 1) / kG * tiles_l * tiles_r;
  if (blocks > 0x7fffffff)
    throw_error(p.function, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  static const bool configured = [] {
    cuda_check(cudaFuncSetAttribute(contract_wgmma_kernel<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem),
               "algorithm 'mma': cudaFuncSetAttribute (wgmma)");
    return true;
  }();
  (void)configured;
  contract_wgmma_kernel<V><<<static_cast<unsigned>(blocks), kThreads, kSmem>>>(p, static_cast<int>(tiles_l),
                                                                              static_cast<int>(tiles_r), out_vec);
  cuda_check_launch("algorithm 'mma': contract_wgmma_kernel");
}

}  // namespace

void contract_wgmma_float(const ContractProblem<float>& p, int out_vec) {
  if (p.cells_packed(4)) return launch_wgmma<4>(p, out_vec);
  if (p.cells_packed(2)) return launch_wgmma<2>(p, out_vec);
  launch_wgmma<1>(p, out_vec);
}

}  // namespace grain::impl
