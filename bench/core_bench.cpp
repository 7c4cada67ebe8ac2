// `grain bench core`: triad and dot written with grain against the same loops hand-written in
// plain OpenMP and plain CUDA, timed in one run beside the copy bandwidth.
#include <cstdio>
#include <string>

#include "core_bench.hpp"
#include "grain/core/backends.hpp"

namespace grain::bench {

namespace {

void print_ratios(std::FILE* out, const Report& rep) {
  std::fprintf(out, "\ngrain / hand-written time (median; 1.00 = equal, < 1.05 is the goal):\n");
  for (const Row& g : rep.rows) {
    if (g.algorithm.rfind("grain-", 0) != 0) continue;
    const std::string hand = "hand-" + g.algorithm.substr(6);
    for (const Row& h : rep.rows)
      if (h.kernel == g.kernel && h.algorithm == hand)
        std::fprintf(out, "  %-6s %-7s %.3f  (grain %.1f GB/s, hand %.1f GB/s)\n", g.kernel.c_str(),
                    g.algorithm.substr(6).c_str(), g.ms / h.ms, g.GBps, h.GBps);
  }
}

}  // namespace

void run_core_bench(const CoreBenchOptions& opt) {
  const std::string& backend = opt.backend;
  const long long n_host = opt.n_host, n_gpu = opt.n_gpu;
  const int reps = opt.reps;
  const std::string& json = opt.json;
  if (n_host < 1 || n_gpu < 1 || reps < 1) impl::throw_error("array sizes and repetitions must be positive");
  if (backend != "all") check_backend(backend);
  std::FILE* out = json == "-" ? stderr : stdout;

  Report rep;
  rep.backend = backend == "all" ? "mixed" : backend;
  rep.device = bench::host_cpu_name();
  const core::Inputs host_in = core::make_inputs(static_cast<std::size_t>(n_host));
  bool ran = false;
  if (backend == "all" || backend == "serial") {
    rep.copy_GBps = bench::copy_bandwidth_GBps<Serial>(std::size_t(n_host) * 8);
    core::run_backend<Serial>(rep, host_in, reps, bench::hand::serial_triad, bench::hand::serial_dot);
    ran = true;
  }
#if defined(GRAIN_ENABLE_OPENMP)
  if (backend == "all" || backend == "openmp") {
    rep.threads = OpenMP::concurrency();
    rep.copy_GBps = bench::copy_bandwidth_GBps<OpenMP>(std::size_t(n_host) * 8);
    core::run_backend<OpenMP>(rep, host_in, reps, bench::hand::openmp_triad, bench::hand::openmp_dot);
    ran = true;
  }
#endif
#if defined(GRAIN_ENABLE_CUDA)
  if ((backend == "all" && impl::cuda_device_count() > 0) || backend == "cuda") {
    // Roofline for every row is then judged against the GPU copy; the CPU rows keep their GB/s.
    const double gpu_copy = bench::copy_bandwidth_GBps<Cuda>(std::size_t(n_gpu) * 8);
    Report gpu;
    gpu.copy_GBps = gpu_copy;
    gpu.device = bench::device_name<Cuda>();
    core::run_backend_cuda(gpu, core::make_inputs(static_cast<std::size_t>(n_gpu)), reps);
    gpu.backend = "cuda";
    if (!ran) {
      rep = gpu;
    } else {
      rep.print_table(out);
      print_ratios(out, rep);
      std::fprintf(out, "\n");
      rep.device += " + " + gpu.device;
      for (auto& r : gpu.rows) rep.rows.push_back(r);
      rep.copy_GBps = gpu_copy;
      gpu.print_table(out);
      print_ratios(out, gpu);
      if (!json.empty()) rep.write_json(json);
      return;
    }
    ran = true;
  }
#endif
  if (!ran) impl::throw_error("back end '", backend, "' is not available in this build");
  rep.print_table(out);
  print_ratios(out, rep);
  if (!json.empty()) rep.write_json(json);
}

}  // namespace grain::bench
