// Session 36: LayoutRight FieldField Q1 (8 x 8 fields, K = 8 D) on the CPU: grain's `block` with
// ContractBlockHostCellKernel (grain-old), with ContractBlockHostCellZmmKernel (grain-zmm), with
// its instance of ALT_ROWS left rows a block (grain-zmm-alt-rows), and the prototype kernels below
// (proto: the same words transposed by intrinsics, a whole row's chain at a time), interleaved
// call by call in one process, each iteration preceded by a 128 MiB copy (medians split by that
// copy into fast (> 60 GB/s) and slow phases).
// Needs the temporary knobs of zmm-knob.diff: `git apply docs/variants-s36/zmm-knob.diff`, add
// -DALT_ROWS=N to build/host's flags or leave it 4, rebuild build/host's `grain` target, then
// g++ -O3 -march=native -fopenmp -std=c++17 -DGRAIN_ENABLE_OPENMP -Iinclude \
//   docs/variants-s36/ffq1r.cpp build/host/libgrain.a -o /tmp/ffq1r
// (The logs' column names changed with the experiment: ffq1r-first.log has the first grain kernel
// (before the prefetch fix) against proto at three distances; ffq1r-ab*.log grain-old against the
// 8-row zmm kernel; ffq1r-ahead.log 2x the cells ahead; ffq1r-rows*.log the rows a block;
// ffq1r-k72.log cell_stack at K = 72, AHEAD=N setting the cells prefetched ahead.)
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/ffq1r D(1|3|9) f|d [iterations] [budget MiB]
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include "grain/grain.hpp"
#include "grain/contract/algorithms/block.hpp"
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// out[c] = qword c of rows x[0..7] (an 8 x 8 transpose of 64-bit words), c < n.
static inline void transpose8(const __m512d (&x)[8], __m512d* out, int n) {
  __m512d t[8], u[8];
  for (int r = 0; r < 8; r += 2) { t[r] = _mm512_unpacklo_pd(x[r], x[r + 1]); t[r + 1] = _mm512_unpackhi_pd(x[r], x[r + 1]); }
  // t[0] = r0c0 r1c0 r0c2 r1c2 r0c4 r1c4 r0c6 r1c6 ; t[1] = ..c1 c3 c5 c7
  for (int r = 0; r < 8; r += 4) {
    u[r + 0] = _mm512_shuffle_f64x2(t[r + 0], t[r + 2], 0x88);  // c0 c4 (r0r1, r2r3)
    u[r + 1] = _mm512_shuffle_f64x2(t[r + 1], t[r + 3], 0x88);  // c1 c5
    u[r + 2] = _mm512_shuffle_f64x2(t[r + 0], t[r + 2], 0xdd);  // c2 c6
    u[r + 3] = _mm512_shuffle_f64x2(t[r + 1], t[r + 3], 0xdd);  // c3 c7
  }
  const __m512d v[8] = {_mm512_shuffle_f64x2(u[0], u[4], 0x88), _mm512_shuffle_f64x2(u[1], u[5], 0x88),
                        _mm512_shuffle_f64x2(u[2], u[6], 0x88), _mm512_shuffle_f64x2(u[3], u[7], 0x88),
                        _mm512_shuffle_f64x2(u[0], u[4], 0xdd), _mm512_shuffle_f64x2(u[1], u[5], 0xdd),
                        _mm512_shuffle_f64x2(u[2], u[6], 0xdd), _mm512_shuffle_f64x2(u[3], u[7], 0xdd)};
  for (int c = 0; c < n; ++c) out[c] = v[c];
}

// float, K = 8 D: lanes (2 r + h) of row l's accumulator sum A(l, 2j + h) B(r, 2j + h) over j.
// B's rows as K / 2 qword columns, transposed to zmm bt2[j] (qword r = B(r, 2j .. 2j + 1)).
template <int K>
static inline void cell_pairs_f(const float* A, const float* B, float* O) {
  constexpr int J = K / 2;  // qword columns
  __m512d bt[J];
  // transpose 8 rows x J qwords, 8 qwords at a time
  for (int j0 = 0; j0 < J; j0 += 8) {
    const int n = J - j0 < 8 ? J - j0 : 8;
    __m512d x[8];
    const __mmask8 m = (__mmask8)((1u << n) - 1);
    for (int r = 0; r < 8; ++r) x[r] = _mm512_maskz_loadu_pd(m, (const double*)(B + r * K) + j0);
    transpose8(x, bt + j0, n);
  }
  __m512 acc[8];
  for (int l = 0; l < 8; ++l) {
    const double* a = (const double*)(A + l * K);
    __m512 s = _mm512_mul_ps(_mm512_castpd_ps(_mm512_set1_pd(a[0])), _mm512_castpd_ps(bt[0]));
    for (int j = 1; j < J; ++j) s = _mm512_fmadd_ps(_mm512_castpd_ps(_mm512_set1_pd(a[j])), _mm512_castpd_ps(bt[j]), s);
    acc[l] = s;
  }
  const __m512i perm = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
  for (int l = 0; l < 8; l += 2) {
    const __m512 t0 = _mm512_shuffle_ps(acc[l], acc[l + 1], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 t1 = _mm512_shuffle_ps(acc[l], acc[l + 1], _MM_SHUFFLE(3, 1, 3, 1));
    const __m512d s = _mm512_castps_pd(_mm512_add_ps(t0, t1));
    _mm512_storeu_ps(O + l * 8, _mm512_castpd_ps(_mm512_permutexvar_pd(perm, s)));
  }
}

// double: zmm over r (8 doubles), B transposed to bt[k] (K zmm), A broadcast by the FMA.
template <int K>
static inline void cell_bcast_d(const double* A, const double* B, double* O) {
  __m512d bt[K];
  for (int k0 = 0; k0 < K; k0 += 8) {
    __m512d x[8];
    for (int r = 0; r < 8; ++r) x[r] = _mm512_loadu_pd(B + r * K + k0);
    transpose8(x, bt + k0, 8);
  }
  for (int l = 0; l < 8; ++l) {
    const double* a = A + l * K;
    __m512d s = _mm512_mul_pd(_mm512_set1_pd(a[0]), bt[0]);
    for (int k = 1; k < K; ++k) s = _mm512_fmadd_pd(_mm512_set1_pd(a[k]), bt[k], s);
    _mm512_storeu_pd(O + l * 8, s);
  }
}

// Any K a multiple of 8: B's words transposed into a stack array (L1), then rows two at a time
// reading bt[j] from it (float: word pairs, reduced as in cell_pairs_f).
template <class T, int K>
static inline void cell_stack(const T* A, const T* B, T* O) {
  constexpr int E = 8 / sizeof(T), J = K / E;
  alignas(64) __m512d bt[J];
  for (int j0 = 0; j0 < J; j0 += 8) {
    const int n = J - j0 < 8 ? J - j0 : 8;
    const __mmask8 m = (__mmask8)((1u << n) - 1);
    __m512d x[8];
    for (int r = 0; r < 8; ++r) x[r] = _mm512_maskz_loadu_pd(m, (const double*)(B + r * K) + j0);
    transpose8(x, bt + j0, n);
  }
  for (int l = 0; l < 8; l += 2) {
    const double* a0 = (const double*)(A + l * K);
    const double* a1 = (const double*)(A + (l + 1) * K);
    __m512d s0 = _mm512_mul_pd(_mm512_set1_pd(a0[0]), bt[0]), s1 = _mm512_mul_pd(_mm512_set1_pd(a1[0]), bt[0]);
    if constexpr (sizeof(T) == 4) {
      __m512 f0 = _mm512_castpd_ps(_mm512_set1_pd(a0[0])) * _mm512_castpd_ps(bt[0]);
      __m512 f1 = _mm512_castpd_ps(_mm512_set1_pd(a1[0])) * _mm512_castpd_ps(bt[0]);
      for (int j = 1; j < J; ++j) {
        f0 = _mm512_fmadd_ps(_mm512_castpd_ps(_mm512_set1_pd(a0[j])), _mm512_castpd_ps(bt[j]), f0);
        f1 = _mm512_fmadd_ps(_mm512_castpd_ps(_mm512_set1_pd(a1[j])), _mm512_castpd_ps(bt[j]), f1);
      }
      const __m512 t0 = _mm512_shuffle_ps(f0, f1, _MM_SHUFFLE(2, 0, 2, 0));
      const __m512 t1 = _mm512_shuffle_ps(f0, f1, _MM_SHUFFLE(3, 1, 3, 1));
      const __m512d sd = _mm512_castps_pd(_mm512_add_ps(t0, t1));
      _mm512_storeu_ps((float*)O + l * 8, _mm512_castpd_ps(_mm512_permutexvar_pd(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), sd)));
    } else {
      // four partial sums a row (8 chains in flight): one chain of 72 FMAs a row was latency-bound
      (void)s0, (void)s1;
      __m512d p0a = _mm512_setzero_pd(), p0b = p0a, p0c = p0a, p0d = p0a, p1a = p0a, p1b = p0a, p1c = p0a, p1d = p0a;
      static_assert(J % 4 == 0 || K <= 24, "");
      for (int j = 0; j + 3 < J; j += 4) {
        p0a = _mm512_fmadd_pd(_mm512_set1_pd(a0[j]), bt[j], p0a);
        p1a = _mm512_fmadd_pd(_mm512_set1_pd(a1[j]), bt[j], p1a);
        p0b = _mm512_fmadd_pd(_mm512_set1_pd(a0[j + 1]), bt[j + 1], p0b);
        p1b = _mm512_fmadd_pd(_mm512_set1_pd(a1[j + 1]), bt[j + 1], p1b);
        p0c = _mm512_fmadd_pd(_mm512_set1_pd(a0[j + 2]), bt[j + 2], p0c);
        p1c = _mm512_fmadd_pd(_mm512_set1_pd(a1[j + 2]), bt[j + 2], p1c);
        p0d = _mm512_fmadd_pd(_mm512_set1_pd(a0[j + 3]), bt[j + 3], p0d);
        p1d = _mm512_fmadd_pd(_mm512_set1_pd(a1[j + 3]), bt[j + 3], p1d);
      }
      const __m512d p0[4] = {p0a, p0b, p0c, p0d}, p1[4] = {p1a, p1b, p1c, p1d};
      _mm512_storeu_pd((double*)O + l * 8, (p0[0] + p0[1]) + (p0[2] + p0[3]));
      _mm512_storeu_pd((double*)O + (l + 1) * 8, (p1[0] + p1[1]) + (p1[2] + p1[3]));
    }
  }
}

template <class T, int K>
static void proto(const T* a, const T* b, T* o, long C, int ahead) {
#pragma omp parallel for schedule(static)
  for (long c = 0; c < C; ++c) {
    if (ahead > 0 && c + ahead < C) {
      const char* pa = (const char*)(a + (c + ahead) * 8 * K);
      const char* pb = (const char*)(b + (c + ahead) * 8 * K);
      for (int i = 0; i < 8 * K * (int)sizeof(T); i += 64) { __builtin_prefetch(pa + i, 0, 3); __builtin_prefetch(pb + i, 0, 3); }
    }
    if (K > 24) cell_stack<T, K>(a + c * 8 * K, b + c * 8 * K, o + c * 64);
    else if constexpr (sizeof(T) == 4) cell_pairs_f<K>(a + c * 8 * K, b + c * 8 * K, o + c * 64);
    else cell_bcast_d<K>(a + c * 8 * K, b + c * 8 * K, o + c * 64);
  }
}

template <class T, int D>
void run(int iters, long budget_mib) {
  constexpr int K = 8 * D;
  const long C = (budget_mib << 20) / (8 * K * long(sizeof(T)));
  using Lr = grain::LayoutRight; using H = grain::HostSpace;
  grain::View<T***, Lr, H> out("out", C, 8, 8), out2("out2", C, 8, 8);
  grain::View<T****, Lr, H> l4, r4; grain::View<T*****, Lr, H> l5, r5; grain::View<T***, Lr, H> l3, r3;
  std::mt19937 g(3); std::uniform_real_distribution<double> u(-1, 1);
  auto fill = [&](auto& v) { T* d = v.data(); for (std::size_t i = 0; i < v.size(); ++i) d[i] = T(u(g)); };
  grain::ContractOptions opt; opt.algorithm = grain::ContractAlgorithm::Block;
  std::function<void()> call; const T *pa, *pb;
  if (D == 1) { l3 = decltype(l3)("l", C, 8, 8); r3 = decltype(r3)("r", C, 8, 8); fill(l3); fill(r3); pa = l3.data(); pb = r3.data(); call = [&] { grain::contract_field_field_scalar(out, l3, r3, opt); }; }
  else if (D == 3) { l4 = decltype(l4)("l", C, 8, 8, 3); r4 = decltype(r4)("r", C, 8, 8, 3); fill(l4); fill(r4); pa = l4.data(); pb = r4.data(); call = [&] { grain::contract_field_field_vector(out, l4, r4, opt); }; }
  else { l5 = decltype(l5)("l", C, 8, 8, 3, 3); r5 = decltype(r5)("r", C, 8, 8, 3, 3); fill(l5); fill(r5); pa = l5.data(); pb = r5.data(); call = [&] { grain::contract_field_field_tensor(out, l5, r5, opt); }; }
  const double bytes = double(C) * (2 * 8 * K + 64) * sizeof(T);
  call();
  const int a1 = getenv("AHEAD") ? atoi(getenv("AHEAD")) : (4096 + 8 * K * (int)sizeof(T) - 1) / (8 * K * (int)sizeof(T));
  const int aheads[] = {0, a1, 2 * a1};
  proto<T, K>(pa, pb, out2.data(), C, 0);
  double err = 0;
  for (std::size_t i = 0; i < out.size(); ++i) err = std::max(err, (double)std::fabs(out.data()[i] - out2.data()[i]));
  printf("max |grain - proto| = %.3g\n", err);
  const size_t cn = size_t(128) << 20; char* ca = (char*)aligned_alloc(4096, cn); char* cb = (char*)aligned_alloc(4096, cn);
  memset(ca, 1, cn); memset(cb, 0, cn);
  std::vector<double> cp, gb[4];
  for (int it = 0; it < iters; ++it) {
    double t0 = now();
#pragma omp parallel for
    for (long i = 0; i < long(cn >> 16); ++i) memcpy(cb + (i << 16), ca + (i << 16), 1 << 16);
    cp.push_back(2.0 * cn / (now() - t0) / 1e9);
    grain::impl::g_zmm_knob = 0;
    t0 = now(); call(); gb[0].push_back(bytes / (now() - t0) / 1e9);
    grain::impl::g_zmm_knob = 1;
    t0 = now(); call(); gb[3].push_back(bytes / (now() - t0) / 1e9);
    grain::impl::g_zmm_mr4 = 1;
    t0 = now(); call(); gb[1].push_back(bytes / (now() - t0) / 1e9);
    grain::impl::g_zmm_mr4 = 0;
    for (int s = 1; s < 2; ++s) { t0 = now(); proto<T, K>(pa, pb, out2.data(), C, aheads[s]); gb[s + 1].push_back(bytes / (now() - t0) / 1e9); }
  }
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<double> c, v[4];
    for (int it = 0; it < iters; ++it) if ((cp[it] > 60) == (phase == 0)) { c.push_back(cp[it]); for (int s = 0; s < 4; ++s) v[s].push_back(gb[s][it]); }
    if (c.empty()) continue;
    auto med = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    printf("FF D=%d %s C=%ld %s (%zu): copy %.1f  grain-old %.1f  grain-zmm %.1f  grain-zmm-alt-rows %.1f  proto(%d) %.1f GB/s\n", D, sizeof(T) == 4 ? "float" : "double", C,
           phase == 0 ? "fast" : "slow", c.size(), med(c), med(v[0]), med(v[3]), med(v[1]), aheads[1], med(v[2]));
  }
}
int main(int argc, char** argv) {
  const int D = atoi(argv[1]); const bool dbl = argv[2][0] == 'd'; const int iters = argc > 3 ? atoi(argv[3]) : 20; const long bm = argc > 4 ? atol(argv[4]) : 128;
  if (dbl) { if (D == 1) run<double, 1>(iters, bm); else if (D == 3) run<double, 3>(iters, bm); else run<double, 9>(iters, bm); }
  else { if (D == 1) run<float, 1>(iters, bm); else if (D == 3) run<float, 3>(iters, bm); else run<float, 9>(iters, bm); }
}
