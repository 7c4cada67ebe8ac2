#include <immintrin.h>
#include <chrono>
#include <cstdio>
template <class V, class F>
double run(F fma, long iters) {
  V a[12]; V b = V(), c = V();
  for (int i = 0; i < 12; ++i) a[i] = V();
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = fma(a[i], b, c);
  }
  auto t1 = std::chrono::steady_clock::now();
  volatile float sink = 0; for (int i = 0; i < 12; ++i) sink = sink + ((float*)&a[i])[0];
  return std::chrono::duration<double>(t1 - t0).count();
}
int main() {
  long it = 200000000;
  double t256 = run<__m256>([](__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }, it);
  double t512 = run<__m512>([](__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }, it);
  printf("256: %.1f GFLOP/s  512: %.1f GFLOP/s (one thread)\n", it * 12 * 16.0 / t256 / 1e9, it * 12 * 32.0 / t512 / 1e9);
}
