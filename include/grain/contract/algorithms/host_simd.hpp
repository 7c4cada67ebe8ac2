// Host helpers for the contraction kernels' CPU paths: the host's vector width, W x W transposes
// of W-element vectors in registers (GCC vector extensions), the CPU vendor, and the prefetches.
//
// GRAIN_HOST_SHUFFLE_TRANSPOSE is defined where they exist: GCC host code, nvcc's host pass
// included (the CPU back ends of a CUDA-enabled build run the same kernels as a host-only build's;
// keying on __CUDACC__ would leave them several times slower there), never nvcc's device
// pass (__CUDA_ARCH__). nvcc's front end then parses GCC's vector types, __builtin_shuffle, the
// register constraints and <immintrin.h>: nvcc 13 with GCC 12 accepts them; other pairings are
// untested. Clang (which has __builtin_shufflevector instead), NVHPC and the classic Intel
// compiler also define __GNUC__; they are left out, untested. Elsewhere callers keep scalar loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "grain/core/config.hpp"
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__CUDA_ARCH__)
#include <cpuid.h>
#include <immintrin.h>
#define GRAIN_HOST_CPUID 1
#endif

namespace grain::impl {

// The host's vector registers, in bytes: 32 with AVX (AVX-512 machines included: GCC prefers
// 256-bit vectors there, and AMD's Zen 4 runs a 512-bit FMA as two 256-bit halves), else 16 (SSE2,
// NEON).
#if defined(__AVX__)
inline constexpr int kHostVectorBytes = 32;
#else
inline constexpr int kHostVectorBytes = 16;
#endif
// The widest vector register the build may use, in bytes (HostVector::pin).
#if defined(__AVX512F__)
inline constexpr int kHostRegisterBytes = 64;
#elif defined(__AVX__)
inline constexpr int kHostRegisterBytes = 32;
#else
inline constexpr int kHostRegisterBytes = 16;
#endif

// Whether `block`'s CPU FieldField kernel (ContractBlockHostGemmKernel) prefetches a thread's
// next cell's operands, by the length of their rows in bytes: rows of 193 B to 2 KiB. There the
// prefetch takes a large share off the kernel's time; shorter rows are already read at about the
// copy rate and longer ones are followed by the hardware's stream prefetchers, so for both the
// prefetches only cost. Two or more cells ahead is slower (measured).
inline constexpr bool host_prefetch_next_cell(std::int64_t row_bytes) {
  return row_bytes > 192 && row_bytes <= 2048;
}

// Whether the host CPU is AMD's (x86 CPUID vendor "AuthenticAMD"; false elsewhere, and in nvcc's
// device pass, which runs no CPU kernels). The CPU `flat` reads DataField's long rows one
// field at a time there: AMD's cores read one stream faster than W side by side, Intel's slower
// (measured on one machine of each). The vendor comes from CPUID, not from
// the model name the tuning file keys on (tuning.cpp reads it from /proc/cpuinfo): a virtual
// machine may report a generic model name, while CPUID's vendor passes through.
inline bool host_cpu_is_amd() {
#ifdef GRAIN_HOST_CPUID
  static const bool amd = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
    char v[13];
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &c, 4);
    v[12] = 0;
    return std::strcmp(v, "AuthenticAMD") == 0;
  }();
  return amd;
#else
  return false;
#endif
}

// Whether the host CPU runs a 512-bit FMA as two 256-bit halves: AMD's CPUs before Zen 5, x86
// CPUID family below 0x1A (Zen 4 is 0x19), where 512-bit vectors give no more FMAs a cycle than
// 256-bit ones. Zen 5 (family 0x1A) has whole 512-bit pipes, twice the 256-bit FMA rate. Zen 5's
// mobile parts (also family 0x1A) are said to split them again; they are taken as whole here.
inline bool host_avx512_halves() {
#ifdef GRAIN_HOST_CPUID
  static const bool halves = [] {
    if (!host_cpu_is_amd()) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return true;
    const unsigned base = (a >> 8) & 0xf, family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
    return family < 0x1a;
  }();
  return halves;
#else
  return false;
#endif
}

// How many cells ahead the CPU kernels that stream short cells prefetch their operands (`flat`'s
// ContractFlatDataRowsKernel; `block`'s ContractBlockHostCellKernel where it does not prefetch the
// next cell by lines), by a cell's operand bytes: about 4 KB ahead, at least the next cell, none
// for cells over 8 KB. The hardware's prefetchers alone leave these short-row cases well below
// the copy rate; with the cells prefetched they run at about the copy rate. 1 KB ahead gains less,
// 8 KB no more (measured).
inline std::int64_t host_prefetch_cells(std::int64_t cell_bytes) {
  if (cell_bytes <= 0 || cell_bytes > 8192) return 0;
  const std::int64_t ahead = (4096 + cell_bytes - 1) / cell_bytes;
  return ahead > 1 ? ahead : 1;
}

// Asks the caches for the `bytes` contiguous bytes from p, one prefetch per 64-byte line.
// Always inlined, as host_prefetch_rows: GCC 12 counts a function whose only effects are
// prefetches as `const` (its loops assumed finite), and where it does not inline one early it
// deletes the call, silently dropping every prefetch of the cells ahead.
GRAIN_FORCEINLINE void host_prefetch_span(const void* p, std::int64_t bytes) {
#if defined(__GNUC__)
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p), end = first + static_cast<std::uintptr_t>(bytes);
  for (std::uintptr_t line = first & ~std::uintptr_t(63); line < end; line += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
#else
  (void)p, (void)bytes;
#endif
}

// Asks the caches for `rows` rows of `n` elements each, `stride` elements apart from `base`: one
// span where the rows are contiguous, else one per row.
template <class T>
GRAIN_FORCEINLINE void host_prefetch_rows(const T* base, std::int64_t rows, std::int64_t stride, std::int64_t n) {
  const std::int64_t E = static_cast<std::int64_t>(sizeof(T));
  if (stride == n || rows == 1) return host_prefetch_span(base, rows * n * E);
  for (std::int64_t r = 0; r < rows; ++r) host_prefetch_span(base + r * stride, n * E);
}

// Asks the caches for a cell's two operands (left then right: rows of `bytes` contiguous bytes,
// `stride` bytes apart), a share of 64-byte lines per step, so that the next cell's misses
// overlap the current cell's FMAs instead of coming all at once. Default-constructed: no lines.
struct HostLinePrefetcher {
  const char* base[2] = {nullptr, nullptr};
  std::int64_t rows[2] = {0, 0}, stride[2] = {0, 0}, bytes = 0, share = 0;
  int op = 2;  // the operand being walked (2: done)
  std::int64_t r = 0, off = 0;

  HostLinePrefetcher() = default;
  // The lines spread over `steps` calls of step().
  HostLinePrefetcher(const char* a, std::int64_t a_rows, std::int64_t a_stride, const char* b, std::int64_t b_rows,
                     std::int64_t b_stride, std::int64_t row_bytes, std::int64_t steps)
      : base{a, b}, rows{a_rows, b_rows}, stride{a_stride, b_stride}, bytes(row_bytes), op(0) {
    const std::int64_t n = (a_rows + b_rows) * ((row_bytes + 63) / 64);
    share = (n + steps - 1) / steps;
  }
  // The same lines spread evenly over `steps` calls of tick() instead (one call per k of a block of
  // rows): a line whenever the credit reaches a step's worth.
  void spread_over(std::int64_t steps) {
    lines = (rows[0] + rows[1]) * ((bytes + 63) / 64);
    ticks = steps > 0 ? steps : 1;
  }
  void tick() {
    credit += lines;
    while (credit >= ticks && op < 2) {
      credit -= ticks;
      next();
    }
  }
  void step() {
    for (std::int64_t n = share; n > 0 && op < 2; --n) next();
  }

 private:
  std::int64_t lines = 0, ticks = 1, credit = 0;
  void next() {
#if defined(__GNUC__)
    __builtin_prefetch(base[op] + r * stride[op] + off, 0, 3);
#endif
    off += 64;
    if (off >= bytes) {
      off = 0;
      if (++r == rows[op]) r = 0, ++op;
    }
  }
};

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDA_ARCH__) && !defined(__NVCOMPILER) && \
    !defined(__INTEL_COMPILER)
#define GRAIN_HOST_SHUFFLE_TRANSPOSE 1

// W elements of T as one vector register.
template <class T, int W>
struct HostVector {
  using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  typedef T V __attribute__((vector_size(W * sizeof(T))));
  typedef I M __attribute__((vector_size(W * sizeof(T))));
  // Interleave the low (high) halves of two vectors: a0 b0 a1 b1 ... (a_{W/2} b_{W/2} ...).
  template <std::size_t... J>
  static constexpr M low(std::index_sequence<J...>) {
    return M{static_cast<I>(J % 2 ? J / 2 + W : J / 2)...};
  }
  template <std::size_t... J>
  static constexpr M high(std::index_sequence<J...>) {
    return M{static_cast<I>(J % 2 ? J / 2 + W / 2 + W : J / 2 + W / 2)...};
  }
  static V load(const T* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  }
  static void store(T* p, const V& v) { std::memcpy(p, &v, sizeof(V)); }
  // Pins v to a register at this point: the compiler may neither fold the load that made it into
  // each of its uses nor load it again (GCC 12 otherwise re-loads every operand of a register
  // block's FMAs from memory, two loads per FMA, which halves the FMA rate).
  // Only vectors that fit one of the build's registers (kHostRegisterBytes): GCC splits wider
  // ones, which no register constraint names.
  static GRAIN_FORCEINLINE void pin(V& v) {
    if constexpr (sizeof(V) <= kHostRegisterBytes) {
#if defined(__x86_64__)
      asm("" : "+v"(v));
#elif defined(__aarch64__)
      asm("" : "+w"(v));
#endif
    }
    (void)v;
  }
  // x[j][k] -> x[k][j]: log2(W) rounds, each pairing vector i with vector i + W/2 (the
  // perfect-shuffle transpose); 2 W log2(W) shuffles.
  static void transpose(V (&x)[W]) {
    constexpr M lo = low(std::make_index_sequence<W>{});
    constexpr M hi = high(std::make_index_sequence<W>{});
    V y[W];
    GRAIN_HOST_UNROLL
    for (int round = 1; round < W; round *= 2) {
      GRAIN_HOST_UNROLL
      for (int i = 0; i < W / 2; ++i) {
        y[2 * i] = __builtin_shuffle(x[i], x[i + W / 2], lo);
        y[2 * i + 1] = __builtin_shuffle(x[i], x[i + W / 2], hi);
      }
      GRAIN_HOST_UNROLL
      for (int j = 0; j < W; ++j) x[j] = y[j];
    }
  }
  // Lane j of the result: the sum of x[j]'s W lanes (x is overwritten).
  static V sum_lanes(V (&x)[W]) {
#if defined(__AVX__) && defined(GRAIN_HOST_CPUID)
    // With AVX, horizontal adds instead of the transpose: 9 instructions for 8 floats (against 24
    // shuffles and 7 adds), 5 for 4 doubles: faster on short float rows, level elsewhere. The
    // sums pair lanes in another order.
    if constexpr (sizeof(V) == 32 && sizeof(T) == 4) {
      const __m256 t0 = _mm256_hadd_ps(__m256(x[0]), __m256(x[1])), t1 = _mm256_hadd_ps(__m256(x[2]), __m256(x[3]));
      const __m256 t2 = _mm256_hadd_ps(__m256(x[4]), __m256(x[5])), t3 = _mm256_hadd_ps(__m256(x[6]), __m256(x[7]));
      const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);  // lanes 0-3 | 4-7 of x[0..3], x[4..7]
      return V(_mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31)));
    } else if constexpr (sizeof(V) == 32 && sizeof(T) == 8) {
      const __m256d t0 = _mm256_hadd_pd(__m256d(x[0]), __m256d(x[1])), t1 = _mm256_hadd_pd(__m256d(x[2]), __m256d(x[3]));
      return V(_mm256_add_pd(_mm256_permute2f128_pd(t0, t1, 0x20), _mm256_permute2f128_pd(t0, t1, 0x31)));
    }
#endif
    transpose(x);
    V s = x[0];
    for (int k = 1; k < W; ++k) s += x[k];
    return s;
  }
  // W dot products of length K as one vector: lane w is sum_k a[w * as + k] * b[w * bs + k]
  // (as = 0: one left row against W right rows). W lanes along K each, summed by sum_lanes, then
  // the K % W tail.
  static V dot_lanes(std::ptrdiff_t K, const T* a, std::ptrdiff_t as, const T* b, std::ptrdiff_t bs) {
    V acc[W];
    for (int w = 0; w < W; ++w) acc[w] = V{};
    std::ptrdiff_t k = 0;
    for (; k + W <= K; k += W)
      for (int w = 0; w < W; ++w) acc[w] += load(a + w * as + k) * load(b + w * bs + k);
    V s = sum_lanes(acc);
    for (; k < K; ++k)
      for (int w = 0; w < W; ++w) s[w] += a[w * as + k] * b[w * bs + k];
    return s;
  }
};
#endif

// Streaming stores (host_stream_run) where this compiler sees AVX-512 and the intrinsics' header
// (GCC host code, nvcc's host pass included).
#if defined(__AVX512F__) && defined(GRAIN_HOST_CPUID)
#define GRAIN_HOST_STREAM_STORES 1
#endif

// dst[0 .. n) = src[0 .. n): the 64-byte lines of dst that the run covers whole with streaming
// (non-temporal) stores, which do not read the line first; the partial lines at either end with
// plain stores. host_stream_fence() orders them before another thread reads dst.
template <class T>
inline void host_stream_run(T* dst, const T* src, std::ptrdiff_t n) {
  std::ptrdiff_t i = 0;
#ifdef GRAIN_HOST_STREAM_STORES
  constexpr std::ptrdiff_t W = 64 / sizeof(T);
  std::ptrdiff_t head = static_cast<std::ptrdiff_t>(((64 - (reinterpret_cast<std::uintptr_t>(dst) & 63)) & 63) / sizeof(T));
  if (head > n) head = n;
  for (; i < head; ++i) dst[i] = src[i];
  for (; i + W <= n; i += W) {
    if constexpr (sizeof(T) == 4)
      _mm512_stream_ps(reinterpret_cast<float*>(dst + i), _mm512_loadu_ps(reinterpret_cast<const float*>(src + i)));
    else
      _mm512_stream_pd(reinterpret_cast<double*>(dst + i), _mm512_loadu_pd(reinterpret_cast<const double*>(src + i)));
  }
#endif
  for (; i < n; ++i) dst[i] = src[i];
}
inline void host_stream_fence() {
#ifdef GRAIN_HOST_STREAM_STORES
  _mm_sfence();
#endif
}

// Whether `block`'s LayoutLeft FieldField kernel (ContractBlockHostCellVecKernel, its path of
// several groups a team) stores its output runs with host_stream_run: with AVX-512, outputs
// overwritten (not summed into), of at least 32 MiB (far past the caches, so nobody reads them
// back from there), and at least a quarter of the bytes moved (3 L R >= (L + R) K: FieldFieldScalar
// Q1-Q3). A plain store first reads its line from memory (write-allocate), so the outputs cost
// twice their bytes; in runs of 1-2 KB, C elements apart, those reads also wait on latency.
// Where the outputs are a small share of the bytes (FieldFieldVector and FieldFieldTensor Q1)
// streaming stores gain nothing or lose (measured).
inline bool host_stream_outputs(std::int64_t L, std::int64_t R, std::int64_t K, std::int64_t out_bytes,
                                bool sum_into) {
#ifdef GRAIN_HOST_STREAM_STORES
  return !sum_into && out_bytes >= (std::int64_t(32) << 20) && 3 * L * R >= (L + R) * K;
#else
  (void)L, (void)R, (void)K, (void)out_bytes, (void)sum_into;
  return false;
#endif
}

// Whether `block` on the CPU takes ContractBlockHostCellVecKernel (block.hpp, compiled only with
// GCC's vector extensions): cells the unit-stride index of all three operands of the problem `p`
// (a ContractProblem), K one level, at least W cells (one whole vector). Auto's CPU rule
// (select.hpp) asks the same with W = 16.
template <class Problem>
bool host_cell_vectors(const Problem& p, std::int64_t W) {
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
  return p.a_c == 1 && p.b_c == 1 && p.o_c == 1 && p.K1 == 1 && p.C >= W;
#else
  (void)p, (void)W;
  return false;
#endif
}

// Whether `block`'s CPU FieldField team kernel (ContractBlockHostGemmKernel) takes panels of two
// 512-bit vectors (32 floats / 16 doubles, explicit vector accumulators) instead of two of
// kHostVectorBytes: with AVX-512 (GCC keeps its own loops at 256 bits there), on CPUs not AMD's
// (Zen 4 runs a 512-bit FMA as two 256-bit halves), for more fields than the narrow panel holds.
// On Intel's AVX-512 cores this speeds up FieldField Q2-Q4 as much as a whole build at 512 bits
// (-mprefer-vector-width=512) does, without that build's loss at Q1 float, whose 8 fields fill
// half a vector (measured).
inline bool host_wide_panels(std::size_t elem, std::int64_t R) {
#if defined(GRAIN_HOST_SHUFFLE_TRANSPOSE) && defined(__AVX512F__)
  return R > 2 * (kHostVectorBytes / static_cast<std::int64_t>(elem)) && !host_avx512_halves();
#else
  (void)elem, (void)R;
  return false;
#endif
}

// Whether `block`'s CPU FieldField path runs ContractBlockHostDotKernel<T, 8, 4> (block.hpp says
// where it pays): float elements (`elem` bytes), both operands unit-stride along K, K a
// multiple of the vector width and at least 8 widths, at most one vector of fields, L and R
// multiples of 8 and 4. Only with AVX-512's 32 vector registers (the kernel's 32 accumulators;
// with AVX2's 16 they would spill), and never where the kernel is not compiled (no
// GCC vector extensions).
inline bool host_dot_cells(std::size_t elem, bool k_unit, std::int64_t L, std::int64_t R, std::int64_t K) {
#if defined(GRAIN_HOST_SHUFFLE_TRANSPOSE) && defined(__AVX512VL__)
  const std::int64_t W = kHostVectorBytes / static_cast<std::int64_t>(elem);
  return elem == 4 && k_unit && K % W == 0 && K >= 8 * W && R <= W && L % 8 == 0 && R % 4 == 0;
#else
  (void)elem, (void)k_unit, (void)L, (void)R, (void)K;
  return false;
#endif
}

// Whether `block`'s CPU FieldField path runs ContractBlockHostCellZmmKernel (block.hpp says
// where it pays): both operands unit-stride along K, K = 8, 16, 24 or 72 (FieldField
// Q1), at most 8 right fields; with AVX-512 (32 registers of 512 bits: K = 24 in double holds its
// 24 transposed words in them), on CPUs that run a 512-bit FMA whole (not Zen 4:
// host_avx512_halves), and where the kernel is compiled (GRAIN_HOST_ZMM_CELLS).
#if defined(GRAIN_HOST_SHUFFLE_TRANSPOSE) && defined(__AVX512F__) && defined(GRAIN_HOST_CPUID)
#define GRAIN_HOST_ZMM_CELLS 1
#endif
inline bool host_zmm_cells(bool k_unit, std::int64_t R, std::int64_t K) {
#ifdef GRAIN_HOST_ZMM_CELLS
  return k_unit && R <= 8 && (K == 8 || K == 16 || K == 24 || K == 72) && !host_avx512_halves();
#else
  (void)k_unit, (void)R, (void)K;
  return false;
#endif
}

}  // namespace grain::impl
