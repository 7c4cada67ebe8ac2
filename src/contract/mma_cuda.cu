// Algorithm::Mma — FieldField in double on the GPU's FP64 tensor cores (DMMA: mma.sync m8n8k4),
// for cells-fastest operands (LayoutLeft left, right and out). CUDA builds only.
//
// Why a kernel of its own: in LayoutLeft the unit-stride index is the cell, so no GEMM library
// can read a cell's matrices, and the portable `block` kernel runs the cell's GEMM on the FMA
// pipes at a quarter of their peak (docs/performance.md, session 2: 216 registers, 12.5%
// occupancy, latency-bound). Here a block of 8 warps takes 8 consecutive cells and one 32 x 32
// tile of their outputs:
//   * staging: every thread copies 8-byte elements global -> shared with cp.async, mapped so
//     that 8 neighbouring threads read 8 neighbouring cells (64 contiguous bytes), double
//     buffered over chunks of 8 contracted indices (zero-filled past L, R, K and C);
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
constexpr int kChunk = 8;                    // contracted indices per pipeline stage
// Fragment loads: lanes 0-15 read rows 0-3 x k 0-3; row stride 12 = 4 (mod 16 doubles) puts
// them in 16 distinct bank pairs.
constexpr int kRowStride = kChunk + 4;
// Staging stores: 8 lanes write 8 cells at one (row, k); a cell stride of 2 (mod 16) separates them.
constexpr int kCellStride = kTile * kRowStride + 2;
constexpr int kOperand = kCells * kCellStride;  // one operand of one stage, in doubles
constexpr int kStage = 2 * kOperand;
constexpr int kStages = 2;
// Results: a lane writes 2 doubles of rows lane/4; row stride 40 = 8 (mod 16) for the 16-byte
// stores, cell stride 1282 = 2 (mod 16) for the cell-contiguous read-back.
constexpr int kOutRow = kTile + 8;
constexpr int kOutCell = kTile * kOutRow + 2;
constexpr int kSmemDoubles = kStages * kStage > kCells * kOutCell ? kStages * kStage : kCells * kOutCell;
constexpr int kSmemBytes = kSmemDoubles * 8;

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

__global__ void __launch_bounds__(kThreads, 2)
    contract_mma_kernel(const ContractProblem<double> p, const index_type tiles_l, const index_type tiles_r) {
  extern __shared__ __align__(16) double smem[];
  const index_type tiles = tiles_l * tiles_r;
  const index_type group = blockIdx.x / tiles, t = blockIdx.x % tiles;  // tiles of a cell group adjacent: L2 reuse
  const index_type c0 = group * kCells, l0 = (t / tiles_r) * kTile, r0 = (t % tiles_r) * kTile;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // Staging role: cell s_cell, contracted index s_k of the chunk, rows s_row + 4 j.
  const int s_cell = tid % kCells, s_k = (tid / kCells) % kChunk, s_row = tid / (kCells * kChunk);
  const index_type c = c0 + s_cell;
  const bool c_ok = c < p.C;
  const double* a_cell = p.a + (c_ok ? c : 0) * p.a_c;
  const double* b_cell = p.b + (c_ok ? c : 0) * p.b_c;
  auto stage = [&](int buf, index_type k0) {
    const index_type k = k0 + s_k;
    const bool k_ok = c_ok && k < p.K;
    const index_type ak = k_ok ? p.a_k(k) : 0, bk = k_ok ? p.b_k(k) : 0;
    double* sa = smem + buf * kStage + s_cell * kCellStride + s_k;
    double* sb = sa + kOperand;
#pragma unroll
    for (int j = 0; j < kTile / 4; ++j) {
      const int row = s_row + 4 * j;
      const bool la = k_ok && l0 + row < p.L, rb = k_ok && r0 + row < p.R;
      cp_async8(sa + row * kRowStride, la ? a_cell + (l0 + row) * p.a_l + ak : p.a, la ? 8 : 0);
      cp_async8(sb + row * kRowStride, rb ? b_cell + (r0 + row) * p.b_r + bk : p.b, rb ? 8 : 0);
    }
  };

  double acc[4][4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;

  // This lane's fragment element: row lane/4, contracted index lane%4 (the same for both operands).
  const double* frag = smem + warp * kCellStride + (lane >> 2) * kRowStride + (lane & 3);
  const index_type chunks = (p.K + kChunk - 1) / kChunk;
  stage(0, 0);
  cp_async_commit();
  for (index_type ch = 0; ch < chunks; ++ch) {
    if (ch + 1 < chunks) {
      stage(static_cast<int>((ch + 1) & 1), (ch + 1) * kChunk);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const double* fa = frag + (ch & 1) * kStage;
    const double* fb = fa + kOperand;
#pragma unroll
    for (int kk = 0; kk < kChunk; kk += 4) {
      double a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = fa[i * 8 * kRowStride + kk];
        b[i] = fb[i * 8 * kRowStride + kk];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) dmma(acc[i][j], a[i], b[j]);
    }
    __syncthreads();  // the next iteration's copies overwrite this buffer
  }

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
  static const bool configured = [] {
    cuda_check(cudaFuncSetAttribute(contract_mma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes),
               "algorithm 'mma': cudaFuncSetAttribute");
    return true;
  }();
  (void)configured;
  const index_type tiles_l = (p.L + kTile - 1) / kTile, tiles_r = (p.R + kTile - 1) / kTile;
  const index_type blocks = (p.C + kCells - 1) / kCells * tiles_l * tiles_r;
  if (blocks > 0x7fffffff)
    throw_error(fn, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  contract_mma_kernel<<<static_cast<unsigned>(blocks), kThreads, kSmemBytes>>>(p, tiles_l, tiles_r);
  cuda_check_launch("algorithm 'mma': contract_mma_kernel");
}

}  // namespace grain::impl
