// LayoutLeft FieldField read pattern: rows of C floats; a team reads a run of T cells of every row.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>
#include <vector>
using clk = std::chrono::steady_clock;
static float* alloc(size_t n) {
  void* p = aligned_alloc(1 << 21, (n * 4 + (1 << 21) - 1) / (1 << 21) * (1 << 21));
  madvise(p, n * 4, MADV_HUGEPAGE);
  float* f = (float*)p;
  for (size_t i = 0; i < n; ++i) f[i] = 1.0f / (i % 7 + 1);
  return f;
}
int main(int argc, char** argv) {
  const size_t C = atol(argv[1]), rows = atol(argv[2]);  // rows = (L + R) K
  const int mode = atoi(argv[3]);
  const size_t T = atol(argv[4]);      // cells a team (multiple of 16)
  const size_t S = argc > 5 ? atol(argv[5]) : T; const size_t dist = argc > 6 ? atol(argv[6]) : 32;  // cells of a super-block (mode 1)
  float* a = alloc(C * rows);
  const size_t teams = C / T;
  std::vector<float> sink(2 * 16);
  double best = 1e9;
  for (int rep = 0; rep < 4; ++rep) {
    auto t0 = clk::now();
#pragma omp parallel
    {
      // per-thread pack buffer (like the kernel's scratch)
      static thread_local std::vector<float> buf;
      buf.resize(rows * T);
      __m512 acc = _mm512_setzero_ps();
      const int nt = omp_get_num_threads(), id = omp_get_thread_num();
      const size_t per = (teams + nt - 1) / nt, t_begin = id * per, t_end = std::min(teams, t_begin + per);
      for (size_t t = t_begin; t < t_end; ++t) {
        const size_t c0 = t * T;
        if (mode == 1 && (c0 % S) == 0) {  // touch the super-block: runs of S cells
          for (size_t r = 0; r < rows; ++r) {
            const float* s = a + r * C + c0;
            for (size_t w = 0; w < S && c0 + w < C; w += 16) _mm_prefetch((const char*)(s + w), _MM_HINT_T2);
          }
        }
        for (size_t r = 0; r < rows; ++r) {
          const float* s = a + r * C + c0;
          if (mode == 2) {  // prefetch the next team's run of this row
            for (size_t w = 0; w < T; w += 16) _mm_prefetch((const char*)(s + T + w), _MM_HINT_T2);
          }
          if (mode >= 3 && r + dist < rows) {
            for (size_t w = 0; w < T; w += 16) {
              const char* q = (const char*)(s + dist * C + w);
              if (mode == 3) _mm_prefetch(q, _MM_HINT_T0);
              else if (mode == 4) _mm_prefetch(q, _MM_HINT_T1);
              else if (mode == 5) _mm_prefetch(q, _MM_HINT_T2);
              else _mm_prefetch(q, _MM_HINT_NTA);
            }
          }
          float* d = buf.data() + r * T;
          for (size_t w = 0; w < T; w += 16) _mm512_storeu_ps(d + w, _mm512_loadu_ps(s + w));
        }
        acc = _mm512_add_ps(acc, _mm512_loadu_ps(buf.data() + (t % rows) * T));
      }
      _mm512_storeu_ps(sink.data() + 0 * 16, acc);
    }
    double t = std::chrono::duration<double>(clk::now() - t0).count();
    if (t < best) best = t;
  }
  printf("C %zu rows %zu mode %d T %zu S %zu: %.2f ms, %.1f GB/s\n", C, rows, mode, T, S, best * 1e3,
         C * rows * 4 / best / 1e9);
}
