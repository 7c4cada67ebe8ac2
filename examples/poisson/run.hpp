// The poisson example's run on one back end, written once (run<Exec>): main.cpp instantiates it for
// the host back ends in a C++ translation unit, main_cuda.cu for grain::Cuda in a CUDA one.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "poisson/poisson.hpp"

namespace ex = grain::examples;

// Three meshes, n_max / 4, n_max / 2 and n_max cells along each edge, distorted (0.1): the
// smooth solution's L2 error and its rate, the solver's iterations and the time of each step;
// then the patch test on the coarsest mesh. True when the rates are second order (from 8 cells
// an edge, where the asymptotic range starts) and the patch test holds.
template <class Exec>
bool run(long long n_max) {
  bool ok = true;
  std::printf("%s: -lap u + u = f on the unit cube, trilinear hexahedra (distortion 0.1)\n", Exec::name());
  std::printf("  %5s %9s %9s %10s %5s %10s %10s %5s   %8s %8s %8s %8s (ms)\n", "n", "cells", "nodes", "nonzeros",
              "CG", "residual", "L2 error", "rate", "geometry", "contract", "assemble", "solve");
  double previous = 0;
  const long long first = n_max >= 8 ? n_max / 4 : 1;
  for (long long n = first; n <= n_max; n *= 2) {
    ex::PoissonProblem<Exec> problem(n, 0.1, ex::PoissonData{1.0, true});
    const ex::PoissonResult r = problem.solve();
    const double rate = previous > 0 ? std::log2(previous / r.l2_error) : 0.0;
    char rate_text[16] = "-";
    if (previous > 0) std::snprintf(rate_text, sizeof rate_text, "%.2f", rate);
    std::printf("  %5lld %9lld %9lld %10lld %5d %10.2e %10.3e %5s   %8.2f %8.2f %8.2f %8.2f\n", n,
                static_cast<long long>(r.cells), static_cast<long long>(r.nodes),
                static_cast<long long>(r.nonzeros), r.iterations, r.residual, r.l2_error, rate_text, r.seconds.geometry * 1e3,
                r.seconds.contractions * 1e3, r.seconds.assembly * 1e3, r.seconds.solve * 1e3);
    if (previous > 0 && n >= 8 && !(rate >= 1.8 && rate <= 2.2)) ok = false;
    previous = r.l2_error;
  }
  // Patch test: a linear solution is in the finite-element space, so the discrete solution is it.
  ex::PoissonProblem<Exec> patch(first, 0.1, ex::PoissonData{1.0, false});
  const ex::PoissonResult pr = patch.solve(1e-13);
  const bool patch_ok = pr.l2_error <= 1e-9;
  ok = ok && patch_ok;
  std::printf("  patch test (u = 1 + x + 2y + 3z, n = %lld): L2 error %.2e  %s\n", first, pr.l2_error,
              patch_ok ? "ok" : "FAILED");
  std::printf("  %s\n", ok ? "ok" : "FAILED: convergence rate outside [1.8, 2.2] or patch test");
  return ok;
}

#if defined(GRAIN_ENABLE_CUDA)
bool run_cuda(long long n_max);  // run<grain::Cuda> where a GPU is visible, else true (main_cuda.cu)
#endif
