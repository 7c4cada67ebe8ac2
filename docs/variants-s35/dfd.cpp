// DataFieldScalar LayoutLeft access-pattern study: out(c,f) = sum_p a(c,p) b(c,f,p), c fastest.
#include <omp.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <functional>
#include <cmath>
using T = float;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static T* alloc(size_t n) { T* p = (T*)aligned_alloc(1 << 21, ((n * sizeof(T)) + (1 << 21) - 1) / (1 << 21) * (1 << 21)); madvise(p, n * sizeof(T), MADV_HUGEPAGE); return p; }
long C, F, P;
T *a, *b, *out, *ref;
// run cells per block, KC steps, optional prefetch distance (in cells) of the next rows
template <int KC>
void kern(long run, int pf, bool nextrow = true) {
  const long blocks = (C + run - 1) / run;
  const long groups = blocks == 1 ? 2 : 1;
#pragma omp parallel for schedule(static)
  for (long it = 0; it < blocks * groups; ++it) {
    const long blk = it % blocks, g = it / blocks;
    const long f0 = g * F / groups, f1 = (g + 1) * F / groups;
    const long c0 = blk * run, n = std::min(run, C - c0);
    for (long k = 0; k < P; k += KC) {
      const int m = (int)std::min<long>(KC, P - k);
      for (long f = f0; f < f1; ++f) {
        T* o = out + c0 + C * f;
        const T* bb[KC]; const T* aa[KC];
        for (int j = 0; j < m; ++j) { bb[j] = b + c0 + C * (f + F * (k + j)); aa[j] = a + c0 + C * (k + j); }
        const bool zero = k == 0;
        if (pf && nextrow && f + 1 < F) for (int j = 0; j < m; ++j) for (long c = 0; c < std::min<long>(n, pf); c += 64 / sizeof(T)) __builtin_prefetch(bb[j] + C + c);
        long c = 0;
        for (; c + 16 <= n; c += 16) {
          T acc[16];
#pragma omp simd
          for (int v = 0; v < 16; ++v) acc[v] = zero ? T(0) : o[c + v];
          for (int j = 0; j < m; ++j) {
            if (pf) __builtin_prefetch(bb[j] + c + pf);
#pragma omp simd
            for (int v = 0; v < 16; ++v) acc[v] += aa[j][c + v] * bb[j][c + v];
          }
#pragma omp simd
          for (int v = 0; v < 16; ++v) o[c + v] = acc[v];
        }
        for (; c < n; ++c) { T s = zero ? T(0) : o[c]; for (int j = 0; j < m; ++j) s += aa[j][c] * bb[j][c]; o[c] = s; }
      }
    }
  }
}

template <int KC, int NF>
void kern2(long run, int pf, int hint) {
  const long blocks = (C + run - 1) / run;
  const long groups = blocks == 1 ? 2 : 1;
#pragma omp parallel for schedule(static)
  for (long it = 0; it < blocks * groups; ++it) {
    const long blk = it % blocks, g = it / blocks;
    const long f0 = g * F / groups, f1 = (g + 1) * F / groups;
    const long c0 = blk * run, n = std::min(run, C - c0);
    for (long k = 0; k < P; k += KC) {
      const int m = (int)std::min<long>(KC, P - k);
      const bool zero = k == 0;
      long f = f0;
      for (; f + NF <= f1; f += NF) {
        const T* bb[NF][KC]; const T* aa[KC];
        for (int j = 0; j < m; ++j) { aa[j] = a + c0 + C * (k + j); for (int i = 0; i < NF; ++i) bb[i][j] = b + c0 + C * (f + i + F * (k + j)); }
        long c = 0;
        for (; c + 16 <= n; c += 16) {
          T acc[NF][16];
          for (int i = 0; i < NF; ++i) {
#pragma omp simd
            for (int v = 0; v < 16; ++v) acc[i][v] = zero ? T(0) : out[c0 + C * (f + i) + c + v];
          }
          for (int j = 0; j < m; ++j) {
            for (int i = 0; i < NF; ++i) {
              if (pf) { if (hint == 3) __builtin_prefetch(bb[i][j] + c + pf, 0, 3); else if (hint == 2) __builtin_prefetch(bb[i][j] + c + pf, 0, 2); else __builtin_prefetch(bb[i][j] + c + pf, 0, 0); }
#pragma omp simd
              for (int v = 0; v < 16; ++v) acc[i][v] += aa[j][c + v] * bb[i][j][c + v];
            }
          }
          for (int i = 0; i < NF; ++i) {
#pragma omp simd
            for (int v = 0; v < 16; ++v) out[c0 + C * (f + i) + c + v] = acc[i][v];
          }
        }
        for (; c < n; ++c) for (int i = 0; i < NF; ++i) { T s = zero ? T(0) : out[c0 + C * (f + i) + c]; for (int j = 0; j < m; ++j) s += aa[j][c] * bb[i][j][c]; out[c0 + C * (f + i) + c] = s; }
      }
      for (; f < f1; ++f) {
        for (long c = 0; c < n; ++c) { T s = zero ? T(0) : out[c0 + C * f + c]; for (int j = 0; j < m; ++j) s += a[c0 + C * (k + j) + c] * b[c0 + C * (f + F * (k + j)) + c]; out[c0 + C * f + c] = s; }
      }
    }
  }
}
// DataData-like: two DRAM operands (b's first C*P as a second operand), out(c) = sum_p a(c,p) b(c,p)
// memory-order walk: thread's cell range, for p, for f: one run at a time (out range in L2/L3)
void seqk(long run) {
  const long blocks = (C + run - 1) / run;
#pragma omp parallel for schedule(static)
  for (long blk = 0; blk < blocks; ++blk) {
    const long c0 = blk * run, n = std::min(run, C - c0);
    for (long p = 0; p < P; ++p) {
      const T* ar = a + c0 + C * p;
      for (long f = 0; f < F; ++f) {
        const T* br = b + c0 + C * (f + F * p);
        T* o = out + c0 + C * f;
        if (p == 0) {
#pragma omp simd
          for (long c = 0; c < n; ++c) o[c] = ar[c] * br[c];
        } else {
#pragma omp simd
          for (long c = 0; c < n; ++c) o[c] += ar[c] * br[c];
        }
      }
    }
  }
}
double readsum() {
  double t = 0; const long n = C * F * P;
#pragma omp parallel for reduction(+ : t) schedule(static)
  for (long i = 0; i < n; i += 16) { T s = 0;
#pragma omp simd reduction(+ : s)
    for (int v = 0; v < 16; ++v) s += b[i + v];
    t += s; }
  return t;
}
int main(int argc, char** argv) {
  F = atol(argv[1]); P = atol(argv[2]); int rounds = argc > 3 ? atoi(argv[3]) : 10;
  C = (128l << 20) / (F * P * sizeof(T));
  a = alloc(C * P); b = alloc(C * F * P); out = alloc(C * F); ref = alloc(C * F);
  T* cp = alloc(C * F * P);
  srand(1);
  for (long i = 0; i < C * P; ++i) a[i] = rand() / (T)RAND_MAX - 0.5f;
#pragma omp parallel for
  for (long i = 0; i < C * F * P; ++i) { b[i] = (T)((i * 2654435761u) % 1000) / 1000 - 0.5f; cp[i] = 0; }
  kern<8>(4096 / sizeof(T), 0); std::memcpy(ref, out, C * F * sizeof(T));
  const double bytes = (C * P + C * F * P + C * F) * sizeof(T), cbytes = 2.0 * C * F * P * sizeof(T);
  printf("C=%ld F=%ld P=%ld  bytes %.1f MB\n", C, F, P, bytes / 1e6);
  struct V { const char* name; std::function<void()> f; };
  auto chk = [&](const char* nm) { double e = 0; for (long i = 0; i < C * F; ++i) e = std::max(e, (double)std::abs(out[i] - ref[i])); if (e > 1e-3) printf("  %s WRONG %g\n", nm, e); };
  for (int r = 0; r < rounds; ++r) {
    double t0 = now();
#pragma omp parallel for
    for (long i = 0; i < C * F * P; i += 16) std::memcpy(cp + i, b + i, 64);
    double tc = now() - t0; t0 = now(); volatile double s = readsum(); double tr = now() - t0;
    printf("copy %5.1f read %5.1f |", cbytes / tc / 1e9, C * F * P * sizeof(T) / tr / 1e9);
    const long run = 4096;
    t0 = now(); kern<8>(run, 0); double t = now() - t0; chk("k"); printf(" k8 %5.1f", bytes / t / 1e9);
    for (int pf : {256}) { t0 = now(); kern<8>(run, pf, false); t = now() - t0; chk("k"); printf(" q%d %5.1f", pf, bytes / t / 1e9); }
    t0 = now(); kern2<8, 1>(run, 0, 0); t = now() - t0; chk("k"); printf(" f1 %5.1f", bytes / t / 1e9);
    t0 = now(); kern2<8, 2>(run, 0, 0); t = now() - t0; chk("k"); printf(" f2 %5.1f", bytes / t / 1e9);
    t0 = now(); kern2<8, 4>(run, 0, 0); t = now() - t0; chk("k"); printf(" f4 %5.1f", bytes / t / 1e9);
    for (int h : {0, 2, 3}) { t0 = now(); kern2<8, 1>(run, 256, h); t = now() - t0; chk("k"); printf(" f1p/h%d %5.1f", h, bytes / t / 1e9); }
    for (int h : {0, 3}) { t0 = now(); kern2<8, 2>(run, 256, h); t = now() - t0; chk("k"); printf(" f2p/h%d %5.1f", h, bytes / t / 1e9); }
    for (int pf : {128, 512}) { t0 = now(); kern2<8, 2>(run, pf, 3); t = now() - t0; chk("k"); printf(" f2p%d %5.1f", pf, bytes / t / 1e9); }
    t0 = now(); kern2<4, 2>(run, 256, 3); t = now() - t0; chk("k"); printf(" k4f2p %5.1f", bytes / t / 1e9);
    printf("\n"); fflush(stdout);
  }
}
