// contract_tune (include/grain/contract/tune.hpp): every applicable algorithm timed per shape
// class, the fastest recorded in the tuning file. A portable source (compiled as CUDA in CUDA
// builds): it fills inputs and times algorithms on the back end it tunes.
#include "grain/contract/tune.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "grain/contract/measure.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/core/backends.hpp"
#include "grain/core/progress.hpp"

namespace grain {

namespace {

// One shape's measurements: each measurable algorithm's minimum time, and Auto's choice.
struct ShapeTimes {
  ContractAlgorithm model = ContractAlgorithm::Auto;
  std::vector<std::pair<ContractAlgorithm, double>> ms_min;
};

template <class Exec>
ShapeTimes time_shape(const impl::ContractShape& s, bool is_double, bool layout_left, int reps) {
  return impl::contract_dispatch(s.kernel, is_double, layout_left, [&](auto types) {
    const impl::ContractOperands<Exec, decltype(types)> ops(s);
    ShapeTimes out;
    out.model = impl::contract_auto_algorithm(ops.problem(), ops.exec());
    for (ContractAlgorithm a : kAllContractAlgorithms) {
      // The serial loops are the oracle, never a contender.
      if (a == ContractAlgorithm::Serial || !ops.measurable(a)) continue;
      try {
        out.ms_min.push_back({a, ops.time(a, reps).ms_min});
      } catch (const std::exception& ex) {
        std::fprintf(stderr, "grain tune: warning: %s %s C=%lld: %s failed, left out: %s\n",
                     contract_kernel_name(s.kernel), is_double ? "double" : "float",
                     static_cast<long long>(s.C), contract_algorithm_name(a), ex.what());
      }
    }
    return out;
  });
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string s(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(&s[0], s.size() + 1, fmt, again);
  va_end(again);
  return s;
}

}  // namespace

ContractTuneResult contract_tune(const ContractTuneOptions& opt,
                                 const std::function<void(const std::string&)>& log) {
  ContractTuneResult res;
  res.backend = opt.backend.empty() ? default_backend() : opt.backend;
  check_backend(res.backend);
  const bool gpu = res.backend == "cuda";
  const bool layout_left = impl::contract_layout_left(opt.layout, res.backend);
  if (!(opt.budget_mib >= 0) || !std::isfinite(opt.budget_mib))
    impl::throw_error("grain::contract_tune: budget_mib must be positive (0: the default); got ", opt.budget_mib);
  if (opt.reps < 0) impl::throw_error("grain::contract_tune: reps must be positive (0: the default); got ", opt.reps);
  const double budget = opt.budget_mib > 0 ? opt.budget_mib : (gpu ? 128 : 16);
  const int reps = opt.reps > 0 ? opt.reps : (gpu ? 10 : 5);
  const std::vector<ContractKernel> kernels =
      opt.kernels.empty() ? std::vector<ContractKernel>(std::begin(kAllContractKernels), std::end(kAllContractKernels))
                          : opt.kernels;
  const std::vector<std::string> dtypes =
      opt.dtypes.empty() ? std::vector<std::string>{"float", "double"} : opt.dtypes;
  for (const std::string& d : dtypes)
    if (d != "float" && d != "double")
      impl::throw_error("grain::contract_tune: dtype must be float or double; got '", d, "'");

  // Shapes (fields, points): the benchmark cases, then unless `quick` every pair of the lists.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  for (const impl::ContractBenchCase& c : impl::kContractBenchCases) shapes.push_back({c.fields, c.points});
  if (!opt.quick)
    for (std::int64_t f : opt.fields)
      for (std::int64_t p : opt.points) {
        if (f < 1 || p < 1)
          impl::throw_error("grain::contract_tune: field and point counts must be positive; got ", f,
                            " fields, ", p, " points");
        shapes.push_back({f, p});
      }

  res.auto_path = contract_tuning_path();
  res.path = opt.path.empty() ? res.auto_path : opt.path;
  if (res.path.empty())
    impl::throw_error("grain::contract_tune: no tuning file to write: name one (GRAIN_TUNING_FILE is 'off')");
  res.auto_reads_it = res.path == res.auto_path;

  const impl::ContractTuningOff tuning_off;
  // Keep the other devices' and back ends' entries of an existing file.
  ContractTuningTable table;
  try {
    table = ContractTuningTable::load(res.path);
  } catch (const std::exception&) {
    table = ContractTuningTable();  // absent or unreadable: start afresh
  }
  const ContractExec exec = gpu ? ContractExec::Cuda
                                : res.backend == "openmp" ? ContractExec::OpenMP : ContractExec::Serial;
  res.device = contract_tuning_device(exec);
  table.erase(res.device, res.backend);

  // A line of the account, on a line of its own where a progress line is drawn.
  auto say = [&](const std::string& line) {
    if (!log) return;
    if (progress_enabled()) std::fputs("\r\033[K", stderr);
    log(line);
  };
  say(format("grain tune: %s, %s, layout %s, budget %g MiB, %zu shapes x %zu kernels x %zu dtypes -> %s",
             res.device.c_str(), res.backend.c_str(), layout_left ? "left" : "right", budget, shapes.size(),
             kernels.size(), dtypes.size(), res.path.c_str()));

  Progress progress("grain tune", double(kernels.size() * dtypes.size() * shapes.size()), "shapes");
  with_backend(res.backend, [&](auto exec_tag) {
    using Exec = decltype(exec_tag);
    for (ContractKernel k : kernels)
      for (const std::string& dtype : dtypes)
        for (const auto& [fields, P] : shapes) {
          const impl::ContractShape s =
              impl::contract_shape_at_budget(k, fields, P, budget, dtype == "float" ? 4 : 8);
          const ContractTuningKey key =
              contract_tuning_key(k, dtype, layout_left && s.C > 1, s.L, s.R, s.K(), s.C, exec);
          if (table.find(key)) {  // this shape class is measured already
            progress.add(1);
            continue;
          }
          const ShapeTimes t = time_shape<Exec>(s, dtype == "double", layout_left, reps);
          progress.add(1);
          // The winner by minimum time: robust to interference on a shared machine.
          const std::pair<ContractAlgorithm, double>* best = nullptr;
          double model_ms = 0;
          for (const auto& m : t.ms_min) {
            if (!best || m.second < best->second) best = &m;
            if (m.first == t.model) model_ms = m.second;
          }
          if (!best) continue;
          ContractTuningEntry e;
          e.key = key;
          e.algorithm = best->first;
          e.ms = best->second;
          table.set(e);
          ++res.entries;
          if (e.algorithm != t.model) ++res.changed;
          say(format("  %-18s %-6s L=%-4lld R=%-4lld K=%-5lld C=%-8lld best %-16s %9.4f ms  "
                     "(untuned pick %s %.4f ms; minimum times)",
                     contract_kernel_name(k), dtype.c_str(), (long long)s.L, (long long)s.R,
                     (long long)s.K(), (long long)s.C, contract_algorithm_name(e.algorithm), e.ms,
                     contract_algorithm_name(t.model), model_ms));
        }
    return 0;
  });
  table.save(res.path);
  return res;
}

std::string contract_tune_summary(const ContractTuneResult& r) {
  std::string s = format("grain tune: wrote %d entries for %s (%s) to %s; the tuned choice differs from "
                         "the untuned Auto in %d of them\n",
                         r.entries, r.device.c_str(), r.backend.c_str(), r.path.c_str(), r.changed);
  if (r.auto_reads_it)
    s += "Auto reads it from now on (it is the file Auto looks for)\n";
  else
    s += "Auto reads it with GRAIN_TUNING_FILE=" + r.path + " (the default path is " +
         (r.auto_path.empty() ? std::string("(off)") : r.auto_path) + ")\n";
  return s;
}

}  // namespace grain
