// The gram_schmidt example's check and timing on one back end, written once (run<Exec>): main.cpp
// instantiates it for the host back ends in a C++ translation unit, main_cuda.cu for grain::Cuda
// in a CUDA one. Split so, a CUDA-enabled build's host runs get GCC's inlined, vectorized
// GRAIN_LAMBDA bodies instead of nvcc's indirect calls (README, "Lambdas in CUDA-enabled builds").
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gram_schmidt/gram_schmidt.hpp"
#include "gram_schmidt/gram_schmidt_hand.hpp"

namespace ex = grain::examples;

template <class Exec, class MV, class Fn>
bool factor(const char* who, const MV& a0, Fn&& fn) {
  MV q(grain::WithoutInitializing, "q", a0.extent(0), a0.extent(1));
  grain::deep_copy(q, a0);
  ex::HostMatrix r("r", a0.extent(1), a0.extent(1));
  Exec().fence();
  const auto t0 = std::chrono::steady_clock::now();
  fn(q, r);
  Exec().fence();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double orth = ex::mgs_orthogonality_error<Exec>(q);
  const double res = ex::mgs_residual<Exec>(a0, q, r);
  const bool ok = orth <= 1e-12 && res <= 1e-14;
  std::printf("%-7s %-12s ||Q^TQ - I|| %.2e  ||A - QR||/||A|| %.2e  %8.3f ms  %s\n", Exec::name(),
              who, orth, res, s * 1e3, ok ? "ok" : "FAILED");
  return ok;
}

template <class Exec>
bool run(long long n) {
  using MV = grain::View<double**, grain::LayoutLeft, typename Exec::memory_space>;
  MV a0(grain::WithoutInitializing, "a", n, ex::kGramSchmidtColumns);
  ex::fill_multivector<Exec>(a0, 11);
  bool ok = factor<Exec>("grain", a0, [](const MV& q, const ex::HostMatrix& r) {
    ex::modified_gram_schmidt<Exec>(q, r);
  });
  ok = factor<Exec>("hand-written", a0, [](const MV& q, const ex::HostMatrix& r) {
         ex::mgs_hand<Exec>(q, r);
       }) && ok;
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, grain::Cuda>)
    ok = factor<Exec>("cublas", a0, [](const MV& q, const ex::HostMatrix& r) {
           ex::mgs_cublas(q.data(), q.extent(0), static_cast<int>(q.extent(1)), r.data());
         }) && ok;
#endif
  return ok;
}

#if defined(GRAIN_ENABLE_CUDA)
bool run_cuda(long long n);  // run<grain::Cuda> where a GPU is visible, else true (main_cuda.cu)
#endif
