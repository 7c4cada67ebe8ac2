// Helpers shared by the core test sources: per-back-end sizes and team shapes, and copies of
// device Views back to the host. Everything here is host code; kernels stay in the test sources.
#pragma once

#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "grain_test.hpp"

namespace grain::test {

// The memory space kernels of Exec read and write (CudaSpace for Cuda, HostSpace otherwise).
template <class Exec>
using ExecMemory = typename Exec::memory_space;

template <class Exec>
constexpr bool is_host_exec() {
  return grain::is_host_execution_space_v<Exec>;
}

// Sizes that hit one element, a partial warp, a warp plus one, several blocks, and many blocks
// with a ragged tail.
inline std::vector<grain::index_type> odd_sizes() { return {1, 7, 33, 1000, 100003}; }

// A size large enough to need many CUDA blocks (and several passes of a resident grid); on the
// host, where the same code paths are reached with far less work, a smaller one keeps the
// sanitizer build fast.
// GRAIN_TEST_SMALL=1 in the environment picks the host sizes on the GPU too (for runs under
// compute-sanitizer racecheck, which is orders of magnitude slower).
inline bool small_sizes_requested() {
  const char* e = std::getenv("GRAIN_TEST_SMALL");
  return e && *e && std::string(e) != "0";
}
template <class Exec>
grain::index_type big_size(grain::index_type device_size, grain::index_type host_size) {
  return is_host_exec<Exec>() || small_sizes_requested() ? host_size : device_size;
}

// A team configuration: team_size 0 means grain::AUTO.
struct TeamShape {
  int team;
  int vector;
};

// Host back ends only run teams of one thread; on the GPU the shapes cover full warps, partial
// warps (3 x 8 = 24 threads), vector lengths below 32, and a team of one lane per thread.
template <class Exec>
std::vector<TeamShape> team_shapes() {
  if constexpr (is_host_exec<Exec>()) {
    return {{0, 1}, {1, 1}, {1, 4}};
  } else {
    return {{8, 4}, {3, 8}, {1, 32}, {5, 1}, {0, 2}, {2, 16}};
  }
}

template <class Exec>
grain::TeamPolicy<Exec> make_team_policy(grain::index_type league, const TeamShape& s) {
  if (s.team == 0) return grain::TeamPolicy<Exec>(league, grain::AUTO, s.vector);
  return grain::TeamPolicy<Exec>(league, s.team, s.vector);
}

inline std::string describe(const TeamShape& s) {
  return "team " + (s.team == 0 ? std::string("AUTO") : std::to_string(s.team)) + " x vector " +
         std::to_string(s.vector);
}

}  // namespace grain::test
