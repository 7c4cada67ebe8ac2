// Session 34: strided-read.cpp with each run stored into a buffer of `ring` rows (the packing's
// stores); argument 5 = ring (0: no stores). The measurements quoted in docs/performance.md
// (session 34) came from a first form whose labels printed wrongly; the numbers are the same.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>
#include <algorithm>
using clk = std::chrono::steady_clock;
int main(int argc, char** argv) {
  const size_t C = atol(argv[1]), rows = atol(argv[2]), T = atol(argv[3]);
  const int pf = argc > 4 ? atoi(argv[4]) : 0;  // prefetch distance in rows (0 none)
  const size_t ring = argc > 5 ? atol(argv[5]) : 0;  // store each run into a buffer of ring rows (0: no stores)
  size_t n = C * rows;
  float* a = (float*)aligned_alloc(1 << 21, (n * 4 + (1 << 21) - 1) / (1 << 21) * (1 << 21));
  madvise(a, n * 4, MADV_HUGEPAGE);
#pragma omp parallel for
  for (size_t i = 0; i < n; ++i) a[i] = 1.0f / (i % 7 + 1);
  double best = 1e9, bseq = 1e9; float tot = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = clk::now();
#pragma omp parallel reduction(+ : tot)
    {
      __m512 s0 = _mm512_setzero_ps(), s1 = s0;
      const size_t teams = C / T;
      const int nt = omp_get_num_threads(), id = omp_get_thread_num();
      const size_t per = (teams + nt - 1) / nt, tb = id * per, te = std::min(teams, tb + per);
      float* buf = (float*)aligned_alloc(64, (ring ? ring : 1) * T * 4);
      for (size_t t = tb; t < te; ++t) {
        const size_t c0 = t * T;
        for (size_t r = 0; r < rows; ++r) {
          const float* s = a + r * C + c0;
          if (pf && r + pf < rows) for (size_t w = 0; w < T; w += 16) _mm_prefetch((const char*)(s + pf * C + w), _MM_HINT_T1);
          if (ring) { float* d = buf + (r % ring) * T; for (size_t w = 0; w < T; w += 16) _mm512_store_ps(d + w, _mm512_load_ps(s + w)); }
          else for (size_t w = 0; w < T; w += 32) { s0 = _mm512_add_ps(s0, _mm512_load_ps(s + w)); s1 = _mm512_add_ps(s1, _mm512_load_ps(s + w + 16)); }
        }
      }
      if (ring) s0 = _mm512_add_ps(s0, _mm512_load_ps(buf));
      free(buf);
      tot += _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    double t = std::chrono::duration<double>(clk::now() - t0).count();
    best = std::min(best, t);
    t0 = clk::now();
#pragma omp parallel reduction(+ : tot)
    {
      __m512 s0 = _mm512_setzero_ps(), s1 = s0;
#pragma omp for
      for (size_t i = 0; i < n; i += 32) { s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i)); s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16)); }
      tot += _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    t = std::chrono::duration<double>(clk::now() - t0).count();
    bseq = std::min(bseq, t);
  }
  printf("ring %zu C %zu rows %zu T %zu pf %d: strided %.1f GB/s, sequential %.1f GB/s (%g)\n", ring, C, rows, T, pf,
         n * 4 / best / 1e9, n * 4 / bseq / 1e9, tot);
}
