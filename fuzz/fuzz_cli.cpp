// The grain tool's command line (apps/grain): the input split at NUL bytes into arguments after
// "grain", parsed by main_entry without running the command (run_action = false). Usage errors
// (exit status 2) and failed validations (1) are expected outcomes; a crash, a sanitizer report
// or an exception out of main_entry is a finding.
//
// The commands keep their option values in static storage (apps/grain/*_cli.cpp), as the tool
// parses one line per process: a value given by an earlier input stays when a later one leaves
// its option out. Each outcome is still one of the above, but reproduce a finding with the
// inputs before it (libFuzzer's crash file alone may parse differently).
#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"grain"};
  std::size_t start = 0;
  for (std::size_t i = 0; i < size; ++i)
    if (data[i] == 0) {
      args.emplace_back(reinterpret_cast<const char*>(data) + start, i - start);
      start = i + 1;
    }
  if (start < size) args.emplace_back(reinterpret_cast<const char*>(data) + start, size - start);
  if (args.size() > 64) return 0;   // longer lines add nothing that shorter ones do not reach
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int status = grain::cli::main_entry(static_cast<int>(args.size()), argv.data(), false);
  if (status != 0 && status != 1 && status != 2) __builtin_trap();
  return 0;
}
