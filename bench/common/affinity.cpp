#include "affinity.hpp"

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace grain::bench {

std::vector<int> host_place_cpus() {
  std::vector<int> cpus;
#if defined(GRAIN_ENABLE_OPENMP) && defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
    if (ids.empty()) continue;
    omp_get_place_proc_ids(place, ids.data());
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  }
  for (int id = 0; id < CPU_SETSIZE; ++id)
    if (CPU_ISSET(id, &set)) cpus.push_back(id);
#endif
  return cpus;
}

bool restore_place_affinity() {
#if defined(__linux__)
  const std::vector<int> cpus = host_place_cpus();
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int id : cpus) CPU_SET(id, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
#else
  return false;
#endif
}

int host_team_cpus(int threads) {
#if defined(GRAIN_ENABLE_OPENMP) && defined(__linux__)
  cpu_set_t all;
  CPU_ZERO(&all);
  bool ok = true;
#pragma omp parallel num_threads(threads > 0 ? threads : 1)
  {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    const bool got = sched_getaffinity(0, sizeof mine, &mine) == 0;
#pragma omp critical(grain_bench_team_cpus)
    {
      if (got) {
        CPU_OR(&all, &all, &mine);
      } else {
        ok = false;
      }
    }
  }
  return ok ? CPU_COUNT(&all) : 0;
#else
  (void)threads;
  return 0;
#endif
}

}  // namespace grain::bench
