// The contraction suite's driver (contract_bench.hpp): option values resolved and checked, the
// kernel x case x dtype loop (or the sweep's P x budget loop) with the ceilings around it, the
// per-row lines, the tables and Auto's summary, the JSON. What one shape measures is in
// contract_measure.cpp. Host C++: the measurements launch on the back ends from there.
#include "contract_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <tuple>

#include "common/ceilings.hpp"
#include "common/report.hpp"
#include "contract_measure.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/core/backends.hpp"
#include "grain/core/progress.hpp"

namespace grain::bench {

namespace {

// ---- option values ---------------------------------------------------------------------------------

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// `values` with "all" standing for `all`, each checked against `names`; grain::Error naming
// `what` for an unknown value or an empty list.
std::vector<std::string> expand(const std::vector<std::string>& values, const std::vector<std::string>& names,
                                const std::vector<std::string>& all, const char* what) {
  if (values.empty()) impl::throw_error(what, ": empty list (", join(names), " or all)");
  std::vector<std::string> out;
  for (const std::string& v : values) {
    if (v == "all") return all;
    if (std::find(names.begin(), names.end(), v) == names.end())
      impl::throw_error(what, ": unknown value '", v, "' (", join(names), " or all)");
    out.push_back(v);
  }
  return out;
}

std::vector<ContractKernel> kernels_of(const std::vector<std::string>& values, const char* what) {
  std::vector<ContractKernel> out;
  for (const std::string& name : expand(values, contract_suite_kernels(), contract_suite_kernels(), what))
    out.push_back(parse_contract_kernel(name));
  return out;
}

template <class T>
void check_positive(const std::vector<T>& values, const char* what) {
  if (values.empty()) impl::throw_error(what, ": empty list");
  for (T v : values)
    if (!(v > 0)) impl::throw_error(what, ": expected positive numbers, got ", v);
}

// The options of one back end's run, defaults filled in and checked.
struct SuiteRun {
  std::string backend;
  bool sweep = false, layout_left = false, verify = true, quiet = false, all_algorithms = false;
  std::vector<ContractKernel> kernels;
  std::vector<impl::ContractBenchCase> cases;
  std::vector<std::string> dtypes, algorithms;
  double budget_mib = 0;
  int reps = 0;
  // The sweep.
  std::vector<ContractKernel> sweep_kernels;
  std::vector<double> sweep_p, sweep_budgets;
  std::int64_t sweep_fields = 8;
  // The held-out sweep.
  bool random = false;
  int count = 0;
  std::uint64_t seed = 1;
};

SuiteRun resolve(const ContractSuiteOptions& o, const std::string& backend) {
  check_backend(backend);
  SuiteRun r;
  r.backend = backend;
  const bool gpu = backend == "cuda";
  r.sweep = o.sweep;
  r.verify = o.verify;
  r.quiet = o.quiet;
  r.layout_left = impl::contract_layout_left(o.layout, backend, "the layout");
  r.kernels = kernels_of(o.kernels, "the kernels");
  for (const std::string& name : expand(o.cases, contract_suite_cases(), contract_suite_cases(), "the cases"))
    for (const impl::ContractBenchCase& c : impl::kContractBenchCases)
      if (name == c.name) r.cases.push_back(c);
  const std::vector<std::string> both{"float", "double"};
  r.dtypes = o.dtypes.empty() ? (o.sweep ? std::vector<std::string>{"double"} : both)
                              : expand(o.dtypes, both, both, "the dtype");
  // "all": every grain algorithm but serial (the oracle, timed on small CPU cases only), and the
  // peers.
  std::vector<std::string> all;
  for (const std::string& a : contract_suite_algorithms())
    if (a != contract_algorithm_name(ContractAlgorithm::Serial)) all.push_back(a);
  r.all_algorithms = std::find(o.algorithms.begin(), o.algorithms.end(), "all") != o.algorithms.end();
  r.algorithms = expand(o.algorithms, contract_suite_algorithms(), all, "the algorithms");
  if (!(o.budget_mib >= 0) || !std::isfinite(o.budget_mib))
    impl::throw_error("the budget must be a positive number of MiB (0: the default); got ", o.budget_mib);
  if (o.reps < 0) impl::throw_error("the repetitions must be positive (0: the default); got ", o.reps);
  r.budget_mib = o.budget_mib > 0 ? o.budget_mib : (gpu ? 512 : 128);
  r.reps = o.reps > 0 ? o.reps : (gpu ? 20 : 10);
  if (o.sweep) {
    const bool kernels_given = !(o.kernels.size() == 1 && o.kernels[0] == "all");
    r.sweep_kernels = !o.sweep_kernels.empty() ? kernels_of(o.sweep_kernels, "the sweep kernels")
                      : kernels_given         ? r.kernels
                                              : std::vector<ContractKernel>{ContractKernel::DataDataScalar,
                                                                            ContractKernel::DataFieldScalar,
                                                                            ContractKernel::FieldFieldScalar};
    r.sweep_p = o.sweep_p;
    r.sweep_budgets = !o.sweep_budgets.empty() ? o.sweep_budgets
                      : gpu                    ? std::vector<double>{8, 32, 128}
                                               : std::vector<double>{1, 4, 16};
    check_positive(r.sweep_p, "the sweep's point counts");
    check_positive(r.sweep_budgets, "the sweep's budgets");
    if (o.sweep_fields < 1) impl::throw_error("the sweep's field count must be positive; got ", o.sweep_fields);
    r.sweep_fields = o.sweep_fields;
  }
  if (o.shapes != "cases" && o.shapes != "random")
    impl::throw_error("the shapes must be cases or random; got '", o.shapes, "'");
  r.random = o.shapes == "random";
  if (r.random && o.sweep) impl::throw_error("--shapes random and --sweep are two different runs: choose one");
  if (o.count < 1) impl::throw_error("the shape count must be positive; got ", o.count);
  r.count = o.count;
  r.seed = o.seed;
  return r;
}

// ---- printing --------------------------------------------------------------------------------------

// Where the human-readable lines go: standard output, or standard error when the JSON goes to
// standard output. A line starts where a progress line may stand, so that one is cleared first.
struct Out {
  std::FILE* f = stdout;
  void line(const char* fmt, ...) const __attribute__((format(printf, 2, 3)));
};

void Out::line(const char* fmt, ...) const {
  if (progress_enabled()) std::fputs("\r\033[K", stderr);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f, fmt, ap);
  va_end(ap);
  std::fflush(f);
}

// Per shape: Auto's pick against the best measured grain algorithm and the peers.
void print_summary(const Report& rep, const Out& out) {
  struct Key {
    std::string kernel, case_name, dtype;
    bool operator<(const Key& o) const {
      return std::tie(kernel, case_name, dtype) < std::tie(o.kernel, o.case_name, o.dtype);
    }
  };
  std::map<Key, std::vector<const Row*>> groups;
  std::vector<Key> order;
  for (const Row& r : rep.rows) {
    Key k{r.kernel, r.case_name, r.dtype};
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  out.line("\nAuto's pick per shape (roofline: against the run's highest ceilings; (local): the "
           "copy measured just before and after the row (CPU) or the shape (GPU), the higher, "
           "'~' where the two differ by over 1.3x; auto/best: 1.00 = Auto chose the fastest; "
           "peer/auto > 1: grain ahead):\n");
  out.line("%-18s %-10s %-6s %-16s %9s %9s %-16s %9s %9s  %s\n", "kernel", "case", "dtype", "auto",
           "roofline", "(local)", "best", "auto/best", "peer/auto", "all verified");
  for (const Key& k : order) {
    const Row* pick = nullptr;
    const Row* best = nullptr;
    const Row* peer = nullptr;
    bool all_ok = true;
    for (const Row* r : groups[k]) {
      all_ok = all_ok && r->verified;
      if (is_contract_peer(r->algorithm)) {
        peer = r;
        continue;
      }
      if (r->algorithm == "serial" || r->algorithm == "auto") continue;
      if (r->selected) pick = r;
      if (!best || r->ms < best->ms) best = r;
    }
    const double local = pick ? pick->extra_value("roofline_local") : 0.0;
    const bool moved = pick && pick->extra_value("copy_row_spread") > 1.3;
    out.line("%-18s %-10s %-6s %-16s %9.3f %8.3f%c %-16s %9.2f %9s  %s\n", k.kernel.c_str(),
             k.case_name.c_str(), k.dtype.c_str(), pick ? pick->algorithm.c_str() : "(not timed)",
             pick ? pick->roofline : 0.0, local, moved ? '~' : ' ', best ? best->algorithm.c_str() : "-",
             pick && best ? pick->ms / best->ms : 0.0,
             peer && pick ? std::to_string(peer->ms / pick->ms).substr(0, 5).c_str() : "-",
             all_ok ? "yes" : "NO");
  }
}

// ---- the suite: every kernel x case x dtype --------------------------------------------------------

void run_suite(const SuiteRun& run, Report& rep, const Out& out) {
  ShapeRequest plan;
  plan.algorithms = run.algorithms;
  plan.reps = run.reps;
  plan.verify = run.verify;
  // On the CPU each row is bracketed by copies over buffers kept for the run (note_row_copy).
  std::unique_ptr<HostCopyProbe> probe;
  if (run.backend != "cuda") {
    probe = std::make_unique<HostCopyProbe>(ceiling_copy_bytes(run.backend, run.budget_mib));
    plan.copy_probe = [&probe] { return probe->GBps(); };
  }
  Progress progress("grain bench contract", double(run.kernels.size() * run.cases.size() * run.dtypes.size()),
                    "shapes");
  for (ContractKernel k : run.kernels)
    for (const impl::ContractBenchCase& c : run.cases)
      for (const std::string& dtype : run.dtypes) {
        const SuiteShape s = suite_shape(k, c.name, c.fields, c.points, run.budget_mib, dtype);
        ShapeRequest p = plan;
        // Serial is the oracle, not a contender: timed only when asked for by name, or on small
        // host cases when every algorithm is requested.
        if (run.all_algorithms && run.backend != "cuda" && 2.0 * double(s.C) * s.L * s.R * s.K() <= 2e8)
          p.algorithms.insert(p.algorithms.begin(), contract_algorithm_name(ContractAlgorithm::Serial));
        // The copy measured just before and just after this shape: its rows' local ceiling.
        const double copy_before = rep.copy_last;
        std::vector<Row> shape_rows = measure_contract_shape(run.backend, s, dtype, run.layout_left, p);
        measure_contract_ceilings(rep, run.backend, run.budget_mib, true, false);
        for (Row& r : shape_rows) {
          if (r.extra_value("copy_GBps_local") <= 0)  // rows the probe did not bracket (GPU)
            r.extra.push_back({"copy_GBps_local", std::max(copy_before, rep.copy_last)});
          const Row& added = rep.add(r);
          if (!run.quiet)
            out.line("  %-18s %-3s %-6s %-24s %10.4f ms %8.1f GB/s %8.1f GFLOP/s  %.3f%s%s\n",
                     added.kernel.c_str(), added.case_name.c_str(), added.dtype.c_str(),
                     added.algorithm.c_str(), added.ms, added.GBps, added.GFLOPs, added.roofline,
                     added.selected ? " *auto" : "", added.verified ? "" : " (unverified)");
        }
        progress.add(1);
      }
  measure_contract_ceilings(rep, run.backend, run.budget_mib, true, true);
  out.line("\nceilings: copy %.1f GB/s, GEMM peak %.0f / %.0f GFLOP/s, the highest of the run "
           "(copy measured %d times, lowest %.1f GB/s); rooflines below use these\n",
           rep.copy_GBps, rep.peak_GFLOPs_float, rep.peak_GFLOPs_double, rep.copy_samples,
           rep.copy_GBps_lowest);
  if (progress_enabled()) std::fputs("\r\033[K", stderr);
  rep.print_table(out.f);
  std::fflush(out.f);
  print_summary(rep, out);
}

// ---- the sweep: speedup over serial across P x budget (the study's Figure 3.1) --------------------

void run_sweep(const SuiteRun& run, Report& rep, const Out& out) {
  ShapeRequest plan;
  plan.algorithms = run.algorithms;
  plan.reps = run.reps;
  plan.verify = run.verify;
  ShapeRequest host_serial;
  host_serial.algorithms = {contract_algorithm_name(ContractAlgorithm::Serial)};
  host_serial.reps = 3;
  host_serial.verify = run.verify;
  Progress progress("grain bench contract --sweep",
                    double(run.sweep_kernels.size() * run.dtypes.size() * run.sweep_budgets.size() *
                           run.sweep_p.size()),
                    "shapes");
  for (ContractKernel k : run.sweep_kernels)
    for (const std::string& dtype : run.dtypes)
      for (double budget : run.sweep_budgets)
        for (double P : run.sweep_p) {
          std::ostringstream name;
          name << "P" << std::int64_t(P) << "-" << budget << "MiB";
          const SuiteShape s = suite_shape(k, name.str(), run.sweep_fields, std::int64_t(P), budget, dtype);
          std::vector<Row> rows = measure_contract_shape(run.backend, s, dtype, run.layout_left, plan);
          // The baseline: the serial reference loops on one host core, LayoutRight (their
          // natural layout), on the same values.
          std::vector<Row> base = measure_contract_shape("serial", s, dtype, false, host_serial);
          double serial_ms = 0;
          for (Row& b : base) {
            serial_ms = b.ms;
            b.extra.push_back({"host_serial", 1.0});
            rows.push_back(b);
          }
          for (Row& r : rows) {
            if (serial_ms > 0 && r.ms > 0) r.extra.push_back({"speedup_over_serial", serial_ms / r.ms});
            rep.add(r);
          }
          progress.add(1);
          if (!run.quiet) {
            const Row* best = nullptr;
            for (const Row& r : rows)
              if (r.algorithm != "serial" && !is_contract_peer(r.algorithm) && (!best || r.ms < best->ms))
                best = &r;
            out.line("  %-18s %-6s %-16s C=%-9lld serial %9.3f ms  best %-16s %9.3f ms  x%.1f\n",
                     contract_kernel_name(k), dtype.c_str(), s.case_name.c_str(),
                     static_cast<long long>(s.C), serial_ms, best ? best->algorithm.c_str() : "-",
                     best ? best->ms : 0.0, best && best->ms > 0 ? serial_ms / best->ms : 0.0);
          }
        }
  out.line("\n%zu sweep rows (speedup_over_serial in the JSON; plot with bench/plot.py heatmap "
           "--x P --y budget_MiB --speedup-over serial)\n",
           rep.rows.size());
}

// ---- the held-out sweep: random finite-element shapes, Auto against the fastest ------------------

// A shape drawn from the generator: fields and points log-uniform (small ones are common in
// finite elements), D uniform in 1-3, L = R half the time; never one of the benchmark cases.
SuiteShape random_shape(std::mt19937_64& g, ContractKernel kernel, int index, double budget_mib,
                        const std::string& dtype) {
  auto log_uniform = [&g](double lo, double hi) {
    std::uniform_real_distribution<double> u(std::log(lo), std::log(hi + 1));
    return std::min<std::int64_t>(std::int64_t(hi), std::max<std::int64_t>(std::int64_t(lo), std::int64_t(std::exp(u(g)))));
  };
  SuiteShape s;
  s.kernel = kernel;
  const int nk = contract_kernel_contracted(kernel);
  while (true) {
    const std::int64_t fields = log_uniform(1, 300), other = log_uniform(1, 300);
    const bool same = g() % 2;
    s.R = s.right_fields() ? fields : 1;
    s.L = s.left_fields() ? (same ? fields : other) : 1;
    s.P = log_uniform(1, 400);
    s.D1 = nk >= 2 ? std::int64_t(1 + g() % 3) : 1;
    s.D2 = nk >= 3 ? std::int64_t(1 + g() % 3) : 1;
    bool benchmark_case = (nk == 1 || s.D1 == 3) && (nk < 3 || s.D2 == 3) && (!s.left_fields() || s.L == s.R);
    bool is_case = false;
    for (const impl::ContractBenchCase& c : impl::kContractBenchCases)
      is_case = is_case || (benchmark_case && (!s.right_fields() || s.R == c.fields) && s.P == c.points);
    if (!is_case) break;
  }
  // The budget sizes the larger input; the output (fields x fields a cell) is held to 32 budgets,
  // so that K = 1 cells of hundreds of fields a side do not ask for tens of GB of stores.
  const double elem = dtype == "float" ? 4.0 : 8.0;
  const double per_cell = double(std::max(s.left_cell(), s.right_cell())) * elem;
  const double out_cell = double((s.left_fields() ? s.L : 1) * (s.right_fields() ? s.R : 1)) * elem;
  s.C = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget_mib * 1048576.0 / std::max(per_cell, out_cell / 32)));
  s.case_name = "r" + std::to_string(index);
  s.budget_mib = budget_mib;
  return s;
}

// The p-quantile (0..1) of sorted values, nearest rank.
double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const std::size_t i = std::min(sorted.size() - 1, std::size_t(std::ceil(p * double(sorted.size())) - 1));
  return sorted[p <= 0 ? 0 : i];
}

void run_random(const SuiteRun& run, Report& rep, const Out& out) {
  const impl::ContractTuningOff model_only;  // Auto answers from the model alone
  ShapeRequest request;
  // Auto's own row would repeat the model's pick; the peers are not grain's algorithms.
  for (const std::string& a : run.algorithms)
    if (a != "auto" && !is_contract_peer(a)) request.algorithms.push_back(a);
  request.reps = run.reps;
  request.verify = run.verify;
  request.auto_plans = true;
  // Shapes first, from the seed alone, so that the same seed gives the same shapes whatever else
  // the run does.
  std::mt19937_64 g(run.seed);
  std::vector<std::pair<ContractKernel, int>> draws;
  for (int i = 0; i < run.count; ++i) draws.push_back({run.kernels[g() % run.kernels.size()], i});
  struct Result {
    std::string label, dtype, model, measured, best;
    double model_ratio = 0, measure_ratio = 0, planning_ms = 0;
  };
  std::vector<Result> results;
  Progress progress("grain bench contract --shapes random", double(draws.size() * run.dtypes.size()), "shapes");
  for (const std::string& dtype : run.dtypes) {
    std::mt19937_64 shape_gen(run.seed);  // the same shapes for each element type
    for (const auto& [kernel, index] : draws) {
      const SuiteShape s = random_shape(shape_gen, kernel, index, run.budget_mib, dtype);
      std::vector<Row> rows = measure_contract_shape(run.backend, s, dtype, run.layout_left, request);
      Result res;
      const Row* best = nullptr;
      const Row* model = nullptr;
      const Row* measured = nullptr;
      for (Row& r : rows) {
        r.extra.push_back({"shape_seed", double(run.seed)});
        if (r.algorithm == "serial" || is_contract_peer(r.algorithm)) continue;
        if (!best || r.ms < best->ms) best = &r;
        if (r.extra_value("model_pick") > 0) model = &r;
        if (r.extra_value("measure_pick") > 0) measured = &r;
        res.planning_ms = r.extra_value("planning_ms");
      }
      if (best && model && measured) {
        std::ostringstream label;
        label << contract_kernel_name(s.kernel) << " L=" << s.L << " R=" << s.R << " P=" << s.P;
        if (contract_kernel_contracted(s.kernel) >= 2) label << " D=" << s.D1;
        if (contract_kernel_contracted(s.kernel) >= 3) label << "x" << s.D2;
        label << " C=" << s.C;
        res.label = label.str();
        res.dtype = dtype;
        res.model = model->algorithm;
        res.measured = measured->algorithm;
        res.best = best->algorithm;
        res.model_ratio = model->ms / best->ms;
        res.measure_ratio = measured->ms / best->ms;
        results.push_back(res);
        if (!run.quiet)
          out.line("  %-6s %-52s best %-14s %9.4f ms  model %-14s x%.3f  measure %-14s x%.3f  planning %.1f ms\n",
                   dtype.c_str(), res.label.c_str(), res.best.c_str(), best->ms, res.model.c_str(), res.model_ratio,
                   res.measured.c_str(), res.measure_ratio, res.planning_ms);
      }
      for (Row& r : rows) rep.add(r);
      progress.add(1);
    }
  }
  if (progress_enabled()) std::fputs("\r\033[K", stderr);
  // The distribution per element type and over all.
  out.line("\nAuto / fastest single algorithm on %zu held-out shapes (shape seed %llu, layout %s; medians of the "
           "timed runs):\n",
           results.size(), static_cast<unsigned long long>(run.seed), run.layout_left ? "left" : "right");
  out.line("%-8s %-8s %6s %8s %8s %8s %10s %8s   %s\n", "dtype", "auto", "shapes", "median", "p90", "max",
           "within10%", "over1.3", "planning ms median / max");
  std::vector<std::string> groups = run.dtypes;
  if (groups.size() > 1) groups.push_back("all");
  for (const std::string& d : groups)
    for (const bool measure : {false, true}) {
      std::vector<double> ratios, planning;
      for (const Result& r : results)
        if (d == "all" || r.dtype == d) {
          ratios.push_back(measure ? r.measure_ratio : r.model_ratio);
          planning.push_back(r.planning_ms);
        }
      if (ratios.empty()) continue;
      std::sort(ratios.begin(), ratios.end());
      std::sort(planning.begin(), planning.end());
      const double within = double(std::count_if(ratios.begin(), ratios.end(), [](double x) { return x <= 1.1; })) /
                            double(ratios.size());
      const auto over = std::count_if(ratios.begin(), ratios.end(), [](double x) { return x > 1.3; });
      out.line("%-8s %-8s %6zu %8.3f %8.3f %8.3f %9.1f%% %8lld", d.c_str(), measure ? "measure" : "model",
               ratios.size(), quantile(ratios, 0.5), quantile(ratios, 0.9), ratios.back(), 100 * within,
               static_cast<long long>(over));
      if (measure) out.line("   %.2f / %.2f", quantile(planning, 0.5), planning.back());
      out.line("\n");
      const std::string key = d + "_" + (measure ? "measure" : "model");
      rep.summary.push_back({key + "_median", quantile(ratios, 0.5)});
      rep.summary.push_back({key + "_p90", quantile(ratios, 0.9)});
      rep.summary.push_back({key + "_max", ratios.back()});
      rep.summary.push_back({key + "_within_10pct", within});
      rep.summary.push_back({key + "_over_1_3", double(over)});
      if (measure) {
        rep.summary.push_back({key + "_planning_ms_median", quantile(planning, 0.5)});
        rep.summary.push_back({key + "_planning_ms_max", planning.back()});
      }
    }
  rep.summary.insert(rep.summary.begin(), {{"shape_seed", double(run.seed)}, {"shapes", double(run.count)}});
  std::vector<const Result*> worst;
  for (const Result& r : results) worst.push_back(&r);
  std::sort(worst.begin(), worst.end(), [](const Result* a, const Result* b) { return a->model_ratio > b->model_ratio; });
  out.line("\nthe worst ten under the model:\n");
  for (std::size_t i = 0; i < worst.size() && i < 10; ++i)
    out.line("  %-6s %-52s model %-14s x%.3f  best %-14s  measure %-14s x%.3f\n", worst[i]->dtype.c_str(),
             worst[i]->label.c_str(), worst[i]->model.c_str(), worst[i]->model_ratio, worst[i]->best.c_str(),
             worst[i]->measured.c_str(), worst[i]->measure_ratio);
}

// One back end's run: the ceilings, the suite or the sweep, the JSON.
void run_on(const ContractSuiteOptions& opt, const std::string& backend, const std::string& json) {
  const SuiteRun run = resolve(opt, backend);
  const Out out{json == "-" ? stderr : stdout};
  Report rep;
  rep.backend = backend;
  measure_contract_ceilings(rep, backend, run.budget_mib);
  out.line("grain bench contract: %s, %s, copy %.1f GB/s, GEMM peak %.0f / %.0f GFLOP/s "
           "(float / double%s%s), layout %s\n",
           rep.device.c_str(), backend.c_str(), rep.copy_GBps, rep.peak_GFLOPs_float,
           rep.peak_GFLOPs_double, rep.peak_library.empty() ? "" : "; ", rep.peak_library.c_str(),
           run.layout_left ? "left" : "right");
  if (run.sweep)
    run_sweep(run, rep, out);
  else if (run.random)
    run_random(run, rep, out);
  else
    run_suite(run, rep, out);
  if (json.empty()) return;
  rep.write_json(json);
  if (json != "-") out.line("wrote %s\n", json.c_str());
}

}  // namespace

void run_contract_suite(const ContractSuiteOptions& opt) {
  const std::string backend = opt.backend.empty() ? default_backend() : opt.backend;
  if (backend != "all") return run_on(opt, backend, opt.json);
  // Every parallel back end present (serial only where there is no other), one report each:
  // FILE.json becomes FILE-<backend>.json.
  if (opt.json == "-")
    impl::throw_error("the JSON of several back ends cannot share standard output: with back end "
                      "'all', name a file (FILE.json becomes FILE-<backend>.json)");
  std::vector<std::string> list;
  for (const std::string& b : available_backends())
    if (b != "serial") list.push_back(b);
  if (list.empty()) list.push_back("serial");
  for (const std::string& b : list) {
    std::string file = opt.json;
    if (!file.empty()) {
      const std::size_t dot = file.rfind(".json");
      file = (dot == std::string::npos ? file : file.substr(0, dot)) + "-" + b + ".json";
    }
    run_on(opt, b, file);
    std::printf("\n");
  }
}

}  // namespace grain::bench
