// `grain gcp`: GCP by stochastic gradients (grain::cp::gcp_sgd) on a tensor file. Compiled as CUDA
// in CUDA builds, to run on the GPU.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <type_traits>

#include "commands.hpp"
#include "grain/core/backends.hpp"
#include "grain/cp/gcp.hpp"
#include "grain/sparse/io.hpp"
#include "stop_signals.hpp"

namespace grain::cli {

namespace {

template <class Exec, class T>
int gcp_on(const GcpCommand& c) {
  using Space = typename Exec::memory_space;
  std::FILE* out = c.json == "-" ? stderr : stdout;  // the JSON alone on standard output
  cp::GcpSgdOptions o;
  o.loss = cp::parse_gcp_loss(c.loss);
  o.epochs = c.epochs;
  o.iters = c.iters;
  o.gradient_samples = c.samples;
  o.loss_samples = c.loss_samples;
  o.rate = c.rate;
  o.max_fails = c.max_fails;
  o.seed = c.seed;
  check_json_path(c.json);
  TnsReadOptions ro;
  ro.dims.assign(c.dims.begin(), c.dims.end());
  TnsReadStats st;
  const auto H = read_sparse<T>(c.file, ro, &st);
  std::fprintf(out, "read %s: %d-way %s, %lld nonzeros, %.1f MB in %.3f s\n", c.file.c_str(), H.ndims(),
               dims_string(H.dims()).c_str(), static_cast<long long>(H.nnz()), st.bytes / 1e6, st.seconds);
  cp::check_gcp_data(H, o.loss);
  const auto X = H.template to_space<Space>();
  auto M = cp::random_ktensor<T, Space>(X.dims(), c.rank, c.seed);
  cp::gcp_prepare_start<Exec>(X, M, o.loss);
  std::fprintf(out, "gcp: rank %d, %s loss, %s, %s, %d epochs of %d steps, rate %g, seed %llu\n", c.rank,
               cp::gcp_loss_name(o.loss), Exec::name(), std::is_same_v<T, float> ? "float" : "double", o.epochs,
               o.iters, o.rate, static_cast<unsigned long long>(o.seed));
  std::fprintf(out, "%6s %16s %10s %10s\n", "epoch", "loss (estimate)", "seconds", "rate");
  StopSignals signals;  // a signal stops the run after the epoch under way
  const cp::GcpSgdResult res = cp::gcp_sgd<Exec>(X, M, o, [&](const cp::GcpSgdEpoch& e) {
    std::fprintf(out, "%6d %16.8e %10.4f %10.3g%s\n", e.epoch, e.loss, e.seconds, e.rate,
                 e.failed ? "  (raised the loss: undone, smaller steps)" : "");
    std::fflush(out);
    return signals.received() == 0;
  });
  const int epochs = static_cast<int>(res.epochs.size());
  std::fprintf(out,
               "gcp: %d epochs, loss %.8e (start %.8e), %.3f s (%.4f s an epoch), %lld + %lld samples a step, "
               "%.3g sampled entries/s\n",
               epochs, res.loss, res.initial_loss, res.seconds, res.seconds / std::max(epochs, 1),
               static_cast<long long>(res.gradient_samples), static_cast<long long>(res.gradient_samples),
               res.sampled_entries / std::max(res.seconds, 1e-12));
  cp::arrange<Exec>(M);
  if (!c.output.empty()) {
    cp::write_ktensor(c.output, M.template to_space<HostSpace>());
    std::fprintf(out, "wrote %s_lambda.txt and %s_mode1..%d.txt\n", c.output.c_str(), c.output.c_str(), X.ndims());
  }
  if (!c.json.empty()) {
    GcpRunInfo run;
    run.file = c.file;
    run.loss = cp::gcp_loss_name(o.loss);
    run.backend = Exec::name();
    run.dtype = std::is_same_v<T, float> ? "float" : "double";
    for (index_type d : H.dims()) run.dims.push_back(static_cast<long long>(d));
    run.nnz = static_cast<long long>(H.nnz());
    run.rank = c.rank;
    run.seed = c.seed;
    if (signals.received()) run.interrupted_by = signals.received() == SIGINT ? "SIGINT" : "SIGTERM";
    write_gcp_json(c.json, run, res);
  }
  if (const int sig = signals.received()) {
    std::fprintf(stderr, "grain gcp: interrupted by %s after epoch %d%s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                 epochs, c.output.empty() ? "; nothing saved (--output PREFIX keeps the factors)"
                                          : ("; factors so far in " + c.output + "_*.txt").c_str());
    return 128 + sig;
  }
  return 0;
}

}  // namespace

int run_gcp(const GcpCommand& c) {
  if (c.dtype != "float" && c.dtype != "double")
    impl::throw_error("element type must be float or double, got '", c.dtype, "'");
  return with_backend(c.backend.empty() ? default_backend() : c.backend, [&](auto exec) {
    using Exec = decltype(exec);
    return c.dtype == "float" ? gcp_on<Exec, float>(c) : gcp_on<Exec, double>(c);
  });
}

}  // namespace grain::cli
