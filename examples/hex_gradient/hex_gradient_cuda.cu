// The hand-written CUDA hexahedral-gradient kernel (see hex_gradient_hand.hpp): one thread per
// element, extents and strides fixed at coding time, every access coalesced.
#include <cuda_runtime.h>

#include "grain/core/backend/cuda_runtime.hpp"
#include "hex_gradient_hand.hpp"

namespace grain::examples {

namespace {

__global__ void __launch_bounds__(256)
    hex_gradient_hand_kernel(const double* __restrict__ x, double* __restrict__ g,
                             unsigned long long n, const HexShapeDerivatives shape) {
  const unsigned long long e = blockIdx.x * 256ull + threadIdx.x;
  if (e >= n) return;
  double xl[3][8], gl[3][8];
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k) xl[i][k] = __ldg(x + (k * 3 + i) * n + e);
  hex_gradient_element(xl, shape, gl);
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k) g[(k * 3 + i) * n + e] = gl[i][k];
}

}  // namespace

void hex_gradient_hand_cuda(const double* coords, double* grads, std::size_t elements,
                            const HexShapeDerivatives& shape) {
  if (elements == 0) return;
  const unsigned long long blocks = (elements + 255) / 256;
  if (blocks > 2147483647ull)
    impl::throw_error("hex_gradient_hand_cuda: ", elements, " elements exceed one grid");
  hex_gradient_hand_kernel<<<static_cast<unsigned>(blocks), 256>>>(coords, grads, elements, shape);
  impl::cuda_check_launch("hex_gradient_hand_cuda");
}

}  // namespace grain::examples
