// `grain bench core`'s measurements, written once for every back end (core_bench.cpp runs the host
// back ends, core_bench_cuda.cu the GPU). The host back ends are instantiated in a C++ translation
// unit, not a CUDA one: there GRAIN_LAMBDA is a plain lambda that GCC inlines and vectorizes,
// while nvcc's extended __host__ __device__ lambdas reach host code through an indirect call
// (README, "Lambdas in CUDA-enabled builds").
#pragma once

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "core_hand.hpp"
#include "grain/grain.hpp"

namespace grain::bench {

// `grain bench core`: the options and the run (core_bench.cpp).
struct CoreBenchOptions {
  std::string backend = "all";    // serial, openmp, cuda or all
  long long n_host = 1LL << 25;   // elements per array on the host (256 MiB)
  long long n_gpu = 1LL << 28;    // on the GPU (2 GiB)
  int reps = 20;
  std::string json;               // "" none, "-" standard output
};
void run_core_bench(const CoreBenchOptions& opt);

}  // namespace grain::bench

namespace grain::bench::core {

using bench::Report;
using bench::Row;
using bench::size_row;
using bench::Timing;

struct Inputs {
  std::vector<double> b, c;
  double s = 0.37;
};

inline Inputs make_inputs(std::size_t n) {
  Inputs in;
  in.b.resize(n);
  in.c.resize(n);
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (std::size_t i = 0; i < n; ++i) {
    in.b[i] = u(gen);
    in.c[i] = -u(gen);
  }
  return in;
}

inline Row row(const char* kernel, std::size_t n, const std::string& algo, const Timing& t, double bytes,
               double flops, bool verified) {
  return size_row(kernel, static_cast<long long>(n), algo, t.ms, t.ms_min, bytes, flops, verified);
}

// Both triad and dot on one back end: grain's version and the hand-written one, same buffers.
template <class Exec, class HandTriad, class HandDot>
void run_backend(Report& rep, const Inputs& in, int reps, HandTriad hand_triad, HandDot hand_dot) {
  using Space = typename Exec::memory_space;
  const std::size_t n = in.b.size();
  View<double*, Space> a("a", n), b("b", n), c("c", n);
  deep_copy(b, View<const double*, HostSpace>(in.b.data(), n));
  deep_copy(c, View<const double*, HostSpace>(in.c.data(), n));
  const double s = in.s;
  const std::string tag = Exec::name();

  // Reference values from the host inputs.
  double ref_dot = 0;
  for (std::size_t i = 0; i < n; ++i) ref_dot += in.b[i] * in.c[i];
  auto triad_ok = [&] {
    auto h = create_mirror_view(a);
    deep_copy(h, a);
    for (std::size_t i = 0; i < n; i += 997)
      if (!(std::abs(h(i) - (in.b[i] + s * in.c[i])) <= 1e-12)) return false;
    return true;
  };
  const double triad_bytes = 3.0 * n * sizeof(double), dot_bytes = 2.0 * n * sizeof(double);

  deep_copy(a, std::nan(""));
  const Timing tg = bench::time_on<Exec>(
      [&] {
        parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(n)),
                     GRAIN_LAMBDA(index_type i) { a(i) = b(i) + s * c(i); });
      },
      reps);
  rep.add(row("Triad", n, "grain-" + tag, tg, triad_bytes, 2.0 * n, triad_ok()));

  deep_copy(a, std::nan(""));
  const Timing th = bench::time_on<Exec>([&] { hand_triad(a.data(), b.data(), c.data(), s, n); }, reps);
  rep.add(row("Triad", n, "hand-" + tag, th, triad_bytes, 2.0 * n, triad_ok()));

  const double tol = 1e-9 * std::abs(ref_dot) + 1e-9;
  double dg = 0;
  const Timing dgt = bench::time_on<Exec>(
      [&] {
        parallel_reduce(RangePolicy<Exec>(0, static_cast<index_type>(n)),
                        GRAIN_LAMBDA(index_type i, double& sum) { sum += b(i) * c(i); }, dg);
      },
      reps);
  rep.add(row("Dot", n, "grain-" + tag, dgt, dot_bytes, 2.0 * n, std::abs(dg - ref_dot) <= tol));

  double dh = 0;
  const Timing dht = bench::time_on<Exec>([&] { dh = hand_dot(b.data(), c.data(), n); }, reps);
  rep.add(row("Dot", n, "hand-" + tag, dht, dot_bytes, 2.0 * n, std::abs(dh - ref_dot) <= tol));
}

#if defined(GRAIN_ENABLE_CUDA)
// run_backend<Cuda> with the hand-written CUDA kernels (core_bench_cuda.cu).
void run_backend_cuda(Report& rep, const Inputs& in, int reps);
#endif

}  // namespace grain::bench::core
