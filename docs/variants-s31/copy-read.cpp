#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
int main(int argc, char** argv) {
  const size_t mib = atol(argv[1]);
  const size_t n = (mib << 20) / 8;
  std::vector<double> a(n), b(n);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) { a[i] = 1.0 + 1e-9 * i; b[i] = 2.0; }
  double* pa = a.data(); double* pb = b.data();
  std::vector<double> ms, mr;
  double s = 0;
  for (int r = 0; r < 11; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) pb[i] = pa[i];
    auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static) reduction(+:s)
    for (size_t i = 0; i < n; ++i) s += pa[i];
    auto t2 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    mr.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::sort(ms.begin(), ms.end()); std::sort(mr.begin(), mr.end());
  printf("%4zu MiB: copy %.1f GB/s read %.1f GB/s %s\n", mib, 2.0 * n * 8 / ms[5] / 1e6, n * 8 / mr[5] / 1e6, s == 1 ? "x" : "");
}
