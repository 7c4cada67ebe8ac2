#include <cstdio>
#include <vector>
#include <chrono>
#include <random>
#include <cstring>
#include <type_traits>
#include <cmath>
#include <algorithm>
#include <cblas.h>
using idx = long;
#ifndef VB
#define VB 32
#endif
template <class T> struct NRw { static constexpr int V = VB / sizeof(T); };

// out[l][r] = sum_k A[l*lda+k] * Bt[k*NR + r] for rows l0..l0+MR
template <class T, int MR, int NR>
__attribute__((always_inline)) inline void micro(idx K, const T* __restrict a, idx lda, const T* __restrict bt, T (&acc)[MR][NR]) {
  for (int i = 0; i < MR; ++i)
#pragma omp simd
    for (int j = 0; j < NR; ++j) acc[i][j] = 0;
  for (idx k = 0; k < K; ++k) {
    const T* bk = bt + k * NR;

    for (int i = 0; i < MR; ++i) {
      const T x = a[i * lda + k];
#pragma omp simd
      for (int j = 0; j < NR; ++j) acc[i][j] += x * bk[j];
    }
  }
}

template <class T, int MR, int NR>
void cell_gemm(idx L, idx R, idx K, const T* a, const T* b, T* out, T* bt) {
  const idx np = (R + NR - 1) / NR;
  // pack B^T panels
  for (idx p = 0; p < np; ++p) {
    T* pp = bt + p * K * NR;
#if PACK == 1
    const idx nr = R - p * NR < NR ? R - p * NR : NR;
    if (nr == NR) {
      const T* bp = b + p * NR * K;
      for (idx k = 0; k < K; ++k) {
#pragma omp simd
        for (int j = 0; j < NR; ++j) pp[k * NR + j] = bp[j * K + k];
      }
    } else
#elif PACK == 3
    const idx nr = R - p * NR < NR ? R - p * NR : NR;
    if (nr == NR) {
      const T* bp = b + p * NR * K;
      for (idx k = 0; k < K; ++k) {
#pragma omp simd simdlen(1)
        for (int j = 0; j < NR; ++j) pp[k * NR + j] = bp[j * K + k];
      }
    } else
#elif PACK == 4
    const idx nr = R - p * NR < NR ? R - p * NR : NR;
    if (nr == NR) {
      const T* bp = b + p * NR * K;
      for (idx k0 = 0; k0 < K; k0 += 64) {
        const idx k1 = k0 + 64 < K ? k0 + 64 : K;
        for (int j = 0; j < NR; ++j) for (idx k = k0; k < k1; ++k) pp[k * NR + j] = bp[j * K + k];
      }
    } else
#elif PACK == 2
    const idx nr = R - p * NR < NR ? R - p * NR : NR;
    if (nr == NR) {
      const T* bp = b + p * NR * K;
      idx k = 0;
      for (; k + 8 <= K; k += 8) {
        T blk[NR][8];
        for (int j = 0; j < NR; ++j)
#pragma omp simd
          for (int w = 0; w < 8; ++w) blk[j][w] = bp[j * K + k + w];
        for (int w = 0; w < 8; ++w)
#pragma omp simd
          for (int j = 0; j < NR; ++j) pp[(k + w) * NR + j] = blk[j][w];
      }
      for (; k < K; ++k) for (int j = 0; j < NR; ++j) pp[k * NR + j] = bp[j * K + k];
    } else
#endif
    for (int j = 0; j < NR; ++j) {
      const idx r = p * NR + j;
      if (r < R) { const T* br = b + r * K; for (idx k = 0; k < K; ++k) pp[k * NR + j] = br[k]; }
      else for (idx k = 0; k < K; ++k) pp[k * NR + j] = 0;
    }
  }
  for (idx p = 0; p < np; ++p) {
    const T* pp = bt + p * K * NR;
    const idx r0 = p * NR, nr = R - r0 < NR ? R - r0 : NR;
    idx l = 0;
    for (; l + MR <= L; l += MR) {
      T acc[MR][NR];
      micro<T, MR, NR>(K, a + l * K, K, pp, acc);
      for (int i = 0; i < MR; ++i) {
        T* o = out + (l + i) * R + r0;
        if (nr == NR) {
#pragma omp simd
          for (int j = 0; j < NR; ++j) o[j] = acc[i][j];
        } else for (int j = 0; j < nr; ++j) o[j] = acc[i][j];
      }
    }
    auto tail = [&](auto m) {
      constexpr int M = decltype(m)::value;
      T acc[M][NR];
      micro<T, M, NR>(K, a + l * K, K, pp, acc);
      for (int i = 0; i < M; ++i) { T* o = out + (l + i) * R + r0; for (int j = 0; j < nr; ++j) o[j] = acc[i][j]; }
      l += M;
    };
    if constexpr (MR > 4) { if (L - l >= 4) tail(std::integral_constant<int, 4>{}); }
    if constexpr (MR > 2) { if (L - l >= 2) tail(std::integral_constant<int, 2>{}); }
    if (L - l >= 1) tail(std::integral_constant<int, 1>{});
  }
}

template <class T> void blas(idx L, idx R, idx K, const T* a, const T* b, T* o) {
  if constexpr (sizeof(T) == 4) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, R, K, 1.f, a, K, b, K, 0.f, o, R);
  else cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, R, K, 1., a, K, b, K, 0., o, R);
}

template <class T, int MR, int NRV>
void run(idx L, idx R, idx K) {
  constexpr int NR = NRV * NRw<T>::V;
  idx C = (64ll << 20) / (L * K * sizeof(T)); if (C < 4) C = 4;
  std::vector<T> A(C * L * K), B(C * R * K), O(C * L * R), O2(C * L * R), bt(((R + NR - 1) / NR) * NR * K);
  std::mt19937 g(1); std::uniform_real_distribution<T> d(-1, 1);
  for (auto& x : A) x = d(g); for (auto& x : B) x = d(g);
  auto t0 = std::chrono::steady_clock::now();
  for (idx c = 0; c < C; ++c) cell_gemm<T, MR, NR>(L, R, K, &A[c * L * K], &B[c * R * K], &O[c * L * R], bt.data());
  auto t1 = std::chrono::steady_clock::now();
  for (idx c = 0; c < C; ++c) cell_gemm<T, MR, NR>(L, R, K, &A[c * L * K], &B[c * R * K], &O[c * L * R], bt.data());
  auto t2 = std::chrono::steady_clock::now();
  for (idx c = 0; c < C; ++c) blas<T>(L, R, K, &A[c * L * K], &B[c * R * K], &O2[c * L * R]);
  auto t3 = std::chrono::steady_clock::now();
  for (idx c = 0; c < C; ++c) blas<T>(L, R, K, &A[c * L * K], &B[c * R * K], &O2[c * L * R]);
  auto t4 = std::chrono::steady_clock::now();
  double err = 0; for (idx i = 0; i < C * L * R; ++i) err = std::max(err, (double)std::abs(O[i] - O2[i]));
  double fl = 2.0 * C * L * R * K;
  double tm = std::chrono::duration<double>(t2 - t1).count(), tb = std::chrono::duration<double>(t4 - t3).count();
  printf("%s L=%ld K=%ld MR=%d NR=%d C=%ld mine %.1f GF/s blas %.1f GF/s ratio %.2f err %.1e\n", sizeof(T)==4?"f":"d", L, K, MR, NR, C, fl / tm * 1e-9, fl / tb * 1e-9, tb / tm, err);
}
int main() {
  idx shapes[][2] = {{8, 72}, {27, 81}, {27, 243}, {64, 576}};
  for (auto& s : shapes) { run<float, MRF, NVF>(s[0], s[0], s[1]); }
  for (auto& s : shapes) { run<double, MRD, NVD>(s[0], s[0], s[1]); }
}
