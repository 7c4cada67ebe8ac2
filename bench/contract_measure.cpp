// The contraction suite's measurements (contract_measure.hpp): one shape's rows, each algorithm
// timed on the library's operands (grain/contract/measure.hpp: the shape, the inputs by logical
// index, the timer that `grain tune` uses too) and checked against a host reference; the peers on
// row-major copies of the same values; the ceilings of the run. A portable source (compiled as
// CUDA in CUDA builds): it launches on the back end it measures.
//
// Inputs are defined by their logical index, whatever the layout, so the reference is computed on
// the host from the formula alone (no copy of the inputs) for a sample of cells.
#include "contract_measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <type_traits>

#include "common/affinity.hpp"
#include "common/ceilings.hpp"
#include "common/gemm.hpp"
#include "contract_peers.hpp"
#include "grain/contract/plan.hpp"
#include "grain/core/backends.hpp"

namespace grain::bench {

namespace {

using impl::contract_input_value;
using impl::kContractSeedLeft;
using impl::kContractSeedRight;

// ---- the host reference for a sample of cells ----------------------------------------------------

struct Reference {
  std::vector<std::int64_t> cells;
  std::vector<double> value, magnitude;  // [cell sample][l][r]: sum a*b and sum |a*b|
};

template <class T>
Reference make_reference(const impl::ContractShape& s) {
  Reference ref;
  const std::int64_t Lf = s.left_fields() ? s.L : 1, Rf = s.right_fields() ? s.R : 1, K = s.K();
  // About 3e7 multiply-adds in all; at least the first and the last cell.
  const double per_cell = double(Lf) * double(Rf) * double(K) + 1;
  const std::int64_t n = std::min<std::int64_t>(
      s.C, std::max<std::int64_t>(2, std::min<std::int64_t>(64, static_cast<std::int64_t>(3e7 / per_cell))));
  for (std::int64_t j = 0; j < n; ++j) ref.cells.push_back(n == 1 ? 0 : j * (s.C - 1) / (n - 1));
  ref.value.assign(std::size_t(n * Lf * Rf), 0.0);
  ref.magnitude.assign(ref.value.size(), 0.0);
  std::vector<double> a(std::size_t(Lf * K)), b(std::size_t(Rf * K));
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t c = ref.cells[std::size_t(j)];
    for (std::int64_t i = 0; i < Lf * K; ++i)
      a[std::size_t(i)] = double(static_cast<T>(contract_input_value(kContractSeedLeft, std::uint64_t(c * Lf * K + i))));
    for (std::int64_t i = 0; i < Rf * K; ++i)
      b[std::size_t(i)] = double(static_cast<T>(contract_input_value(kContractSeedRight, std::uint64_t(c * Rf * K + i))));
    for (std::int64_t l = 0; l < Lf; ++l)
      for (std::int64_t r = 0; r < Rf; ++r) {
        double sum = 0, mag = 0;
        const double* x = &a[std::size_t(l * K)];
        const double* y = &b[std::size_t(r * K)];
        for (std::int64_t k = 0; k < K; ++k) {
          sum += x[k] * y[k];
          mag += std::abs(x[k] * y[k]);
        }
        ref.value[std::size_t((j * Lf + l) * Rf + r)] = sum;
        ref.magnitude[std::size_t((j * Lf + l) * Rf + r)] = mag;
      }
  }
  return ref;
}

// out(c), out(c, r) or out(c, l, r) by the rank of a host View.
template <class V>
double read_out(const V& h, std::int64_t c, std::int64_t l, std::int64_t r) {
  if constexpr (V::rank == 1) {
    (void)l, (void)r;
    return double(h(c));
  } else if constexpr (V::rank == 2) {
    (void)l;
    return double(h(c, r));
  } else {
    return double(h(c, l, r));
  }
}

// Compares the sampled cells of an output View (either layout, any space) with the reference, and
// scans the whole output for non-finite values (an unwritten, NaN-poisoned entry). Tolerance
// 2 (K + 8) eps sum |a b|.
template <class V>
bool check_output(const impl::ContractShape& s, const Reference& ref, const V& out, std::string* why) {
  using T = typename V::non_const_value_type;
  typename V::HostMirror h;
  if constexpr (V::memory_space::host_accessible) {
    h = out;
  } else {
    h = create_mirror_view(out);
    deep_copy(h, out);
  }
  for (std::size_t i = 0; i < h.size(); ++i)
    if (!std::isfinite(h.data()[i])) {
      *why = "non-finite output entry " + std::to_string(i) + " (unwritten?)";
      return false;
    }
  const double tol = 2.0 * double(s.K() + 8) * double(std::numeric_limits<T>::epsilon());
  const std::int64_t Lf = s.left_fields() ? s.L : 1, Rf = s.right_fields() ? s.R : 1;
  for (std::size_t j = 0; j < ref.cells.size(); ++j)
    for (std::int64_t l = 0; l < Lf; ++l)
      for (std::int64_t r = 0; r < Rf; ++r) {
        const std::size_t at = (j * Lf + l) * Rf + r;
        const double got = read_out(h, ref.cells[j], l, r);
        const double err = std::abs(got - ref.value[at]);
        if (!(err <= tol * ref.magnitude[at] + 1e-30)) {
          std::ostringstream os;
          os << "out(" << ref.cells[j] << "," << l << "," << r << ") = " << got << ", expected "
             << ref.value[at];
          *why = os.str();
          return false;
        }
      }
  return true;
}

// ---- measuring one shape -------------------------------------------------------------------------

template <class Exec, class Types>
std::vector<Row> measure(const SuiteShape& s, const ShapeRequest& plan) {
  using T = typename Types::value_type;
  constexpr bool gpu = impl::exec_on_gpu<Exec>();
  impl::ContractOperands<Exec, Types> ops(s);
  const ContractAlgorithm pick = impl::contract_auto_algorithm(ops.problem(), ops.exec());

  Reference ref;
  bool have_ref = false;
  auto verify = [&](Row& r, const auto& out_view) {
    if (!plan.verify) return;
    if (!have_ref) ref = make_reference<T>(s);
    have_ref = true;
    std::string why;
    r.verified = check_output(s, ref, out_view, &why);
    if (!r.verified)
      std::fprintf(stderr, "grain bench contract: %s %s %s %s: WRONG RESULT: %s\n", r.kernel.c_str(),
                   s.case_name.c_str(), r.dtype.c_str(), r.algorithm.c_str(), why.c_str());
  };
  auto base_row = [&](const std::string& alg, bool layout_left) {
    Row r;
    r.kernel = contract_kernel_name(s.kernel);
    r.case_name = s.case_name;
    r.dtype = std::is_same_v<T, double> ? "double" : "float";
    r.algorithm = alg;
    r.C = s.C, r.L = s.L, r.R = s.R, r.P = s.P, r.D1 = s.D1, r.D2 = s.D2;
    r.bytes = double(ops.left.size() + ops.right.size() + ops.out.size()) * sizeof(T);
    r.flops = 2.0 * double(s.C) * double(s.L) * double(s.R) * double(s.K());
    r.extra.push_back({"budget_MiB", s.budget_mib});
    r.extra.push_back({"layout_left", layout_left ? 1.0 : 0.0});
    return r;
  };
  // Times fn into r, bracketed by the copy probe where there is one; false (with a line on
  // standard error) where the call raised.
  auto time_row = [&](Row& r, auto&& fn) {
    try {
      const double copy_before = plan.copy_probe ? plan.copy_probe() : 0.0;
      const Timing t = fn();
      r.ms = t.ms;
      r.ms_min = t.ms_min;
      if (plan.copy_probe) note_row_copy(r, copy_before, plan.copy_probe());
      r.extra.push_back({"reps", double(t.reps)});
      return true;
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "grain bench contract: %s %s %s %s failed: %s\n", r.kernel.c_str(),
                   s.case_name.c_str(), r.dtype.c_str(), r.algorithm.c_str(), ex.what());
      return false;
    }
  };

  std::vector<Row> rows;
  for (const std::string& name : plan.algorithms) {
    if (is_contract_peer(name)) continue;
    const ContractAlgorithm a = parse_contract_algorithm(name);
    if (!ops.measurable(a)) continue;
    Row r = base_row(name, std::is_same_v<typename Types::layout, LayoutLeft>);
    if (!time_row(r, [&] { return ops.time(a, plan.reps); })) continue;
    r.selected = a == pick;
    verify(r, ops.out);
    rows.push_back(r);
  }

  if (plan.auto_plans) {
    const ContractAlgorithm model = impl::contract_model_algorithm(ops.problem(), ops.exec());
    impl::contract_plan_cache_clear();
    PlanOptions popt;
    popt.tuning = Tuning::Measure;
    popt.exec = ops.exec();
    const auto measured = contract_plan(Types::kernel, ops.out, ops.left, ops.right, popt);
    impl::contract_plan_cache_clear();
    for (Row& r : rows) {
      r.extra.push_back({"model_pick", r.algorithm == contract_algorithm_name(model) ? 1.0 : 0.0});
      r.extra.push_back({"measure_pick", r.algorithm == contract_algorithm_name(measured.algorithm()) ? 1.0 : 0.0});
      r.extra.push_back({"planning_ms", measured.planning_ms()});
    }
  }

  // Peers: FieldField only, on row-major cells.
  if constexpr (Types::family == 2) {
    const std::string peer = gpu ? kPeerCublas : kPeerOpenBLAS;
    const bool wanted = std::find(plan.algorithms.begin(), plan.algorithms.end(), peer) != plan.algorithms.end();
    if (wanted && (gpu || have_openblas_peer())) {
      Row r = base_row(peer, false);  // layout_left 0: the peer always reads row-major cells
      auto run_peer = [&](const auto& rm) {
        deep_copy(rm.out, std::numeric_limits<T>::quiet_NaN());
        const T* a = rm.left.data();
        const T* b = rm.right.data();
        T* o = rm.out.data();
        const std::int64_t C = s.C, L = s.L, R = s.R, K = s.K();
        if (!time_row(r, [&] {
              if constexpr (gpu) {
#if defined(GRAIN_ENABLE_CUDA)
                return time_adaptive<Exec>([&] { cublas_strided_batched(a, b, o, C, L, R, K); }, plan.reps);
#endif
              } else {
                const int threads = Exec::concurrency();
                return time_adaptive<Exec>([&] { openblas_per_cell(a, b, o, C, L, R, K, threads); }, plan.reps);
              }
            }))
          return;
        verify(r, rm.out);
        rows.push_back(r);
      };
      if constexpr (std::is_same_v<typename Types::layout, LayoutRight>) {
        run_peer(ops);
      } else {
        // Separate row-major copies of the same values (the peer cannot read cell-fastest data);
        // the cell-fastest inputs go first, so that both never hold memory together.
        ops.left = {};
        ops.right = {};
        run_peer(impl::ContractOperands<Exec, impl::ContractTypes<T, LayoutRight, 2, Types::nk>>(s));
      }
    }
  }
  return rows;
}

}  // namespace

SuiteShape suite_shape(ContractKernel kernel, const std::string& case_name, std::int64_t fields,
                       std::int64_t P, double budget_mib, const std::string& dtype) {
  SuiteShape s;
  static_cast<impl::ContractShape&>(s) =
      impl::contract_shape_at_budget(kernel, fields, P, budget_mib, dtype == "float" ? 4 : 8);
  s.case_name = case_name;
  s.budget_mib = budget_mib;
  return s;
}

std::vector<Row> measure_contract_shape(const std::string& backend, const SuiteShape& s,
                                        const std::string& dtype, bool layout_left,
                                        const ShapeRequest& plan) {
  return with_backend(backend, [&](auto exec) {
    return impl::contract_dispatch(s.kernel, dtype == "double", layout_left, [&](auto types) {
      return measure<decltype(exec), decltype(types)>(s, plan);
    });
  });
}

std::size_t ceiling_copy_bytes(const std::string& backend, double budget_mib) {
  return static_cast<std::size_t>(std::min(1024.0, std::max(backend == "cuda" ? 256.0 : 64.0, budget_mib)) *
                                  1048576.0);
}

void measure_contract_ceilings(Report& rep, const std::string& backend, double budget_mib, bool again,
                               bool gemm) {
  const std::size_t copy_bytes = ceiling_copy_bytes(backend, budget_mib);
  double copy = 0;
  GemmPeak g{};
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (backend == "cuda") {
    rep.device = device_name<Cuda>();
    rep.threads = Cuda::concurrency();
    copy = copy_bandwidth_GBps<Cuda>(copy_bytes);
    if (gemm) g = cuda_gemm_peak(8192);
  }
#endif
  if (backend != "cuda") {
    rep.device = host_cpu_name();
    rep.threads = 1;
#if defined(GRAIN_ENABLE_OPENMP)
    if (backend == "openmp") rep.threads = OpenMP::concurrency();
#endif
    if (!again && rep.threads > 1) {
      rep.cpus = host_team_cpus(rep.threads);
      if (rep.cpus > 0 && rep.cpus < rep.threads)
        std::fprintf(stderr, "grain bench: warning: the %d threads may run on only %d CPU%s between them "
                     "(their affinity masks; see OMP_PROC_BIND, OMP_PLACES, taskset): the times "
                     "measure shared CPUs\n", rep.threads, rep.cpus, rep.cpus == 1 ? "" : "s");
    }
    copy = copy_bandwidth_GBps<Serial>(copy_bytes);
    if (gemm) g = host_gemm_peak(budget_mib < 64 ? 1024 : 2048);
    rep.peak_library = openblas_config();
  }
  rep.copy_last = copy;
  if (again) return rep.raise_ceilings(copy, g.float_GFLOPs, g.double_GFLOPs);
  rep.copy_GBps = copy;
  rep.peak_GFLOPs_float = g.float_GFLOPs;
  rep.peak_GFLOPs_double = g.double_GFLOPs;
}

}  // namespace grain::bench
