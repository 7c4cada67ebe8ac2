#include <cstdio>
#include "grain/grain.hpp"
template <class T> void run() {
  for (int L = 9; L <= 32; ++L) for (int R = 9; R <= 32; R += 3) for (int K = 1; K <= 300; K += 7) {
    grain::impl::ContractProblem<T> p{}; p.L = L; p.R = R; p.K = K; p.C = 1000;
    for (bool h : {false, true}) { auto s = grain::impl::cell_tiles_shape(p, h);
      std::printf("%d %d %d %d: %d %d %d %d %d %d %d %zu\n", L, R, K, h, s.cells, s.groups, s.kc, s.ks, s.threads, s.two, s.alias, s.bytes); }
  }
}
int main() { run<float>(); run<double>(); }
