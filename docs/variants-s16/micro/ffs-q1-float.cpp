#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using clk = std::chrono::steady_clock;
static inline void tr8(__m256 (&r)[8]) {
  __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20); r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20); r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31); r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31); r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}
template <int NT> void run(const float* A, const float* B, float* O, size_t cells) {
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < cells; ++c) {
    const float* a = A + c * 64; const float* b = B + c * 64; float* o = O + c * 64;
    __m256 bt[8];
    for (int j = 0; j < 8; ++j) bt[j] = _mm256_loadu_ps(b + 8 * j);
    tr8(bt);  // bt[k] = B(:, k)
    for (int l = 0; l < 8; ++l) {
      __m256 acc = _mm256_mul_ps(_mm256_broadcast_ss(a + 8 * l), bt[0]);
      for (int k = 1; k < 8; ++k) acc = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 8 * l + k), bt[k], acc);
      if (NT) _mm256_stream_ps(o + 8 * l, acc); else _mm256_storeu_ps(o + 8 * l, acc);
    }
  }
  if (NT) {
#pragma omp parallel
    _mm_sfence();
  }
}
int main() {
  const size_t cells = (size_t(128) << 20) / 256;
  float* A = (float*)aligned_alloc(64, cells * 256);
  float* B = (float*)aligned_alloc(64, cells * 256);
  float* O = (float*)aligned_alloc(64, cells * 256);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < cells * 64; ++i) { A[i] = 1.0f + (i % 7); B[i] = 0.5f * (i % 5); O[i] = 0; }
  auto med = [&](auto f) { std::vector<double> t; for (int r = 0; r < 12; ++r) { auto s = clk::now(); f(); t.push_back(std::chrono::duration<double>(clk::now() - s).count()); } std::sort(t.begin(), t.end()); return t[t.size()/2]; };
  for (int r = 0; r < 3; ++r) {
    double t0 = med([&] { run<0>(A, B, O, cells); });
    double t1 = med([&] { run<1>(A, B, O, cells); });
    double GB = cells * 768 / 1e9;
    std::printf("plain %.2f ms %.1f GB/s   NT %.2f ms %.1f GB/s\n", t0 * 1e3, GB / t0, t1 * 1e3, GB / t1);
  }
}
