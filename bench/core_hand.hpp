// Hand-written triad and dot baselines (plain OpenMP loops, plain CUDA kernels) that the core
// benchmark puts beside the same kernels written with grain.
#pragma once

#include <cstddef>

namespace grain::bench::hand {

// a[i] = b[i] + s * c[i]
void openmp_triad(double* a, const double* b, const double* c, double s, std::size_t n);
double openmp_dot(const double* a, const double* b, std::size_t n);
void serial_triad(double* a, const double* b, const double* c, double s, std::size_t n);
double serial_dot(const double* a, const double* b, std::size_t n);

#if defined(GRAIN_ENABLE_CUDA)
// Device pointers. Triad is asynchronous; dot returns the result on the host (synchronous).
void cuda_triad(double* a, const double* b, const double* c, double s, std::size_t n);
double cuda_dot(const double* a, const double* b, std::size_t n);
#endif

}  // namespace grain::bench::hand
