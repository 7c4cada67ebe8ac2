// Algorithm::Mma — FieldField in double on the GPU's FP64 tensor cores (DMMA: mma.sync m8n8k4),
// for cells-fastest operands (LayoutLeft left, right and out). CUDA builds only.
//
// Why a kernel of its own: in LayoutLeft the unit-stride index is the cell, so no GEMM library
// can read a cell's matrices, and the portable `block` kernel runs the cell's GEMM on the FMA
// pipes at a quarter of their peak (docs/performance.md, session 2: 216 registers, 12.5%
// occupancy, latency-bound). Here a block of 8 warps takes 8 consecutive cells and one 32 x 32
// tile of their outputs:
//   * staging: every thread copies 8-byte elements global -> shared with cp.async, mapped so
//     that 8 neighbouring threads read 8 neighbouring cells (64 contiguous bytes), in a
//     4-stage pipeline over chunks of 4 contracted indices (zero-filled past L, R, K and C);
//   * compute: warp w owns cell w's tile as 4 x 4 DMMA tiles of 8 x 8 (64 accumulator registers
//     per thread); per 4 contracted indices it loads 4 left and 4 right fragments from shared
//     memory and issues 16 DMMAs;
//   * results go through shared memory so the stores, too, are cell-contiguous.
// Shared-memory strides are padded so fragment loads, staging stores and the result pass are
// free of bank conflicts (the arithmetic is next to each constant).
#include <string>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_runtime.hpp"

namespace grain::impl {
namespace {

constexpr int kCells = 8;                    // cells per block, one warp each
constexpr int kThreads = kCells * 32;
constexpr int kTile = 32;                    // a warp's outputs: kTile x kTile of one cell
// Results: a lane writes 2 doubles of rows lane/4; row stride 40 = 8 (mod 16) for the 16-byte
// stores, cell stride 1282 = 2 (mod 16) for the cell-contiguous read-back.
constexpr int kOutRow = kTile + 8;
constexpr int kOutCell = kTile * kOutRow + 2;

// The pipeline's shape: KC contracted indices per stage, NS stages in shared memory.
template <int KC, int NS>
struct MmaShape {
  static_assert(KC % 4 == 0 && kThreads % (kCells * KC) == 0 && NS >= 2, "bad mma pipeline shape");
  // Fragment loads: lanes 0-15 read rows 0-3 x k 0-3; a row stride of 4 or 12 (mod 16 doubles)
  // puts them in 16 distinct bank pairs.
  static constexpr int row_stride = KC % 8 == 4 ? KC : KC + 4;
  // Staging stores: 8 lanes write 8 cells at one (row, k); a cell stride of 2 (mod 16) separates them.
  static constexpr int cell_stride = kTile * row_stride + 2;
  static constexpr int operand = kCells * cell_stride;  // one operand of one stage, in doubles
  static constexpr int stage = 2 * operand;
  static constexpr int row_step = kThreads / (kCells * KC);  // staging rows s_row + row_step j
  static constexpr int smem_doubles = NS * stage > kCells * kOutCell ? NS * stage : kCells * kOutCell;
  static constexpr int smem_bytes = smem_doubles * 8;
};

// cp.async and DMMA exist from compute capability 8.0; the host refuses older devices, and a
// build for them compiles these to a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GRAIN_MMA_DEVICE 1
#endif

__device__ __forceinline__ void cp_async8(double* dst, const double* src, int bytes) {
#ifdef GRAIN_MMA_DEVICE
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
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
__device__ __forceinline__ void dmma(double (&d)[2], double a, double b) {
#ifdef GRAIN_MMA_DEVICE
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}

template <int KC, int NS>
__global__ void __launch_bounds__(kThreads, 2)
    contract_mma_kernel(const ContractProblem<double> p, const index_type tiles_l, const index_type tiles_r) {
  using S = MmaShape<KC, NS>;
  extern __shared__ __align__(16) double smem[];
  const index_type tiles = tiles_l * tiles_r;
  const index_type group = blockIdx.x / tiles, t = blockIdx.x % tiles;  // tiles of a cell group adjacent: L2 reuse
  const index_type c0 = group * kCells, l0 = (t / tiles_r) * kTile, r0 = (t % tiles_r) * kTile;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // Staging role: cell s_cell, contracted index s_k of the chunk, rows s_row + row_step j.
  const int s_cell = tid % kCells, s_k = (tid / kCells) % KC, s_row = tid / (kCells * KC);
  const index_type c = c0 + s_cell;
  const bool c_ok = c < p.C;
  const double* a_cell = p.a + (c_ok ? c : 0) * p.a_c;
  const double* b_cell = p.b + (c_ok ? c : 0) * p.b_c;
  auto stage = [&](int buf, index_type k0) {
    const index_type k = k0 + s_k;
    const bool k_ok = c_ok && k < p.K;
    const index_type ak = k_ok ? p.a_k(k) : 0, bk = k_ok ? p.b_k(k) : 0;
    double* sa = smem + buf * S::stage + s_cell * S::cell_stride + s_k;
    double* sb = sa + S::operand;
#pragma unroll
    for (int j = 0; j < kTile / S::row_step; ++j) {
      const int row = s_row + S::row_step * j;
      const bool la = k_ok && l0 + row < p.L, rb = k_ok && r0 + row < p.R;
      cp_async8(sa + row * S::row_stride, la ? a_cell + (l0 + row) * p.a_l + ak : p.a, la ? 8 : 0);
      cp_async8(sb + row * S::row_stride, rb ? b_cell + (r0 + row) * p.b_r + bk : p.b, rb ? 8 : 0);
    }
  };

  double acc[4][4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;

  // This lane's fragment element: row lane/4, contracted index lane%4 (the same for both operands).
  const double* frag = smem + warp * S::cell_stride + (lane >> 2) * S::row_stride + (lane & 3);
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
    const double* fa = frag + static_cast<int>(ch % NS) * S::stage;
    const double* fb = fa + S::operand;
#pragma unroll
    for (int kk = 0; kk < KC; kk += 4) {
      double a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = fa[i * 8 * S::row_stride + kk];
        b[i] = fb[i * 8 * S::row_stride + kk];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) dmma(acc[i][j], a[i], b[j]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the staging buffers become the result buffer

  double* so = smem + warp * kOutCell;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      double2 v;
      v.x = acc[i][j][0];
      v.y = acc[i][j][1];
      *reinterpret_cast<double2*>(so + (i * 8 + (lane >> 2)) * kOutRow + j * 8 + 2 * (lane & 3)) = v;
    }
  __syncthreads();
  for (int e = tid; e < kCells * kTile * kTile; e += kThreads) {
    const int cell = e % kCells, rc = e / kCells, col = rc % kTile, row = rc / kTile;
    const index_type cc = c0 + cell, l = l0 + row, r = r0 + col;
    if (cc < p.C && l < p.L && r < p.R) {
      const double v = smem[cell * kOutCell + row * kOutRow + col];
      double* o = p.out + cc * p.o_c + l * p.o_l + r * p.o_r;
      *o = p.sum_into ? *o + v : v;
    }
  }
}

template <int KC, int NS>
void launch_mma(const ContractProblem<double>& p, index_type blocks, index_type tiles_l, index_type tiles_r) {
  using S = MmaShape<KC, NS>;
  static const bool configured = [] {
    cuda_check(cudaFuncSetAttribute(contract_mma_kernel<KC, NS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    S::smem_bytes),
               "algorithm 'mma': cudaFuncSetAttribute");
    return true;
  }();
  (void)configured;
  contract_mma_kernel<KC, NS><<<static_cast<unsigned>(blocks), kThreads, S::smem_bytes>>>(p, tiles_l, tiles_r);
  cuda_check_launch("algorithm 'mma': contract_mma_kernel");
}

}  // namespace

void contract_mma_cuda(const ContractProblem<double>& p) {
  const char* fn = p.function;
  if (p.C == 0 || p.L == 0 || p.R == 0 || p.K == 0) return;  // the engine handles K = 0
  int dev = 0, major = 0;
  cuda_check(cudaGetDevice(&dev), "algorithm 'mma': cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
             "algorithm 'mma': cudaDeviceGetAttribute");
  if (major < 8)
    throw_error(fn, ": algorithm 'mma' needs FP64 tensor cores (compute capability 8.0 or newer); device ", dev,
                " has ", major, ".x");
  const index_type tiles_l = (p.L + kTile - 1) / kTile, tiles_r = (p.R + kTile - 1) / kTile;
  const index_type blocks = (p.C + kCells - 1) / kCells * tiles_l * tiles_r;
  if (blocks > 0x7fffffff)
    throw_error(fn, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  // 4 contracted indices per stage, 4 stages: measured on the H100 (session 3) against 8 x 2,
  // 4 x 6, 8 x 3 and 8 x 4 — equal to 8 x 2 within 10%, the deeper ones 10-35% slower
  // (docs/performance.md).
  launch_mma<4, 4>(p, blocks, tiles_l, tiles_r);
}

}  // namespace grain::impl
