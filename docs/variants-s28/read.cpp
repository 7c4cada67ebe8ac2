#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <omp.h>
int main(int argc, char** argv) {
  for (size_t mb : {1, 4, 16, 32, 64, 128, 256, 512}) {
    size_t n = mb * (1 << 20) / sizeof(float);
    std::vector<float> a(n, 1.0f);
    double best = 1e9; float s = 0;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      float acc = 0;
#pragma omp parallel for reduction(+ : acc)
      for (size_t i = 0; i < n; ++i) acc += a[i];
      auto t1 = std::chrono::steady_clock::now();
      s += acc;
      double t = std::chrono::duration<double>(t1 - t0).count();
      if (rep > 0 && t < best) best = t;
    }
    printf("%4zu MiB read %.1f GB/s (%g)\n", mb, n * 4 / best / 1e9, s);
  }
}
