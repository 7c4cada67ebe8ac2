// `grain bench paper`: the two test cases of Edwards, Sunderland et al. 2011, "Manycore/GPGPU
// Portable Computational Mechanics Kernels via Multidimensional Arrays" (§V, Figures 5 and 6), the
// portable grain kernels against the hand-written ones on every back end present, for problem
// sizes from 1e3 up to what fits, timed beside the copy bandwidth of the same run.
//
//   HexGradient  grain-<backend> | hand-<backend>              case = elements
//   GramSchmidt  grain-<backend> | grain-<backend>-async | hand-<backend> | cublas
//                                                              case = rows of the N x 32 multivector
#include <cstdio>
#include <string>

#include "grain/core/backends.hpp"
#include "paper_bench.hpp"

namespace grain::bench {

namespace {

using paper::PaperOptions;

// grain time / hand-written time per kernel, back end and size.
void print_ratios(std::FILE* out, const Report& rep) {
  std::fprintf(out, "\ngrain / hand-written time (median; 1.00 = equal, <= 1.05 is the goal):\n");
  for (const Row& g : rep.rows) {
    if (g.algorithm.rfind("grain-", 0) != 0) continue;
    std::string backend = g.algorithm.substr(6);
    if (backend.size() > 6 && backend.compare(backend.size() - 6, 6, "-async") == 0)
      backend.resize(backend.size() - 6);
    for (const Row& h : rep.rows)
      if (h.kernel == g.kernel && h.case_name == g.case_name &&
          (h.algorithm == "hand-" + backend || (backend == "cuda" && h.algorithm == "cublas")))
        std::fprintf(out, "  %-12s %-18s N=%-10s vs %-12s %.3f  (%.1f GB/s vs %.1f GB/s)\n",
                    g.kernel.c_str(), g.algorithm.c_str(), g.case_name.c_str(),
                    h.algorithm.c_str(), g.ms / h.ms, g.GBps, h.GBps);
  }
}

}  // namespace

bool run_paper_bench(const PaperBenchOptions& po) {
  const std::string& backend = po.backend;
  const std::string& kernel = po.kernel;
  const long long max_n = po.max_n;
  const std::string& json = po.json;
  PaperOptions opt;
  opt.min_n = po.min_n;
  opt.reps = po.reps;
  if (backend != "all") check_backend(backend);
  if (kernel != "all" && kernel != "hex" && kernel != "mgs")
    impl::throw_error("kernel must be hex, mgs or all; got '", kernel, "'");
  if (opt.min_n < 1 || max_n < 0 || opt.reps < 1)
    impl::throw_error("the smallest size and the repetitions must be positive, the largest size non-negative");
  std::FILE* out = json == "-" ? stderr : stdout;
  opt.hex = kernel != "mgs";
  opt.mgs = kernel != "hex";

  // Default sizes: what fits and finishes in minutes. Host: 1e7 elements (3.8 GB) for the
  // gradients, 1e6 rows (2 x 256 MB, ~20 GB of traffic per factorization) for Gram-Schmidt.
  // GPU: 1e8 for both (38 GB; 2 x 25.6 GB), within a GPU of 80 GB.
  auto host_limits = [&](PaperOptions o) {
    o.max_hex = max_n ? max_n : 10000000;
    o.max_mgs = max_n ? max_n : 1000000;
    return o;
  };

  Report rep;
  rep.backend = backend == "all" ? "mixed" : backend;
  rep.device = bench::host_cpu_name();
  bool ran = false;
  if (backend == "all" || backend == "serial") {
    paper::bench_backend<Serial>(rep, host_limits(opt), std::size_t(256) << 20);
    ran = true;
  }
#if defined(GRAIN_ENABLE_OPENMP)
  if (backend == "all" || backend == "openmp") {
    paper::bench_backend<OpenMP>(rep, host_limits(opt), std::size_t(256) << 20);
    ran = true;
  }
#endif
#if defined(GRAIN_ENABLE_CUDA)
  if ((backend == "all" && impl::cuda_device_count() > 0) || backend == "cuda") {
    PaperOptions o = opt;
    o.max_hex = o.max_mgs = max_n ? max_n : 100000000;
    rep.device = ran ? rep.device + " + " + bench::device_name<Cuda>() : bench::device_name<Cuda>();
    paper::bench_backend_cuda(rep, o, std::size_t(2) << 30);
    ran = true;
  }
#endif
  if (!ran) impl::throw_error("back end '", backend, "' is not available in this build");
  rep.print_table(out);
  print_ratios(out, rep);
  if (!json.empty()) rep.write_json(json);
  for (const Row& r : rep.rows)
    if (!r.verified) {
      std::fprintf(stderr, "grain bench paper: %s %s N=%s failed its correctness check\n",
                   r.kernel.c_str(), r.algorithm.c_str(), r.case_name.c_str());
      return false;
    }
  return true;
}

}  // namespace grain::bench
