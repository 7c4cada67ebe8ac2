#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using clk = std::chrono::steady_clock;
int main() {
  const size_t n = (size_t(128) << 20) / 8;
  double* a = (double*)aligned_alloc(64, n * 8);
  double* b = (double*)aligned_alloc(64, n * 8);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) { a[i] = 1.0 + i * 1e-9; b[i] = 2.0; }
  auto best = [&](auto f) { std::vector<double> t; for (int r = 0; r < 12; ++r) { auto s = clk::now(); f(); t.push_back(std::chrono::duration<double>(clk::now() - s).count()); } std::sort(t.begin(), t.end()); return t[t.size()/2]; };
  for (int round = 0; round < 3; ++round) {
  double tc = best([&] {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
  });
  double tcs = best([&] {
#pragma omp parallel
    { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t lo = n * t / T, hi = n * (t + 1) / T;
      for (size_t i = lo; i < hi; i += 4) _mm256_store_pd(b + i, _mm256_load_pd(a + i)); }
  });
  double tnt = best([&] {
#pragma omp parallel
    { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t lo = n * t / T, hi = n * (t + 1) / T;
      for (size_t i = lo; i < hi; i += 4) _mm256_stream_pd(b + i, _mm256_load_pd(a + i)); _mm_sfence(); }
  });
  double GB = n * 8 / 1e9;
  std::printf("copy(loop) %.1f GB/s  copy(store) %.1f  copy(NT) %.1f\n", 2 * GB / tc, 2 * GB / tcs, 2 * GB / tnt);
  }
}
