// Session 31: a 2-thread copy and two reads of the same 128 MiB (or argv[1] MiB) buffer, medians of 11:
// a scalar OpenMP reduction(+) sum (one dependent add chain a thread: bound by the adds, about 16
// GB/s a thread, not by memory) and 8 independent 512-bit sums (memory-bound). Build:
//   g++ -O3 -march=native -fopenmp docs/variants-s31/copy-read.cpp -o /tmp/copy-read
// Run: OMP_NUM_THREADS=2 /tmp/copy-read 128
#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
int main(int argc, char** argv) {
  const size_t mib = atol(argv[1]);
  const size_t n = (mib << 20) / 8;
  double* a = (double*)aligned_alloc(64, n * 8); double* b = (double*)aligned_alloc(64, n * 8);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) { a[i] = 1.0 + 1e-9 * i; b[i] = 2.0; }
  std::vector<double> ms, mr, mv;
  double s = 0;
  for (int r = 0; r < 11; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static) reduction(+:s)
    for (size_t i = 0; i < n; ++i) s += a[i];
    auto t2 = std::chrono::steady_clock::now();
    double tot = 0;
#pragma omp parallel reduction(+:tot)
    {
      __m512d acc[8];
      for (int k = 0; k < 8; ++k) acc[k] = _mm512_setzero_pd();
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i += 64)
        for (int k = 0; k < 8; ++k) acc[k] = _mm512_add_pd(acc[k], _mm512_load_pd(a + i + 8 * k));
      for (int k = 1; k < 8; ++k) acc[0] = _mm512_add_pd(acc[0], acc[k]);
      tot += _mm512_reduce_add_pd(acc[0]);
    }
    auto t3 = std::chrono::steady_clock::now();
    s += tot;
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    mr.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    mv.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
  }
  std::sort(ms.begin(), ms.end()); std::sort(mr.begin(), mr.end()); std::sort(mv.begin(), mv.end());
  printf("%4zu MiB: copy %.1f GB/s, read (scalar sum) %.1f GB/s, read (8 x 512-bit sums) %.1f GB/s %s\n", mib,
         2.0 * n * 8 / ms[5] / 1e6, n * 8 / mr[5] / 1e6, n * 8 / mv[5] / 1e6, s == 1 ? "x" : "");
}
