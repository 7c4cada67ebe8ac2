// The hand-written CPU hexahedral-gradient loop (see hex_gradient_hand.hpp).
#include "hex_gradient_hand.hpp"

namespace grain::examples {

void hex_gradient_hand_openmp(const double* coords, double* grads, std::size_t elements,
                              const HexShapeDerivatives& shape, int threads) {
  const long long n = static_cast<long long>(elements);
  const double* __restrict__ x = coords;
  double* __restrict__ g = grads;
  // A private copy of the 24 reference derivatives: the compiler keeps them in registers instead
  // of reloading them after every store (a store through g might alias a reference argument).
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const HexShapeDerivatives s = shape;
    // `simd`: vectorized across elements, as a hand-tuned loop would be. Without it GCC 12
    // compiles the loop to scalar arithmetic, and the baseline would run well behind grain's
    // kernel, a comparison that flatters grain.
#pragma omp for simd schedule(static)
  for (long long e = 0; e < n; ++e) {
    const double* xe = x + e * 24;
    double* ge = g + e * 24;
    double xl[3][8], gl[3][8];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) xl[i][k] = xe[i * 8 + k];
    hex_gradient_element(xl, s, gl);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) ge[i * 8 + k] = gl[i][k];
  }
  }
}

}  // namespace grain::examples
