// Timing a plan's candidates (include/grain/contract/plan.hpp). A portable source (compiled as CUDA
// in CUDA builds): it runs the engine on the back end it plans for and fences there.
#include "grain/contract/plan.hpp"

#include <limits>

#include "grain/contract/measure.hpp"

namespace grain::impl {

namespace {

// A candidate slower than this many times the fastest so far after its first timed run is not
// repeated: planning then costs a few runs of the fast candidates plus one of each slow one.
constexpr double kPlanCutFactor = 4.0;

template <class Exec, class T>
std::vector<PlanTiming> time_on_exec(const ContractProblem<T>& p, ContractExec e,
                                     const std::vector<ContractAlgorithm>& candidates, int reps) {
  std::vector<PlanTiming> out;
  double best = std::numeric_limits<double>::infinity();
  for (ContractAlgorithm a : candidates) {
    auto run = [&] { contract_run(p, a, e); };
    PlanTiming t;
    t.algorithm = a;
    // On the GPU one untimed run first (a kernel's first launch loads its module, sets attributes,
    // makes handles); on the CPU the first run is timed: a slow candidate then costs one run.
    t.ms = time_on<Exec>(run, 1, exec_on_gpu<Exec>() ? 1 : 0).ms_min;
    t.cut = t.ms > kPlanCutFactor * best;
    if (!t.cut) t.ms = std::min(t.ms, time_on<Exec>(run, reps, 0).ms_min);
    best = std::min(best, t.ms);
    out.push_back(t);
  }
  return out;
}

template <class T>
std::vector<PlanTiming> time_candidates(const ContractProblem<T>& p, ContractExec e,
                                        const std::vector<ContractAlgorithm>& candidates, int reps) {
  switch (e) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
    case ContractExec::Cuda: return time_on_exec<Cuda>(p, e, candidates, reps);
#endif
#if defined(GRAIN_ENABLE_OPENMP)
    case ContractExec::OpenMP: return time_on_exec<OpenMP>(p, e, candidates, reps);
#endif
    case ContractExec::Serial: return time_on_exec<Serial>(p, e, candidates, reps);
    default: break;
  }
  throw_error(p.function, ": back end ", contract_exec_name(e), " is not built in");
}

}  // namespace

std::vector<PlanTiming> contract_time_candidates(const ContractProblem<float>& p, ContractExec e,
                                                 const std::vector<ContractAlgorithm>& candidates, int reps) {
  return time_candidates(p, e, candidates, reps);
}
std::vector<PlanTiming> contract_time_candidates(const ContractProblem<double>& p, ContractExec e,
                                                 const std::vector<ContractAlgorithm>& candidates, int reps) {
  return time_candidates(p, e, candidates, reps);
}

}  // namespace grain::impl
