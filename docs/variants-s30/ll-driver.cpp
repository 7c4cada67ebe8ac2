// Session 30: times `block` (or Auto) on one LayoutLeft FieldField shape on the host, without the
// suite's ceilings, for perf and quick A/B runs. Build (from the repository root, after building
// build/host):
//   g++ -O3 -march=native -fopenmp -std=c++17 -DGRAIN_ENABLE_OPENMP -Iinclude docs/variants-s30/ll-driver.cpp \
//       build/host/libgrain.a -o /tmp/ll-driver
// Run: /tmp/ll-driver KERNEL(s|v|t) Q(2|3|4) DTYPE(f|d) [reps] [budget MiB] [layout l|r]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "grain/grain.hpp"

template <class T, class Layout>
int run(char kern, int q, int reps, long budget_mib) {
  const int Ls[] = {0, 8, 27, 64, 125}, Ps[] = {0, 8, 27, 64, 216};
  const long L = Ls[q], P = Ps[q], D = kern == 's' ? 1 : kern == 'v' ? 3 : 9;
  const long C = (budget_mib << 20) / (L * P * D * static_cast<long>(sizeof(T)));
  using V3 = grain::View<T***, Layout, grain::HostSpace>;
  using V4 = grain::View<T****, Layout, grain::HostSpace>;
  using V5 = grain::View<T*****, Layout, grain::HostSpace>;
  V3 out("out", C, L, L);
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  auto fill = [&](auto& v) {
    T* d = v.data();
    for (std::size_t i = 0; i < v.size(); ++i) d[i] = static_cast<T>(u(g));
  };
  grain::ContractOptions opt;
  const char* a = std::getenv("ALG");
  opt.algorithm = a && std::string(a) == "auto" ? grain::ContractAlgorithm::Auto : grain::ContractAlgorithm::Block;
  std::vector<double> ms;
  auto time = [&](auto&& f) {
    f();
    for (int i = 0; i < reps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  };
  if (kern == 's') {
    V3 l("l", C, L, P), r("r", C, L, P);
    fill(l), fill(r);
    time([&] { grain::contract_field_field_scalar(out, l, r, opt); });
  } else if (kern == 'v') {
    V4 l("l", C, L, P, 3), r("r", C, L, P, 3);
    fill(l), fill(r);
    time([&] { grain::contract_field_field_vector(out, l, r, opt); });
  } else {
    V5 l("l", C, L, P, 3, 3), r("r", C, L, P, 3, 3);
    fill(l), fill(r);
    time([&] { grain::contract_field_field_tensor(out, l, r, opt); });
  }
  std::sort(ms.begin(), ms.end());
  const double gf = 2.0 * C * L * L * P * D / (ms[ms.size() / 2] * 1e6);
  std::printf("FF%c Q%d %s C=%ld: median %.2f ms, min %.2f ms, %.1f GFLOP/s\n", kern, q, sizeof(T) == 4 ? "float" : "double",
              C, ms[ms.size() / 2], ms[0], gf);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: ll-driver s|v|t 2|3|4 f|d [reps] [budget MiB] [l|r]\n"), 2;
  grain::initialize();
  const char k = argv[1][0];
  const int q = std::atoi(argv[2]);
  const int reps = argc > 4 ? std::atoi(argv[4]) : 10;
  const long mib = argc > 5 ? std::atol(argv[5]) : 128;
  const bool right = argc > 6 && argv[6][0] == 'r';
  if (argv[3][0] == 'f')
    return right ? run<float, grain::LayoutRight>(k, q, reps, mib) : run<float, grain::LayoutLeft>(k, q, reps, mib);
  return right ? run<double, grain::LayoutRight>(k, q, reps, mib) : run<double, grain::LayoutLeft>(k, q, reps, mib);
}
