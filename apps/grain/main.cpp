// grain: the command-line tool. `grain help` lists the subcommands.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.hpp"
#include "common/gemm.hpp"
#include "grain/core/error.hpp"

namespace grain::cli {

bool Args::has(const std::string& flag) const {
  for (const auto& a : items)
    if (a == flag) return true;
  return false;
}

std::string Args::value(const std::string& key, const std::string& fallback) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] == key) {
      if (i + 1 >= items.size()) impl::throw_error("option ", key, " needs a value");
      return items[i + 1];
    }
  }
  return fallback;
}

long long Args::integer(const std::string& key, long long fallback) const {
  const std::string v = value(key, "");
  if (v.empty()) return fallback;
  std::size_t used = 0;
  long long out = 0;
  try {
    out = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size()) impl::throw_error("option ", key, " takes an integer, got '", v, "'");
  return out;
}

void Args::expect_only(const std::vector<std::string>& with_value,
                       const std::vector<std::string>& flags) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& a = items[i];
    bool ok = false;
    for (const auto& k : with_value)
      if (a == k) {
        ok = true;
        ++i;
      }
    for (const auto& k : flags) ok = ok || a == k;
    if (!ok) impl::throw_error("unknown argument '", a, "' (see grain help)");
  }
}

}  // namespace grain::cli

namespace {

using Handler = int (*)(const grain::cli::Args&);
struct Command {
  const char* name;   // "info", or "bench contract" for a two-word command
  Handler run;
  const char* help;
};

// Every subcommand, one line each. Handlers validate their own options.
const Command kCommands[] = {
    {"info", grain::cli::run_info, "version, back ends, GPU, threads, quick copy bandwidth [--no-bandwidth]"},
    {"bench core", grain::cli::run_bench_core, "triad and dot: grain against hand-written OpenMP/CUDA"},
    {"bench paper", grain::cli::run_bench_paper, "the 2011 paper's hex gradients and Gram-Schmidt: grain vs hand-written"},
    {"bench contract", grain::cli::run_bench_contract, "the nine contractions, every algorithm vs copy/GEMM ceilings and cuBLAS/OpenBLAS: [--kernel --case --dtype --backend --algorithm --layout --budget-mib --reps --json --sweep]"},
    {"tune", grain::cli::run_tune, "measure the contraction algorithms on this device and write the tuning file Auto reads [--backend --output --quick --budget-mib]"},
    {"cp-als", grain::cli::run_cp_als, "CP decomposition of a sparse tensor: FILE --rank R [--maxiters --tol --seed --mttkrp --backend --dtype --init --output --json]"},
    {"generate", grain::cli::run_generate, "synthetic sparse tensor: --kind random-ktensor|skewed|lowrank --dims AxBxC --nnz N --output FILE"},
    {"bench mttkrp", grain::cli::run_bench_mttkrp, "every MTTKRP algorithm per mode and CP-ALS iterations on a tensor FILE or a generated one"},
};

void usage() {
  std::puts("usage: grain <command> [options]\n\ncommands:");
  for (const auto& c : kCommands) std::printf("  %-16s %s\n", c.name, c.help);
  std::printf("  %-16s %s\n", "help", "this text");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    usage();
    return 0;
  }
  const Command* found = nullptr;
  int first_arg = 2;
  for (const auto& c : kCommands) {
    if (argc > 2 && cmd + " " + argv[2] == c.name) {
      found = &c;
      first_arg = 3;
      break;
    }
  }
  if (!found)
    for (const auto& c : kCommands)
      if (cmd == c.name) found = &c;
  if (!found) {
    std::fprintf(stderr, "grain: unknown command '%s%s%s'\n", cmd.c_str(), argc > 2 ? " " : "",
                 argc > 2 ? argv[2] : "");
    usage();
    return 2;
  }
  // The benchmarks' CPU GEMM ceiling and peer: OpenBLAS with the kernels this CPU runs.
  if (cmd == "bench") grain::bench::openblas_use_cpu_kernels(argv);
  grain::cli::Args args;
  for (int i = first_arg; i < argc; ++i) args.items.emplace_back(argv[i]);
  try {
    return found->run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grain %s: error: %s\n", found->name, e.what());
    return 1;
  }
}
