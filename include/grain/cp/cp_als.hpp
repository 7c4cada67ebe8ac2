// CP-ALS for sparse tensors (Phipps and Kolda, "Tensor Decompositions on Emerging Manycore
// Hardware with Genten and Kokkos", SIAM CSE 2019, backup slide "CP via ALS"; the MATLAB Tensor
// Toolbox's cp_als):
//
//   for each mode n:  V = Hadamard product of the other modes' Gram matrices A_m^T A_m
//                     B = MTTKRP(X, n)                       (the expensive part)
//                     A_n = B V^-1                           (R x R Cholesky; pseudo-inverse if singular:
//                                                             LAPACK on the CPU, cuSOLVER on the GPU)
//                     lambda = column norms of A_n           (2-norm on the first iteration, then
//                     A_n = A_n / lambda                      max(max-norm, 1), as the Toolbox does)
//                     G_n = A_n^T A_n
//   fit = 1 - ||X - M|| / ||X||, with ||X - M||^2 = ||X||^2 + ||M||^2 - 2 <X, M>, where
//   ||M||^2 = lambda^T (G_1 .* ... .* G_N) lambda and <X, M> = sum_r lambda_r sum_i A_N(i,r) B(i,r)
//   reuses the last mode's MTTKRP: no extra pass over the tensor.
// Stops after maxiters iterations or when the fit changes by less than tol.
//
// Non-negative CP (CpAlsOptions::nonnegative) replaces the solve A_n = B V^-1 by a few sweeps of
// HALS column updates (Cichocki and Phan 2009; Gillis and Glineur 2012) from the current factor
// times the weights: row by row, for r = 1..R, a_ir = max(eps, a_ir + (b_ir - sum_k a_ik V_kr) / V_rr),
// the minimizer of the least-squares objective in a_ir >= eps with the others fixed, so the fit
// never decreases. Rows are independent, so the sweeps are one parallel loop over them; no R x R
// solve is needed.
//
// Across ranks (CpAlsOptions::comm, grain/dist/comm.hpp) each rank holds a share of the nonzeros
// and the whole model. Per mode, each rank's MTTKRP of its share is summed onto the owners of
// contiguous blocks of rows (reduce-scatter); each owner solves, normalizes and takes the Gram
// matrix of its rows, with the column norms and the Gram matrix all-reduced (R and R x R values);
// the updated rows are then all-gathered. The fit's <X, M> and ||X|| are all-reduced too: every
// rank ends each iteration with the same model and fit, as one process would compute them.
//
// A run may stop after any iteration (CpAlsOptions::after_iteration) and continue later from its
// factors (CpAlsOptions::iterations_done, fit_done: grain/cp/checkpoint.hpp saves them), reaching the
// same factors, to rounding, as a run never stopped.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/dense_solve.hpp"
#include "grain/dist/comm.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/cp/memory.hpp"
#include "grain/cp/mttkrp.hpp"

namespace grain::cp {

// Where a GPU run solves its R x R systems: on the device (cuSOLVER, on a stream of its own
// beside the MTTKRP) or on the host (LAPACK, while the MTTKRP runs). Host back ends always solve on
// the host.
enum class DenseSolve { Auto, Host, Device };
// Auto solves on the device above this rank. Below it both places hide behind the MTTKRP, and the
// host spares cuSOLVER's start-up and its launches on the host thread (a tenth of a short
// iteration at R = 16); above it the host's R^3 inverse outlasts the MTTKRP (at R = 512 it costs
// a sixth of the iteration more than cuSOLVER).
inline constexpr int kDenseSolveDeviceAbove = 256;
inline const char* dense_solve_name(DenseSolve d) {
  return d == DenseSolve::Host ? "host" : d == DenseSolve::Device ? "device" : "auto";
}

struct CpAlsIteration {
  int iteration = 0;
  double fit = 0, change = 0, seconds = 0, mttkrp_seconds = 0;
  double comm_seconds = 0;  // in collectives (across ranks)
  bool last = false;  // no iteration follows: the fit converged or maxiters is reached
};

struct CpAlsOptions {
  int maxiters = 50;  // counts the iterations_done too: a resumed run ends where the whole run would
  double tol = 1e-4;
  MttkrpAlgorithm mttkrp = MttkrpAlgorithm::Auto;
  DenseSolve solve = DenseSolve::Auto;
  bool arrange_result = true;  // normalize and sort components by weight at the end
  bool nonnegative = false;    // HALS updates: every factor entry >= 0 after the first iteration
  // Resuming: the model given is the un-arranged one after `iterations_done` iterations, whose last
  // fit was `fit_done`. The run continues at iteration iterations_done + 1, so the weights'
  // 2-norm-then-max-norm rule and the stopping rule see the same iteration numbers and previous
  // fit as an uninterrupted run.
  int iterations_done = 0;
  double fit_done = 0;
  // Called after each iteration with the model holding that iteration's factors and weights,
  // un-arranged (what a checkpoint saves). Returning false stops the run after it.
  std::function<bool(const CpAlsIteration&)> after_iteration;
  // The ranks that share the tensor's nonzeros: the tensor given is this rank's share, with the
  // whole tensor's dimensions, and the model given is the same on every rank. nullptr (or one
  // rank): this process holds the whole tensor.
  dist::Comm* comm = nullptr;
};

struct CpAlsResult {
  std::vector<CpAlsIteration> iterations;
  double fit = 0;
  double seconds = 0;               // all iterations
  double setup_seconds = 0;         // permutations and first Gram matrices
  std::vector<double> mttkrp_seconds_per_mode;  // summed over iterations
  std::vector<MttkrpAlgorithm> algorithms;      // per mode
  bool used_pseudo_inverse = false;
  bool stopped = false;  // after_iteration returned false before the run was done
  int ranks = 1;
  // In the iterations' collectives (set-up's are in setup_seconds), and the bytes this rank sent into them.
  double comm_seconds = 0, comm_bytes = 0;
};

namespace impl {
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The floor of the HALS updates. A floor of 0 lets a column that the first updates clamp entirely
// to 0 zero its weight and V_rr in every other mode, and the component never returns; a positive
// floor keeps every V_rr positive, so it can.
inline constexpr double kHalsFloor = 1e-16;
// HALS sweeps per MTTKRP: a sweep costs I_n R^2, little beside the MTTKRP it reuses, and each one
// moves the factor closer to the constrained minimizer for that MTTKRP.
inline constexpr int kHalsSweeps = 5;

// kHalsSweeps HALS sweeps over row i of the factor A (I x R) with B = the MTTKRP and
// VL = [V (R x R), the weights (R)] in double: the row is first scaled by the weights (the current
// model's unnormalized factor), then its entries updated in order, each from the ones before it. A
// NaN is kept, not clamped, so that the finite check after the update sees it.
template <class T>
struct HalsRowFunctor {
  T* A;
  const T* B;
  const double* VL;
  index_type R;
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const {
    T* a = A + i * R;
    const T* b = B + i * R;
    for (index_type r = 0; r < R; ++r) a[r] = static_cast<T>(a[r] * VL[R * R + r]);
    for (int sweep = 0; sweep < kHalsSweeps; ++sweep)
      for (index_type r = 0; r < R; ++r) {
        double s = static_cast<double>(b[r]);
        for (index_type k = 0; k < R; ++k) s -= static_cast<double>(a[k]) * VL[k * R + r];
        const double vrr = VL[r * R + r];  // 0 only for a start with a zero column
        const double x = static_cast<double>(a[r]) + (vrr > 0 ? s / vrr : 0.0);
        a[r] = x < kHalsFloor ? static_cast<T>(kHalsFloor) : static_cast<T>(x);
      }
  }
};
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
  if (opts.iterations_done < 0 || !std::isfinite(opts.fit_done))
    grain::impl::throw_error("grain::cp::cp_als: iterations_done ", opts.iterations_done, " and fit_done ",
                             opts.fit_done, " must be non-negative and finite");
  if (!(opts.tol >= 0)) grain::impl::throw_error("grain::cp::cp_als: tol ", opts.tol, " must be non-negative");
  dist::Comm* comm = opts.comm && opts.comm->size() > 1 ? opts.comm : nullptr;
  const int P = comm ? comm->size() : 1, me = comm ? comm->rank() : 0;
  CpAlsResult res;
  res.ranks = P;
  res.mttkrp_seconds_per_mode.assign(N, 0.0);
  const auto ts = clock::now();
  double normX2 = norm_squared<Exec>(X);
  if (comm) normX2 = comm->allreduce_value(normX2);
  if (!(normX2 > 0)) grain::impl::throw_error("grain::cp::cp_als: the tensor is zero (norm 0)");
  const double normX = std::sqrt(normX2);
  std::vector<std::vector<double>> grams(N);
  std::vector<View<T**, LayoutRight, Space>> B(N);
  View<T*, LayoutRight, Space> gram_buf;  // the GPU Gram's partial products, reused by every mode
  {
    // The outputs and the MTTKRP copies must fit in what is free: Auto gives up copies first.
    // Across ranks, one rank's shortfall stops them all with its message.
    std::string error;
    try {
      const MemoryInfo mem = memory_info<Space>();
      res.algorithms = plan_mttkrp_algorithms<Exec>(X, R, opts.mttkrp, mem.available, false);
      check_memory(cp_als_memory<Exec>(X, R, res.algorithms, false), mem, "CP-ALS at rank " + std::to_string(R),
                   "a smaller rank, or an MTTKRP that copies nothing (team or atomic)");
    } catch (const std::exception& e) {
      if (!comm) throw;
      error = e.what();
    }
    if (comm) comm->agree(error);
  }
  // The rows of each mode this rank updates (all of them on one rank), the MTTKRP's sum over the
  // ranks for those rows, and host copies where the engine cannot reach the device.
  std::vector<dist::RowRange> own(N);
  std::vector<std::vector<std::size_t>> row_counts(N);  // elements of each rank's rows, per mode
  std::vector<View<T**, LayoutRight, Space>> Bown(N);
  // Device runs over a host engine (MPI): a mode's MTTKRP or factor on the host, and this rank's
  // summed rows of it.
  View<T*, LayoutRight, HostSpace> stage, stage_own;
  for (int m = 0; m < N; ++m) {
    own[m] = dist::owned_rows(X.dim(m), P, me);
    if (!comm) continue;
    for (int p = 0; p < P; ++p)
      row_counts[m].push_back(static_cast<std::size_t>(dist::owned_rows(X.dim(m), P, p).count) * R);
    Bown[m] = View<T**, LayoutRight, Space>(WithoutInitializing, "cp_als_mttkrp_owned", own[m].count, R);
    if (!Space::host_accessible && !comm->reaches_device()) {
      if (static_cast<index_type>(stage.extent(0)) < X.dim(m) * R)
        stage = View<T*, LayoutRight, HostSpace>(WithoutInitializing, "cp_als_stage", X.dim(m) * R);
      if (static_cast<index_type>(stage_own.extent(0)) < own[m].count * R)
        stage_own = View<T*, LayoutRight, HostSpace>(WithoutInitializing, "cp_als_stage_owned", own[m].count * R);
    }
  }
  // The rows of factor n (or of an I_n x R buffer) this rank owns.
  auto owned = [&](const View<T**, LayoutRight, Space>& A, int n) {
    return View<T**, LayoutRight, Space>(A.data() + own[n].begin * R, own[n].count, R);
  };
  auto flat = [](T* p, index_type n) { return View<T*, LayoutRight, Space>(p, n); };
  // B[n] summed over the ranks into Bown[n] (this rank's rows).
  auto reduce_to_owners = [&](int n) {
    if (Space::host_accessible || comm->reaches_device()) {
      comm->reduce_scatter(B[n].data(), Bown[n].data(), row_counts[n], dist::data_type<T>());
    } else {
      const index_type IR = X.dim(n) * R, OR = own[n].count * R;
      View<T*, LayoutRight, HostSpace> all(stage.data(), IR);
      deep_copy(all, flat(B[n].data(), IR));
      View<T*, LayoutRight, HostSpace> mine(stage_own.data(), OR);
      comm->reduce_scatter(all.data(), mine.data(), row_counts[n], dist::data_type<T>());
      deep_copy(flat(Bown[n].data(), OR), mine);
    }
  };
  // Every rank's rows of factor n to every rank.
  auto gather_rows = [&](int n) {
    if (Space::host_accessible || comm->reaches_device()) {
      comm->allgather(M.factors[n].data(), row_counts[n], dist::data_type<T>());
    } else {
      const index_type IR = X.dim(n) * R, OR = own[n].count * R;
      View<T*, LayoutRight, HostSpace> all(stage.data(), IR);
      deep_copy(View<T*, LayoutRight, HostSpace>(stage.data() + own[n].begin * R, OR),
                flat(M.factors[n].data() + own[n].begin * R, OR));
      comm->allgather(all.data(), row_counts[n], dist::data_type<T>());
      deep_copy(flat(M.factors[n].data(), IR), all);
    }
  };
  for (int m = 0; m < N; ++m) {
    grams[m] = gram<Exec>(M.factors[m], &gram_buf);
    B[m] = View<T**, LayoutRight, Space>(WithoutInitializing, "cp_als_mttkrp", X.dim(m), R);
    // Sort once, up front.
    if (res.algorithms[m] == MttkrpAlgorithm::Perm) (void)X.sorted(m);
    if (res.algorithms[m] == MttkrpAlgorithm::Tiled) (void)mttkrp_tiled_copy(X, m, R);
  }
  Exec().fence();
  if (comm) {
    // Each buffer's first collective costs the engine set-up (MPI's shared-memory mappings, NCCL's
    // connections: several times a steady one), so every mode's reduce-scatter and all-gather run
    // once here on data they leave unchanged: zeros, and factors every rank already holds.
    for (int m = 0; m < N; ++m) {
      deep_copy(B[m], T(0));
      reduce_to_owners(m);
      gather_rows(m);
    }
    // The ranks start the iterations together, so setup_seconds is the slowest rank's and the first
    // iteration's collectives do not count another rank's set-up as communication.
    comm->agree("");
  }
  res.setup_seconds = impl::seconds_since(ts);
  constexpr bool on_cpu = is_host_execution_space_v<Exec>;
  const index_type RR = static_cast<index_type>(R) * R;
  View<T*, LayoutRight, Space> Winv("cp_als_inverse", RR);
  // Where the device solves (cuSOLVER), the system V goes there; `solve_work` is the solver's
  // scratch. Allocating it starts cuSOLVER, so a run that solves on the host never does.
  View<double*, LayoutRight, Space> Vd, solve_work;
  const bool on_device = !on_cpu && !opts.nonnegative &&
                         (opts.solve == DenseSolve::Device || (opts.solve == DenseSolve::Auto && R > kDenseSolveDeviceAbove));
  if (on_device) {
    Vd = View<double*, LayoutRight, Space>(WithoutInitializing, "cp_als_system", RR);
#if defined(GRAIN_ENABLE_CUDA)
    solve_work = View<double*, LayoutRight, Space>(WithoutInitializing, "cp_als_solve_work",
                                                   impl::spd_solve_workspace(Vd.data(), R));
#endif
  }
  auto Vd_h = create_mirror_view(Vd);
  auto Winv_h = create_mirror_view(Winv);
  auto lambda_h = create_mirror_view(M.lambda);
  // Per mode: the Gram matrix (R x R), the column norms (R) and the GPU solve's not-definite flag
  // (1) come back to the host in one copy; the inverse weights (R) after them stay on the device.
  View<T*, LayoutRight, Space> mode_out("cp_als_gram_norms", RR + 2 * R + 1);
  View<T*, LayoutRight, Space> mode_back(mode_out.data(), RR + R + 1);
  auto mode_out_h = create_mirror_view(mode_back);
  // The weights of the model so far: HALS starts from each factor times them.
  std::vector<double> lambda = host_lambda<Exec>(M);
  // HALS: V and the weights, in double, where the factor lives.
  View<double*, LayoutRight, Space> hals;
  if (opts.nonnegative) hals = View<double*, LayoutRight, Space>(WithoutInitializing, "cp_als_hals", RR + R);
  auto hals_h = create_mirror_view(hals);
  MttkrpWorkspace<T, Space> ws;
  double fit_old = opts.fit_done;
  if (opts.iterations_done > 0) res.fit = opts.fit_done;
  const auto t_all = clock::now();
  const double comm_s0 = comm ? comm->seconds() : 0, comm_b0 = comm ? comm->bytes() : 0;
  for (int iter = opts.iterations_done + 1; iter <= opts.maxiters; ++iter) {
    const auto t0 = clock::now();
    const double comm_s_iter = comm ? comm->seconds() : 0;
    double mt = 0;
    for (int n = 0; n < N; ++n) {
      std::vector<double> V(static_cast<std::size_t>(R) * R, 1.0);
      for (int m = 0; m < N; ++m)
        if (m != n)
          for (std::size_t e = 0; e < V.size(); ++e) V[e] *= grams[m][e];
      const bool max_norm = iter > 1;
      T* G = mode_out.data();
      T* norms = G + RR;
      T* flag = norms + R;
      T* scale = flag + 1;  // stays on the device
      // The new A_n's columns normalized and its Gram matrix taken where the factor lives; the
      // weights, the Gram matrix and the flag come back together in one copy (each host round
      // trip is a GPU synchronization).
      // Across ranks: of this rank's rows, with the norms and the Gram matrix summed (the
      // max-norms maxed) over the ranks, and then the rows gathered.
      const auto An = comm ? owned(M.factors[n], n) : M.factors[n];
      const auto& Bn = comm ? Bown[n] : B[n];
      auto normalize_factor = [&] {
        impl::column_norms_device<Exec>(An, max_norm, norms);
        if (comm) dist::allreduce(*comm, flat(norms, R), max_norm ? dist::ReduceOp::Max : dist::ReduceOp::Sum);
        parallel_for(RangePolicy<Exec>(0, R), impl::InverseWeightsFunctor<T>{norms, scale, max_norm});
        impl::scale_columns_device<Exec>(An, scale);
        impl::gram_device<Exec>(An, G, &gram_buf);
        deep_copy(mode_out_h, mode_back);
        if (comm) {
          comm->allreduce(mode_out_h.data(), static_cast<std::size_t>(RR));
          gather_rows(n);
        }
      };
      auto update_factor = [&] {
        times_matrix<Exec>(Bn, Winv, An);
        normalize_factor();
      };
      // The MTTKRP, waited for and timed.
      auto mttkrp_timed = [&] {
        const auto tm = clock::now();
        mttkrp_launch<Exec>(X, M, n, B[n], res.algorithms[n], &ws);
        Exec().fence();
        const double dt = impl::seconds_since(tm);
        mt += dt;
        res.mttkrp_seconds_per_mode[n] += dt;
        if (comm) reduce_to_owners(n);
      };
      bool singular = false;
      if (opts.nonnegative) {
        for (std::size_t e = 0; e < V.size(); ++e) hals_h(e) = V[e];
        for (int r = 0; r < R; ++r) hals_h(RR + r) = lambda[r];
        deep_copy(hals, hals_h);
        mttkrp_timed();
        parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(An.extent(0))), impl::HalsRowFunctor<T>{An.data(), Bn.data(), hals.data(), R});
        normalize_factor();
      } else if constexpr (on_cpu) {
        // The MTTKRP is synchronous; LAPACK inverts V after it, untimed.
        mttkrp_timed();
        singular = spd_inverse(V, R);
        for (std::size_t e = 0; e < V.size(); ++e) Winv.data()[e] = static_cast<T>(V[e]);
        update_factor();
      } else {
#if defined(GRAIN_ENABLE_CUDA)
        const auto tm = clock::now();
        if (on_device) {
          // V goes up before the MTTKRP (the stream is idle: the previous mode ended with a copy
          // back); cuSOLVER's Cholesky inverse runs on its own stream beside the MTTKRP, which V
          // does not depend on, and the fence waits for both. Whether V was definite comes back
          // with the Gram matrix; when it was not, the mode is done again from the pseudo-inverse
          // (rare: each such run says so once).
          double maxdiag = 0;
          for (int i = 0; i < R; ++i) maxdiag = std::max(maxdiag, std::abs(V[static_cast<std::size_t>(i) * R + i]));
          for (std::size_t e = 0; e < V.size(); ++e) Vd_h(e) = V[e];
          deep_copy(Vd, Vd_h);
          mttkrp_launch<Exec>(X, M, n, B[n], res.algorithms[n], &ws);
          impl::spd_inverse_cuda(Vd.data(), R, maxdiag * spd_relative_floor(R), Winv.data(), flag, solve_work.data());
          impl::spd_solve_join();
        } else {
          // LAPACK inverts V on the host while the MTTKRP runs.
          mttkrp_launch<Exec>(X, M, n, B[n], res.algorithms[n], &ws);
          singular = spd_inverse(V, R);
        }
        Exec().fence();
        const double dt = impl::seconds_since(tm);
        mt += dt;
        res.mttkrp_seconds_per_mode[n] += dt;
        if (comm) reduce_to_owners(n);
        if (!on_device) {
          for (std::size_t e = 0; e < V.size(); ++e) Winv_h(e) = static_cast<T>(V[e]);
          deep_copy(Winv, Winv_h);
        }
        update_factor();
        if (on_device && mode_out_h(RR + R) != T(0)) {
          singular = true;
          deep_copy(Vd, Vd_h);  // potrf overwrote it
          impl::spd_pseudo_inverse_cuda(Vd.data(), R, Winv.data(), solve_work.data());
          update_factor();
        }
#endif
      }
      if (singular && !res.used_pseudo_inverse) {
        res.used_pseudo_inverse = true;
        if (note)
          note("the R x R system of mode " + std::to_string(n + 1) + " (iteration " +
               std::to_string(iter) + ") is singular; using its pseudo-inverse from now on where needed");
      }
      for (int r = 0; r < R; ++r) lambda[r] = impl::cp_weight(static_cast<double>(mode_out_h(RR + r)), max_norm);
      // A NaN or infinity (overflow in the data, a broken start) would spread silently through
      // every later mode: stop at the first, naming where. The Gram matrix and the norms of the
      // new factor cover every entry of it.
      for (index_type e = 0; e < RR + R; ++e)
        if (!std::isfinite(static_cast<double>(mode_out_h(e))))
          grain::impl::throw_error("cp_als: a non-finite value (", static_cast<double>(mode_out_h(e)), ") in the ",
                            e < RR ? "Gram matrix" : "column norms", " of mode ", n + 1, "'s factor at iteration ",
                            iter, "; the data may overflow ", std::is_same_v<T, float> ? "float" : "double");
      grams[n] = symmetric_from_upper(mode_out_h.data(), R);
    }
    for (int r = 0; r < R; ++r) lambda_h(r) = static_cast<T>(lambda[r]);
    deep_copy(M.lambda, lambda_h);
    // Fit from the last MTTKRP: <X, M> = sum_r lambda_r sum_i A_N(i, r) B_N(i, r).
    // Across ranks, each rank's rows and then the sum.
    double inner = 0;
    const int last = N - 1;
    parallel_reduce(RangePolicy<Exec>(0, own[last].count),
                    grain::cp::impl::WeightedDotFunctor<T>{M.factors[last].data() + own[last].begin * R,
                                                           comm ? Bown[last].data() : B[last].data(),
                                                           M.lambda.data(), R},
                    inner);
    if (comm) inner = comm->allreduce_value(inner);
    const double normM2 = ktensor_norm_squared(lambda, grams);
    const double resid2 = std::max(0.0, normX2 + normM2 - 2 * inner);
    const double fit = 1.0 - std::sqrt(resid2) / normX;
    if (!std::isfinite(fit))
      grain::impl::throw_error("cp_als: the fit is not finite at iteration ", iter, " (|X|^2 ", normX2, ", |M|^2 ", normM2,
                        ", <X, M> ", inner, ")");
    CpAlsIteration it;
    it.iteration = iter;
    it.fit = fit;
    it.change = std::abs(fit - fit_old);
    it.mttkrp_seconds = mt;
    Exec().fence();
    it.seconds = impl::seconds_since(t0);
    it.comm_seconds = comm ? comm->seconds() - comm_s_iter : 0;
    it.last = (iter > 1 && it.change < opts.tol) || iter == opts.maxiters;
    res.iterations.push_back(it);
    res.fit = fit;
    if (progress) progress(it);
    fit_old = fit;
    // Across ranks, a stop asked for on any rank (a signal reaches them at different times)
    // stops them all after the same iteration.
    bool stop = opts.after_iteration && !opts.after_iteration(it);
    if (comm) stop = comm->allreduce_value<std::int64_t>(stop ? 1 : 0, dist::ReduceOp::Max) != 0;
    if (stop && !it.last) {
      res.stopped = true;
      break;
    }
    if (it.last) break;
  }
  res.seconds = impl::seconds_since(t_all);
  if (comm) {
    res.comm_seconds = comm->seconds() - comm_s0;
    res.comm_bytes = comm->bytes() - comm_b0;
  }
  if (opts.arrange_result) arrange<Exec>(M);
  return res;
}

}  // namespace grain::cp
