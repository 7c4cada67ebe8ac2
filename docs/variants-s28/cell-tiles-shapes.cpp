#include <cstdio>
#include "grain/grain.hpp"
using namespace grain;
int main() {
  for (int K : {27, 81, 243}) {
    for (auto ov : {impl::CellTilesOverride{0,0,0,0}, {4,0,0,0}, {5,0,0,0}, {3,0,0,0}, {2,0,0,0}, {7,0,0,160000}, {4,0,0,160000}, {7,0,2,0}, {7,0,1,0}}) {
      impl::cell_tiles_override() = ov;
      impl::ContractProblem<float> p{};
      p.L = 27; p.R = 27; p.K = K; p.C = 1000;
      auto s = impl::cell_tiles_shape(p, false);
      std::printf("K %d ov %d,%d,%d,%d: cells %d threads %d kc %d ks %d groups %d two %d alias %d bytes %zu\n", K, ov.cells, ov.kc, ov.groups, ov.budget,
                  s.cells, s.threads, s.kc, s.ks, s.groups, s.two, s.alias, s.bytes);
    }
  }
}
