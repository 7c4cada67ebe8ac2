#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
int main() {
  size_t n = size_t(128) << 20;
  char* a = (char*)aligned_alloc(4096, n); char* b = (char*)aligned_alloc(4096, n);
  memset(a, 1, n); memset(b, 0, n);
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for
    for (long i = 0; i < long(n >> 16); ++i) memcpy(b + (i << 16), a + (i << 16), 1 << 16);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (2.0 * n / t / 1e9 > best) best = 2.0 * n / t / 1e9;
  }
  printf("%.0f\n", best);
}
