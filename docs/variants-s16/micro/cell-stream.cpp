#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using clk = std::chrono::steady_clock;
// per cell: read 16 ymm (512 B), write 8 ymm (256 B) = A_l * B_l (elementwise stand-in)
template <int MODE> void run(const float* in, float* out, size_t cells) {
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < cells; ++c) {
    const float* a = in + c * 64; const float* b2 = in + cells * 64 + c * 64; float* o = out + c * 64;
    for (int i = 0; i < 8; ++i) {
      __m256 x = _mm256_mul_ps(_mm256_load_ps(a + 8 * i), _mm256_load_ps(b2 + 8 * i));
      if (MODE == 0) _mm256_store_ps(o + 8 * i, x); else _mm256_stream_ps(o + 8 * i, x);
    }
  }
  if (MODE) {
#pragma omp parallel
    _mm_sfence();
  }
}
int main() {
  const size_t cells = (size_t(128) << 20) / 512;
  float* in = (float*)aligned_alloc(64, cells * 512);
  float* out = (float*)aligned_alloc(64, cells * 256);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < cells * 128; ++i) in[i] = 1.0f;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < cells * 64; ++i) out[i] = 1.0f;
  auto med = [&](auto f) { std::vector<double> t; for (int r = 0; r < 12; ++r) { auto s = clk::now(); f(); t.push_back(std::chrono::duration<double>(clk::now() - s).count()); } std::sort(t.begin(), t.end()); return t[t.size()/2]; };
  for (int r = 0; r < 3; ++r) {
    double t0 = med([&] { run<0>(in, out, cells); });
    double t1 = med([&] { run<1>(in, out, cells); });
    double GB = cells * 768 / 1e9;
    std::printf("plain %.2f ms %.1f GB/s   NT %.2f ms %.1f GB/s\n", t0 * 1e3, GB / t0, t1 * 1e3, GB / t1);
  }
}
