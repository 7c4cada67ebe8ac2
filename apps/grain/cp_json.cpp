// `grain cp-als --json` and `grain gcp --json`: the run's summary as JSON. Compiled as C++ in
// every build, so that nlohmann/json never passes through nvcc.
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common/report.hpp"
#include "grain/cp/cp_als.hpp"
#include "grain/cp/gcp.hpp"

namespace grain::cli {

void check_json_path(const std::string& json) {
  if (json.empty() || json == "-") return;
  std::FILE* f = std::fopen(json.c_str(), "w");
  if (!f) impl::throw_error("--json ", json, ": cannot create the file");
  std::fclose(f);
}

void write_cp_als_json(const std::string& path, const CpAlsRunInfo& run, const cp::CpAlsResult& res) {
  using json = nlohmann::ordered_json;
  json out = {{"file", run.file},       {"dims", run.dims},   {"nnz", run.nnz},
              {"rank", run.rank},       {"backend", run.backend}, {"dtype", run.dtype},
              {"seed", run.seed},       {"init", run.init},   {"nonnegative", run.nonnegative}};
  json algorithms = json::array();
  for (const auto a : res.algorithms) algorithms.push_back(cp::mttkrp_algorithm_name(a));
  out["mttkrp"] = algorithms;
  out["mttkrp_seconds_per_mode"] = res.mttkrp_seconds_per_mode;
  json iterations = json::array();
  for (const auto& it : res.iterations)
    iterations.push_back({{"iteration", it.iteration}, {"fit", it.fit}, {"change", it.change},
                          {"seconds", it.seconds}, {"mttkrp_seconds", it.mttkrp_seconds},
                          {"comm_seconds", it.comm_seconds}});
  out["iterations"] = iterations;
  const auto iters = static_cast<double>(res.iterations.size());
  out["fit"] = res.fit;
  out["seconds"] = res.seconds;
  out["seconds_per_iteration"] = iters > 0 ? res.seconds / iters : 0.0;
  out["setup_seconds"] = res.setup_seconds;
  out["pseudo_inverse"] = res.used_pseudo_inverse;
  // Across ranks: the ranks, the engine between them, and rank 0's time in collectives and the
  // bytes it sent into them.
  out["ranks"] = run.ranks;
  out["comm_engine"] = run.comm_engine;
  out["comm_seconds"] = res.comm_seconds;
  out["comm_seconds_per_iteration"] = iters > 0 ? res.comm_seconds / iters : 0.0;
  out["comm_bytes_per_iteration"] = iters > 0 ? res.comm_bytes / iters : 0.0;
  json starts = json::array();
  for (const auto& st : run.starts)
    starts.push_back({{"seed", st.seed}, {"fit", st.fit}, {"iterations", st.iterations}, {"seconds", st.seconds}});
  out["starts"] = starts;
  out["best_seed"] = run.best_seed;
  out["resumed_from_iteration"] = run.resumed_from;
  out["checkpoint"] = run.checkpoint.empty() ? json(nullptr) : json(run.checkpoint);
  out["interrupted"] = !run.interrupted_by.empty();
  if (!run.interrupted_by.empty()) out["signal"] = run.interrupted_by;
  bench::write_output_file(path, out.dump(1) + "\n", "the CP-ALS summary");
}

void write_gcp_json(const std::string& path, const GcpRunInfo& run, const cp::GcpSgdResult& res) {
  using json = nlohmann::ordered_json;
  json out = {{"file", run.file},       {"dims", run.dims},       {"nnz", run.nnz},
              {"rank", run.rank},       {"loss", run.loss},       {"backend", run.backend},
              {"dtype", run.dtype},     {"seed", run.seed},       {"gradient_samples", res.gradient_samples},
              {"loss_samples", res.loss_samples}};
  json epochs = json::array();
  for (const auto& e : res.epochs)
    epochs.push_back({{"epoch", e.epoch}, {"loss_estimate", e.loss}, {"seconds", e.seconds}, {"rate", e.rate},
                      {"failed", e.failed}});
  out["epochs"] = epochs;
  out["initial_loss_estimate"] = res.initial_loss;
  out["loss_estimate"] = res.loss;
  out["seconds"] = res.seconds;
  out["sampled_entries_per_second"] = res.seconds > 0 ? res.sampled_entries / res.seconds : 0.0;
  out["interrupted"] = !run.interrupted_by.empty();
  if (!run.interrupted_by.empty()) out["signal"] = run.interrupted_by;
  bench::write_output_file(path, out.dump(1) + "\n", "the GCP summary");
}

}  // namespace grain::cli
