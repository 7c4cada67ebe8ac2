// The benchmarks' host threads and their CPUs (bench/common/affinity.hpp). This executable runs
// with OMP_PROC_BIND=true (tests/contract/CMakeLists.txt), so the OpenMP runtime has built places
// from the process's mask and bound the initial thread to the first of them as the program loaded:
// the state in which `grain bench` runs itself again for OpenBLAS's kernels (gemm_host.cpp).
#include <gtest/gtest.h>

#include <sched.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common/affinity.hpp"

namespace {

std::vector<int> my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int id = 0; id < CPU_SETSIZE; ++id)
    if (CPU_ISSET(id, &set)) cpus.push_back(id);
  return cpus;
}

// What a program started by exec from this thread sees as its CPUs: the shell prints its own
// mask (Cpus_allowed_list), which it inherited across fork and exec.
std::string child_cpu_list() {
  std::FILE* f = popen("grep Cpus_allowed_list /proc/self/status", "r");
  if (!f) return "popen failed";
  char buf[256] = {};
  std::string s = std::fgets(buf, sizeof buf, f) ? buf : "";
  pclose(f);
  return s;
}

std::string as_list(const std::vector<int>& cpus) {
  // The kernel's list format for a sorted set: runs as a-b, joined by commas.
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) s += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace

TEST(BenchAffinity, ExecAfterRestoreSeesEveryPlace) {
#if defined(GRAIN_ENABLE_OPENMP) && defined(__linux__)
  const std::vector<int> places = grain::bench::host_place_cpus();
  ASSERT_FALSE(places.empty()) << "OMP_PROC_BIND=true should have given the runtime places";
  // The process's CPUs: every one the machine lets this process use is in some place.
  EXPECT_GE(places.size(), std::min<std::size_t>(2, std::thread::hardware_concurrency()));

  // The runtime bound this thread to the first place, as the program loaded.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(places.front(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  ASSERT_EQ(my_cpus().size(), 1u);
  EXPECT_NE(child_cpu_list().find(as_list({places.front()})), std::string::npos);

  ASSERT_TRUE(grain::bench::restore_place_affinity());
  EXPECT_EQ(my_cpus(), places);
  const std::string child = child_cpu_list();
  EXPECT_EQ(child, "Cpus_allowed_list:\t" + as_list(places) + "\n");
  // A team as wide as the places runs on all of them.
  EXPECT_EQ(grain::bench::host_team_cpus(static_cast<int>(places.size())), static_cast<int>(places.size()));
#else
  GTEST_SKIP() << "needs OpenMP on Linux";
#endif
}

TEST(BenchAffinity, TeamCpusAreTheThreadsMasksTogether) {
#if defined(GRAIN_ENABLE_OPENMP) && defined(__linux__)
  // Each thread of the team is bound to a place of its own: together they cover at least as many
  // CPUs as there are threads, up to the places' CPUs (the contraction suite warns below the
  // threads). A place may hold several CPUs: on the GPU machine's 16-CPU host the runtime's
  // default places can give 2 threads all 16, where a small VM gives each thread one.
  const std::vector<int> places = grain::bench::host_place_cpus();
  ASSERT_FALSE(places.empty());
  EXPECT_GE(grain::bench::host_team_cpus(1), 1);
  const int two = grain::bench::host_team_cpus(2);
  EXPECT_GE(two, std::min<int>(2, static_cast<int>(places.size())));
  EXPECT_LE(two, static_cast<int>(places.size()));
#else
  GTEST_SKIP() << "needs OpenMP on Linux";
#endif
}
