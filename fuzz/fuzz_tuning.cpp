// The contraction tuning file (grain::ContractTuningTable::parse). Malformed text must raise
// grain::Error; a table that parses must write and parse again to the same entries.
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>

#include "grain/contract/tuning.hpp"
#include "grain/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  grain::ContractTuningTable t;
  try {
    t = grain::ContractTuningTable::parse(in, "fuzz-tuning.txt");
  } catch (const std::exception&) {
    return 0;  // grain::Error: the expected outcome of a malformed file
  }
  std::stringstream out;
  t.write(out);
  const grain::ContractTuningTable u = grain::ContractTuningTable::parse(out, "rewritten");
  const auto a = t.entries(), b = u.entries();
  if (a.size() != b.size()) __builtin_trap();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].key == b[i].key) || a[i].algorithm != b[i].algorithm) __builtin_trap();
  return 0;
}
