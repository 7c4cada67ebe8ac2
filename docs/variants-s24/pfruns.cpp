// Read rate of runs of `run` bytes from rows rowb apart (a LayoutLeft operand), with software
// prefetches d rows ahead (hint T0 / T1 / T2 / NTA) or none.
#include <initializer_list>
#include <sys/mman.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <int HINT>
double rate(char* a, char* d, long total, long rowb, long run, long dist) {
  const long rows = total / rowb;
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t = now();
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), id = omp_get_thread_num();
      const long teams = rowb / run;
      char* dst = d + id * (32L << 20);
      for (long tm = id; tm < teams; tm += nt) {
        long o = 0;
        for (long r = 0; r < rows; r++) {
          const char* s = a + r * rowb + tm * run;
          if (dist > 0 && r + dist < rows)
            for (long b = 0; b < run; b += 64) _mm_prefetch(s + dist * rowb + b, (_mm_hint)HINT);
          for (long b = 0; b < run; b += 64) {
            __m512 v = _mm512_loadu_ps((const float*)(s + b));
            _mm512_store_ps((float*)(dst + ((o + b) & ((1L << 20) - 1))), v);
          }
          o += run;
        }
      }
    }
    t = now() - t;
    if (t < best) best = t;
  }
  return total / best / 1e9;
}
int main(int argc, char** argv) {
  const long total = 128L << 20, rowb = argc > 1 ? atol(argv[1]) : 32768;
  char* a = (char*)aligned_alloc(2 << 20, total);
  madvise(a, total, MADV_HUGEPAGE);
  char* d = (char*)aligned_alloc(2 << 20, 64L << 20);
  madvise(d, 64L << 20, MADV_HUGEPAGE);
  memset(a, 1, total); memset(d, 0, 64L << 20);
  for (long run : {128L, 256L, 512L, 1024L}) {
    printf("run %4ld: none %.1f", run, rate<_MM_HINT_T0>(a, d, total, rowb, run, 0));
    for (long dist : {8L, 16L, 32L}) {
      printf(" | d%ld T0 %.1f T1 %.1f T2 %.1f NTA %.1f", dist, rate<_MM_HINT_T0>(a, d, total, rowb, run, dist),
             rate<_MM_HINT_T1>(a, d, total, rowb, run, dist), rate<_MM_HINT_T2>(a, d, total, rowb, run, dist),
             rate<_MM_HINT_NTA>(a, d, total, rowb, run, dist));
    }
    printf("  GB/s\n");
  }
}
