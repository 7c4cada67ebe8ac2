#include "grain/core/memory_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace grain {
namespace {

// A number from a one-line file ("max" or a missing file: none).
bool read_number(const char* path, double& v) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s == "max") return false;
  try {
    v = std::stod(s);
  } catch (...) {
    return false;
  }
  return true;
}

// A "Key:  value kB" entry of /proc/meminfo, in bytes.
bool meminfo(const std::string& key, double& v) {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line))
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      std::istringstream in(line.substr(key.size() + 1));
      double kb = 0;
      if (!(in >> kb)) return false;
      v = kb * 1024;
      return true;
    }
  return false;
}

}  // namespace

MemoryInfo host_memory_info() {
  MemoryInfo m;
  m.where = "host";
  double total = 0, avail = 0;
  if (!meminfo("MemTotal", total) || !meminfo("MemAvailable", avail)) return m;
  m.total = total;
  m.available = avail;
  // A control group's limit: cgroup v2, then v1 (whose "no limit" is a huge number).
  double limit = 0, used = 0;
  if ((read_number("/sys/fs/cgroup/memory.max", limit) && read_number("/sys/fs/cgroup/memory.current", used)) ||
      (read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes", limit) &&
       read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes", used))) {
    if (limit < m.total) {
      m.total = limit;
      m.available = std::min(m.available, std::max(0.0, limit - used));
    }
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    // The address space already mapped counts against the limit: /proc/self/statm's first field.
    std::ifstream statm("/proc/self/statm");
    double pages = 0;
    statm >> pages;
    const double room = std::max(0.0, double(as.rlim_cur) - pages * double(sysconf(_SC_PAGESIZE)));
    m.available = std::min(m.available, room);
    m.total = std::min(m.total, double(as.rlim_cur));
  }
  return m;
}

}  // namespace grain
