// The CPUs the benchmarks' host threads run on.
#pragma once

#include <vector>

namespace grain::bench {

// The CPUs of all OpenMP places together: the affinity mask this process started with, when
// OMP_PROC_BIND or OMP_PLACES made the runtime build places from it. Empty without places, without
// OpenMP, or off Linux.
std::vector<int> host_place_cpus();

// Gives the calling thread the CPUs of all places (host_place_cpus) where there are places. With
// OMP_PROC_BIND set, GCC's OpenMP runtime binds the initial thread to the first place as the
// program loads, and a program started from it with exec inherits that one place as its whole
// mask: its threads would all share that CPU. Call before exec. Returns false where it changed
// nothing (no places, or the call failed).
bool restore_place_affinity();

// The distinct CPUs the threads of an OpenMP team of `threads` may run on, together (the union of
// their affinity masks); 0 where this cannot be told (without OpenMP or off Linux).
int host_team_cpus(int threads);

}  // namespace grain::bench
