// Session 24: the rates of a LayoutLeft operand's access pattern on this machine. Rows `rowb`
// bytes apart (a (row, k) run of C cells), teams split over the threads, each team reading or
// writing a run of `run` bytes of every row; reads optionally with software prefetches `dist` rows
// ahead (hint T0, T1, T2 or NTA). 128 MiB on huge pages.
//   usage: runs ROWB          reads and writes in runs of 64 B to 4 KB, and a plain copy
//          runs ROWB prefetch reads in runs of 128 B to 1 KB, none and 8 / 16 / 32 rows ahead
// Build: g++ -O2 -march=native -fopenmp runs.cpp -o runs; run with OMP_NUM_THREADS=2 OMP_PROC_BIND=true.
#include <sys/mman.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <initializer_list>

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// GB/s (the operand's bytes over the best of 5 passes); write: store each run from a small
// buffer instead of loading it into one.
template <int HINT>
static double rate(char* a, char* d, long total, long rowb, long run, bool write, long dist = 0) {
  const long rows = total / rowb;
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    const double t = now();
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), id = omp_get_thread_num();
      const long teams = rowb / run;
      char* buf = d + id * (32L << 20);
      for (long tm = id; tm < teams; tm += nt) {
        long o = 0;
        for (long r = 0; r < rows; r++) {
          char* s = a + r * rowb + tm * run;
          if (dist > 0 && r + dist < rows)
            for (long b = 0; b < run; b += 64) _mm_prefetch(s + dist * rowb + b, (_mm_hint)HINT);
          for (long b = 0; b < run; b += 64) {
            float* x = (float*)(buf + ((o + b) & ((1L << 20) - 1)));
            if (write)
              _mm512_storeu_ps((float*)(s + b), _mm512_load_ps(x));
            else
              _mm512_store_ps(x, _mm512_loadu_ps((const float*)(s + b)));
          }
          o += run;
        }
      }
    }
    const double dt = now() - t;
    if (dt < best) best = dt;
  }
  return total / best / 1e9;
}

int main(int argc, char** argv) {
  const long total = 128L << 20, rowb = argc > 1 ? atol(argv[1]) : 32768;
  const bool prefetch = argc > 2 && !strcmp(argv[2], "prefetch");
  char* a = (char*)aligned_alloc(2 << 20, total);
  char* d = (char*)aligned_alloc(2 << 20, 64L << 20);
  madvise(a, total, MADV_HUGEPAGE);
  madvise(d, 64L << 20, MADV_HUGEPAGE);
  memset(a, 1, total);
  memset(d, 0, 64L << 20);
  if (prefetch) {
    for (long run : {128L, 256L, 512L, 1024L}) {
      printf("run %4ld: none %.1f", run, rate<_MM_HINT_T0>(a, d, total, rowb, run, false));
      for (long dist : {8L, 16L, 32L})
        printf(" | d%ld T0 %.1f T1 %.1f T2 %.1f NTA %.1f", dist, rate<_MM_HINT_T0>(a, d, total, rowb, run, false, dist),
               rate<_MM_HINT_T1>(a, d, total, rowb, run, false, dist), rate<_MM_HINT_T2>(a, d, total, rowb, run, false, dist),
               rate<_MM_HINT_NTA>(a, d, total, rowb, run, false, dist));
      printf("  GB/s\n");
    }
    return 0;
  }
  for (bool write : {false, true})
    for (long run : {64L, 128L, 256L, 512L, 1024L, 2048L, 4096L})
      if (run <= rowb)
        printf("rowb %ld run %5ld: %.1f GB/s %s\n", rowb, run, rate<_MM_HINT_T0>(a, d, total, rowb, run, write),
               write ? "written" : "read");
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    const double t = now();
#pragma omp parallel for
    for (long i = 0; i < total / 2; i += 64) _mm512_store_ps((float*)(a + total / 2 + i), _mm512_load_ps((float*)(a + i)));
    const double dt = now() - t;
    if (dt < best) best = dt;
  }
  printf("copy %.1f GB/s (read+write)\n", total / best / 1e9);
}
