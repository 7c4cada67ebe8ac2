// The contraction tuning file: the measured winner per device, back end and shape class, written by
// `grain tune` and read by Algorithm::Auto (select.hpp) before it falls back to its model.
//
// Format (plain text, one entry per line, fields separated by TABs; '#' starts a comment line):
//
//   grain-contract-tuning 2
//   # device  backend  kernel  dtype  layout  L  R  K  C  algorithm  ms
//   NVIDIA H100 80GB HBM3  cuda  FieldFieldScalar  double  left  3  3  3  19  flat  0.412
//
// L, R, K and C are shape classes, contract_shape_class(n) = ceil(log2(n)) (0 for n <= 1): the
// benchmark cases Q1..Q4 have L = R = 3, 5, 6, 7. `layout` is "left" when the cells are the
// unit-stride index of both inputs (LayoutLeft), else "right". `ms` is informative only.
//
// The same keys index the process-wide cache of measured plans (plan.hpp): Auto consults that
// cache first, then the file, then its model.
//
// Where Auto looks: $GRAIN_TUNING_FILE when set (the value "off" disables tuning), else
// $XDG_CONFIG_HOME/grain/contract-tuning.txt, else $HOME/.config/grain/contract-tuning.txt.
// A missing default file is normal and silent. A file named by GRAIN_TUNING_FILE that is missing,
// a malformed file, a file of another version, or a file with no entry for this device and back
// end is ignored with one warning on stderr; Auto then uses its model. Never an error.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"

namespace grain {

// ceil(log2(n)), 0 for n <= 1.
int contract_shape_class(index_type n);

struct ContractTuningKey {
  std::string device;   // "NVIDIA H100 80GB HBM3", or the CPU model name
  std::string backend;  // "cuda" | "openmp" | "serial"
  std::string kernel;   // contract_kernel_name(), e.g. "FieldFieldScalar"
  std::string dtype;    // "float" | "double"
  std::string layout;   // "left" | "right"
  int l_class = 0, r_class = 0, k_class = 0, c_class = 0;

  auto tie() const {
    return std::tie(device, backend, kernel, dtype, layout, l_class, r_class, k_class, c_class);
  }
  bool operator<(const ContractTuningKey& o) const { return tie() < o.tie(); }
  bool operator==(const ContractTuningKey& o) const { return tie() == o.tie(); }
};

struct ContractTuningEntry {
  ContractTuningKey key;
  ContractAlgorithm algorithm = ContractAlgorithm::Auto;
  double ms = 0;  // the winner's median time when measured (informative)
};

class ContractTuningTable {
 public:
  static constexpr int kVersion = 2;
  static constexpr const char* kMagic = "grain-contract-tuning";

  // Parses the text format. Raises grain::Error naming `source`:line for a wrong header or
  // version, a wrong number of fields, an unknown kernel, dtype, layout, back end or algorithm,
  // a bad number, or a duplicated key.
  static ContractTuningTable parse(std::istream& in, const std::string& source);
  // Reads a file (grain::Error if it cannot be opened, or as parse()).
  static ContractTuningTable load(const std::string& path);

  void write(std::ostream& out) const;
  // Writes the file (creating its directory); grain::Error if it cannot be written.
  void save(const std::string& path) const;

  // Adds or replaces an entry.
  void set(const ContractTuningEntry& e);
  // Removes every entry of one device and back end (before re-tuning it).
  void erase(const std::string& device, const std::string& backend);
  const ContractTuningEntry* find(const ContractTuningKey& k) const;
  bool has(const std::string& device, const std::string& backend) const;
  std::size_t size() const { return entries_.size(); }
  std::vector<ContractTuningEntry> entries() const;

 private:
  std::map<ContractTuningKey, ContractTuningEntry> entries_;
};

// The file Auto reads (see the top of this header); empty when tuning is off.
// `from_env` tells whether it came from GRAIN_TUNING_FILE.
std::string contract_tuning_path(bool* from_env = nullptr);

// The device name a tuning entry is keyed by for back end `e` (the GPU's name for Cuda, the CPU
// model name from /proc/cpuinfo otherwise).
std::string contract_tuning_device(ContractExec e);

// The shape class key of a call (device and back end included).
ContractTuningKey contract_tuning_key(ContractKernel kernel, const std::string& dtype,
                                      bool cells_fastest, index_type L, index_type R, index_type K,
                                      index_type C, ContractExec e);

namespace impl {

// Auto's lookup: the measured algorithm for this call's shape class, from the plan cache or else
// the tuning file, or ContractAlgorithm::Auto when there is none. Loads the file once per process
// (thread-safe) and warns at most once per problem. `source` (optional) receives where the
// answer came from: "plan cache", the file's path, or "" for none.
ContractAlgorithm contract_tuned_algorithm(ContractKernel kernel, bool is_double,
                                           bool cells_fastest, index_type L, index_type R,
                                           index_type K, index_type C, ContractExec e,
                                           std::string* source = nullptr);

template <class T>
ContractTuningKey contract_tuning_key_of(const ContractProblem<T>& p, ContractExec e) {
  return contract_tuning_key(p.kernel, std::is_same_v<T, double> ? "double" : "float", p.cells_fastest(), p.L, p.R,
                             p.K, p.C, e);
}

template <class T>
ContractAlgorithm contract_tuned_algorithm(const ContractProblem<T>& p, ContractExec e,
                                           std::string* source = nullptr) {
  return contract_tuned_algorithm(p.kernel, std::is_same_v<T, double>, p.cells_fastest(), p.L,
                                  p.R, p.K, p.C, e, source);
}

// The process-wide cache of measured plans (plan.hpp), keyed as the tuning file.
ContractAlgorithm contract_plan_cache_find(const ContractTuningKey& k);
void contract_plan_cache_set(const ContractTuningEntry& e);
void contract_plan_cache_clear();
std::size_t contract_plan_cache_size();
// Adds `e` to the tuning file at `path` ("" the file Auto reads), keeping its other entries (a
// file that is missing or unreadable is started afresh), and makes Auto read the file again.
// grain::Error when there is no file to write or it cannot be written.
void contract_tuning_save_entry(const ContractTuningEntry& e, const std::string& path);

// Sets GRAIN_TUNING_FILE=off and empties the plan cache for its lifetime, so that Auto answers
// from the model alone (`grain tune` and the held-out sweep measure the model against the
// algorithms), then puts back the caller's value; the loaded file is forgotten both times.
class ContractTuningOff {
 public:
  ContractTuningOff();
  ~ContractTuningOff();
  ContractTuningOff(const ContractTuningOff&) = delete;
  ContractTuningOff& operator=(const ContractTuningOff&) = delete;

 private:
  bool had_ = false;
  std::string value_;
};

// For tests and `grain tune`: forget the loaded file so the next lookup reads the environment
// again; `device_override` (when non-empty) replaces the device name of every back end.
void contract_tuning_reset(const std::string& device_override = "");

}  // namespace impl
}  // namespace grain
