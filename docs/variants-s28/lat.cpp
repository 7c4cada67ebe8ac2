#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <numeric>
#include <algorithm>
#include <sys/mman.h>
int main() {
  for (size_t mb : {1, 8, 32, 64, 128, 512}) {
    size_t n = mb * (1 << 20) / 64;
    size_t* a = (size_t*)aligned_alloc(1 << 21, n * 64);
    madvise(a, n * 64, MADV_HUGEPAGE);
    std::vector<size_t> perm(n); std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(1));
    for (size_t i = 0; i < n; ++i) a[perm[i] * 8] = perm[(i + 1) % n] * 8;
    size_t p = perm[0] * 8; const size_t steps = 4000000;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t s = 0; s < steps; ++s) p = a[p];
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%4zu MiB: %.1f ns (%zu)\n", mb, t / steps * 1e9, p);
    free(a);
  }
}
