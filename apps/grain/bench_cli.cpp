// `grain bench core|paper|contract|mttkrp`: their options, over the benchmark library (bench/).
#include <string>
#include <vector>

#include "cli.hpp"
#include "common/gemm.hpp"
#include "contract_bench.hpp"
#include "core_bench.hpp"
#include "grain/cp/mttkrp.hpp"
#include "mttkrp_bench.hpp"
#include "paper_bench.hpp"

namespace grain::cli {

namespace {

// A benchmark's work. First, the CPU GEMM ceiling and peer: OpenBLAS with the kernels this CPU
// runs (which may run grain again with the same command line).
void set_bench_action(std::function<int()> work) {
  set_action([work = std::move(work)] {
    bench::openblas_use_cpu_kernels(program_argv());
    return work();
  });
}

// The list an option accepts: "all" and the names.
std::vector<std::string> with_all(std::vector<std::string> names) {
  names.insert(names.begin(), "all");
  return names;
}

void add_core(CLI::App* bench) {
  static bench::CoreBenchOptions o;
  CLI::App* cmd = bench->add_subcommand("core", "triad and dot: grain against hand-written OpenMP and CUDA loops");
  add_backend_option(cmd, o.backend, true);
  cmd->add_option("--n", o.n_host, "elements per array on the host")->check(CLI::Range(1LL, 1LL << 34));
  cmd->add_option("--gpu-n", o.n_gpu, "elements per array on the GPU")->check(CLI::Range(1LL, 1LL << 34));
  cmd->add_option("--reps", o.reps, "timed repetitions (the median is reported)")->check(CLI::Range(1, 100000));
  add_json_option(cmd, o.json, "the results");
  add_quiet_flag(cmd);
  cmd->callback([] { set_bench_action([] { return bench::run_core_bench(o), 0; }); });
}

void add_paper(CLI::App* bench) {
  static bench::PaperBenchOptions o;
  CLI::App* cmd = bench->add_subcommand(
      "paper", "the 2011 paper's hexahedral gradients and Gram-Schmidt: grain against hand-written code");
  add_backend_option(cmd, o.backend, true);
  cmd->add_option("--kernel", o.kernel, "hex (gradients), mgs (Gram-Schmidt) or all")
      ->check(CLI::IsMember({"all", "hex", "mgs"}));
  cmd->add_option("--min-n", o.min_n, "smallest problem size")->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--max-n", o.max_n, "largest problem size (0: what fits and finishes in minutes)")
      ->check(CLI::Range(0LL, 1LL << 40));
  cmd->add_option("--reps", o.reps, "timed repetitions")->check(CLI::Range(1, 100000));
  add_json_option(cmd, o.json, "the results");
  add_quiet_flag(cmd);
  cmd->callback([] { set_bench_action([] { return bench::run_paper_bench(o) ? 0 : 1; }); });
}

void add_contract(CLI::App* bench) {
  static bench::ContractSuiteOptions o;
  CLI::App* cmd = bench->add_subcommand(
      "contract", "the nine contractions, every algorithm against the copy and GEMM ceilings and cuBLAS/OpenBLAS");
  add_backend_option(cmd, o.backend, true);
  cmd->add_option("--kernel", o.kernels, "kernels, comma-separated")->delimiter(',')
      ->check(CLI::IsMember(with_all(bench::contract_suite_kernels())));
  cmd->add_option("--case", o.cases, "benchmark cases (docs/benchmarks.md), comma-separated")->delimiter(',')
      ->check(CLI::IsMember(with_all(bench::contract_suite_cases())));
  cmd->add_option("--dtype", o.dtypes, "element types (default: both; double with --sweep)")->delimiter(',')
      ->check(CLI::IsMember({"all", "float", "double"}));
  cmd->add_option("--algorithm", o.algorithms, "algorithms and peers, comma-separated")->delimiter(',')
      ->check(CLI::IsMember(with_all(bench::contract_suite_algorithms())));
  cmd->add_option("--layout", o.layout, "the Views' layout (default: left on cuda, right on the CPU)")
      ->check(CLI::IsMember({"left", "right"}));
  cmd->add_option("--budget-mib", o.budget_mib, "MiB of the larger input (default: 512 on cuda, 128 on the CPU)")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--reps", o.reps, "timed repetitions (default: 20 on cuda, 10 on the CPU)")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--no-verify{false}", o.verify, "skip the check against the host reference");
  add_json_option(cmd, o.json, "the results (docs/benchmarks.md format)");
  add_quiet_flag(cmd, "no per-row lines (the tables still print)");
  o.quiet = false;
  cmd->add_flag("--sweep", o.sweep, "the speedup-over-serial sweep across points x budget instead of the cases");
  cmd->add_option("--sweep-kernels", o.sweep_kernels, "the sweep's kernels (default: --kernel's, else the three scalar ones)")
      ->delimiter(',')->check(CLI::IsMember(bench::contract_suite_kernels()));
  cmd->add_option("--sweep-p", o.sweep_p, "the sweep's points per cell")->delimiter(',')->check(CLI::PositiveNumber);
  cmd->add_option("--sweep-budgets", o.sweep_budgets, "the sweep's budgets in MiB (default: 8,32,128 on cuda, 1,4,16 on the CPU)")
      ->delimiter(',')->check(CLI::PositiveNumber);
  cmd->add_option("--sweep-fields", o.sweep_fields, "the sweep's fields")->check(CLI::Range(1LL, 4096LL));
  cmd->add_option("--shapes", o.shapes,
                  "cases: the benchmark cases; random: the held-out sweep of random finite-element shapes "
                  "(Auto under the model and under measurement against the fastest algorithm)")
      ->check(CLI::IsMember({"cases", "random"}));
  cmd->add_option("--count", o.count, "random shapes to draw (with --shapes random)")->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", o.seed, "the random shapes' seed (with --shapes random)");
  cmd->callback([] {
    o.quiet = quiet();
    set_bench_action([] { return bench::run_contract_suite(o), 0; });
  });
}

void add_mttkrp(CLI::App* bench) {
  static bench::MttkrpBenchOptions o;
  static GeneratorArgs g;
  CLI::App* cmd = bench->add_subcommand(
      "mttkrp", "every MTTKRP algorithm per mode, and CP-ALS iterations, on a tensor FILE or a generated one");
  cmd->add_option("FILE", o.file, "the tensor (.tns, .tns.gz or binary); else give --dims and --nnz to generate one")
      ->check(CLI::ExistingFile);
  add_generator_options(cmd, g);
  cmd->add_option("--rank", o.ranks, "ranks, comma-separated")->delimiter(',')->check(CLI::Range(1, 1024));
  cmd->add_option("--reps", o.reps, "timed repetitions per algorithm")->check(CLI::Range(1, 10000));
  cmd->add_option("--cp-als-iters", o.cp_als_iters, "CP-ALS iterations timed per rank (0: none)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--tiled-rows", o.tiled_rows, "the tiled algorithm's tile height (0: from its L2 budget)")
      ->check(CLI::Range(0LL, 1LL << 31));
  cmd->add_option("--lanes", o.lanes, "vector lanes per nonzero of perm and tiled on the GPU (0: the rule)")
      ->check(CLI::Range(0, 32));
  cmd->add_option("--name", o.name, "the case's name in the report (default: the file's or generator's)");
  cmd->add_flag("--no-verify{false}", o.verify, "skip the check against the serial reference");
  cmd->add_flag("--all", o.all, "include privatized on the GPU");
  add_backend_option(cmd, o.backend);
  add_dtype_option(cmd, o.dtype);
  add_json_option(cmd, o.json, "the results");
  add_quiet_flag(cmd);
  cmd->footer("Example: grain bench mttkrp --kind skewed --dims 10000x20000x30000 --nnz 10000000 --rank 16,64");
  cmd->callback([cmd] {
    const bool generated = !g.dims.empty() || cmd->count("--kind") > 0 || cmd->count("--nnz") > 0;
    if (!o.file.empty() && generated)
      throw CLI::ValidationError("FILE", "give a tensor FILE or generator options (--kind, --dims, --nnz), not both");
    if (o.file.empty()) {
      if (g.dims.empty()) throw CLI::RequiredError("a tensor FILE, or --dims and --nnz to generate one");
      o.gen = generator_options(g);
    }
    set_bench_action([] { return bench::run_mttkrp_bench(o), 0; });
  });
}

}  // namespace

void add_bench_commands(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "benchmarks: core, paper, contract, mttkrp");
  bench->require_subcommand(1);
  add_core(bench);
  add_paper(bench);
  add_contract(bench);
  add_mttkrp(bench);
}

}  // namespace grain::cli
