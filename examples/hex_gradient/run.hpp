// The hex_gradient example's check and timing on one back end, written once (run<Exec>): main.cpp
// instantiates it for the host back ends in a C++ translation unit, main_cuda.cu for grain::Cuda
// in a CUDA one. Split so, a CUDA-enabled build's host runs get GCC's inlined, vectorized
// GRAIN_LAMBDA bodies instead of nvcc's indirect calls (README, "Lambdas in CUDA-enabled builds").
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hex_gradient/hex_gradient.hpp"
#include "hex_gradient/hex_gradient_hand.hpp"

namespace ex = grain::examples;

template <class Exec, class Fn>
double seconds(Fn&& fn) {
  fn();  // warm-up
  Exec().fence();
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  Exec().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Exec>
bool run(long long n) {
  using Space = typename Exec::memory_space;
  using V = grain::View<double***, Space>;  // (elements, 3, 8) in the space's default layout
  V coords(grain::WithoutInitializing, "coords", n, 3, 8);
  V grads(grain::WithoutInitializing, "grads", n, 3, 8);
  V hand(grain::WithoutInitializing, "grads_hand", n, 3, 8);
  const ex::HexShapeDerivatives shape = ex::hex_default_derivatives();

  // 1. Axis-aligned boxes: the exact gradients are known.
  ex::fill_hex_boxes<Exec>(coords);
  ex::hex_gradient<Exec>(coords, grads, shape);
  const grain::index_type step = n > 1000 ? n / 1000 : 1;
  auto sample = ex::hex_sample<Exec>(grads, step);
  double box_err = 0;
  for (std::size_t t = 0; t < sample.extent(0); ++t)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) {
        const double want = ex::hex_box_gradient(shape, t * step, i, k);
        const double err = std::abs(sample(t, i, k) - want) / std::abs(want);
        box_err = err <= box_err ? box_err : err;
      }

  // 2. Distorted elements: the portable and hand-written kernels must agree.
  ex::fill_hex_mesh<Exec>(coords, 7);
  const double t_grain = seconds<Exec>([&] { ex::hex_gradient<Exec>(coords, grads, shape); });
  const double t_hand = seconds<Exec>([&] { ex::hex_gradient_hand<Exec>(coords, hand, shape); });
  const double id_err = ex::hex_identity_error<Exec>(coords, grads);
  auto a = ex::hex_sample<Exec>(grads, step), b = ex::hex_sample<Exec>(hand, step);
  double diff = 0;
  for (std::size_t q = 0; q < a.size(); ++q) {
    const double d = std::abs(a.data()[q] - b.data()[q]);
    diff = d <= diff ? diff : d;
  }
  const bool ok = box_err <= 1e-13 && id_err <= 1e-12 && diff <= 1e-12;
  std::printf("%-7s %lld elements: box error %.2e, identity error %.2e, grain vs hand %.2e  %s\n"
              "        grain %.3f ms, hand-written %.3f ms (%.1f GB/s)\n",
              Exec::name(), n, box_err, id_err, diff, ok ? "ok" : "FAILED", t_grain * 1e3,
              t_hand * 1e3, n * ex::kHexBytesPerElement / t_grain / 1e9);
  return ok;
}

#if defined(GRAIN_ENABLE_CUDA)
bool run_cuda(long long n);  // run<grain::Cuda> where a GPU is visible, else true (main_cuda.cu)
#endif
