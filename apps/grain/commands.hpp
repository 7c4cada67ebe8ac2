// The grain command-line tool: one function per subcommand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grain::cp {
struct CpAlsResult;
}

namespace grain::cli {

// Arguments after the subcommand name, with small helpers for --flag and --key value.
struct Args {
  std::vector<std::string> items;
  bool has(const std::string& flag) const;
  // The value after `key`, or `fallback` when absent; raises grain::Error if `key` ends the line.
  std::string value(const std::string& key, const std::string& fallback) const;
  long long integer(const std::string& key, long long fallback) const;
  // Flags not in `known` (each a --key taking a value unless listed in `flags`) raise grain::Error.
  void expect_only(const std::vector<std::string>& with_value,
                   const std::vector<std::string>& flags) const;
};

// The back end a command takes when --backend is not given: cuda when a device is visible, else
// openmp when grain was built with it, else serial (cp_commands.cpp).
std::string default_backend();

int run_info(const Args& args);
int run_bench_core(const Args& args);  // bench/core_bench.cpp
int run_bench_paper(const Args& args);  // bench/paper_bench.cpp
int run_bench_contract(const Args& args);  // bench/contract_bench.cpp
int run_tune(const Args& args);            // bench/contract_bench.cpp
int run_cp_als(const Args& args);        // cp_commands.cpp
int run_generate(const Args& args);      // cp_commands.cpp
int run_bench_mttkrp(const Args& args);  // cp_commands.cpp

// What `grain cp-als --json` records besides the result (cp_json.cpp).
struct CpAlsRunInfo {
  std::string file, backend, dtype;
  std::vector<long long> dims;
  long long nnz = 0;
  int rank = 0;
  std::uint64_t seed = 0;
};
void write_cp_als_json(const std::string& path, const CpAlsRunInfo& run, const cp::CpAlsResult& res);

}  // namespace grain::cli
