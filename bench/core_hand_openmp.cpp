// The hand-written CPU baselines: the loops a programmer would write without grain.
#include "core_hand.hpp"

namespace grain::bench::hand {

void openmp_triad(double* a, const double* b, const double* c, double s, std::size_t n) {
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

double openmp_dot(const double* a, const double* b, std::size_t n) {
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void serial_triad(double* a, const double* b, const double* c, double s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

double serial_dot(const double* a, const double* b, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace grain::bench::hand
