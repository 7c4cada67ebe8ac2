// Session 32: LayoutLeft DataFieldTensor Q4 (out(c,r) = sum_k a(c,k) b(c,r,k), cells fastest) on 2
// threads: the library's flat beside loop-order variants and a 512-bit read of b, interleaved.
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>
#include "grain/grain.hpp"
using T = float;
static long C, R = 125, K = 1944;
static T *A, *B, *O;
// Each thread takes its half of the rows; KC steps of k per pass over its outputs.
template <int KC>
void variant(bool pf, long dist, long G = 0) {
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const long q0 = R * t / nt, q1 = R * (t + 1) / nt;
    const long g = G ? G : q1 - q0;
    for (long r0 = q0; r0 < q1; r0 += g) {
    const long r1 = std::min(q1, r0 + g);
    for (long k = 0; k < K; k += KC) {
      for (long r = r0; r < r1; ++r) {
        T* o = O + r * C;
        const T* b = B + (r + R * k) * C;
        const T* a = A + k * C;
        if (pf) for (long c = 0; c < C; c += 16) for (int j = 0; j < KC; ++j) _mm_prefetch((const char*)(b + j * R * C + dist + c), _MM_HINT_T0);
#pragma omp simd
        for (long c = 0; c < C; ++c) {
          T s = k == 0 ? T(0) : o[c];
          for (int j = 0; j < KC; ++j) s += a[j * C + c] * b[j * R * C + c];
          o[c] = s;
        }
      }
    }
    }
  }
}
double readb() {
  const size_t n = size_t(C) * R * K;
  double tot = 0;
#pragma omp parallel reduction(+:tot)
  {
    __m512 acc[8];
    for (int k = 0; k < 8; ++k) acc[k] = _mm512_setzero_ps();
#pragma omp for schedule(static)
    for (size_t i = 0; i < n / 128 * 128; i += 128)
      for (int k = 0; k < 8; ++k) acc[k] = _mm512_add_ps(acc[k], _mm512_loadu_ps(B + i + 16 * k));
    for (int k = 1; k < 8; ++k) acc[0] = _mm512_add_ps(acc[0], acc[k]);
    tot += _mm512_reduce_add_ps(acc[0]);
  }
  return tot;
}
int main(int argc, char** argv) {
  grain::initialize();
  C = std::getenv("XC") ? std::atol(std::getenv("XC")) : (128l << 20) / (R * K * sizeof(T));
  using V2 = grain::View<T**, grain::LayoutLeft, grain::HostSpace>;
  using V4 = grain::View<T****, grain::LayoutLeft, grain::HostSpace>;
  using V5 = grain::View<T*****, grain::LayoutLeft, grain::HostSpace>;
  V2 out("out", C, R);
  V4 data("data", C, 216, 3, 3);
  V5 field("field", C, R, 216, 3, 3);
  A = data.data(), B = field.data(), O = out.data();
  srand(3);
  for (size_t i = 0; i < data.size(); ++i) A[i] = rand() / (T)RAND_MAX - 0.5f;
#pragma omp parallel for
  for (size_t i = 0; i < field.size(); ++i) B[i] = ((i * 2654435761u) % 1000) / 1000.f - 0.5f;
  std::vector<T> ref(C * R);
  grain::ContractOptions opt;
  grain::contract_data_field_tensor(out, data, field, opt);
  std::memcpy(ref.data(), O, ref.size() * sizeof(T));
  const double gb = (double(C) * R * K + double(C) * K + double(C) * R) * sizeof(T) / 1e9;
  if (argc > 1) {  // one variant only, for perf
    const bool lib = std::string(argv[1]) == "lib";
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) {
      if (lib) grain::contract_data_field_tensor(out, data, field, opt);
      else variant<8>(false, 0);
    }
    std::printf("%s %.3f ms\n", argv[1], std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 100);
    return 0;
  }
  const char* names[] = {"lib", "read", "k1", "k2", "k4", "k8", "k8g16", "k4g16", "k4g32"};
  const int nv = 9;
  std::vector<std::vector<double>> ms(nv);
  volatile double sink = 0;
  for (int round = 0; round < 15; ++round) {
    for (int v = 0; v < nv; ++v) {
      auto t0 = std::chrono::steady_clock::now();
      switch (v) {
        case 0: grain::contract_data_field_tensor(out, data, field, opt); break;
        case 1: sink = sink + readb(); break;
        case 2: variant<1>(false, 0); break;
        case 3: variant<2>(false, 0); break;
        case 4: variant<4>(false, 0); break;
        case 5: variant<8>(false, 0); break;
        case 6: variant<8>(false, 0, 16); break;
        case 7: variant<4>(false, 0, 16); break;
        case 8: variant<4>(false, 0, 32); break;
      }
      ms[v].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (v != 1) {
        double err = 0;
        for (size_t i = 0; i < ref.size(); ++i) err = std::max(err, (double)std::abs(O[i] - ref[i]));
        if (err > 1e-2) std::printf("variant %s wrong: %g\n", names[v], err);
      }
    }
    std::printf("round %2d:", round);
    for (int v = 0; v < nv; ++v) std::printf(" %s %.2f", names[v], ms[v].back());
    std::printf("  lib/read %.2f\n", ms[0].back() / ms[1].back());
  }
  std::printf("median time / read time, per round:");
  for (int v = 0; v < nv; ++v) {
    std::vector<double> q;
    for (size_t i = 0; i < ms[v].size(); ++i) q.push_back(ms[v][i] / ms[1][i]);
    std::sort(q.begin(), q.end());
    std::printf(" %s %.2f", names[v], q[q.size() / 2]);
  }
  std::printf("\n");
  std::printf("C=%ld, %.3f GB; medians (GB/s):", C, gb);
  for (int v = 0; v < nv; ++v) {
    auto s = ms[v]; std::sort(s.begin(), s.end());
    std::printf(" %s %.2f ms (%.1f)", names[v], s[s.size() / 2], gb / s[s.size() / 2] * 1e3);
  }
  std::printf("\n");
}
