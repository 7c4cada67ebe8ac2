#include <initializer_list>
// Read rate of a LayoutLeft operand read in runs: rows of `rowb` bytes (C cells), team reads run bytes of each row
#include <sys/mman.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  const long total = 128L << 20;
  const long rowb = argc > 1 ? atol(argv[1]) : 32768;  // C * 4
  const long rows = total / rowb;
  char* a = (char*)aligned_alloc(2 << 20, total);
  madvise(a, total, MADV_HUGEPAGE);
  char* d = (char*)aligned_alloc(2 << 20, 64L << 20);
  madvise(d, 64L << 20, MADV_HUGEPAGE);
  memset(a, 1, total); memset(d, 0, 64L << 20);
  for (long run : {64L, 128L, 256L, 512L, 1024L, 2048L, 4096L}) {
    if (run > rowb) break;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      double t = now();
#pragma omp parallel
      {
        const int nt = omp_get_num_threads(), id = omp_get_thread_num();
        // teams: offsets 0, run, 2run, ... ; thread id takes teams id, id+nt, ...
        const long teams = rowb / run;
        char* dst = d + id * (32L << 20);
        for (long tm = id; tm < teams; tm += nt) {
          long o = 0;
          for (long r = 0; r < rows; r++) {
            const char* s = a + r * rowb + tm * run;
            for (long b = 0; b < run; b += 64) {
              __m512 v = _mm512_loadu_ps((const float*)(s + b));
              _mm512_store_ps((float*)(dst + ((o + b) & ((16L << 20) - 1))), v);
            }
            o += run;
          }
        }
      }
      t = now() - t;
      if (t < best) best = t;
    }
    printf("rowb %ld run %5ld: %.1f GB/s read\n", rowb, run, total / best / 1e9);
  }
  // Writes in runs: each row's run stored from a small buffer (the RFO reads included)
  for (long run : {64L, 128L, 256L, 512L, 1024L, 4096L}) {
    if (run > rowb) break;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      double t = now();
#pragma omp parallel
      {
        const int nt = omp_get_num_threads(), id = omp_get_thread_num();
        const long teams = rowb / run;
        const char* src = d + id * (32L << 20);
        for (long tm = id; tm < teams; tm += nt) {
          long o = 0;
          for (long r = 0; r < rows; r++) {
            char* s = a + r * rowb + tm * run;
            for (long b = 0; b < run; b += 64) {
              __m512 v = _mm512_load_ps((const float*)(src + ((o + b) & ((256L << 10) - 1))));
              _mm512_storeu_ps((float*)(s + b), v);
            }
            o += run;
          }
        }
      }
      t = now() - t;
      if (t < best) best = t;
    }
    printf("rowb %ld run %5ld: %.1f GB/s written\n", rowb, run, total / best / 1e9);
  }
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t = now();
#pragma omp parallel for
    for (long i = 0; i < total / 2; i += 64) _mm512_store_ps((float*)(a + total / 2 + i), _mm512_load_ps((float*)(a + i)));
    t = now() - t; if (t < best) best = t;
  }
  printf("copy %.1f GB/s (read+write)\n", total / best / 1e9);
}
