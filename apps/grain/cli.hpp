// The grain tool's command line (CLI11): what every command group shares. Host C++ only: the
// option definitions never pass through nvcc; each group hands plain values to its runner.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "grain/sparse/generate.hpp"

namespace grain::cli {

// The chosen command's work. Commands set it from their CLI11 callback and main() runs it after
// the whole line has parsed, so that a usage error (exit 2) never follows part of the work.
void set_action(std::function<int()> action);

// --quiet on any command: no progress line, and whatever else the command documents.
void add_quiet_flag(CLI::App* cmd, const std::string& also = "");
bool quiet();

// The command line as main() received it (a benchmark may run the program again with it).
char** program_argv();

// The whole tool (main.cpp): builds the App, parses the line and, when `run_action`, runs the
// chosen command. Returns the exit status: 0, 1 for a failed run, 2 for a usage error. Without
// `run_action` it returns after the parse (and any --help or --version text) with the work not
// done, which is how the fuzz target (fuzz/fuzz_cli.cpp) parses lines.
int main_entry(int argc, char** argv, bool run_action = true);

// --backend NAME. Empty (the default) means the fastest available back end at run time.
// `with_all` also accepts "all" (every available back end, one after another).
CLI::Option* add_backend_option(CLI::App* cmd, std::string& backend, bool with_all = false);
// --dtype float|double (default double).
CLI::Option* add_dtype_option(CLI::App* cmd, std::string& dtype);
// --json FILE, "-" for standard output.
CLI::Option* add_json_option(CLI::App* cmd, std::string& json, const std::string& what);

// What `grain generate` and `grain bench mttkrp` take to build a synthetic tensor.
struct GeneratorArgs {
  GenerateOptions gen;
  std::string kind = "random-ktensor";
  std::vector<long long> dims;  // --dims AxBxC
};
// Adds --kind --dims --nnz --gen-rank --skew --support --seed.
void add_generator_options(CLI::App* cmd, GeneratorArgs& g);
// The options as the library takes them; raises CLI::ValidationError for a missing --nnz or bad
// dimensions (usage errors).
GenerateOptions generator_options(const GeneratorArgs& g);

// Dimensions from --dims, checked by the library's rules (CLI::ValidationError naming `option`).
std::vector<long long> checked_dims(const std::vector<long long>& dims, const std::string& option);

// The command groups, one source file each.
void add_cp_commands(CLI::App& app);      // cp_cli.cpp: cp-als, generate, score
void add_bench_commands(CLI::App& app);   // bench_cli.cpp: bench core|paper|contract|mttkrp
void add_tune_command(CLI::App& app);     // tune_cli.cpp
void add_gcp_command(CLI::App& app);      // gcp_cli.cpp
void add_contract_command(CLI::App& app);  // contract_cli.cpp

}  // namespace grain::cli
