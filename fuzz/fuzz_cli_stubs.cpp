// The grain tool's runners, for the command-line fuzz target only. The target parses lines with
// main_entry(..., run_action = false), so no runner ever runs: each stand-in traps, which
// libFuzzer reports as a crash, should one be reached. The option lists that the App is built
// from are the real ones (bench/contract_suite_names.cpp).
// A runner that a *_cli.cpp file starts to call needs a stand-in here.
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/gemm.hpp"
#include "contract_bench.hpp"
#include "contract_measure.hpp"
#include "core_bench.hpp"
#include "grain/contract/explain.hpp"
#include "grain/contract/tune.hpp"
#include "mttkrp_bench.hpp"
#include "paper_bench.hpp"

namespace grain {

ContractTuneResult contract_tune(const ContractTuneOptions&, const std::function<void(const std::string&)>&) {
  __builtin_trap();
}
std::string contract_tune_summary(const ContractTuneResult&) { __builtin_trap(); }
ContractShapeSpec parse_contract_shape(ContractKernel, const std::string&) { __builtin_trap(); }
ContractExplanation contract_explain(const ContractShapeSpec&, const std::string&) { __builtin_trap(); }
std::string contract_explain_text(const ContractExplanation&) { __builtin_trap(); }

namespace cli {
int run_info(bool) { __builtin_trap(); }
int run_cp_als(const CpAlsCommand&) { __builtin_trap(); }
int run_generate(const GenerateCommand&) { __builtin_trap(); }
int run_score(const ScoreCommand&) { __builtin_trap(); }
int run_gcp(const GcpCommand&) { __builtin_trap(); }
}  // namespace cli

namespace bench {
void openblas_use_cpu_kernels(char**) { __builtin_trap(); }
void run_core_bench(const CoreBenchOptions&) { __builtin_trap(); }
bool run_paper_bench(const PaperBenchOptions&) { __builtin_trap(); }
void run_contract_suite(const ContractSuiteOptions&) { __builtin_trap(); }
void run_mttkrp_bench(const MttkrpBenchOptions&) { __builtin_trap(); }
}  // namespace bench

}  // namespace grain
