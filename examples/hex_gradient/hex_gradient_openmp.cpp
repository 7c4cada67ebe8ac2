// The hand-written CPU hexahedral-gradient loop (see hex_gradient_hand.hpp).
#include "hex_gradient_hand.hpp"

namespace grain::examples {

void hex_gradient_hand_openmp(const double* coords, double* grads, std::size_t elements,
                              const HexShapeDerivatives& shape, int threads) {
  const long long n = static_cast<long long>(elements);
  const double* __restrict__ x = coords;
  double* __restrict__ g = grads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (long long e = 0; e < n; ++e) {
    const double* xe = x + e * 24;
    double* ge = g + e * 24;
    double xl[3][8], gl[3][8];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) xl[i][k] = xe[i * 8 + k];
    hex_gradient_element(xl, shape, gl);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) ge[i * 8 + k] = gl[i][k];
  }
}

}  // namespace grain::examples
