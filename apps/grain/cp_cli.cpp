// `grain cp-als`, `grain generate` and `grain score`: their options (the runners are in
// cp_commands.cpp and score.cpp).
#include <fstream>

#include "cli.hpp"
#include "commands.hpp"
#include "grain/cp/checkpoint.hpp"
#include "grain/cp/mttkrp.hpp"

namespace grain::cli {

namespace {

// Which of the settings a checkpoint records were given on the command line.
struct GivenOptions {
  bool rank, dtype, maxiters, tol, mttkrp, seed;
};

// --resume FILE: the rank and the element type are the checkpoint's (given ones must agree), and
// so are --maxiters, --tol, --mttkrp and --seed unless given. Runs with the action, not the parse:
// it reads the file.
void settle_resume(CpAlsCommand& c, const GivenOptions& given) {
  const cp::CpAlsCheckpoint k = cp::read_checkpoint(c.resume, /*header_only=*/true);
  const std::string dtype = k.value_bytes == 4 ? "float" : "double";
  const auto contradiction = [&](const std::string& option, const std::string& value, const std::string& saved) {
    return CLI::ValidationError(option, value + " contradicts the checkpoint " + c.resume + " (" + saved + ")");
  };
  if (given.rank && c.rank != k.rank)
    throw contradiction("--rank", std::to_string(c.rank), "rank " + std::to_string(k.rank));
  if (given.dtype && c.dtype != dtype) throw contradiction("--dtype", c.dtype, dtype);
  c.rank = k.rank;
  c.dtype = dtype;
  if (!given.maxiters) c.maxiters = k.maxiters;
  if (!given.tol) c.tol = k.tol;
  if (!given.mttkrp) c.mttkrp = k.mttkrp;
  if (!given.seed) c.seed = k.seed;
}

void add_cp_als(CLI::App& app) {
  static CpAlsCommand c;
  static GeneratorArgs gen;
  static std::vector<long long> gen_dims;
  CLI::App* cmd = app.add_subcommand("cp-als", "CP decomposition of a sparse tensor by alternating least squares");
  CLI::Option* file = cmd->add_option("FILE", c.file, "the tensor: .tns, .tns.gz (FROSTT text) or grain's binary form")
                          ->check(CLI::ExistingFile);
  // A generated tensor instead of FILE: under mpirun each rank generates only its share.
  CLI::Option* generate =
      cmd->add_option("--generate", gen.kind, "decompose a generated tensor instead of FILE: random-ktensor, skewed "
                                              "or lowrank (with --gen-dims, --gen-nnz; as `grain generate` makes)")
          ->check(CLI::IsMember({"random-ktensor", "skewed", "lowrank"}))
          ->excludes(file);
  cmd->add_option("--gen-dims", gen_dims, "the generated tensor's mode sizes")->delimiter('x')->type_name("AxBxC")
      ->check(CLI::PositiveNumber)->needs(generate);
  cmd->add_option("--gen-nnz", gen.gen.samples, "coordinates to draw, repeats summed")
      ->check(CLI::Range(1LL, 1LL << 40))->needs(generate);
  cmd->add_option("--gen-rank", gen.gen.rank, "components of the generating model")
      ->check(CLI::Range(1, 4096))->needs(generate);
  cmd->add_option("--gen-skew", gen.gen.skew, "skewed: power-law exponent")->check(CLI::Range(0.0, 10.0))->needs(generate);
  cmd->add_option("--gen-seed", gen.gen.seed, "the generator's seed")->check(CLI::Range(0ULL, 1ULL << 62))
      ->needs(generate);
  cmd->add_option("--comm-timeout", c.comm_timeout,
                  "across ranks or GPUs: seconds a collective waits for the others before every rank stops")
      ->check(CLI::Range(1.0, 1e7));
  cmd->add_option("--gpus", c.gpus,
                  "one process over GPUs 0..N-1 (NCCL, a thread per GPU, each with its share of the nonzeros)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--rank,-r", c.rank, "components R (required unless --resume gives it)")
      ->check(CLI::Range(1, 1024))->default_str("");
  cmd->add_option("--maxiters", c.maxiters, "iterations at most, counting those before a --resume")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--tol", c.tol, "stop when the fit changes by less")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", c.seed, "random start's seed")->check(CLI::Range(0ULL, 1ULL << 62));
  std::vector<std::string> algorithms;
  for (cp::MttkrpAlgorithm a : cp::kAllMttkrpAlgorithms) algorithms.push_back(cp::mttkrp_algorithm_name(a));
  cmd->add_option("--mttkrp", c.mttkrp, "MTTKRP algorithm (auto: chosen per mode)")
      ->check(CLI::IsMember(algorithms));
  cmd->add_option("--solve", c.solve,
                  "where a GPU run solves the R x R systems: device (cuSOLVER, beside the MTTKRP), host "
                  "(LAPACK, while the MTTKRP runs); auto: device above rank 256")
      ->check(CLI::IsMember({"auto", "host", "device"}));
  add_backend_option(cmd, c.backend);
  add_dtype_option(cmd, c.dtype);
  cmd->add_option("--init", c.init,
                  "the start: random (uniform [0, 1) entries from --seed), nvecs (the leading singular vectors of "
                  "each mode's unfolding), or the PREFIX of factor files written by --output")
      ->type_name("random|nvecs|PREFIX")->default_str("random");
  cmd->add_option("--starts", c.starts,
                  "runs from seeds --seed, --seed + 1, ..., on the tensor read and sorted once; the best fit is kept")
      ->check(CLI::Range(1, 10000));
  cmd->add_flag("--nonnegative", c.nonnegative,
                "non-negative CP: HALS column updates, every factor entry >= 0 (nvecs starts take magnitudes)");
  cmd->add_option("--output", c.output, "write the factors to PREFIX_lambda.txt, PREFIX_mode<n>.txt")
      ->type_name("PREFIX");
  add_json_option(cmd, c.json, "the run's summary and per-iteration fit");
  CLI::Option* checkpoint =
      cmd->add_option("--checkpoint", c.checkpoint,
                      "save the run's state to FILE (atomically) every --checkpoint-every iterations, at the end, "
                      "and when SIGINT or SIGTERM stops it")
          ->type_name("FILE");
  cmd->add_option("--checkpoint-every", c.checkpoint_every, "iterations between checkpoints")
      ->check(CLI::Range(1, 1000000))->needs(checkpoint);
  cmd->add_option("--resume", c.resume,
                  "continue the run saved in FILE by --checkpoint, on the same tensor; its rank, element type and "
                  "options apply unless given")
      ->type_name("FILE")->check(CLI::ExistingFile)->excludes(cmd->get_option("--init"));
  static std::vector<long long> dims;
  cmd->add_option("--dims", dims, "mode sizes, for a .tns whose largest indices are not the sizes")
      ->delimiter('x')->type_name("AxBxC")->check(CLI::PositiveNumber);
  cmd->add_flag("--compact", c.compact,
                "decompose over the indices the nonzeros use (each mode renumbered densely); the factor files "
                "then give each row's original index first");
  add_quiet_flag(cmd);
  cmd->footer("Example: grain cp-als tensor.tns --rank 16 --json -");
  cmd->callback([cmd] {
    if (!dims.empty()) c.dims = checked_dims(dims, "--dims");
    const auto given = [cmd](const char* option) { return cmd->count(option) > 0; };
    if (!given("FILE") && !given("--generate")) throw CLI::RequiredError("FILE (or --generate KIND)");
    c.generated = given("--generate");
    if (c.generated) {
      if (gen_dims.empty()) throw CLI::RequiredError("--gen-dims AxBxC (the generated tensor's sizes)");
      if (gen.kind != "lowrank" && gen.gen.samples < 1) throw CLI::RequiredError("--gen-nnz N (coordinates to draw)");
      gen.dims = gen_dims;
      c.gen = generator_options(gen);
      c.file = std::string("generated ") + gen.kind;
      if (given("--resume") || given("--checkpoint") || given("--compact") || given("--dims"))
        throw CLI::ValidationError("--generate", "a generated tensor goes without --checkpoint, --resume, --compact "
                                                 "and --dims (--gen-dims gives its sizes)");
    }
    if (c.resume.empty() && !given("--rank")) throw CLI::RequiredError("--rank");
    const bool from_files = !c.init.empty() && c.init != "random" && c.init != "nvecs";
    if (c.starts > 1 && from_files)
      throw CLI::ValidationError("--starts", std::to_string(c.starts) + " starts need --init random or nvecs: the files '" +
                                             c.init + "' give one start");
    if (c.starts > 1 && (given("--checkpoint") || given("--resume")))
      throw CLI::ValidationError("--starts", "a checkpoint holds one run: --starts cannot go with --checkpoint or --resume");
    if (c.nonnegative && (given("--checkpoint") || given("--resume")))
      throw CLI::ValidationError("--nonnegative", "checkpoints do not record it: --nonnegative cannot go with "
                                                  "--checkpoint or --resume");
    if (from_files && !std::ifstream(c.init + "_mode1.txt").good())
      throw CLI::ValidationError("--init", "'" + c.init + "' is not random, nvecs, or the PREFIX of factor files (" +
                                               c.init + "_mode1.txt cannot be read)");
    const GivenOptions g{given("--rank"), given("--dtype"), given("--maxiters"),
                         given("--tol"),  given("--mttkrp"), given("--seed")};
    set_action([g] {
      if (!c.resume.empty()) settle_resume(c, g);
      return run_cp_als(c);
    });
  });
}

void add_generate(CLI::App& app) {
  static GenerateCommand c;
  static GeneratorArgs g;
  CLI::App* cmd = app.add_subcommand("generate", "a synthetic sparse tensor, written to a file");
  add_generator_options(cmd, g);
  cmd->add_option("--output,-o", c.output,
                  "the file: .tns or .tns.gz for FROSTT text, any other name for grain's binary form")
      ->required();
  add_dtype_option(cmd, c.dtype);
  add_quiet_flag(cmd);
  cmd->footer("Example: grain generate --kind skewed --dims 1000x2000x3000 --nnz 1000000 --output t.tns");
  cmd->callback([] {
    c.gen = generator_options(g);
    set_action([] { return run_generate(c); });
  });
}

void add_score(CLI::App& app) {
  static ScoreCommand c;
  CLI::App* cmd = app.add_subcommand(
      "score", "the factor match score of two CP models (1: the same components up to order and scaling)");
  cmd->add_option("A", c.a, "the first model's PREFIX, as cp-als --output writes it (PREFIX_lambda.txt, "
                            "PREFIX_mode<n>.txt)")
      ->required();
  cmd->add_option("B", c.b, "the second model's PREFIX")->required();
  cmd->add_flag("--ignore-weights", c.ignore_weights,
                "compare the factors only (no penalty for different weights)");
  add_json_option(cmd, c.json, "the score and the pairs");
  cmd->footer("Example: grain score truth run --json -");
  cmd->callback([] { set_action([] { return run_score(c); }); });
}

}  // namespace

void add_cp_commands(CLI::App& app) {
  add_generate(app);
  add_cp_als(app);
  add_score(app);
}

}  // namespace grain::cli
