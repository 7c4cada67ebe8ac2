// `grain bench core`: triad and dot written with grain against the same loops hand-written in
// plain OpenMP and plain CUDA, timed in one run beside the copy bandwidth (issue 2's figure).
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../apps/grain/commands.hpp"
#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "core_hand.hpp"
#include "grain/grain.hpp"

namespace grain::cli {

namespace {

using bench::Report;
using bench::Row;
using bench::size_row;
using bench::Timing;

struct Inputs {
  std::vector<double> b, c;
  double s = 0.37;
};

Inputs make_inputs(std::size_t n) {
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

Row row(const char* kernel, std::size_t n, const std::string& algo, const Timing& t, double bytes,
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

void print_ratios(const Report& rep) {
  std::printf("\ngrain / hand-written time (median; 1.00 = equal, < 1.05 is the goal):\n");
  for (const Row& g : rep.rows) {
    if (g.algorithm.rfind("grain-", 0) != 0) continue;
    const std::string hand = "hand-" + g.algorithm.substr(6);
    for (const Row& h : rep.rows)
      if (h.kernel == g.kernel && h.algorithm == hand)
        std::printf("  %-6s %-7s %.3f  (grain %.1f GB/s, hand %.1f GB/s)\n", g.kernel.c_str(),
                    g.algorithm.substr(6).c_str(), g.ms / h.ms, g.GBps, h.GBps);
  }
}

}  // namespace

int run_bench_core(const Args& args) {
  args.expect_only({"--backend", "--n", "--gpu-n", "--reps", "--json"}, {});
  const std::string backend = args.value("--backend", "all");
  const long long n_host = args.integer("--n", 1 << 25);       // 256 MiB per array
  const long long n_gpu = args.integer("--gpu-n", 1 << 28);    // 2 GiB per array
  const int reps = static_cast<int>(args.integer("--reps", 20));
  const std::string json = args.value("--json", "");
  if (n_host < 1 || n_gpu < 1 || reps < 1)
    impl::throw_error("--n, --gpu-n and --reps must be positive");
  if (backend != "all" && backend != "serial" && backend != "openmp" && backend != "cuda")
    impl::throw_error("--backend must be serial, openmp, cuda or all; got '", backend, "'");

  Report rep;
  rep.backend = backend == "all" ? "mixed" : backend;
  rep.device = bench::host_cpu_name();
  const Inputs host_in = make_inputs(static_cast<std::size_t>(n_host));
  bool ran = false;
  if (backend == "all" || backend == "serial") {
    rep.copy_GBps = bench::copy_bandwidth_GBps<Serial>(std::size_t(n_host) * 8);
    run_backend<Serial>(rep, host_in, reps, bench::hand::serial_triad, bench::hand::serial_dot);
    ran = true;
  }
#if defined(GRAIN_ENABLE_OPENMP)
  if (backend == "all" || backend == "openmp") {
    rep.threads = OpenMP::concurrency();
    rep.copy_GBps = bench::copy_bandwidth_GBps<OpenMP>(std::size_t(n_host) * 8);
    run_backend<OpenMP>(rep, host_in, reps, bench::hand::openmp_triad, bench::hand::openmp_dot);
    ran = true;
  }
#endif
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if ((backend == "all" && impl::cuda_device_count() > 0) || backend == "cuda") {
    // Roofline for every row is then judged against the GPU copy; the CPU rows keep their GB/s.
    const double gpu_copy = bench::copy_bandwidth_GBps<Cuda>(std::size_t(n_gpu) * 8);
    Report gpu;
    gpu.copy_GBps = gpu_copy;
    gpu.device = bench::device_name<Cuda>();
    run_backend<Cuda>(gpu, make_inputs(static_cast<std::size_t>(n_gpu)), reps, bench::hand::cuda_triad,
                      bench::hand::cuda_dot);
    gpu.backend = "cuda";
    if (!ran) {
      rep = gpu;
    } else {
      rep.print_table();
      print_ratios(rep);
      std::printf("\n");
      rep.device += " + " + gpu.device;
      for (auto& r : gpu.rows) rep.rows.push_back(r);
      rep.copy_GBps = gpu_copy;
      gpu.print_table();
      print_ratios(gpu);
      if (!json.empty()) rep.write_json(json);
      return 0;
    }
    ran = true;
  }
#endif
  if (!ran) impl::throw_error("back end '", backend, "' is not available in this build");
  rep.print_table();
  print_ratios(rep);
  if (!json.empty()) rep.write_json(json);
  return 0;
}

}  // namespace grain::cli
