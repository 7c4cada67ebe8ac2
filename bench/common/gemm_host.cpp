#include <random>
#include <vector>

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
