// CP-ALS for sparse tensors (Phipps and Kolda, "Tensor Decompositions on Emerging Manycore
// Hardware with Genten and Kokkos", SIAM CSE 2019, backup slide "CP via ALS"; the MATLAB Tensor
// Toolbox's cp_als):
//
//   for each mode n:  V = Hadamard product of the other modes' Gram matrices A_m^T A_m
//                     B = MTTKRP(X, n)                       (the expensive part)
//                     A_n = B V^-1                           (R x R Cholesky; pseudo-inverse if singular)
//                     lambda = column norms of A_n           (2-norm on the first iteration, then
//                     A_n = A_n / lambda                      max(max-norm, 1), as the Toolbox does)
//                     G_n = A_n^T A_n
//   fit = 1 - ||X - M|| / ||X||, with ||X - M||^2 = ||X||^2 + ||M||^2 - 2 <X, M>, where
//   ||M||^2 = lambda^T (G_1 .* ... .* G_N) lambda and <X, M> = sum_r lambda_r sum_i A_N(i,r) B(i,r)
//   reuses the last mode's MTTKRP: no extra pass over the tensor.
// Stops after maxiters iterations or when the fit changes by less than tol.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/dense_solve.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/cp/mttkrp.hpp"

namespace grain::cp {

struct CpAlsOptions {
  int maxiters = 50;
  double tol = 1e-4;
  MttkrpAlgorithm mttkrp = MttkrpAlgorithm::Auto;
  bool arrange_result = true;  // normalize and sort components by weight at the end
};

struct CpAlsIteration {
  int iteration = 0;
  double fit = 0, change = 0, seconds = 0, mttkrp_seconds = 0;
};

struct CpAlsResult {
  std::vector<CpAlsIteration> iterations;
  double fit = 0;
  double seconds = 0;               // all iterations
  double setup_seconds = 0;         // permutations and first Gram matrices
  std::vector<double> mttkrp_seconds_per_mode;  // summed over iterations
  std::vector<MttkrpAlgorithm> algorithms;      // per mode
  bool used_pseudo_inverse = false;
};

namespace impl {
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace impl

// Runs CP-ALS from the initial guess M (overwritten by the result). `progress` is called after
// every iteration; `note` receives one-time notices (the pseudo-inverse fallback).
template <class Exec, class T, class Space>
CpAlsResult cp_als(const SparseTensor<T, Space>& X, Ktensor<T, Space>& M, const CpAlsOptions& opts,
                   const std::function<void(const CpAlsIteration&)>& progress = {},
                   const std::function<void(const std::string&)>& note = {}) {
  using clock = std::chrono::steady_clock;
  const int N = X.ndims();
  const int R = M.rank();
  if (M.ndims() != N || M.dims() != X.dims())
    grain::impl::throw_error("grain::cp::cp_als: initial Ktensor ", dims_string(M.dims()),
                             " does not match the tensor ", dims_string(X.dims()));
  if (opts.maxiters < 1) grain::impl::throw_error("grain::cp::cp_als: maxiters ", opts.maxiters, " must be at least 1");
  if (!(opts.tol >= 0)) grain::impl::throw_error("grain::cp::cp_als: tol ", opts.tol, " must be non-negative");
  CpAlsResult res;
  res.mttkrp_seconds_per_mode.assign(N, 0.0);
  res.algorithms.assign(N, opts.mttkrp);
  const auto ts = clock::now();
  const double normX2 = norm_squared<Exec>(X);
  if (!(normX2 > 0)) grain::impl::throw_error("grain::cp::cp_als: the tensor is zero (norm 0)");
  const double normX = std::sqrt(normX2);
  std::vector<std::vector<double>> grams(N);
  std::vector<View<T**, LayoutRight, Space>> B(N);
  View<T*, LayoutRight, Space> gram_buf;  // the GPU Gram's partial products, reused by every mode
  for (int m = 0; m < N; ++m) {
    grams[m] = gram<Exec>(M.factors[m], &gram_buf);
    B[m] = View<T**, LayoutRight, Space>(WithoutInitializing, "cp_als_mttkrp", X.dim(m), R);
    res.algorithms[m] = opts.mttkrp == MttkrpAlgorithm::Auto ? choose_mttkrp<Exec>(X, m, R) : opts.mttkrp;
    // Sort once, up front.
    if (res.algorithms[m] == MttkrpAlgorithm::Perm) (void)X.sorted(m);
    if (res.algorithms[m] == MttkrpAlgorithm::Tiled) (void)mttkrp_tiled_copy(X, m, R);
  }
  Exec().fence();
  res.setup_seconds = impl::seconds_since(ts);
  View<T*, LayoutRight, Space> Winv("cp_als_inverse", static_cast<index_type>(R) * R);
  auto Winv_h = create_mirror_view(Winv);
  auto lambda_h = create_mirror_view(M.lambda);
  // Per mode: the Gram matrix (R x R) and the column norms (R) come back to the host in one copy;
  // the inverse weights (R) after them stay on the device.
  View<T*, LayoutRight, Space> mode_out("cp_als_gram_norms", static_cast<index_type>(R) * R + 2 * R);
  View<T*, LayoutRight, Space> mode_back(mode_out.data(), static_cast<index_type>(R) * R + R);
  auto mode_out_h = create_mirror_view(mode_back);
  std::vector<double> lambda(R, 1.0);
  MttkrpWorkspace<T, Space> ws;
  double fit_old = 0;
  const auto t_all = clock::now();
  for (int iter = 1; iter <= opts.maxiters; ++iter) {
    const auto t0 = clock::now();
    double mt = 0;
    for (int n = 0; n < N; ++n) {
      std::vector<double> V(static_cast<std::size_t>(R) * R, 1.0);
      for (int m = 0; m < N; ++m)
        if (m != n)
          for (std::size_t e = 0; e < V.size(); ++e) V[e] *= grams[m][e];
      // On the GPU the host inverts V while the MTTKRP runs (V does not depend on it): at R = 128
      // the inverse takes one to two milliseconds of host time, once per mode, which would
      // otherwise be most of the iteration's time outside the MTTKRPs.
      // On the CPU back ends the MTTKRP is synchronous and the inverse follows it, untimed.
      const auto tm = clock::now();
      mttkrp_launch<Exec>(X, M, n, B[n], res.algorithms[n], &ws);
      bool singular = false;
      if constexpr (!is_host_execution_space_v<Exec>) singular = spd_inverse(V, R);
      Exec().fence();
      const double dt = impl::seconds_since(tm);
      if constexpr (is_host_execution_space_v<Exec>) singular = spd_inverse(V, R);
      mt += dt;
      res.mttkrp_seconds_per_mode[n] += dt;
      if (singular && !res.used_pseudo_inverse) {
        res.used_pseudo_inverse = true;
        if (note)
          note("the R x R system of mode " + std::to_string(n + 1) + " (iteration " +
               std::to_string(iter) + ") is singular; using its pseudo-inverse from now on where needed");
      }
      for (std::size_t e = 0; e < V.size(); ++e) Winv_h(e) = static_cast<T>(V[e]);
      deep_copy(Winv, Winv_h);
      times_matrix<Exec>(B[n], Winv, M.factors[n]);  // A_n = B V^-1
      // Normalize the columns and take the new Gram matrix where the factor lives; the weights
      // and the Gram matrix come back together in one copy (each host round trip is a GPU
      // synchronization).
      const bool max_norm = iter > 1;
      T* G = mode_out.data();
      T* norms = G + static_cast<index_type>(R) * R;
      T* scale = norms + R;  // stays on the device
      impl::column_norms_device<Exec>(M.factors[n], max_norm, norms);
      parallel_for(RangePolicy<Exec>(0, R), impl::InverseWeightsFunctor<T>{norms, scale, max_norm});
      impl::scale_columns_device<Exec>(M.factors[n], scale);
      impl::gram_device<Exec>(M.factors[n], G, &gram_buf);
      deep_copy(mode_out_h, mode_back);
      for (int r = 0; r < R; ++r)
        lambda[r] = impl::cp_weight(static_cast<double>(mode_out_h(static_cast<index_type>(R) * R + r)), max_norm);
      grams[n] = symmetric_from_upper(mode_out_h.data(), R);
    }
    for (int r = 0; r < R; ++r) lambda_h(r) = static_cast<T>(lambda[r]);
    deep_copy(M.lambda, lambda_h);
    // Fit from the last MTTKRP: <X, M> = sum_r lambda_r sum_i A_N(i, r) B_N(i, r).
    double inner = 0;
    const int last = N - 1;
    parallel_reduce(RangePolicy<Exec>(0, X.dim(last)),
                    grain::cp::impl::WeightedDotFunctor<T>{M.factors[last].data(), B[last].data(),
                                                           M.lambda.data(), R},
                    inner);
    const double normM2 = ktensor_norm_squared(lambda, grams);
    const double resid2 = std::max(0.0, normX2 + normM2 - 2 * inner);
    const double fit = 1.0 - std::sqrt(resid2) / normX;
    CpAlsIteration it;
    it.iteration = iter;
    it.fit = fit;
    it.change = std::abs(fit - fit_old);
    it.mttkrp_seconds = mt;
    Exec().fence();
    it.seconds = impl::seconds_since(t0);
    res.iterations.push_back(it);
    res.fit = fit;
    if (progress) progress(it);
    fit_old = fit;
    if (iter > 1 && it.change < opts.tol) break;
  }
  res.seconds = impl::seconds_since(t_all);
  if (opts.arrange_result) arrange<Exec>(M);
  return res;
}

}  // namespace grain::cp
