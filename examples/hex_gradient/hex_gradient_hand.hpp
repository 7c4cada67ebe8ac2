// Hand-written hexahedral-gradient kernels, the baselines of the paper's Figure 5: no View, no
// layout map, the extents (elements, 3, 8) and the strides hard-coded.
//
//   CPU:  LayoutRight order, coords[e*24 + i*8 + k], a plain `omp parallel for` over elements.
//   CUDA: LayoutLeft order, coords[(k*3 + i)*elements + e]: thread e reads consecutive addresses
//         with its warp neighbours (coalesced).
#pragma once

#include <cstddef>
#include <type_traits>

#include "hex_gradient.hpp"

namespace grain::examples {

// `threads` OpenMP threads (1: a serial loop). Host pointers.
void hex_gradient_hand_openmp(const double* coords, double* grads, std::size_t elements,
                              const HexShapeDerivatives& shape, int threads);

#if defined(GRAIN_ENABLE_CUDA)
// Device pointers; asynchronous (the caller fences). Raises grain::Error if the launch fails.
void hex_gradient_hand_cuda(const double* coords, double* grads, std::size_t elements,
                            const HexShapeDerivatives& shape);
#endif

// The hand-written version for Exec's back end, on Views in that space's default layout (the
// layouts the hand-written kernels hard-code).
template <class Exec, class CoordView, class GradView>
void hex_gradient_hand(const CoordView& coords, const GradView& grads,
                       const HexShapeDerivatives& shape) {
  check_hex_views(coords, grads);
  using Space = typename Exec::memory_space;
  static_assert(std::is_same_v<typename CoordView::memory_space, Space> &&
                    std::is_same_v<typename GradView::memory_space, Space>,
                "hex_gradient_hand: the Views must live in Exec's memory space");
  using Expected = typename impl::DefaultLayout<Space>::type;
  static_assert(std::is_same_v<typename CoordView::array_layout, Expected> &&
                    std::is_same_v<typename GradView::array_layout, Expected>,
                "hex_gradient_hand: the hand-written kernels hard-code the default layout of "
                "the space");
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Cuda>) {
    hex_gradient_hand_cuda(coords.data(), grads.data(), coords.extent(0), shape);
    return;
  } else
#endif
  {
    hex_gradient_hand_openmp(coords.data(), grads.data(), coords.extent(0), shape,
                             Exec::concurrency());
  }
}

}  // namespace grain::examples
