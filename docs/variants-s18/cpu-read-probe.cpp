#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <immintrin.h>
int main() {
  const size_t n = size_t(256) << 20 >> 2;  // 256 MiB of floats
  float* a = (float*)aligned_alloc(64, n * 4);
  float* b = (float*)aligned_alloc(64, n * 4);
#pragma omp parallel for
  for (size_t i = 0; i < n; ++i) a[i] = 1.0f + i % 7, b[i] = 0;
  for (int rep = 0; rep < 6; ++rep) {
    // copy: each thread memcpy half of 128 MiB (bytes read + written)
    const size_t m = n / 2;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel
    {
      int t = omp_get_thread_num(), T = omp_get_num_threads();
      size_t lo = m * t / T, hi = m * (t + 1) / T;
      std::memcpy(b + lo, a + lo, (hi - lo) * 4);
    }
    auto t1 = std::chrono::steady_clock::now();
    double copy = 2.0 * m * 4 / std::chrono::duration<double>(t1 - t0).count() / 1e9;
    // read: sum 256 MiB
    float tot = 0;
    t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : tot)
    {
      int t = omp_get_thread_num(), T = omp_get_num_threads();
      size_t lo = n * t / T / 64 * 64, hi = t == T - 1 ? n : n * (t + 1) / T / 64 * 64;
      __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
      for (size_t i = lo; i < hi; i += 32) {
        s0 = _mm256_add_ps(s0, _mm256_load_ps(a + i));
        s1 = _mm256_add_ps(s1, _mm256_load_ps(a + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_load_ps(a + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_load_ps(a + i + 24));
      }
      __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
      float v[8];
      _mm256_storeu_ps(v, s);
      for (float x : v) tot += x;
    }
    t1 = std::chrono::steady_clock::now();
    double rd = n * 4.0 / std::chrono::duration<double>(t1 - t0).count() / 1e9;
    std::printf("copy %.1f GB/s  read %.1f GB/s  ratio %.2f  (%g)\n", copy, rd, rd / copy, tot);
  }
}
