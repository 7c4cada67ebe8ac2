// Plans: the algorithm for one contraction shape chosen once, then reused for every later call,
// as FFTW's planner and cuDNN's benchmark mode do.
//
//   grain::PlanOptions opt;
//   opt.tuning = grain::Tuning::Measure;                  // time the model's top candidates
//   auto plan = grain::plan_field_field_scalar(out, left, right, opt);
//   for (...) plan(out, left, right);                     // no choice, no timing
//
// Tuning::Model (the default) never times: the plan takes Auto's answer (a measured winner for the
// shape class where this process or the tuning file has one, else the model of model.hpp).
// Tuning::Measure takes a measured winner where there is one, else times the model's top
// `candidates` on the given Views, keeps the fastest in the process-wide cache keyed by shape class
// (tuning.hpp's key: device, back end, kernel, element type, layout, ceil(log2) of L, R, K and C)
// and, with `save`, adds it to the tuning file. Plain contract_* calls of that shape class then
// use it too. Measuring runs the contraction on the given Views: `out` holds a result of one of
// the runs afterwards (fill it after planning when sum_into is set).
//
// A plan is tied to the extents, strides, layout, element type and back end it was made for;
// calling it with other Views raises grain::Error naming what differs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "grain/contract/contract.hpp"
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/select.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/core/error.hpp"

namespace grain {

enum class Tuning {
  Model,   // Auto's answer, never timed
  Measure  // the model's top candidates timed once per shape class
};

struct PlanOptions {
  Tuning tuning = Tuning::Model;
  ContractExec exec = ContractExec::Auto;  // as ContractOptions::exec
  bool sum_into = false;                   // the plan's calls add into out
  int candidates = 0;                      // Measure: how many of the model's ranking (0: 4)
  int reps = 0;                            // Measure: timed runs each, the minimum decides (0: 3)
  bool save = false;                       // Measure: add the winner to the tuning file
  std::string tuning_file;                 // with save: the file ("": the one Auto reads)
};

namespace impl {

// One candidate's measurement: its minimum time, and whether it was cut after its first run
// (slower than 4 times the fastest so far: not worth the repetitions).
struct PlanTiming {
  ContractAlgorithm algorithm = ContractAlgorithm::Auto;
  double ms = 0;
  bool cut = false;
};

// Times `candidates` in order on back end `e` (src/contract/plan.cpp): a run each, then `reps`
// more for those within 4x of the fastest so far. Raises what the runs raise.
std::vector<PlanTiming> contract_time_candidates(const ContractProblem<float>& p, ContractExec e,
                                                 const std::vector<ContractAlgorithm>& candidates, int reps);
std::vector<PlanTiming> contract_time_candidates(const ContractProblem<double>& p, ContractExec e,
                                                 const std::vector<ContractAlgorithm>& candidates, int reps);

// The geometry a plan is tied to.
template <class T>
bool contract_same_geometry(const ContractProblem<T>& a, const ContractProblem<T>& b) {
  for (int i = 0; i < 3; ++i)
    if (a.x[i] != b.x[i] || a.ax[i] != b.ax[i] || a.bx[i] != b.bx[i]) return false;
  return a.kernel == b.kernel && a.C == b.C && a.L == b.L && a.R == b.R && a.K == b.K && a.a_c == b.a_c &&
         a.a_l == b.a_l && a.b_c == b.b_c && a.b_r == b.b_r && a.o_c == b.o_c && a.o_l == b.o_l && a.o_r == b.o_r;
}

}  // namespace impl

template <class T>
class ContractPlan {
 public:
  ContractKernel kernel() const { return problem_.kernel; }
  ContractAlgorithm algorithm() const { return algorithm_; }
  ContractExec exec() const { return exec_; }
  // Where the algorithm came from: "model", "plan cache", "measured", or the tuning file's path.
  const std::string& source() const { return source_; }
  // Measure: the planning's wall time (ms) and each candidate timed; empty where nothing was timed.
  double planning_ms() const { return planning_ms_; }
  const std::vector<impl::PlanTiming>& timings() const { return timings_; }
  // The model's ranking the candidates came from (best first).
  const std::vector<ContractAlgorithm>& ranking() const { return ranking_; }

  // Runs the plan's algorithm. grain::Error when the Views are not those the plan was made for.
  template <class Out, class Left, class Right>
  void operator()(const Out& out, const Left& left, const Right& right) const {
    static_assert(std::is_same_v<typename Out::non_const_value_type, T>,
                  "grain::ContractPlan: out's element type is not the plan's");
    const char* fn = contract_function_name(problem_.kernel);
    ContractOptions opt;
    opt.sum_into = problem_.sum_into;
    const impl::ContractProblem<T> p = contract_problem(problem_.kernel, out, left, right, opt);
    const ContractExec e = impl::contract_resolve_exec<typename Out::memory_space>(fn, requested_);
    if (e != exec_)
      impl::throw_error("grain::ContractPlan (", contract_kernel_name(problem_.kernel), "): made for back end ",
                        contract_exec_name(exec_), ", called with Views that run on ", contract_exec_name(e));
    if (!impl::contract_same_geometry(p, problem_))
      impl::throw_error("grain::ContractPlan (", contract_kernel_name(problem_.kernel), "): made for out ", shapes_[0],
                        ", left ", shapes_[1], ", right ", shapes_[2], " (", layout_of(problem_), "); called with out ",
                        out.shape(), ", left ", left.shape(), ", right ", right.shape(), " (", layout_of(p),
                        "): make a plan for these Views");
    impl::contract_run(p, algorithm_, e);
  }

  // The strides a plan compares, in words: the layout where it is one of the two, else the strides.
  static std::string layout_of(const impl::ContractProblem<T>& q) {
    if (q.cells_unit() && q.C > 1) return "cells fastest: LayoutLeft";
    if (q.k_unit() || q.K <= 1) return "contracted index fastest: LayoutRight";
    return "cell stride " + std::to_string(q.a_c) + ", contracted strides " + std::to_string(q.a_s1) + "/" +
           std::to_string(q.a_s0);
  }

  // What contract_plan decided (it is the constructor's one caller).
  struct Made {
    ContractAlgorithm algorithm = ContractAlgorithm::Auto;
    std::string source;
    double planning_ms = 0;
    std::vector<impl::PlanTiming> timings;
    std::vector<ContractAlgorithm> ranking;
  };
  ContractPlan(const impl::ContractProblem<T>& p, ContractExec requested, ContractExec e,
               const std::string (&shapes)[3], Made made)
      : problem_(p),
        requested_(requested),
        exec_(e),
        shapes_{shapes[0], shapes[1], shapes[2]},
        algorithm_(made.algorithm),
        source_(std::move(made.source)),
        planning_ms_(made.planning_ms),
        timings_(std::move(made.timings)),
        ranking_(std::move(made.ranking)) {
    problem_.a = problem_.b = nullptr;  // the Views come with each call
    problem_.out = nullptr;
  }

 private:
  impl::ContractProblem<T> problem_;
  ContractExec requested_ = ContractExec::Auto, exec_ = ContractExec::Auto;
  std::string shapes_[3];
  ContractAlgorithm algorithm_ = ContractAlgorithm::Auto;
  std::string source_;
  double planning_ms_ = 0;
  std::vector<impl::PlanTiming> timings_;
  std::vector<ContractAlgorithm> ranking_;
};

// A plan for contract_<kernel>(out, left, right) (the named plan_* functions below call it).
// Raises what the call would raise for these Views (extents, aliasing, back end), and grain::Error
// for candidates or reps below 0.
template <class Out, class Left, class Right>
ContractPlan<typename Out::non_const_value_type> contract_plan(ContractKernel kernel, const Out& out,
                                                               const Left& left, const Right& right,
                                                               const PlanOptions& opt = {}) {
  using T = typename Out::non_const_value_type;
  if (opt.candidates < 0 || opt.reps < 0)
    impl::throw_error("grain::contract_plan: candidates and reps must be >= 0 (0: the default); got ",
                      opt.candidates, " and ", opt.reps);
  ContractOptions copt;
  copt.sum_into = opt.sum_into;
  const impl::ContractProblem<T> p = contract_problem(kernel, out, left, right, copt);
  const ContractExec e = impl::contract_resolve_exec<typename Out::memory_space>(contract_function_name(kernel), opt.exec);
  const std::string shapes[3] = {out.shape(), left.shape(), right.shape()};
  const impl::ContractModelDecision d =
      impl::contract_model_decide(impl::contract_facts(p, e), impl::contract_applicable_mask(p, e));
  typename ContractPlan<T>::Made made;
  made.ranking = d.ranking;

  const ContractAlgorithm tuned = impl::contract_tuned_algorithm(p, e, &made.source);
  if (tuned != ContractAlgorithm::Auto && !impl::contract_inapplicable_reason(p, tuned, e)) {
    made.algorithm = tuned;
  } else if (opt.tuning == Tuning::Model) {
    made.algorithm = d.pick;
    made.source = "model";
  } else {
    const std::size_t n =
        std::min<std::size_t>(d.ranking.size(), opt.candidates > 0 ? std::size_t(opt.candidates) : 4);
    const std::vector<ContractAlgorithm> top(d.ranking.begin(), d.ranking.begin() + std::ptrdiff_t(n));
    const auto t0 = std::chrono::steady_clock::now();
    made.timings = impl::contract_time_candidates(p, e, top, opt.reps > 0 ? opt.reps : 3);
    made.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const impl::PlanTiming* best = nullptr;
    for (const impl::PlanTiming& t : made.timings)
      if (!best || t.ms < best->ms) best = &t;
    made.algorithm = best ? best->algorithm : d.pick;
    made.source = "measured";
    ContractTuningEntry entry;
    entry.key = impl::contract_tuning_key_of(p, e);
    entry.algorithm = made.algorithm;
    entry.ms = best ? best->ms : 0;
    impl::contract_plan_cache_set(entry);
    if (opt.save) impl::contract_tuning_save_entry(entry, opt.tuning_file);
  }
  return ContractPlan<T>(p, opt.exec, e, shapes, std::move(made));
}

#define GRAIN_CONTRACT_PLAN(NAME, KERNEL)                                                                   \
  template <class Out, class Left, class Right>                                                             \
  ContractPlan<typename Out::non_const_value_type> NAME(const Out& out, const Left& left, const Right& right, \
                                                        const PlanOptions& opt = {}) {                     \
    return contract_plan(ContractKernel::KERNEL, out, left, right, opt);                                   \
  }
GRAIN_CONTRACT_PLAN(plan_data_data_scalar, DataDataScalar)
GRAIN_CONTRACT_PLAN(plan_data_data_vector, DataDataVector)
GRAIN_CONTRACT_PLAN(plan_data_data_tensor, DataDataTensor)
GRAIN_CONTRACT_PLAN(plan_data_field_scalar, DataFieldScalar)
GRAIN_CONTRACT_PLAN(plan_data_field_vector, DataFieldVector)
GRAIN_CONTRACT_PLAN(plan_data_field_tensor, DataFieldTensor)
GRAIN_CONTRACT_PLAN(plan_field_field_scalar, FieldFieldScalar)
GRAIN_CONTRACT_PLAN(plan_field_field_vector, FieldFieldVector)
GRAIN_CONTRACT_PLAN(plan_field_field_tensor, FieldFieldTensor)
#undef GRAIN_CONTRACT_PLAN

}  // namespace grain
