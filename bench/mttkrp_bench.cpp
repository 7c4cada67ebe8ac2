// `grain bench mttkrp` (mttkrp_bench.hpp). Compiled as CUDA in CUDA builds.
#include "mttkrp_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "grain/core/backends.hpp"
#include "grain/cp/memory.hpp"
#include "grain/grain.hpp"

namespace grain::bench {
namespace {

using cp::MttkrpAlgorithm;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Exec, class T>
void bench_on(const MttkrpBenchOptions& o) {
  using Space = typename Exec::memory_space;
  std::FILE* out = o.json == "-" ? stderr : stdout;
  const std::vector<int>& ranks = o.ranks;
  const int reps = o.reps, cp_iters = o.cp_als_iters, lanes = o.lanes;
  const index_type tiled_rows = o.tiled_rows;
  const bool verify = o.verify;
  std::string name = o.name;
  SparseTensor<T> H;
  if (!o.file.empty()) {
    TnsReadOptions ro;
    ro.dims.assign(o.dims.begin(), o.dims.end());
    TnsReadStats st;
    H = read_sparse<T>(o.file, ro, &st);
    std::fprintf(out, "read %s: %d-way %s, %lld nonzeros, %.1f MB in %.3f s\n", o.file.c_str(), H.ndims(),
                 dims_string(H.dims()).c_str(), static_cast<long long>(H.nnz()), st.bytes / 1e6, st.seconds);
    if (name.empty()) name = o.file.substr(o.file.find_last_of('/') + 1);
  } else {
    const GenerateOptions& g = o.gen;
    const auto t0 = std::chrono::steady_clock::now();
    H = generate_sparse<T>(g);
    if (name.empty())
      name = std::string(generator_kind_name(g.kind)) + "-" + dims_string(g.dims) + "-" + std::to_string(g.samples);
    std::fprintf(out, "generated %s: %lld nonzeros in %.2f s\n", name.c_str(), static_cast<long long>(H.nnz()),
                 seconds_since(t0));
  }
  const int N = H.ndims();
  int maxR = *std::max_element(ranks.begin(), ranks.end());
  {
    // Every algorithm runs on every mode: the sorted copies and, on the GPU, the tiled copies too
    // (the host's privatized copies are capped by kPrivatizedBudget).
    constexpr bool host = is_host_execution_space_v<Exec>;
    std::vector<cp::MemoryPart> parts = cp::cp_als_memory<Exec>(
        H, maxR, std::vector<cp::MttkrpAlgorithm>(N, host ? cp::MttkrpAlgorithm::Perm : cp::MttkrpAlgorithm::Tiled),
        true);
    if (!host) parts.push_back({"the sorted copies of the tensor", double(N) * double(H.bytes())});
    if (host) parts.push_back({"the privatized MTTKRP's private copies", double(cp::kPrivatizedBudget)});
    cp::check_memory(parts, cp::memory_info<Space>(), "the MTTKRP benchmark at rank " + std::to_string(maxR),
                     "smaller ranks (--rank) or a smaller tensor");
  }
  auto X = H.template to_space<Space>();
  Report rep;
  rep.device = device_name<Exec>();
  rep.backend = Exec::name();
  rep.threads = Exec::concurrency();
  rep.copy_GBps = copy_bandwidth_GBps<Exec>(std::size_t(256) << 20);
  const char* dtype = std::is_same_v<T, float> ? "float" : "double";
  std::fprintf(out, "%s on %s: copy bandwidth %.1f GB/s\n", name.c_str(), rep.device.c_str(), rep.copy_GBps);
  // Sorting cost, once per mode (what the permutation-based algorithm pays up front).
  {
    const auto t0 = std::chrono::steady_clock::now();
    for (int m = 0; m < N; ++m) (void)X.sorted(m);  // the permutation and the sorted copy
    Exec().fence();
    std::fprintf(out, "permutations and sorted copies (all %d modes): %.4f s\n", N, seconds_since(t0));
  }
  for (int R : ranks) {
    auto KH = cp::random_ktensor<T, HostSpace>(H.dims(), R, 7);
    auto K = KH.template to_space<Space>();
    cp::MttkrpWorkspace<T, Space> ws;
    ws.tiled_rows = tiled_rows;
    ws.lanes = lanes;
    for (int n = 0; n < N; ++n) {
      std::vector<T> ref;
      if (verify) {
        View<T**, LayoutRight, HostSpace> r("ref", H.dim(n), R);
        cp::mttkrp<Serial>(H, KH, n, r, MttkrpAlgorithm::Privatized);
        ref.assign(r.data(), r.data() + r.size());
      }
      const MttkrpAlgorithm pick = cp::choose_mttkrp<Exec>(X, n, R);
      View<T**, LayoutRight, Space> out(WithoutInitializing, "mttkrp_out", X.dim(n), R);
      for (auto alg : {MttkrpAlgorithm::Atomic, MttkrpAlgorithm::Team, MttkrpAlgorithm::Perm,
                       MttkrpAlgorithm::Tiled, MttkrpAlgorithm::Privatized}) {
        // Private copies are a CPU algorithm: on the GPU they serialize each copy's nonzeros.
        if (alg == MttkrpAlgorithm::Privatized && !is_host_execution_space_v<Exec> && !o.all) continue;
        const Timing t = time_on<Exec>([&] { cp::mttkrp<Exec>(X, K, n, out, alg, &ws); }, reps, 1);
        bool ok = false;
        if (verify) {
          auto h = create_mirror_view(out);
          deep_copy(h, out);
          double scale = 1e-30, err = 0;
          for (std::size_t e = 0; e < ref.size(); ++e) scale = std::max(scale, std::abs(double(ref[e])));
          for (std::size_t e = 0; e < ref.size(); ++e)
            err = std::max(err, std::abs(double(h.data()[e]) - double(ref[e])) / scale);
          ok = err <= (std::is_same_v<T, float> ? 1e-3 : 1e-9);
          if (!ok) std::fprintf(stderr, "grain bench mttkrp: %s mode %d R %d: relative error %g\n",
                                cp::mttkrp_algorithm_name(alg), n + 1, R, err);
        }
        Row row;
        row.kernel = "MTTKRP";
        row.case_name = name;
        row.dtype = dtype;
        row.algorithm = cp::mttkrp_algorithm_name(alg);
        row.selected = alg == pick;
        row.verified = ok;
        row.R = R;
        row.ms = t.ms;
        row.ms_min = t.ms_min;
        // The slides' effective bandwidth: ((N R + 3) sizeof(value) + N sizeof(index)) nnz / t.
        row.bytes = ((double(N) * R + 3) * sizeof(T) + double(N) * sizeof(subscript_type)) * double(X.nnz());
        row.flops = 2.0 * double(N - 1) * R * double(X.nnz());
        row.extra = {{"N", double(N)}, {"mode", double(n + 1)}, {"nnz", double(X.nnz())},
                     {"I", double(X.dim(n))}};
        if (alg == MttkrpAlgorithm::Tiled) {
          const auto plan = cp::mttkrp_tiled_plan<T>(X.dims(), n, R, ws.tiled_rows);
          row.extra.push_back({"staged_mode", double(plan.s + 1)});
          row.extra.push_back({"tiles", double(plan.tiles)});
          row.extra.push_back({"row_updates", cp::mttkrp_tiled_row_updates(X.dim(n), plan.tiles, X.nnz())});
        }
        auto& added = rep.add(row);
        added.extra.push_back({"eff_GBps", added.GBps});
        added.extra.push_back({"copy_GBps", rep.copy_GBps});
      }
    }
    if (cp_iters > 0) {
      auto M = cp::random_ktensor<T, Space>(X.dims(), R, 3);
      cp::CpAlsOptions o;
      o.maxiters = cp_iters;
      o.tol = 0;
      o.arrange_result = false;
      auto res = cp::cp_als<Exec>(X, M, o);
      std::vector<double> per, per_mttkrp;
      for (const auto& it : res.iterations) {
        per.push_back(it.seconds * 1e3);
        per_mttkrp.push_back(it.mttkrp_seconds * 1e3);
      }
      const Timing t = summarize(per);
      const Timing tm = summarize(per_mttkrp);
      Row row;
      row.kernel = "CP-ALS-iteration";
      row.case_name = name;
      row.dtype = dtype;
      row.algorithm = "auto";
      row.selected = true;
      row.verified = false;
      row.R = R;
      row.ms = t.ms;
      row.ms_min = t.ms_min;
      row.bytes = N * ((double(N) * R + 3) * sizeof(T) + double(N) * sizeof(subscript_type)) * double(X.nnz());
      row.flops = N * 2.0 * double(N - 1) * R * double(X.nnz());
      // The iteration's MTTKRPs apart from its dense work (Gram matrices, solve, B V^-1, norms).
      row.extra = {{"N", double(N)}, {"nnz", double(X.nnz())}, {"iterations", double(res.iterations.size())},
                   {"fit", res.fit}, {"mttkrp_ms", tm.ms}, {"dense_ms", t.ms - tm.ms}};
      rep.add(row);
      std::fprintf(out, "cp-als R=%d: %.4f s per iteration (median of %zu; MTTKRP %.4f s), fit %.6f\n", R,
                  t.ms / 1e3, per.size(), tm.ms / 1e3, res.fit);
    }
  }
  rep.print_table(out);
  if (!o.json.empty()) {
    rep.write_json(o.json);
    if (o.json != "-") std::fprintf(out, "wrote %s\n", o.json.c_str());
  }
}

}  // namespace

void run_mttkrp_bench(const MttkrpBenchOptions& opt) {
  if (opt.dtype != "float" && opt.dtype != "double")
    impl::throw_error("element type must be float or double, got '", opt.dtype, "'");
  with_backend(opt.backend.empty() ? default_backend() : opt.backend, [&](auto exec) {
    using Exec = decltype(exec);
    if (opt.dtype == "float")
      bench_on<Exec, float>(opt);
    else
      bench_on<Exec, double>(opt);
    return 0;
  });
}

}  // namespace grain::bench
