// The CPU peer of the FieldField contractions: one OpenBLAS GEMM per cell, the cells split over
// OpenMP threads, OpenBLAS itself on one thread (what a user of a per-cell BLAS would write).
#include "contract_peers.hpp"

#include "grain/core/error.hpp"

#if defined(GRAIN_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace grain::bench {

bool have_openblas_peer() {
#if defined(GRAIN_HAVE_OPENBLAS)
  return true;
#else
  return false;
#endif
}

namespace {

template <class T, class Gemm>
void per_cell(const T* left, const T* right, T* out, std::int64_t C, std::int64_t L,
              std::int64_t R, std::int64_t K, int threads, Gemm gemm) {
#if defined(GRAIN_HAVE_OPENBLAS)
  // OpenBLAS must not start its own threads inside ours.
  const int saved = openblas_get_num_threads();
  openblas_set_num_threads(1);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t c = 0; c < C; ++c) gemm(left + c * L * K, right + c * R * K, out + c * L * R);
  openblas_set_num_threads(saved);
#else
  (void)left, (void)right, (void)out, (void)C, (void)L, (void)R, (void)K, (void)threads, (void)gemm;
  impl::throw_error("openblas-gemm: grain was built without OpenBLAS");
#endif
}

}  // namespace

void openblas_per_cell(const double* left, const double* right, double* out, std::int64_t C,
                       std::int64_t L, std::int64_t R, std::int64_t K, int threads) {
  per_cell(left, right, out, C, L, R, K, threads, [=](const double* a, const double* b, double* o) {
#if defined(GRAIN_HAVE_OPENBLAS)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(L), int(R), int(K), 1.0, a, int(K), b,
                int(K), 0.0, o, int(R));
#else
    (void)a, (void)b, (void)o;
#endif
  });
}

void openblas_per_cell(const float* left, const float* right, float* out, std::int64_t C,
                       std::int64_t L, std::int64_t R, std::int64_t K, int threads) {
  per_cell(left, right, out, C, L, R, K, threads, [=](const float* a, const float* b, float* o) {
#if defined(GRAIN_HAVE_OPENBLAS)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(L), int(R), int(K), 1.0f, a, int(K), b,
                int(K), 0.0f, o, int(R));
#else
    (void)a, (void)b, (void)o;
#endif
  });
}

}  // namespace grain::bench
