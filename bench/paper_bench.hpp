// `grain bench paper`'s measurements, written once for every back end (paper_bench.cpp runs the
// host back ends, paper_bench_cuda.cu the GPU). The host back ends are instantiated in a C++
// translation unit, not a CUDA one: there GRAIN_LAMBDA is a plain lambda that GCC inlines, while
// nvcc's extended __host__ __device__ lambdas reach host code through an indirect call (README,
// "Lambdas in CUDA-enabled builds").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "grain/core.hpp"
#include "gram_schmidt/gram_schmidt.hpp"
#include "gram_schmidt/gram_schmidt_hand.hpp"
#include "hex_gradient/hex_gradient.hpp"
#include "hex_gradient/hex_gradient_hand.hpp"

namespace grain::bench {

// `grain bench paper`: the options and the run (paper_bench.cpp). Returns false when a row failed
// its correctness check (each is named on standard error).
struct PaperBenchOptions {
  std::string backend = "all";  // serial, openmp, cuda or all
  std::string kernel = "all";   // hex, mgs or all
  long long min_n = 1000;
  long long max_n = 0;          // 0: what fits and finishes in minutes on each back end
  int reps = 10;
  std::string json;             // "" none, "-" standard output
};
bool run_paper_bench(const PaperBenchOptions& opt);

}  // namespace grain::bench

namespace grain::bench::paper {

namespace ex = grain::examples;
using bench::Report;
using bench::Row;
using bench::size_row;
using bench::Timing;

struct PaperOptions {
  bool hex = true, mgs = true;
  long long min_n = 1000;
  long long max_hex = 0, max_mgs = 0;  // per back end, set below
  int reps = 10;
};

// 1e3, 3e3, 1e4, 3e4, ... up to max (inclusive).
inline std::vector<long long> problem_sizes(long long lo, long long hi) {
  std::vector<long long> out;
  for (long long decade = 1; decade <= hi; decade *= 10)
    for (long long m : {1LL, 3LL}) {
      const long long n = m * decade;
      if (n >= lo && n <= hi) out.push_back(n);
      if (decade > std::numeric_limits<long long>::max() / 30) return out;
    }
  return out;
}

inline Row make_row(const char* kernel, long long n, const std::string& algo, const Timing& t,
                    double bytes, double flops, bool verified, const Report& rep) {
  Row r = size_row(kernel, n, algo, t.ms, t.ms_min, bytes, flops, verified);
  r.C = n;
  // Each row carries the ceiling and thread count it was judged against: a --backend all file
  // mixes back ends, and the report's top-level copy_GBps is the last back end's.
  r.extra.push_back({"copy_GBps", rep.copy_GBps});
  r.extra.push_back({"threads", static_cast<double>(rep.threads)});
  return r;
}

// ---- hexahedral gradients --------------------------------------------------------------------

// Checks a result against the identities and, on a sample of elements, against the element
// formula evaluated on the host from the same coordinates.
template <class Exec, class V>
bool hex_verified(const V& coords, const V& grads, const ex::HexShapeDerivatives& shape) {
  const double id = ex::hex_identity_error<Exec>(coords, grads);
  const index_type n = static_cast<index_type>(coords.extent(0));
  const index_type step = std::max<index_type>(1, n / 4096);
  auto xs = ex::hex_sample<Exec>(coords, step);
  auto gs = ex::hex_sample<Exec>(grads, step);
  double worst = 0;
  for (std::size_t t = 0; t < xs.extent(0); ++t) {
    double x[3][8], g[3][8];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) x[i][k] = xs(t, i, k);
    ex::hex_gradient_element(x, shape, g);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) {
        const double d = std::abs(gs(t, i, k) - g[i][k]) / std::max(1.0, std::abs(g[i][k]));
        worst = d <= worst ? worst : (std::isnan(d) ? INFINITY : d);
      }
  }
  return id <= 1e-11 && worst <= 1e-12;
}

template <class Exec>
void bench_hex(Report& rep, const PaperOptions& opt) {
  using V = View<double***, typename Exec::memory_space>;  // the space's default layout
  const std::string tag = Exec::name();
  const ex::HexShapeDerivatives shape = ex::hex_default_derivatives();
  for (long long n : problem_sizes(opt.min_n, opt.max_hex)) {
    V coords(WithoutInitializing, "coords", n, 3, 8), grads(WithoutInitializing, "grads", n, 3, 8);
    ex::fill_hex_mesh<Exec>(coords, 2011);
    const double bytes = n * ex::kHexBytesPerElement, flops = n * ex::kHexFlopsPerElement;

    deep_copy(grads, std::numeric_limits<double>::quiet_NaN());
    const Timing tg = bench::time_on<Exec>([&] { ex::hex_gradient<Exec>(coords, grads, shape); },
                                           opt.reps);
    rep.add(make_row("HexGradient", n, "grain-" + tag, tg, bytes, flops,
                     hex_verified<Exec>(coords, grads, shape), rep));

    deep_copy(grads, std::numeric_limits<double>::quiet_NaN());
    const Timing th = bench::time_on<Exec>(
        [&] { ex::hex_gradient_hand<Exec>(coords, grads, shape); }, opt.reps);
    rep.add(make_row("HexGradient", n, "hand-" + tag, th, bytes, flops,
                     hex_verified<Exec>(coords, grads, shape), rep));
    std::fprintf(stderr, "  HexGradient %-7s N=%-10lld grain %.4f ms, hand %.4f ms\n", tag.c_str(),
                 n, tg.ms, th.ms);
  }
}

// ---- Modified Gram-Schmidt -------------------------------------------------------------------

// Times fn on a fresh copy of the input each repetition (the factorization is in place); the
// copy is not timed.
template <class Exec, class Reset, class Fn>
Timing time_with_reset(Reset&& reset, Fn&& fn, int reps) {
  reset();
  fn();  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    reset();
    Exec().fence();
    ms.push_back(bench::time_on<Exec>(fn, 1, 0).ms);
  }
  return bench::summarize(ms);
}

template <class Exec>
void bench_mgs(Report& rep, const PaperOptions& opt) {
  using MV = View<double**, LayoutLeft, typename Exec::memory_space>;
  const std::string tag = Exec::name();
  const int K = ex::kGramSchmidtColumns;
  for (long long n : problem_sizes(std::max<long long>(opt.min_n, K), opt.max_mgs)) {
    MV a0(WithoutInitializing, "a", n, K), q(WithoutInitializing, "q", n, K);
    ex::fill_multivector<Exec>(a0, 2011);
    ex::HostMatrix r("r", K, K);
    const double bytes = ex::mgs_bytes(n, K), flops = ex::mgs_flops(n, K);
    auto reset = [&] { deep_copy(q, a0); };
    auto verified = [&] {
      // Orthogonality degrades like eps * sqrt(N) for these well-conditioned random inputs.
      const double orth = ex::mgs_orthogonality_error<Exec>(q);
      const double res = ex::mgs_residual<Exec>(a0, q, r);
      return orth <= 1e-9 && res <= 1e-12;
    };
    auto measure = [&](const std::string& algo, auto&& fn) {
      const Timing t = time_with_reset<Exec>(reset, fn, opt.reps);
      rep.add(make_row("GramSchmidt", n, algo, t, bytes, flops, verified(), rep))
          .extra.push_back({"K", static_cast<double>(K)});
      std::fprintf(stderr, "  GramSchmidt %-7s N=%-10lld %-12s %.4f ms\n", tag.c_str(), n,
                   algo.c_str(), t.ms);
    };
    measure("grain-" + tag, [&] { ex::modified_gram_schmidt<Exec>(q, r); });
    {
      // The same sequence with R kept on the device (no host round trip per reduction).
      View<double**, typename Exec::memory_space> r_dev("r_dev", K, K), work("work", 2, K);
      measure("grain-" + tag + "-async",
              [&] { ex::modified_gram_schmidt_device_scalars<Exec>(q, r_dev, work, r); });
    }
    measure("hand-" + tag, [&] { ex::mgs_hand<Exec>(q, r); });
#if defined(GRAIN_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Cuda>)
      measure("cublas", [&] { ex::mgs_cublas(q.data(), q.extent(0), K, r.data()); });
#endif
  }
}

template <class Exec>
void bench_backend(Report& rep, const PaperOptions& opt, std::size_t copy_bytes) {
  rep.threads = Exec::concurrency();
  rep.copy_GBps = bench::copy_bandwidth_GBps<Exec>(copy_bytes);
  std::fprintf(stderr, "%s: %d threads, copy %.1f GB/s\n", Exec::name(), rep.threads,
               rep.copy_GBps);
  if (opt.hex) bench_hex<Exec>(rep, opt);
  if (opt.mgs) bench_mgs<Exec>(rep, opt);
}

#if defined(GRAIN_ENABLE_CUDA)
// bench_backend<Cuda> (paper_bench_cuda.cu).
void bench_backend_cuda(Report& rep, const PaperOptions& opt, std::size_t copy_bytes);
#endif

}  // namespace grain::bench::paper
