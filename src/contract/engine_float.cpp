// The contraction engine instantiated for float on every back end of this build (compiled as CUDA
// in CUDA builds, see grain_portable_sources in the top CMakeLists.txt).
#include "grain/contract/engine_impl.hpp"

namespace grain::impl {

ContractAlgorithm contract_run(const ContractProblem<float>& p, ContractAlgorithm a, ContractExec e) {
  return contract_run_impl(p, a, e);
}

}  // namespace grain::impl
