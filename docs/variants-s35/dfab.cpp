// Interleaved A/B of flat's LayoutLeft DataField prefetch settings inside one process (session 35).
// Build: g++ -O3 -march=native -fopenmp -std=c++17 -DGRAIN_ENABLE_OPENMP -Iinclude dfab.cpp build/host/libgrain.a
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include "grain/grain.hpp"
#include "grain/contract/algorithms/flat.hpp"
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class T>
void run(char kern, int q, int iters, long budget_mib) {
  const int Ls[] = {0, 8, 27, 64, 125}, Ps[] = {0, 8, 27, 64, 216};
  const long F = Ls[q], P = Ps[q], D = kern == 's' ? 1 : kern == 'v' ? 3 : 9;
  const long C = (budget_mib << 20) / (F * P * D * long(sizeof(T)));
  using L = grain::LayoutLeft; using H = grain::HostSpace;
  grain::View<T**, L, H> out("out", C, F);
  std::mt19937 g(3); std::uniform_real_distribution<double> u(-1, 1);
  auto fill = [&](auto& v) { T* d = v.data(); for (std::size_t i = 0; i < v.size(); ++i) d[i] = T(u(g)); };
  grain::ContractOptions opt; opt.algorithm = grain::ContractAlgorithm::Flat;
  std::function<void()> call; double bytes = 0;
  grain::View<T**, L, H> d2; grain::View<T***, L, H> d3, f3; grain::View<T****, L, H> d4, f4; grain::View<T*****, L, H> f5;
  if (kern == 's') { d2 = decltype(d2)("d", C, P); f3 = decltype(f3)("f", C, F, P); fill(d2); fill(f3); call = [&] { grain::contract_data_field_scalar(out, d2, f3, opt); }; bytes = (d2.size() + f3.size() + out.size()) * sizeof(T); }
  else if (kern == 'v') { d3 = decltype(d3)("d", C, P, 3); f4 = decltype(f4)("f", C, F, P, 3); fill(d3); fill(f4); call = [&] { grain::contract_data_field_vector(out, d3, f4, opt); }; bytes = (d3.size() + f4.size() + out.size()) * sizeof(T); }
  else { d4 = decltype(d4)("d", C, P, 3, 3); f5 = decltype(f5)("f", C, F, P, 3, 3); fill(d4); fill(f5); call = [&] { grain::contract_data_field_tensor(out, d4, f5, opt); }; bytes = (d4.size() + f5.size() + out.size()) * sizeof(T); }
  // copy probe buffers
  const size_t cn = size_t(128) << 20; char* ca = (char*)aligned_alloc(4096, cn); char* cb = (char*)aligned_alloc(4096, cn);
  memset(ca, 1, cn); memset(cb, 0, cn);
  struct S { long pf; int pfc; const char* name; };
  const S sets[] = {{0, 0, "none"}, {1024, 0, "1KB"}, {1024, 1, "1KB+contig"}};
  std::vector<double> gb[3], cp;
  call();
  for (int it = 0; it < iters; ++it) {
    double t0 = now();
#pragma omp parallel for
    for (long i = 0; i < long(cn >> 16); ++i) memcpy(cb + (i << 16), ca + (i << 16), 1 << 16);
    cp.push_back(2.0 * cn / (now() - t0) / 1e9);
    for (int s = 0; s < 3; ++s) {
      grain::impl::g_flat_pf = sets[s].pf; grain::impl::g_flat_pfc = sets[s].pfc;
      t0 = now(); call(); gb[s].push_back(bytes / (now() - t0) / 1e9);
    }
  }
  // split iterations by the copy measured just before them: fast (> 60) and slow
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<double> c, v[3];
    for (int it = 0; it < iters; ++it) if ((cp[it] > 60) == (phase == 0)) { c.push_back(cp[it]); for (int s = 0; s < 3; ++s) v[s].push_back(gb[s][it]); }
    if (c.empty()) continue;
    auto med = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    printf("DF%c Q%d %s C=%ld %s phase (%zu): copy %.1f", kern, q, sizeof(T) == 4 ? "float" : "double", C, phase == 0 ? "fast" : "slow", c.size(), med(c));
    for (int s = 0; s < 3; ++s) printf("  %s %.1f", sets[s].name, med(v[s]));
    printf("\n");
  }
}
int main(int argc, char** argv) {
  const char k = argv[1][0]; const int q = atoi(argv[2]); const bool dbl = argv[3][0] == 'd'; const int iters = argc > 4 ? atoi(argv[4]) : 20;
  const long bm = argc > 5 ? atol(argv[5]) : 128; if (dbl) run<double>(k, q, iters, bm); else run<float>(k, q, iters, bm);
}
