// The names the contraction suite's list options accept (contract_bench.hpp), in a file of their
// own: the command line builds its options from them, and the fuzz target links them without the
// suite.
#include "contract_bench.hpp"
#include "contract_measure.hpp"

namespace grain::bench {

std::vector<std::string> contract_suite_kernels() {
  std::vector<std::string> v;
  for (ContractKernel k : kAllContractKernels) v.push_back(contract_kernel_name(k));
  return v;
}

std::vector<std::string> contract_suite_cases() {
  std::vector<std::string> v;
  for (const impl::ContractBenchCase& c : impl::kContractBenchCases) v.push_back(c.name);
  return v;
}

std::vector<std::string> contract_suite_algorithms() {
  std::vector<std::string> v{contract_algorithm_name(ContractAlgorithm::Auto)};
  for (ContractAlgorithm a : kAllContractAlgorithms) v.push_back(contract_algorithm_name(a));
  v.push_back(kPeerOpenBLAS);
  v.push_back(kPeerCublas);
  return v;
}

}  // namespace grain::bench
