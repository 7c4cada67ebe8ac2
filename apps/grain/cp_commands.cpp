// `grain cp-als`, `grain generate`, `grain bench mttkrp`: sparse tensors and CP-ALS.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "grain/grain.hpp"
#if defined(GRAIN_ENABLE_CUDA)
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::cli {
namespace {

using cp::MttkrpAlgorithm;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double real_option(const Args& a, const std::string& key, double fallback) {
  const std::string v = a.value(key, "");
  if (v.empty()) return fallback;
  std::size_t used = 0;
  double out = 0;
  try {
    out = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !std::isfinite(out))
    impl::throw_error("option ", key, " takes a number, got '", v, "'");
  return out;
}

long long ranged_integer(const Args& a, const std::string& key, long long fallback, long long lo,
                         long long hi) {
  const long long v = a.integer(key, fallback);
  if (v < lo || v > hi) impl::throw_error("option ", key, " must be in [", lo, ", ", hi, "], got ", v);
  return v;
}

// "30000x40000x50000" -> {30000, 40000, 50000}
std::vector<index_type> parse_dims(const std::string& s) {
  std::vector<index_type> d;
  std::size_t p = 0;
  while (p <= s.size()) {
    const std::size_t x = s.find('x', p);
    const std::string part = s.substr(p, x == std::string::npos ? std::string::npos : x - p);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v < 1)
      impl::throw_error("dimensions '", s, "': expected positive integers joined by 'x', e.g. 300x400x500");
    d.push_back(v);
    if (x == std::string::npos) break;
    p = x + 1;
  }
  SparseTensor<double>::check_dims(d);
  return d;
}

// Unknown options are errors; at most one positional argument (the tensor file) is allowed.
void check_args(const Args& a, const std::vector<std::string>& with_value,
                const std::vector<std::string>& flags, bool positional_ok) {
  int positional = 0;
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    const std::string& s = a.items[i];
    if (std::find(with_value.begin(), with_value.end(), s) != with_value.end()) {
      if (i + 1 >= a.items.size()) impl::throw_error("option ", s, " needs a value");
      ++i;
      continue;
    }
    if (std::find(flags.begin(), flags.end(), s) != flags.end()) continue;
    if (s.rfind("--", 0) == 0 || !positional_ok || ++positional > 1)
      impl::throw_error("unknown argument '", s, "' (see grain help)");
  }
}

// The first argument that is not an option or an option's value.
std::string positional(const Args& a, const std::vector<std::string>& with_value) {
  std::string found;
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    const std::string& s = a.items[i];
    if (std::find(with_value.begin(), with_value.end(), s) != with_value.end()) {
      ++i;
      continue;
    }
    if (s.rfind("--", 0) == 0) continue;
    if (!found.empty()) impl::throw_error("more than one input file: '", found, "' and '", s, "'");
    found = s;
  }
  return found;
}

// Calls f(Exec{}, T{}) for the named back end and element type.
template <class F>
int with_backend(const std::string& backend, const std::string& dtype, F&& f) {
  if (dtype != "float" && dtype != "double")
    impl::throw_error("option --dtype must be float or double, got '", dtype, "'");
  auto typed = [&](auto exec) { return dtype == "float" ? f(exec, float{}) : f(exec, double{}); };
  if (backend == "serial") return typed(Serial{});
  if (backend == "openmp") {
#if defined(GRAIN_ENABLE_OPENMP)
    return typed(OpenMP{});
#else
    impl::throw_error("--backend openmp: this grain was built without OpenMP");
#endif
  }
  if (backend == "cuda") {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
    if (impl::cuda_device_count() == 0) impl::throw_error("--backend cuda: no GPU is visible");
    return typed(Cuda{});
#else
    impl::throw_error("--backend cuda: this grain was built without the CUDA back end");
#endif
  }
  impl::throw_error("option --backend must be serial, openmp or cuda, got '", backend, "'");
}

// Fails early, with the sizes, when the GPU cannot hold the tensor, its permutations and the
// factor matrices (a failed cudaMalloc later would also raise a clear grain::Error).
template <class Exec, class T>
void check_device_memory(const SparseTensor<T>& X, int R, bool perms) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if constexpr (std::is_same_v<Exec, Cuda>) {
    double need = static_cast<double>(X.bytes());
    // Per mode: the permutation and the copies of the tensor stored in perm's and tiled's orders.
    if (perms) need += static_cast<double>(X.nnz()) * sizeof(index_type) * X.ndims() + 2.0 * double(X.bytes()) * X.ndims();
    for (int m = 0; m < X.ndims(); ++m) need += 2.0 * X.dim(m) * R * sizeof(T);
    std::size_t free_b = 0, total_b = 0;
    impl::cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (need > static_cast<double>(free_b))
      impl::throw_error("out of GPU memory: the tensor (", X.nnz(), " nonzeros), its permutations and sorted copies, and the rank-",
                        R, " factors need ", need / 1073741824.0, " GiB; ", free_b / 1073741824.0,
                        " GiB of ", total_b / 1073741824.0, " GiB are free on ", impl::cuda_device().name);
  }
#else
  (void)X, (void)R, (void)perms;
#endif
}

template <class T>
SparseTensor<T> load_tensor(const std::string& path, const std::string& dims) {
  TnsReadOptions o;
  if (!dims.empty()) o.dims = parse_dims(dims);
  TnsReadStats st;
  auto X = read_sparse<T>(path, o, &st);
  std::printf("read %s: %d-way %s, %lld nonzeros, %.1f MB in %.3f s (%.0f MB/s)\n", path.c_str(),
              X.ndims(), dims_string(X.dims()).c_str(), static_cast<long long>(X.nnz()),
              st.bytes / 1e6, st.seconds, st.MBps());
  return X;
}

const std::vector<std::string> kGenerateOptions = {"--kind", "--dims", "--nnz", "--gen-rank", "--skew",
                                                   "--support", "--seed"};

GenerateOptions generate_options(const Args& a) {
  GenerateOptions g;
  g.kind = parse_generator_kind(a.value("--kind", "random-ktensor"));
  const std::string dims = a.value("--dims", "");
  if (dims.empty()) impl::throw_error("--dims is required (e.g. --dims 3000x4000x5000)");
  g.dims = parse_dims(dims);
  g.samples = ranged_integer(a, "--nnz", g.kind == GeneratorKind::LowRank ? 1 : 0, 1, 1ll << 40);
  g.rank = static_cast<int>(ranged_integer(a, "--gen-rank", 16, 1, 4096));
  g.skew = real_option(a, "--skew", 1.0);
  g.support = ranged_integer(a, "--support", 4, 1, 1ll << 31);
  g.seed = static_cast<std::uint64_t>(ranged_integer(a, "--seed", 1, 0, 1ll << 62));
  return g;
}

template <class Exec, class T>
int cp_als_on(const Args& a, const std::string& file) {
  using Space = typename Exec::memory_space;
  const int R = static_cast<int>(ranged_integer(a, "--rank", 0, 1, 1024));
  cp::CpAlsOptions o;
  o.maxiters = static_cast<int>(ranged_integer(a, "--maxiters", 50, 1, 1000000));
  o.tol = real_option(a, "--tol", 1e-4);
  if (o.tol < 0) impl::throw_error("option --tol must be non-negative, got ", o.tol);
  o.mttkrp = cp::parse_mttkrp_algorithm(a.value("--mttkrp", "auto"));
  const auto seed = static_cast<std::uint64_t>(ranged_integer(a, "--seed", 1, 0, 1ll << 62));
  const std::string json = a.value("--json", ""), output = a.value("--output", ""),
                    init = a.value("--init", "");
  if (!json.empty()) {  // fail before the work, not after
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (!f) impl::throw_error("--json ", json, ": cannot create the file");
    std::fclose(f);
  }
  auto H = load_tensor<T>(file, a.value("--dims", ""));
  check_device_memory<Exec, T>(H, R, o.mttkrp == MttkrpAlgorithm::Perm || o.mttkrp == MttkrpAlgorithm::Tiled ||
                                        o.mttkrp == MttkrpAlgorithm::Auto);
  auto X = H.template to_space<Space>();
  cp::Ktensor<T, Space> M = init.empty()
                                ? cp::random_ktensor<T, Space>(X.dims(), R, seed)
                                : cp::read_ktensor<T>(init, X.dims(), R).template to_space<Space>();
  std::printf("cp-als: rank %d, %s, %s, maxiters %d, tol %g, %s\n", R, Exec::name(),
              std::is_same_v<T, float> ? "float" : "double", o.maxiters, o.tol,
              init.empty() ? ("random start, seed " + std::to_string(seed)).c_str()
                           : ("start from " + init).c_str());
  std::printf("%5s %12s %12s %10s %12s\n", "iter", "fit", "change", "seconds", "mttkrp_s");
  auto res = cp::cp_als<Exec>(
      X, M, o,
      [](const cp::CpAlsIteration& it) {
        std::printf("%5d %12.8f %12.4e %10.4f %12.4f\n", it.iteration, it.fit, it.change, it.seconds,
                    it.mttkrp_seconds);
        std::fflush(stdout);
      },
      [](const std::string& msg) { std::fprintf(stderr, "grain cp-als: note: %s\n", msg.c_str()); });
  const int iters = static_cast<int>(res.iterations.size());
  std::printf("cp-als: %d iterations, fit %.8f, %.4f s (%.4f s per iteration), setup %.4f s\n", iters,
              res.fit, res.seconds, res.seconds / iters, res.setup_seconds);
  std::printf("mttkrp per mode (s per iteration, algorithm):");
  for (int m = 0; m < X.ndims(); ++m)
    std::printf(" %d: %.4f %s", m + 1, res.mttkrp_seconds_per_mode[m] / iters,
                cp::mttkrp_algorithm_name(res.algorithms[m]));
  std::printf("\n");
  if (!output.empty()) {
    cp::write_ktensor(output, M.template to_space<HostSpace>());
    std::printf("wrote %s_lambda.txt and %s_mode1..%d.txt\n", output.c_str(), output.c_str(), X.ndims());
  }
  if (!json.empty()) {
    CpAlsRunInfo run;
    run.file = file;
    run.backend = Exec::name();
    run.dtype = std::is_same_v<T, float> ? "float" : "double";
    for (int m = 0; m < X.ndims(); ++m) run.dims.push_back(static_cast<long long>(X.dim(m)));
    run.nnz = static_cast<long long>(X.nnz());
    run.rank = R;
    run.seed = seed;
    write_cp_als_json(json, run, res);
  }
  return 0;
}

// ---- bench mttkrp ----------------------------------------------------------------------------------
template <class Exec, class T>
int bench_mttkrp_on(const Args& a, const std::string& file) {
  using Space = typename Exec::memory_space;
  std::vector<int> ranks;
  {
    const std::string s = a.value("--rank", "16,64");
    std::size_t p = 0;
    while (p <= s.size()) {
      const std::size_t c = s.find(',', p);
      const std::string part = s.substr(p, c == std::string::npos ? std::string::npos : c - p);
      std::size_t used = 0;
      int v = 0;
      try {
        v = std::stoi(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (part.empty() || used != part.size() || v < 1 || v > 1024)
        impl::throw_error("option --rank takes ranks from 1 to 1024 separated by commas, got '", s, "'");
      ranks.push_back(v);
      if (c == std::string::npos) break;
      p = c + 1;
    }
  }
  const int reps = static_cast<int>(ranged_integer(a, "--reps", 10, 1, 10000));
  const int cp_iters = static_cast<int>(ranged_integer(a, "--cp-als-iters", 10, 0, 1000));
  // The tiled algorithm's tile height (0: from its L2 budget).
  const index_type tiled_rows = ranged_integer(a, "--tiled-rows", 0, 0, 1ll << 31);
  // Vector lanes per nonzero of perm and tiled on the GPU (0: the default rule).
  const int lanes = static_cast<int>(ranged_integer(a, "--lanes", 0, 0, 32));
  const bool verify = !a.has("--no-verify");
  const std::string json = a.value("--json", "");
  std::string name = a.value("--name", "");
  SparseTensor<T> H;
  if (!file.empty()) {
    H = load_tensor<T>(file, a.value("--dims", ""));
    if (name.empty()) {
      name = file.substr(file.find_last_of('/') + 1);
    }
  } else {
    const GenerateOptions g = generate_options(a);
    const auto t0 = std::chrono::steady_clock::now();
    H = generate_sparse<T>(g);
    if (name.empty())
      name = std::string(generator_kind_name(g.kind)) + "-" + dims_string(g.dims) + "-" + std::to_string(g.samples);
    std::printf("generated %s: %lld nonzeros in %.2f s\n", name.c_str(), static_cast<long long>(H.nnz()),
                seconds_since(t0));
  }
  const int N = H.ndims();
  int maxR = *std::max_element(ranks.begin(), ranks.end());
  check_device_memory<Exec, T>(H, maxR, true);
  auto X = H.template to_space<Space>();
  bench::Report rep;
  rep.device = bench::device_name<Exec>();
  rep.backend = Exec::name();
  rep.threads = Exec::concurrency();
  rep.copy_GBps = bench::copy_bandwidth_GBps<Exec>(std::size_t(256) << 20);
  const char* dtype = std::is_same_v<T, float> ? "float" : "double";
  std::printf("%s on %s: copy bandwidth %.1f GB/s\n", name.c_str(), rep.device.c_str(), rep.copy_GBps);
  // Sorting cost, once per mode (what the permutation-based algorithm pays up front).
  {
    const auto t0 = std::chrono::steady_clock::now();
    for (int m = 0; m < N; ++m) (void)X.sorted(m);  // the permutation and the sorted copy
    Exec().fence();
    std::printf("permutations and sorted copies (all %d modes): %.4f s\n", N, seconds_since(t0));
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
        if (alg == MttkrpAlgorithm::Privatized && !is_host_execution_space_v<Exec> && !a.has("--all")) continue;
        const bench::Timing t = bench::time_on<Exec>([&] { cp::mttkrp<Exec>(X, K, n, out, alg, &ws); }, reps, 1);
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
        bench::Row row;
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
      const bench::Timing t = bench::summarize(per);
      const bench::Timing tm = bench::summarize(per_mttkrp);
      bench::Row row;
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
      std::printf("cp-als R=%d: %.4f s per iteration (median of %zu; MTTKRP %.4f s), fit %.6f\n", R,
                  t.ms / 1e3, per.size(), tm.ms / 1e3, res.fit);
    }
  }
  rep.print_table();
  if (!json.empty()) {
    rep.write_json(json);
    std::printf("wrote %s\n", json.c_str());
  }
  return 0;
}

}  // namespace

// Declared in commands.hpp: the back end a command takes when --backend is not given.
std::string default_backend() {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (impl::cuda_device_count() > 0) return "cuda";
#endif
#if defined(GRAIN_ENABLE_OPENMP)
  return "openmp";
#else
  return "serial";
#endif
}

int run_cp_als(const Args& a) {
  const std::vector<std::string> with_value = {"--rank", "--maxiters", "--tol", "--seed", "--mttkrp",
                                               "--backend", "--dtype", "--init", "--output", "--json", "--dims"};
  check_args(a, with_value, {}, true);
  const std::string file = positional(a, with_value);
  if (file.empty()) impl::throw_error("usage: grain cp-als FILE --rank R [options] (FILE: .tns, .tns.gz or binary)");
  if (a.value("--rank", "").empty()) impl::throw_error("--rank R is required");
  return with_backend(a.value("--backend", default_backend()), a.value("--dtype", "double"),
                      [&](auto exec, auto value) {
                        return cp_als_on<decltype(exec), decltype(value)>(a, file);
                      });
}

int run_generate(const Args& a) {
  std::vector<std::string> with_value = kGenerateOptions;
  with_value.insert(with_value.end(), {"--output", "--dtype"});
  check_args(a, with_value, {}, false);
  const std::string out = a.value("--output", "");
  if (out.empty()) impl::throw_error("--output FILE is required (.tns, .tns.gz, or .bin/.gst for the binary form)");
  const std::string dtype = a.value("--dtype", "double");
  if (dtype != "float" && dtype != "double") impl::throw_error("option --dtype must be float or double");
  const GenerateOptions g = generate_options(a);
  if (g.kind != GeneratorKind::LowRank && a.value("--nnz", "").empty())
    impl::throw_error("--nnz N (coordinates to draw) is required for ", generator_kind_name(g.kind));
  auto t0 = std::chrono::steady_clock::now();
  auto run = [&](auto value) {
    using T = decltype(value);
    auto X = generate_sparse<T>(g);
    const double gen_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const bool text = out.size() >= 4 && (out.compare(out.size() - 4, 4, ".tns") == 0 ||
                                          (out.size() >= 7 && out.compare(out.size() - 7, 7, ".tns.gz") == 0));
    if (text)
      write_tns(out, X);
    else
      write_binary(out, X);
    std::printf("generated %s %s: %lld nonzeros from %lld samples (seed %llu) in %.2f s; wrote %s (%s) in %.2f s\n",
                generator_kind_name(g.kind), dims_string(g.dims).c_str(), static_cast<long long>(X.nnz()),
                static_cast<long long>(g.kind == GeneratorKind::LowRank ? X.nnz() : g.samples),
                static_cast<unsigned long long>(g.seed), gen_s, out.c_str(), text ? "text" : "binary",
                seconds_since(t0));
    return 0;
  };
  return dtype == "float" ? run(float{}) : run(double{});
}

int run_bench_mttkrp(const Args& a) {
  std::vector<std::string> with_value = kGenerateOptions;
  with_value.insert(with_value.end(), {"--rank", "--backend", "--dtype", "--reps", "--json", "--name",
                                       "--cp-als-iters", "--tiled-rows", "--lanes"});
  check_args(a, with_value, {"--no-verify", "--all"}, true);
  const std::string file = positional(a, with_value);
  if (!file.empty() && !a.value("--kind", "").empty())
    impl::throw_error("give either a tensor FILE or generator options (--kind/--dims/--nnz), not both");
  if (file.empty() && a.value("--dims", "").empty())
    impl::throw_error("usage: grain bench mttkrp FILE | --dims AxBxC --nnz N [--kind K] [options]");
  return with_backend(a.value("--backend", default_backend()), a.value("--dtype", "double"),
                      [&](auto exec, auto value) {
                        return bench_mttkrp_on<decltype(exec), decltype(value)>(a, file);
                      });
}

}  // namespace grain::cli
