#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "affinity.hpp"
#include "gemm.hpp"
#include "timing.hpp"

#if defined(GRAIN_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace grain::bench {

bool have_openblas() {
#if defined(GRAIN_HAVE_OPENBLAS)
  return true;
#else
  return false;
#endif
}

std::string openblas_config() {
#if defined(GRAIN_HAVE_OPENBLAS)
  const char* c = openblas_get_config();
  return c ? c : "OpenBLAS";
#else
  return "";
#endif
}

std::string openblas_core_upgrade(const std::string& chosen, bool avx2_fma, bool avx512) {
  // OpenBLAS's x86 kernel sets by the widest vectors they use: without AVX2 ("Prescott" is its
  // fallback for a CPU it does not know), with AVX2 and FMA, with AVX-512. Names outside these
  // lists are left alone.
  static const char* const no_avx2[] = {"Katmai", "Coppermine", "Northwood", "Prescott", "Banias",
                                        "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                        "Sandybridge", "Opteron", "Opteron(SSE3)", "Barcelona",
                                        "Bobcat", "Bulldozer", "Piledriver", "Steamroller"};
  static const char* const avx2[] = {"Haswell", "Zen", "Excavator"};
  auto in = [&](const auto& names) {
    for (const char* n : names)
      if (chosen == n) return true;
    return false;
  };
  const int have = in(no_avx2) ? 0 : in(avx2) ? 1 : -1;
  if (have < 0) return "";
  const int can = avx512 ? 2 : avx2_fma ? 1 : 0;
  if (can <= have) return "";
  return can == 2 ? "SkylakeX" : "Haswell";
}

void openblas_use_cpu_kernels(char** argv) {
#if defined(GRAIN_HAVE_OPENBLAS) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (std::getenv("OPENBLAS_CORETYPE")) return;  // the user's choice, or this program's re-run
  const char* core = openblas_get_corename();
  __builtin_cpu_init();
  const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  const std::string want = openblas_core_upgrade(core ? core : "", avx2_fma, avx512);
  if (want.empty()) return;
  std::fprintf(stderr,
               "grain: OpenBLAS chose its %s kernels on a CPU with %s; running again with "
               "OPENBLAS_CORETYPE=%s (set OPENBLAS_CORETYPE to choose yourself)\n",
               core, avx512 ? "AVX-512" : "AVX2 and FMA", want.c_str());
  std::fflush(stderr);
  // Without this, OMP_PROC_BIND would leave the new program image only the CPU the runtime bound
  // this thread to, and every thread of its teams on it (affinity.hpp).
  restore_place_affinity();
  if (setenv("OPENBLAS_CORETYPE", want.c_str(), 1) == 0) execv("/proc/self/exe", argv);
  std::fprintf(stderr, "grain: warning: running again failed (%s); the CPU GEMM ceiling and the "
               "openblas-gemm peer use OpenBLAS's %s kernels\n", std::strerror(errno), core);
#else
  (void)argv;
#endif
}

#if defined(GRAIN_HAVE_OPENBLAS)
namespace {
template <class T, class Gemm>
double peak(int n, Gemm gemm) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<T> a(nn), b(nn), c(nn);
  std::mt19937 gen(7);
  std::uniform_real_distribution<T> u(-1, 1);
  for (std::size_t i = 0; i < nn; ++i) {
    a[i] = u(gen);
    b[i] = u(gen);
  }
  const Timing t = time_region<false>([&] { gemm(a.data(), b.data(), c.data()); }, 5, 1);
  return 2.0 * n * double(n) * n / (t.ms * 1e-3) / 1e9;
}
}  // namespace
#endif

GemmPeak host_gemm_peak(int n) {
  GemmPeak p;
#if defined(GRAIN_HAVE_OPENBLAS)
  p.double_GFLOPs = peak<double>(n, [n](const double* a, const double* b, double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
  });
  p.float_GFLOPs = peak<float>(n, [n](const float* a, const float* b, float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  });
#else
  (void)n;
#endif
  return p;
}

}  // namespace grain::bench
