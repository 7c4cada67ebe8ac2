// Session 37: a prototype of LayoutLeft FieldField Q1 on the CPU with long runs of cells and short
// chunks of K, timed in one process against grain's `block` (ContractBlockHostCellVecKernel) and a
// copy, interleaved call by call. Build (after building build/host):
//   g++ -O3 -march=native -fopenmp -std=c++17 -DGRAIN_ENABLE_OPENMP -Iinclude docs/variants-s37/llq1.cpp \
//       build/host/libgrain.a -o /tmp/llq1
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/llq1 s|v|t f|d G KC PF [rounds]
//   G groups of W cells a team (runs of G lines a row), KC indices a chunk, PF: 0 none, 1 prefetch
//   the next chunk's rows into L2 while this chunk computes.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "grain/grain.hpp"

template <class T>
struct Vec;
template <>
struct Vec<float> {
  using V = __m512;
  static constexpr int W = 16;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static V loada(const float* p) { return _mm512_load_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void storea(float* p, V v) { _mm512_store_ps(p, v); }
  static void stream(float* p, V v) { _mm512_stream_ps(p, v); }
  static V zero() { return _mm512_setzero_ps(); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
};
template <>
struct Vec<double> {
  using V = __m512d;
  static constexpr int W = 8;
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static V loada(const double* p) { return _mm512_load_pd(p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static void storea(double* p, V v) { _mm512_store_pd(p, v); }
  static void stream(double* p, V v) { _mm512_stream_pd(p, v); }
  static V zero() { return _mm512_setzero_pd(); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
};

// out(c, l, r) = sum_k a(c, l, k) b(c, r, k), cells unit-stride: a at c + C (l + L k), b at
// c + C (r + R k), out at c + C (l + L r). L = R = 8.
template <class T>
struct Proto {
  using H = Vec<T>;
  using V = typename H::V;
  static constexpr int W = H::W, L = 8, R = 8;
  const T *a, *b;
  T* out;
  long C, K;
  int G, kc, pf;

  // The 4 x 4 block of outputs (l0.., r0..) of group q over kn indices from packed panels.
  static inline void block(const T* ap, const T* bp, int kn, T* os, bool add) {
    V acc[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) acc[i][j] = add ? H::loada(os + (i * R + j) * W) : H::zero();
    for (int k = 0; k < kn; ++k) {
      V x[4], y[4];
      for (int i = 0; i < 4; ++i) x[i] = H::loada(ap + (k * L + i) * W);
      for (int j = 0; j < 4; ++j) y[j] = H::loada(bp + (k * R + j) * W);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = H::fma(x[i], y[j], acc[i][j]);
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) H::storea(os + (i * R + j) * W, acc[i][j]);
  }

  static inline thread_local unsigned long long tpack = 0, tcomp = 0, tout = 0;
  void team(long c0, T* sa, T* sb, T* os) const {
    unsigned long long t0 = __rdtsc();
    const long gs = static_cast<long>(kc) * L * W;  // one group's packed chunk of a (and of b)
    for (long k0 = 0; k0 < K; k0 += kc) {
      const int kn = static_cast<int>(std::min<long>(kc, K - k0));
      // pack: every row of the chunk as one run of G lines, into group-major panels
      for (int k = 0; k < kn; ++k)
        for (int l = 0; l < L; ++l) {
          const T* s = a + c0 + (l + L * (k0 + k)) * C;
          T* d = sa + (k * L + l) * W;
          for (int q = 0; q < G; ++q) H::storea(d + q * gs, H::load(s + q * W));
        }
      for (int k = 0; k < kn; ++k)
        for (int r = 0; r < R; ++r) {
          const T* s = b + c0 + (r + R * (k0 + k)) * C;
          T* d = sb + (k * R + r) * W;
          for (int q = 0; q < G; ++q) H::storea(d + q * gs, H::load(s + q * W));
        }
      { unsigned long long t1 = __rdtsc(); tpack += t1 - t0; t0 = t1; }
      // the next chunk's rows (or the next team's first), into L2, spread over the groups
      long nk0 = k0 + kc, nc0 = c0;
      if (nk0 >= K) nk0 = 0, nc0 = c0 + static_cast<long>(G) * W;
      const int nkn = static_cast<int>(std::min<long>(kc, K - nk0));
      const int rows = (L + R) * nkn, per = pf ? (rows + G - 1) / G : 0;
      int row = 0;
      for (int q = 0; q < G; ++q) {
        for (int n = 0; n < per && row < rows; ++n, ++row) {
          const int k = row / (L + R), i = row % (L + R);
          const T* s = i < L ? a + nc0 + (i + L * (nk0 + k)) * C : b + nc0 + (i - L + R * (nk0 + k)) * C;
          if (nc0 + static_cast<long>(G) * W <= C)
            for (int w = 0; w < G; ++w) _mm_prefetch(reinterpret_cast<const char*>(s + w * W), _MM_HINT_T1);
        }
        for (int l0 = 0; l0 < L; l0 += 4)
          for (int r0 = 0; r0 < R; r0 += 4)
            block(sa + q * gs + l0 * W, sb + q * gs + r0 * W, kn, os + q * (L * R * W) + (l0 * R + r0) * W, k0 > 0);
      }
      { unsigned long long t1 = __rdtsc(); tcomp += t1 - t0; t0 = t1; }
    }
    {
    // outputs: row (l, r) a run of G lines
    for (int r = 0; r < R; ++r)
      for (int l = 0; l < L; ++l) {
        T* d = out + c0 + (l + L * r) * C;
        const bool aligned = reinterpret_cast<std::uintptr_t>(d) % 64 == 0;
        for (int q = 0; q < G; ++q) {
          const V v = H::loada(os + q * (L * R * W) + (l * R + r) * W);
          if (aligned) H::stream(d + q * W, v); else H::store(d + q * W, v);
        }
      }
    tout += __rdtsc() - t0;
    }
  }

  void run() const {
    const long TC = static_cast<long>(G) * W, teams = C / TC;
#pragma omp parallel
    {
      const std::size_t gs = static_cast<std::size_t>(kc) * L * W;
      std::vector<T> buf(2 * G * gs + static_cast<std::size_t>(G) * L * R * W + 64);
      T* base = reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(buf.data()) + 63) / 64 * 64);
      T *sa = base, *sb = base + G * gs, *os = sb + G * gs;
#pragma omp for schedule(static)
      for (long t = 0; t < teams; ++t) team(t * TC, sa, sb, os);
    }
    _mm_sfence();
    if (std::getenv("PHASES")) {
#pragma omp parallel
      std::printf("    thread %d: pack %.2f compute %.2f out %.2f Gcycles\n", omp_get_thread_num(), tpack * 1e-9, tcomp * 1e-9, tout * 1e-9);
    }
    for (long c = teams * TC; c < C; ++c)  // the tail, plainly
      for (int l = 0; l < L; ++l)
        for (int r = 0; r < R; ++r) {
          T s = 0;
          for (long k = 0; k < K; ++k) s += a[c + (l + L * k) * C] * b[c + (r + R * k) * C];
          out[c + (l + L * r) * C] = s;
        }
  }
};

template <class T>
int go(char kern, int G, int kc, int pf, int rounds) {
  const long D = kern == 's' ? 1 : kern == 'v' ? 3 : 9, L = 8, P = 8, K = P * D;
  const long C = (128L << 20) / (L * K * static_cast<long>(sizeof(T)));
  using V3 = grain::View<T***, grain::LayoutLeft, grain::HostSpace>;
  V3 l("l", C, L, K), r("r", C, L, K), o1("o1", C, L, L), o2("o2", C, L, L);
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto* v : {&l, &r})
    for (std::size_t i = 0; i < v->size(); ++i) v->data()[i] = static_cast<T>(u(g));
  grain::ContractOptions opt;
  opt.algorithm = grain::ContractAlgorithm::Block;
  Proto<T> pr{l.data(), r.data(), o2.data(), C, K, G, kc, pf};
  std::vector<T> src(static_cast<std::size_t>(64) << 20 >> 3), dst(src.size());
  for (auto& x : src) x = 1;
  auto ms = [](auto&& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto copy = [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(src.size()); i += 1024)
      std::memcpy(dst.data() + i, src.data() + i, 1024 * sizeof(T));
  };
  grain::contract_field_field_scalar(o1, l, r, opt);  // FieldFieldScalar on K = P D indices: the same sums
  pr.run();
  double err = 0, big = 0;
  for (std::size_t i = 0; i < o1.size(); ++i)
    err = std::max(err, std::fabs(double(o1.data()[i]) - double(o2.data()[i]))), big = std::max(big, std::fabs(double(o1.data()[i])));
  const double bytes = double(sizeof(T)) * C * (2 * L * K + L * L), cb = 2.0 * src.size() * sizeof(T);
  std::printf("FF%c Q1 %s C=%ld K=%ld G=%d kc=%d pf=%d: max error %.2e of %.2e\n", kern, sizeof(T) == 4 ? "float" : "double",
              C, K, G, kc, pf, err, big);
  for (int i = 0; i < rounds; ++i) {
    std::vector<double> a, b, c;
    for (int rep = 0; rep < 7; ++rep) {
      c.push_back(ms(copy));
      a.push_back(ms([&] { grain::contract_field_field_scalar(o1, l, r, opt); }));
      b.push_back(ms([&] { pr.run(); }));
    }
    std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end()), std::sort(c.begin(), c.end());
    std::printf("  copy %.1f GB/s | block %.2f ms %.1f GB/s | proto %.2f ms %.1f GB/s\n", cb / c[3] / 1e6, a[3],
                bytes / a[3] / 1e6, b[3], bytes / b[3] / 1e6);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 6) return std::fprintf(stderr, "usage: llq1 s|v|t f|d G KC PF [rounds]\n"), 2;
  grain::initialize();
  const int G = std::atoi(argv[3]), kc = std::atoi(argv[4]), pf = std::atoi(argv[5]);
  const int rounds = argc > 6 ? std::atoi(argv[6]) : 3;
  return argv[2][0] == 'f' ? go<float>(argv[1][0], G, kc, pf, rounds) : go<double>(argv[1][0], G, kc, pf, rounds);
}
