// The hand-written CPU Modified Gram-Schmidt (see gram_schmidt_hand.hpp).
#include <cmath>

#include "gram_schmidt_hand.hpp"

namespace grain::examples {

void mgs_hand_openmp(double* a, std::size_t n, int K, double* r, int threads) {
  const long long N = static_cast<long long>(n);
  for (int k = 0; k < K; ++k) {
    double* __restrict__ qk = a + static_cast<std::size_t>(k) * n;
    double ss = 0;
#pragma omp parallel for schedule(static) reduction(+ : ss) num_threads(threads) if (threads > 1)
    for (long long i = 0; i < N; ++i) ss += qk[i] * qk[i];
    const double norm = std::sqrt(ss);
    check_mgs_pivot(norm, k, "mgs_hand_openmp");
    r[k * K + k] = norm;
    for (int j = 0; j < k; ++j) r[k * K + j] = 0.0;
    const double inv = 1.0 / norm;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long long i = 0; i < N; ++i) qk[i] *= inv;
    for (int j = k + 1; j < K; ++j) {
      double* __restrict__ aj = a + static_cast<std::size_t>(j) * n;
      double dot = 0;
#pragma omp parallel for schedule(static) reduction(+ : dot) num_threads(threads) if (threads > 1)
      for (long long i = 0; i < N; ++i) dot += qk[i] * aj[i];
      r[k * K + j] = dot;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
      for (long long i = 0; i < N; ++i) aj[i] -= dot * qk[i];
    }
  }
}

}  // namespace grain::examples
