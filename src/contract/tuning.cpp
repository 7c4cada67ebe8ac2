// The contraction tuning file (include/grain/contract/tuning.hpp): parsing, writing, and the
// cached lookup behind Algorithm::Auto. Host-only code.
#include "grain/contract/tuning.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include "grain/core/error.hpp"

#if defined(GRAIN_ENABLE_CUDA)
#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain {

int contract_shape_class(index_type n) {
  int c = 0;
  while (c < 62 && (index_type(1) << c) < n) ++c;
  return c;
}

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\r' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\r' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

int parse_class(const std::string& s, const std::string& where, const char* what) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s.c_str(), &end, 10);
  // The whole field is the number: strtol stops at a NUL byte inside the string too.
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || v < 0 || v > 62)
    impl::throw_error(where, ": shape class ", what, " must be an integer 0..62, got '", s, "'");
  return static_cast<int>(v);
}

}  // namespace

ContractTuningTable ContractTuningTable::parse(std::istream& in, const std::string& source) {
  ContractTuningTable t;
  std::string line;
  int n = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = source + ":" + std::to_string(n);
    const std::string s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    if (!header) {
      std::istringstream hs(s);
      std::string magic;
      int version = -1;
      hs >> magic >> version;
      if (magic != kMagic)
        impl::throw_error(where, ": not a grain contraction tuning file (expected the header '",
                          kMagic, " ", kVersion, "', got '", s, "')");
      if (version != kVersion)
        impl::throw_error(where, ": tuning file version ", version, ", this grain reads version ",
                          kVersion, " (re-run grain tune)");
      header = true;
      continue;
    }
    std::vector<std::string> f = split_tabs(s);
    if (f.size() != 11)
      impl::throw_error(where, ": expected 11 TAB-separated fields (device, backend, kernel, dtype, "
                        "layout, L, R, K, C, algorithm, ms), got ", f.size());
    ContractTuningEntry e;
    e.key.device = trim(f[0]);
    e.key.backend = trim(f[1]);
    e.key.kernel = trim(f[2]);
    e.key.dtype = trim(f[3]);
    e.key.layout = trim(f[4]);
    if (e.key.device.empty()) impl::throw_error(where, ": empty device name");
    if (e.key.backend != "cuda" && e.key.backend != "openmp" && e.key.backend != "serial")
      impl::throw_error(where, ": unknown back end '", e.key.backend, "' (cuda, openmp, serial)");
    bool kernel_ok = false;
    for (ContractKernel k : kAllContractKernels) kernel_ok = kernel_ok || e.key.kernel == contract_kernel_name(k);
    if (!kernel_ok) impl::throw_error(where, ": unknown kernel '", e.key.kernel, "'");
    if (e.key.dtype != "float" && e.key.dtype != "double")
      impl::throw_error(where, ": unknown dtype '", e.key.dtype, "' (float, double)");
    if (e.key.layout != "left" && e.key.layout != "right")
      impl::throw_error(where, ": unknown layout '", e.key.layout, "' (left, right)");
    e.key.l_class = parse_class(trim(f[5]), where, "L");
    e.key.r_class = parse_class(trim(f[6]), where, "R");
    e.key.k_class = parse_class(trim(f[7]), where, "K");
    e.key.c_class = parse_class(trim(f[8]), where, "C");
    const std::string alg = trim(f[9]);
    try {
      e.algorithm = parse_contract_algorithm(alg);
    } catch (const Error&) {
      impl::throw_error(where, ": unknown algorithm '", alg, "'");
    }
    if (e.algorithm == ContractAlgorithm::Auto)
      impl::throw_error(where, ": the algorithm must be a concrete one, not 'auto'");
    const std::string ms = trim(f[10]);
    char* end = nullptr;
    e.ms = std::strtod(ms.c_str(), &end);
    if (ms.empty() || end != ms.c_str() + ms.size() || !(e.ms >= 0))
      impl::throw_error(where, ": the time must be a number >= 0, got '", ms, "'");
    if (t.find(e.key)) impl::throw_error(where, ": duplicate entry for this device and shape class");
    t.set(e);
  }
  if (!header) impl::throw_error(source, ": empty tuning file (no '", kMagic, " ", kVersion, "' header)");
  return t;
}

ContractTuningTable ContractTuningTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) impl::throw_error("cannot open tuning file '", path, "': ", std::strerror(errno));
  return parse(in, path);
}

void ContractTuningTable::write(std::ostream& out) const {
  out << kMagic << ' ' << kVersion << '\n';
  out << "# written by `grain tune`; read by grain's contraction Auto (grain/contract/tuning.hpp)\n";
  out << "# device\tbackend\tkernel\tdtype\tlayout\tL\tR\tK\tC\talgorithm\tms"
         "   (L, R, K, C: ceil(log2(extent)))\n";
  for (const auto& [k, e] : entries_) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.6g", e.ms);
    out << k.device << '\t' << k.backend << '\t' << k.kernel << '\t' << k.dtype << '\t' << k.layout
        << '\t' << k.l_class << '\t' << k.r_class << '\t' << k.k_class << '\t' << k.c_class << '\t'
        << contract_algorithm_name(e.algorithm) << '\t' << ms << '\n';
  }
}

void ContractTuningTable::save(const std::string& path) const {
  // Create the parent directories (one level at a time), ignoring those that exist.
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1))
    ::mkdir(path.substr(0, slash).c_str(), 0755);
  std::ofstream out(path);
  if (!out) impl::throw_error("cannot write tuning file '", path, "': ", std::strerror(errno));
  write(out);
  out.close();
  if (!out) impl::throw_error("cannot write tuning file '", path, "'");
}

void ContractTuningTable::set(const ContractTuningEntry& e) {
  for (char c : e.key.device)
    if (c == '\t' || c == '\n')
      impl::throw_error("tuning entry: the device name must not contain tabs or newlines");
  entries_[e.key] = e;
}

void ContractTuningTable::erase(const std::string& device, const std::string& backend) {
  for (auto it = entries_.begin(); it != entries_.end();)
    it = (it->first.device == device && it->first.backend == backend) ? entries_.erase(it) : std::next(it);
}

const ContractTuningEntry* ContractTuningTable::find(const ContractTuningKey& k) const {
  const auto it = entries_.find(k);
  return it == entries_.end() ? nullptr : &it->second;
}

bool ContractTuningTable::has(const std::string& device, const std::string& backend) const {
  for (const auto& [k, e] : entries_)
    if (k.device == device && k.backend == backend) return true;
  return false;
}

std::vector<ContractTuningEntry> ContractTuningTable::entries() const {
  std::vector<ContractTuningEntry> v;
  for (const auto& [k, e] : entries_) v.push_back(e);
  return v;
}

std::string contract_tuning_path(bool* from_env) {
  if (from_env) *from_env = false;
  if (const char* env = std::getenv("GRAIN_TUNING_FILE")) {
    if (from_env) *from_env = true;
    const std::string v = env;
    if (v == "off" || v == "OFF" || v == "0" || v == "none") return {};
    if (!v.empty()) return v;
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return std::string(xdg) + "/grain/contract-tuning.txt";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.config/grain/contract-tuning.txt";
  return {};
}

namespace {

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown CPU";
}

struct TuningState {
  std::mutex mutex;
  bool loaded = false;
  bool usable = false;
  std::string path;
  ContractTuningTable table;
  std::string device_override;
  std::string host_name, gpu_name;
  std::set<std::string> warned;              // back ends already warned about
  std::map<std::string, bool> has_backend;   // does the file cover this device and back end?
  ContractTuningTable plans;                 // measured in this process (plan.hpp)
};

TuningState& state() {
  static TuningState s;
  return s;
}

void warn(const std::string& what) {
  std::fprintf(stderr, "grain: warning: %s; Auto uses its model\n", what.c_str());
}

// Called with the mutex held.
void load_locked(TuningState& s) {
  if (s.loaded) return;
  s.loaded = true;
  s.usable = false;
  bool from_env = false;
  s.path = contract_tuning_path(&from_env);
  if (s.path.empty()) return;
  struct stat st;
  if (::stat(s.path.c_str(), &st) != 0) {
    if (from_env) warn("GRAIN_TUNING_FILE='" + s.path + "' does not exist");
    return;
  }
  try {
    s.table = ContractTuningTable::load(s.path);
    s.usable = true;
  } catch (const std::exception& e) {
    warn(std::string("ignoring the tuning file: ") + e.what());
  }
}

std::string device_locked(TuningState& s, ContractExec e) {
  if (!s.device_override.empty()) return s.device_override;
  if (e == ContractExec::Cuda) {
#if defined(GRAIN_ENABLE_CUDA)
    // No GPU (explaining the CUDA model on a CPU machine): no entry can match.
    if (s.gpu_name.empty()) s.gpu_name = impl::cuda_device_count() > 0 ? impl::cuda_device().name : "no GPU";
    return s.gpu_name;
#else
    return "no GPU";
#endif
  }
  if (s.host_name.empty()) s.host_name = host_cpu_model();
  return s.host_name;
}

}  // namespace

std::string contract_tuning_device(ContractExec e) {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return device_locked(s, e);
}

ContractTuningKey contract_tuning_key(ContractKernel kernel, const std::string& dtype,
                                      bool cells_fastest, index_type L, index_type R, index_type K,
                                      index_type C, ContractExec e) {
  ContractTuningKey k;
  k.device = contract_tuning_device(e);
  k.backend = contract_exec_name(e);
  k.kernel = contract_kernel_name(kernel);
  k.dtype = dtype;
  k.layout = cells_fastest ? "left" : "right";
  k.l_class = contract_shape_class(L);
  k.r_class = contract_shape_class(R);
  k.k_class = contract_shape_class(K);
  k.c_class = contract_shape_class(C);
  return k;
}

namespace impl {

ContractAlgorithm contract_tuned_algorithm(ContractKernel kernel, bool is_double,
                                           bool cells_fastest, index_type L, index_type R,
                                           index_type K, index_type C, ContractExec e,
                                           std::string* source) {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (source) source->clear();
  ContractTuningKey k;
  k.device = device_locked(s, e);
  k.backend = contract_exec_name(e);
  k.kernel = contract_kernel_name(kernel);
  k.dtype = is_double ? "double" : "float";
  k.layout = cells_fastest ? "left" : "right";
  k.l_class = contract_shape_class(L);
  k.r_class = contract_shape_class(R);
  k.k_class = contract_shape_class(K);
  k.c_class = contract_shape_class(C);
  if (const ContractTuningEntry* planned = s.plans.find(k)) {
    if (source) *source = "plan cache";
    return planned->algorithm;
  }
  load_locked(s);
  if (!s.usable) return ContractAlgorithm::Auto;
  auto cached = s.has_backend.find(k.backend);
  if (cached == s.has_backend.end())
    cached = s.has_backend.emplace(k.backend, s.table.has(k.device, k.backend)).first;
  if (!cached->second) {
    if (s.warned.insert(k.backend).second)
      warn("the tuning file '" + s.path + "' has no entries for device '" + k.device +
           "' and back end " + k.backend + " (run `grain tune` on this machine)");
    return ContractAlgorithm::Auto;
  }
  const ContractTuningEntry* hit = s.table.find(k);
  if (hit && source) *source = s.path;
  return hit ? hit->algorithm : ContractAlgorithm::Auto;
}

ContractAlgorithm contract_plan_cache_find(const ContractTuningKey& k) {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const ContractTuningEntry* e = s.plans.find(k);
  return e ? e->algorithm : ContractAlgorithm::Auto;
}

void contract_plan_cache_set(const ContractTuningEntry& e) {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.plans.set(e);
}

void contract_plan_cache_clear() {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.plans = ContractTuningTable();
}

std::size_t contract_plan_cache_size() {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.plans.size();
}

void contract_tuning_save_entry(const ContractTuningEntry& e, const std::string& path) {
  const std::string file = path.empty() ? contract_tuning_path() : path;
  if (file.empty())
    throw_error("grain: no tuning file to save the plan to: name one (GRAIN_TUNING_FILE is 'off')");
  ContractTuningTable t;
  try {
    t = ContractTuningTable::load(file);
  } catch (const std::exception&) {
    t = ContractTuningTable();  // missing or unreadable: started afresh
  }
  t.set(e);
  t.save(file);
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.loaded = false;  // Auto reads the file again
  s.usable = false;
  s.has_backend.clear();
}

ContractTuningOff::ContractTuningOff() {
  if (const char* v = std::getenv("GRAIN_TUNING_FILE")) had_ = true, value_ = v;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  contract_tuning_reset();
  contract_plan_cache_clear();
}

ContractTuningOff::~ContractTuningOff() {
  if (had_)
    ::setenv("GRAIN_TUNING_FILE", value_.c_str(), 1);
  else
    ::unsetenv("GRAIN_TUNING_FILE");
  contract_tuning_reset();
  contract_plan_cache_clear();
}

void contract_tuning_reset(const std::string& device_override) {
  TuningState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.loaded = false;
  s.usable = false;
  s.table = ContractTuningTable();
  s.warned.clear();
  s.has_backend.clear();
  s.device_override = device_override;
}

}  // namespace impl
}  // namespace grain
