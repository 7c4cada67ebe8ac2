// `grain gcp`: its options (host C++: CLI11 never passes through nvcc). The runner is in
// gcp_commands.cpp, the --json summary in cp_json.cpp.
#include "cli.hpp"
#include "commands.hpp"
#include "grain/cp/gcp.hpp"

namespace grain::cli {

void add_gcp_command(CLI::App& app) {
  static GcpCommand c;
  static std::vector<long long> dims;
  CLI::App* cmd = app.add_subcommand(
      "gcp", "generalized CP of a sparse tensor by stochastic gradients (a loss for counts, binary or positive data)");
  cmd->add_option("FILE", c.file, "the tensor: .tns, .tns.gz (FROSTT text) or grain's binary form")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--rank,-r", c.rank, "components R")->required()->check(CLI::Range(1, 1024));
  std::vector<std::string> losses;
  for (cp::GcpLoss l : cp::kAllGcpLosses) losses.push_back(cp::gcp_loss_name(l));
  cmd->add_option("--loss", c.loss,
                  "gaussian (real values), poisson (counts; non-negative factors), poisson-log (counts, log link), "
                  "bernoulli (0/1 data; non-negative factors, the odds), bernoulli-logit (0/1, logit link), gamma "
                  "or rayleigh (positive data)")
      ->check(CLI::IsMember(losses));
  cmd->add_option("--epochs", c.epochs, "epochs at most")->check(CLI::Range(1, 1000000));
  cmd->add_option("--iters", c.iters, "steps an epoch")->check(CLI::Range(1, 100000000));
  cmd->add_option("--samples", c.samples,
                  "nonzeros and as many uniform indices sampled for each step's gradient (default: max(1000, "
                  "nnz / 1000))")
      ->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--loss-samples", c.loss_samples,
                  "nonzeros and as many uniform indices in the fixed set that estimates the loss after each epoch "
                  "(default: max(10^5, nnz / 10), at most 10^7)")
      ->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--rate", c.rate, "Adam's step size (divided by 10 after an epoch that raised the loss)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-fails", c.max_fails, "epochs that raised the loss before the run stops")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", c.seed, "the random start's and the samples' seed")->check(CLI::Range(0ULL, 1ULL << 62));
  add_backend_option(cmd, c.backend);
  add_dtype_option(cmd, c.dtype);
  cmd->add_option("--output", c.output, "write the factors to PREFIX_lambda.txt, PREFIX_mode<n>.txt")
      ->type_name("PREFIX");
  add_json_option(cmd, c.json, "the run's summary and per-epoch loss");
  cmd->add_option("--dims", dims, "mode sizes, for a .tns whose largest indices are not the sizes")
      ->delimiter('x')->type_name("AxBxC")->check(CLI::PositiveNumber);
  cmd->footer("Example: grain gcp counts.tns --rank 16 --loss poisson --output model");
  cmd->callback([] {
    if (!dims.empty()) c.dims = checked_dims(dims, "--dims");
    set_action([] { return run_gcp(c); });
  });
}

}  // namespace grain::cli
