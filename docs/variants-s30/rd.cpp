#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <omp.h>
#include <sys/mman.h>
int main() {
  size_t n = (size_t(512) << 20) / 4;
  float* a = (float*)aligned_alloc(1 << 21, n * 4); madvise(a, n * 4, MADV_HUGEPAGE);
  float* b = (float*)aligned_alloc(1 << 21, n * 4); madvise(b, n * 4, MADV_HUGEPAGE);
#pragma omp parallel for
  for (size_t i = 0; i < n; ++i) a[i] = 1.0f, b[i] = 0.f;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    float tot = 0;
#pragma omp parallel reduction(+ : tot)
    {
      __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
#pragma omp for
      for (size_t i = 0; i < n; i += 64) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i)); s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_load_ps(a + i + 32)); s3 = _mm512_add_ps(s3, _mm512_load_ps(a + i + 48));
      }
      tot += _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    }
    double tr = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
#pragma omp parallel for
    for (size_t i = 0; i < n; i += 16) _mm512_store_ps(b + i, _mm512_load_ps(a + i));
    double tc = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("read %.1f GB/s, copy %.1f GB/s (r+w) %g\n", n * 4 / tr / 1e9, 2 * n * 4 / tc / 1e9, tot);
  }
}
