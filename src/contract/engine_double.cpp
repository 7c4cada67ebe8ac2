// The contraction engine instantiated for double on every back end of this build (compiled as CUDA
// in CUDA builds, see grain_portable_sources in the top CMakeLists.txt).
#include "grain/contract/engine_impl.hpp"

namespace grain::impl {

ContractAlgorithm contract_run(const ContractProblem<double>& p, ContractAlgorithm a, ContractExec e) {
  return contract_run_impl(p, a, e);
}

}  // namespace grain::impl
