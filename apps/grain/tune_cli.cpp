// `grain tune`: its options, over the library's contract_tune (include/grain/contract/tune.hpp),
// which measures the algorithms and writes the tuning file Auto reads.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "grain/contract/tune.hpp"

namespace grain::cli {

void add_tune_command(CLI::App& app) {
  static ContractTuneOptions o;
  static std::vector<std::string> kernels, dtypes;
  CLI::App* cmd = app.add_subcommand(
      "tune", "measure the contraction algorithms on this device and write the tuning file Auto reads");
  add_backend_option(cmd, o.backend);
  cmd->add_option("--output,-o", o.path, "the tuning file (default: the file Auto reads, docs/benchmarks.md)")
      ->type_name("FILE");
  cmd->add_flag("--quick", o.quick, "the four benchmark cases only");
  cmd->add_option("--budget-mib", o.budget_mib, "MiB of the larger input (default: 128 on cuda, 16 on the CPU)")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--reps", o.reps, "timed repetitions (default: 10 on cuda, 5 on the CPU)")->check(CLI::Range(1, 100000));
  std::vector<std::string> kernel_names;
  for (ContractKernel k : kAllContractKernels) kernel_names.push_back(contract_kernel_name(k));
  cmd->add_option("--kernel", kernels, "kernels, comma-separated (default: all nine)")->delimiter(',')
      ->check(CLI::IsMember(kernel_names));
  cmd->add_option("--dtype", dtypes, "element types (default: float,double)")->delimiter(',')
      ->check(CLI::IsMember({"float", "double"}));
  cmd->add_option("--layout", o.layout, "the Views' layout (default: left on cuda, right on the CPU)")
      ->check(CLI::IsMember({"left", "right"}));
  cmd->add_option("--fields", o.fields, "fields per shape, comma-separated (without --quick)")->delimiter(',')
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--points", o.points, "points per shape, comma-separated (without --quick)")->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  add_quiet_flag(cmd, "no per-shape lines");
  cmd->callback([] {
    o.kernels.clear();
    for (const std::string& k : kernels) o.kernels.push_back(parse_contract_kernel(k));
    o.dtypes = dtypes;
    set_action([] {
      const ContractTuneResult r = contract_tune(o, [](const std::string& line) {
        if (!quiet()) {
          std::printf("%s\n", line.c_str());
          std::fflush(stdout);
        }
      });
      std::fputs(contract_tune_summary(r).c_str(), stdout);
      return 0;
    });
  });
}

}  // namespace grain::cli
