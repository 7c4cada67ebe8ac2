// How much memory the process may still take, on the host and on the GPU: asked before large
// allocations so that a run that cannot fit stops with the sizes instead of being killed midway.
#pragma once

#include <string>

namespace grain {

struct MemoryInfo {
  double available = 0;  // bytes this process may still allocate
  double total = 0;      // bytes the machine (or its limit) has in all
  std::string where;     // "host", or the GPU's name
};

// The host: the kernel's MemAvailable, bounded by the control group's limit less its usage
// (batch systems and containers set one) and by the address-space limit (ulimit -v).
MemoryInfo host_memory_info();

}  // namespace grain
