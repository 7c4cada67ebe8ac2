// Sequential rates of this machine's memory on 2 threads: read (a sum), write (plain stores, each
// line read first), write (streaming stores), copy (read + write counted) over 128 MiB arrays.
#include <sys/mman.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F>
static double best(F&& f) {
  double b = 1e9;
  for (int rep = 0; rep < 8; rep++) {
    const double t = now();
    f();
    const double d = now() - t;
    if (d < b) b = d;
  }
  return b;
}
int main() {
  const long n = (128L << 20) / 4;
  float* a = (float*)aligned_alloc(2 << 20, n * 4);
  float* b = (float*)aligned_alloc(2 << 20, n * 4);
  madvise(a, n * 4, MADV_HUGEPAGE);
  madvise(b, n * 4, MADV_HUGEPAGE);
  memset(a, 0, n * 4); memset(b, 0, n * 4);
  volatile float sink = 0;
  for (int round = 0; round < 3; round++) {
    const double tr = best([&] {
      __m512 s = _mm512_setzero_ps();
#pragma omp parallel for reduction(+ : sink)
      for (long i = 0; i < n; i += 64) {
        __m512 x = _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(a + i), _mm512_load_ps(a + i + 16)),
                                 _mm512_add_ps(_mm512_load_ps(a + i + 32), _mm512_load_ps(a + i + 48)));
        sink += _mm512_reduce_add_ps(x);
      }
      (void)s;
    });
    const double tw = best([&] {
#pragma omp parallel for
      for (long i = 0; i < n; i += 16) _mm512_store_ps(b + i, _mm512_set1_ps(1.0f));
    });
    const double tn = best([&] {
#pragma omp parallel for
      for (long i = 0; i < n; i += 16) _mm512_stream_ps(b + i, _mm512_set1_ps(1.0f));
      _mm_sfence();
    });
    const double tc = best([&] {
#pragma omp parallel for
      for (long i = 0; i < n; i += 16) _mm512_store_ps(b + i, _mm512_load_ps(a + i));
    });
    printf("read %.1f  write %.1f  write (streaming) %.1f  copy %.1f (read + write) GB/s\n", n * 4 / tr / 1e9,
           n * 4 / tw / 1e9, n * 4 / tn / 1e9, 2 * n * 4 / tc / 1e9);
  }
}
