// Algorithm::Mma — FieldField on the GPU's tensor cores, for cells-fastest operands (LayoutLeft
// left, right and out). CUDA builds only.
//   double: the FP64 tensor cores (DMMA, mma.sync m8n8k4), exact double arithmetic;
//   float:  TF32 tensor cores in the 3xTF32 split (mma.sync m16n8k8): each operand x is split
//           into big = tf32(x) and small = tf32(x - big), and big*big + big*small + small*big is
//           accumulated in fp32. The dropped small*small term and the rounding of small leave a
//           relative error of about 2^-21 per product, a few fp32 ulps, where one plain TF32
//           product would lose 2^-11 (measured against serial in tests/contract).
//
// Why a kernel of its own: in LayoutLeft the unit-stride index is the cell, so no GEMM library
// can read a cell's matrices, and the portable `block` kernel runs the cell's GEMM on the FMA
// pipes at a quarter of their peak (docs/performance.md, session 2: 216 registers, 12.5%
// occupancy, latency-bound). Here a block of 8 warps takes 8 consecutive cells and one 32 x 32
// tile of their outputs:
//   * staging: every thread copies elements global -> shared with cp.async, mapped so that 8
//     neighbouring threads read 8 neighbouring cells (64 contiguous bytes in double, 32 in
//     float), in a pipeline of 4 (double) or 2 (float) stages of KC contracted indices
//     (zero-filled past L, R, K and C);
//   * compute: warp w owns cell w's 32 x 32 tile (32 accumulators per thread): per chunk it loads
//     its left and right fragments from shared memory and issues 16 DMMAs per 4 indices (double)
//     or 8 x 3 TF32 MMAs per 8 indices (float);
//   * results go through shared memory so the stores, too, are cell-contiguous.
// Shared-memory strides are padded so fragment loads, staging stores and the result pass are
// free of bank conflicts (the arithmetic is next to each constant).
#include <cstdint>
#include <string>
#include <type_traits>

#include "grain/contract/engine.hpp"
#include "grain/core/backend/cuda_runtime.hpp"

namespace grain::impl {
namespace {

constexpr int kCells = 8;                    // cells per block, one warp each
constexpr int kThreads = kCells * 32;
constexpr int kTile = 32;                    // a warp's outputs: kTile x kTile of one cell
// Results: a lane writes 2 elements of row lane/4 (8-byte stores in float, 16-byte in double);
// a row stride of 40 elements puts the 8 rows of a store phase in distinct banks, and a cell
// stride of 40 * 32 + 2 (double) or + 4 (float) elements sets the 8 cells of the cell-contiguous
// read-back 4 words apart.
constexpr int kOutRow = kTile + 8;
template <class T>
constexpr int out_cell() { return kTile * kOutRow + (sizeof(T) == 8 ? 2 : 4); }

// The pipeline's shape: KC contracted indices per stage, NS stages in shared memory.
template <class T, int KC, int NS>
struct MmaShape {
  static_assert(KC % (sizeof(T) == 8 ? 4 : 8) == 0 && kThreads % (kCells * KC) == 0 && NS >= 2,
                "bad mma pipeline shape");
  // Fragment loads, in 4-byte words: a warp reads rows 0-7 x k 0-3 (float; double: lanes 0-15
  // read rows 0-3 x k 0-3 of 8-byte words). A row stride of 12 words (float) or of 4 or 12 doubles
  // (mod 16) puts them in distinct banks.
  static constexpr int row_stride = sizeof(T) == 8 ? (KC % 8 == 4 ? KC : KC + 4) : (KC % 32 == 8 ? KC + 4 : KC + 12);
  // Staging stores: 8 lanes write 8 cells at one (row, k); a cell stride of 2 doubles (mod 16)
  // or 4 floats (mod 32) separates them, and the k's of the other lanes fill the gaps.
  static constexpr int cell_stride = kTile * row_stride + (sizeof(T) == 8 ? 2 : 4);
  static constexpr int operand = kCells * cell_stride;  // one operand of one stage, in elements
  static constexpr int stage = 2 * operand;
  static constexpr int row_step = kThreads / (kCells * KC);  // staging rows s_row + row_step j
  static constexpr int smem_elems = NS * stage > kCells * out_cell<T>() ? NS * stage : kCells * out_cell<T>();
  static constexpr int smem_bytes = smem_elems * static_cast<int>(sizeof(T));
};

// cp.async and the DMMA / TF32 MMAs exist from compute capability 8.0; the host refuses older
// devices, and a build for them compiles these to a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GRAIN_MMA_DEVICE 1
#endif

template <class T>
__device__ __forceinline__ void cp_async(T* dst, const T* src, int bytes) {
#ifdef GRAIN_MMA_DEVICE
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
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

// x = big + small, both TF32 (round to nearest): big carries x's leading 11 bits, small the next 11.
__device__ __forceinline__ void split_tf32(float x, std::uint32_t& big, std::uint32_t& small) {
#ifdef GRAIN_MMA_DEVICE
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
  const float rest = x - __uint_as_float(big);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
#else
  (void)x;
  big = small = 0;
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

// A warp's 32 x 32 tile of one cell, in double: 4 x 4 DMMA tiles of 8 x 8.
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
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) dmma(acc[i][j], a[i], b[j]);
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

template <class T>
using MmaTile = std::conditional_t<std::is_same_v<T, double>, DmmaTile, Tf32x3Tile>;

template <class T, int KC, int NS>
__global__ void __launch_bounds__(kThreads, 2)
    contract_mma_kernel(const ContractProblem<T> p, const index_type tiles_l, const index_type tiles_r) {
  using S = MmaShape<T, KC, NS>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const index_type tiles = tiles_l * tiles_r;
  const index_type group = blockIdx.x / tiles, t = blockIdx.x % tiles;  // tiles of a cell group adjacent: L2 reuse
  const index_type c0 = group * kCells, l0 = (t / tiles_r) * kTile, r0 = (t % tiles_r) * kTile;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // Staging role: cell s_cell, contracted index s_k of the chunk, rows s_row + row_step j (j < J).
  // What does not change along K is computed once: the first row of each operand, the distance
  // between this thread's rows and how many of them exist (none for a cell past C). Computing the
  // addresses and bounds per copy kept the integer pipe half busy (Nsight Compute, session 4).
  constexpr int J = kTile / S::row_step;
  const int s_cell = tid % kCells, s_k = (tid / kCells) % KC, s_row = tid / (kCells * KC);
  const index_type c = c0 + s_cell;
  const bool c_ok = c < p.C;
  const index_type c_in = c_ok ? c : 0;
  const T* a_row = p.a + c_in * p.a_c + (l0 + s_row) * p.a_l;
  const T* b_row = p.b + c_in * p.b_c + (r0 + s_row) * p.b_r;
  const index_type a_step = S::row_step * p.a_l, b_step = S::row_step * p.b_r;
  auto rows_in = [&](index_type left) -> int {  // j with s_row + row_step j < left
    if (!c_ok || left <= s_row) return 0;
    const index_type n = (left - s_row + S::row_step - 1) / S::row_step;
    return n < J ? static_cast<int>(n) : J;
  };
  const int na = rows_in(p.L - l0), nb = rows_in(p.R - r0);
  T* const s_base = smem + s_cell * S::cell_stride + s_k + s_row * S::row_stride;
  auto stage = [&](int buf, index_type k0) {
    const index_type k = k0 + s_k;
    const bool k_ok = k < p.K;
    const T* ak = a_row + (k_ok ? p.a_k(k) : 0);
    const T* bk = b_row + (k_ok ? p.b_k(k) : 0);
    T* sa = s_base + buf * S::stage;
    T* sb = sa + S::operand;
    constexpr int bytes = static_cast<int>(sizeof(T));
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const bool la = k_ok && j < na, rb = k_ok && j < nb;
      cp_async(sa + j * S::row_step * S::row_stride, la ? ak + j * a_step : p.a, la ? bytes : 0);
      cp_async(sb + j * S::row_step * S::row_stride, rb ? bk + j * b_step : p.b, rb ? bytes : 0);
    }
  };

  MmaTile<T> tile;
  tile.zero();

  // This lane's fragment element: row lane/4, contracted index lane%4 (the same for both operands).
  const T* frag = smem + warp * S::cell_stride + (lane >> 2) * S::row_stride + (lane & 3);
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
    const T* fa = frag + static_cast<int>(ch % NS) * S::stage;
    tile.template multiply<KC, S::row_stride>(fa, fa + S::operand);
  }
  cp_async_wait<0>();
  __syncthreads();  // the staging buffers become the result buffer

  constexpr int oc = out_cell<T>();
  tile.write(smem + warp * oc, lane);
  __syncthreads();
  for (int e = tid; e < kCells * kTile * kTile; e += kThreads) {
    const int cell = e % kCells, rc = e / kCells, col = rc % kTile, row = rc / kTile;
    const index_type cc = c0 + cell, l = l0 + row, r = r0 + col;
    if (cc < p.C && l < p.L && r < p.R) {
      const T v = smem[cell * oc + row * kOutRow + col];
      T* o = p.out + cc * p.o_c + l * p.o_l + r * p.o_r;
      *o = p.sum_into ? *o + v : v;
    }
  }
}

template <class T, int KC, int NS>
void launch_mma(const ContractProblem<T>& p, index_type blocks, index_type tiles_l, index_type tiles_r) {
  using S = MmaShape<T, KC, NS>;
  static const bool configured = [] {
    cuda_check(cudaFuncSetAttribute(contract_mma_kernel<T, KC, NS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    S::smem_bytes),
               "algorithm 'mma': cudaFuncSetAttribute");
    return true;
  }();
  (void)configured;
  contract_mma_kernel<T, KC, NS><<<static_cast<unsigned>(blocks), kThreads, S::smem_bytes>>>(p, tiles_l, tiles_r);
  cuda_check_launch("algorithm 'mma': contract_mma_kernel");
}

template <class T>
void contract_mma_any(const ContractProblem<T>& p) {
  const char* fn = p.function;
  if (p.C == 0 || p.L == 0 || p.R == 0 || p.K == 0) return;  // the engine handles K = 0
  int dev = 0, major = 0;
  cuda_check(cudaGetDevice(&dev), "algorithm 'mma': cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
             "algorithm 'mma': cudaDeviceGetAttribute");
  if (major < 8)
    throw_error(fn, ": algorithm 'mma' needs FP64 and TF32 tensor cores (compute capability 8.0 or newer); device ",
                dev, " has ", major, ".x");
  const index_type tiles_l = (p.L + kTile - 1) / kTile, tiles_r = (p.R + kTile - 1) / kTile;
  const index_type blocks = (p.C + kCells - 1) / kCells * tiles_l * tiles_r;
  if (blocks > 0x7fffffff)
    throw_error(fn, ": algorithm 'mma': ", blocks, " thread blocks exceed the grid limit (2^31 - 1)");
  if constexpr (std::is_same_v<T, double>) {
    // 4 contracted indices per stage, 4 stages: measured on the H100 (sessions 3 and 4) against
    // 8 x 2, 4 x 3, 4 x 6, 8 x 3 and 8 x 4 — 4 x 3 within 3%, the others 3-35% slower; shapes
    // whose shared memory allows one block per SM lose (docs/performance.md).
    launch_mma<double, 4, 4>(p, blocks, tiles_l, tiles_r);
  } else {
    // One m16n8k8 step (8 indices, the same 32 bytes per cell as double's 4) per stage, 2 stages:
    // 2-9% ahead of 4 stages (3 stages were even with 4); 16 indices per stage (one block per SM)
    // lost 20-35%, and three blocks per SM (80 registers, spills) gained nothing (H100, session 4).
    launch_mma<float, 8, 2>(p, blocks, tiles_l, tiles_r);
  }
}

}  // namespace

void contract_mma_cuda(const ContractProblem<double>& p) { contract_mma_any(p); }
void contract_mma_cuda(const ContractProblem<float>& p) { contract_mma_any(p); }

}  // namespace grain::impl
