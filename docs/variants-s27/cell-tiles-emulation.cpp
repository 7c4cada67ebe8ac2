// Session 27: team-small-k's cell tiles (ContractTeamSmallKCellTilesKernel) under the GPU's shapes
// (cell_tiles_shape with host = false, and forced shapes through cell_tiles_override), run on the
// host by a team of std::threads: team_barrier is a std::barrier, and each thread's copy_async is
// deferred to its copy_wait_prior / team_copy_wait (all batches but the latest / all of them), as
// cp.async allows. Checked against a double-precision loop. Run 1's failure (item 2 of
// docs/performance.md, "Session 27") did not reproduce here, which pointed at the compiler.
//   g++ -std=c++20 -O1 -fopenmp -Iinclude docs/variants-s27/cell-tiles-emulation.cpp -pthread -o emu && ./emu
#include <barrier>
#include <functional>
#include <thread>
#include <vector>
#include <random>
#include <cstdio>
#include <cmath>
#include "grain/core.hpp"
#include "grain/contract/algorithms/team_reduce.hpp"
using namespace grain;
using namespace grain::impl;
struct Fake {
  int rank, size; index_type league;
  std::barrier<>* bar; ScratchAllocator sc;
  int team_rank() const { return rank; }
  int team_size() const { return size; }
  index_type league_rank() const { return league; }
  void team_barrier() const { bar->arrive_and_wait(); }
  const ScratchAllocator& team_scratch(int) const { return sc; }
  struct Pend { std::vector<std::vector<std::function<void()>>> groups{1}; };
  Pend* pend;
  template <class E> void copy_async(E* d, const E* s) const { pend->groups.back().push_back([d, s] { *d = *s; }); }
  void copy_commit() const { pend->groups.emplace_back(); }
  void copy_wait_prior() const {  // all committed groups but the latest
    int n = (int)pend->groups.size() - 2;  // last open group (empty) and latest committed
    for (int g = 0; g < n; ++g) { for (auto& f : pend->groups[g]) f(); }
    pend->groups.erase(pend->groups.begin(), pend->groups.begin() + (n > 0 ? n : 0));
  }
  void team_copy_wait() const { for (auto& g : pend->groups) for (auto& f : g) f(); pend->groups.assign(1, {}); }
  template <NestLevel L, class F> void nested_for(index_type b, index_type e, const F& f) const {
    for (index_type i = b + rank; i < e; i += size) f(i);
  }
};
template <class T>
int run(int C, int L, int R, int K) {
  std::mt19937 g(1); std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> a(C * L * K), b(C * R * K), o(C * L * R, T(-7)), ref(C * L * R);
  for (auto& x : a) x = u(g); for (auto& x : b) x = u(g);
  for (int c = 0; c < C; ++c) for (int l = 0; l < L; ++l) for (int r = 0; r < R; ++r) {
    double s = 0; for (int k = 0; k < K; ++k) s += double(a[(c*L+l)*K+k]) * b[(c*R+r)*K+k]; ref[(c*L+l)*R+r] = s; }
  ContractProblem<T> p{};
  p.C = C; p.L = L; p.R = R; p.K = K; p.K1 = 1; p.a = a.data(); p.b = b.data(); p.out = o.data();
  p.a_s0 = 1; p.b_s0 = 1; p.a_l = K; p.b_r = K; p.a_c = L * K; p.b_c = R * K; p.o_r = 1; p.o_l = R; p.o_c = L * R;
  if (!p.k_cell_tiles()) { printf("not cell tiles\n"); return 1; }
  CellTilesShape s = cell_tiles_shape(p, false);
  printf("cells %d groups %d kc %d ks %d threads %d two %d alias %d bytes %zu\n", s.cells, s.groups, s.kc, s.ks, s.threads, s.two, s.alias, s.bytes);
  ContractTeamSmallKCellTilesKernel<T> k{p, s.cells, s.groups, s.kc, s.ks, s.two, s.alias};
  index_type all = (C + s.cells - 1) / s.cells, league = (all + s.groups - 1) / s.groups;
  std::vector<char> scratch(s.bytes + 64);
  char* base = scratch.data() + (16 - reinterpret_cast<std::uintptr_t>(scratch.data()) % 16) % 16;
  for (index_type lr = 0; lr < league; ++lr) {
    std::barrier<> bar(s.threads);
    std::vector<std::thread> th;
    for (int t = 0; t < s.threads; ++t) th.emplace_back([&, t] { Fake::Pend pd; Fake m{t, s.threads, lr, &bar, ScratchAllocator(base, s.bytes), &pd}; k(m); if (pd.groups.size() != 1 || !pd.groups[0].empty()) printf("copies left\n"); });
    for (auto& x : th) x.join();
  }
  double err = 0; int bad = 0;
  for (size_t i = 0; i < o.size(); ++i) { double e = std::fabs(o[i] - ref[i]); if (e > 1e-3) { if (bad < 5) printf("bad %zu %g %g\n", i, double(o[i]), ref[i]); ++bad; } }
  printf("C %d L %d R %d K %d: bad %d\n", C, L, R, K, bad);
  return bad;
}
int main() {
  run<float>(37, 27, 27, 27); run<double>(37, 27, 27, 27);
  run<float>(13, 27, 27, 243); run<double>(13, 27, 27, 81);
  run<float>(5, 18, 20, 30);
  cell_tiles_override() = {0, 1, 2, 0}; run<float>(13, 27, 27, 27); run<double>(13, 27, 27, 81);
  cell_tiles_override() = {2, 27, 3, 14000}; run<float>(13, 27, 27, 27); run<double>(13, 27, 27, 81);
  cell_tiles_override() = {0, 7, 0, 0}; run<float>(13, 27, 27, 243); run<double>(13, 27, 27, 81);
}
