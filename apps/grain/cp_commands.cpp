// `grain cp-als` and `grain generate`: the work, for the back end and element type asked for
// (their options are in cp_cli.cpp). Compiled as CUDA in CUDA builds.
#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "commands.hpp"
#include "grain/core/backends.hpp"
#include "grain/cp/device_memory.hpp"
#include "grain/grain.hpp"

namespace grain::cli {
namespace {

using cp::MttkrpAlgorithm;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Calls f(Exec{}, T{}) for the named back end and element type.
template <class F>
int with_backend_and_dtype(const std::string& backend, const std::string& dtype, F&& f) {
  if (dtype != "float" && dtype != "double")
    impl::throw_error("element type must be float or double, got '", dtype, "'");
  return with_backend(backend.empty() ? default_backend() : backend, [&](auto exec) {
    return dtype == "float" ? f(exec, float{}) : f(exec, double{});
  });
}

template <class Exec, class T>
int cp_als_on(const CpAlsCommand& c) {
  using Space = typename Exec::memory_space;
  // With the JSON on standard output, the human-readable lines go to standard error.
  std::FILE* out = c.json == "-" ? stderr : stdout;
  const int R = c.rank;
  cp::CpAlsOptions o;
  o.maxiters = c.maxiters;
  o.tol = c.tol;
  o.mttkrp = cp::parse_mttkrp_algorithm(c.mttkrp);
  o.solve = c.solve == "host" ? cp::DenseSolve::Host : c.solve == "device" ? cp::DenseSolve::Device : cp::DenseSolve::Auto;
  if (!c.json.empty() && c.json != "-") {  // fail before the work, not after
    std::FILE* f = std::fopen(c.json.c_str(), "w");
    if (!f) impl::throw_error("--json ", c.json, ": cannot create the file");
    std::fclose(f);
  }
  TnsReadOptions ro;
  ro.dims.assign(c.dims.begin(), c.dims.end());
  TnsReadStats st;
  auto H = read_sparse<T>(c.file, ro, &st);
  std::fprintf(out, "read %s: %d-way %s, %lld nonzeros, %.1f MB in %.3f s (%.0f MB/s)\n", c.file.c_str(),
               H.ndims(), dims_string(H.dims()).c_str(), static_cast<long long>(H.nnz()), st.bytes / 1e6,
               st.seconds, st.MBps());
  cp::check_device_memory<Exec, T>(H, R, o.mttkrp == MttkrpAlgorithm::Perm || o.mttkrp == MttkrpAlgorithm::Tiled ||
                                             o.mttkrp == MttkrpAlgorithm::Auto);
  auto X = H.template to_space<Space>();
  cp::Ktensor<T, Space> M = c.init.empty()
                                ? cp::random_ktensor<T, Space>(X.dims(), R, c.seed)
                                : cp::read_ktensor<T>(c.init, X.dims(), R).template to_space<Space>();
  std::fprintf(out, "cp-als: rank %d, %s, %s, maxiters %d, tol %g, %s\n", R, Exec::name(),
               std::is_same_v<T, float> ? "float" : "double", o.maxiters, o.tol,
               c.init.empty() ? ("random start, seed " + std::to_string(c.seed)).c_str()
                              : ("start from " + c.init).c_str());
  std::fprintf(out, "%5s %12s %12s %10s %12s\n", "iter", "fit", "change", "seconds", "mttkrp_s");
  auto res = cp::cp_als<Exec>(
      X, M, o,
      [out](const cp::CpAlsIteration& it) {
        std::fprintf(out, "%5d %12.8f %12.4e %10.4f %12.4f\n", it.iteration, it.fit, it.change, it.seconds,
                     it.mttkrp_seconds);
        std::fflush(out);
      },
      [](const std::string& msg) { std::fprintf(stderr, "grain cp-als: note: %s\n", msg.c_str()); });
  const int iters = static_cast<int>(res.iterations.size());
  std::fprintf(out, "cp-als: %d iterations, fit %.8f, %.4f s (%.4f s per iteration), setup %.4f s\n", iters,
               res.fit, res.seconds, res.seconds / iters, res.setup_seconds);
  std::fprintf(out, "mttkrp per mode (s per iteration, algorithm):");
  for (int m = 0; m < X.ndims(); ++m)
    std::fprintf(out, " %d: %.4f %s", m + 1, res.mttkrp_seconds_per_mode[m] / iters,
                 cp::mttkrp_algorithm_name(res.algorithms[m]));
  std::fprintf(out, "\n");
  if (!c.output.empty()) {
    cp::write_ktensor(c.output, M.template to_space<HostSpace>());
    std::fprintf(out, "wrote %s_lambda.txt and %s_mode1..%d.txt\n", c.output.c_str(), c.output.c_str(),
                 X.ndims());
  }
  if (!c.json.empty()) {
    CpAlsRunInfo run;
    run.file = c.file;
    run.backend = Exec::name();
    run.dtype = std::is_same_v<T, float> ? "float" : "double";
    for (int m = 0; m < X.ndims(); ++m) run.dims.push_back(static_cast<long long>(X.dim(m)));
    run.nnz = static_cast<long long>(X.nnz());
    run.rank = R;
    run.seed = c.seed;
    write_cp_als_json(c.json, run, res);
  }
  return 0;
}

}  // namespace

int run_cp_als(const CpAlsCommand& c) {
  return with_backend_and_dtype(c.backend, c.dtype, [&](auto exec, auto value) {
    return cp_als_on<decltype(exec), decltype(value)>(c);
  });
}

int run_generate(const GenerateCommand& c) {
  const std::string& out = c.output;
  auto t0 = std::chrono::steady_clock::now();
  auto run = [&](auto value) {
    using T = decltype(value);
    auto X = generate_sparse<T>(c.gen);
    const double gen_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const bool text = out.size() >= 4 && (out.compare(out.size() - 4, 4, ".tns") == 0 ||
                                          (out.size() >= 7 && out.compare(out.size() - 7, 7, ".tns.gz") == 0));
    if (text)
      write_tns(out, X);
    else
      write_binary(out, X);
    std::printf("generated %s %s: %lld nonzeros from %lld samples (seed %llu) in %.2f s; wrote %s (%s) in %.2f s\n",
                generator_kind_name(c.gen.kind), dims_string(c.gen.dims).c_str(), static_cast<long long>(X.nnz()),
                static_cast<long long>(c.gen.kind == GeneratorKind::LowRank ? X.nnz() : c.gen.samples),
                static_cast<unsigned long long>(c.gen.seed), gen_s, out.c_str(), text ? "text" : "binary",
                seconds_since(t0));
    return 0;
  };
  if (c.dtype != "float" && c.dtype != "double")
    impl::throw_error("element type must be float or double, got '", c.dtype, "'");
  return c.dtype == "float" ? run(float{}) : run(double{});
}

}  // namespace grain::cli
