// Session 23: ContractFlatDataRowsKernel (flat.hpp) over LayoutRight DataField operands of 128 MiB,
// 2 threads, with its operands prefetched D bytes ahead (D = 0: none; `ahead` = ceil(D / cell
// bytes) cells), the kernel alone in a static OpenMP loop, beside a copy of the same fields'
// bytes. Three rounds, each case alternating its variants. With the argument `long`: cells over
// 8 KB, none against one cell ahead (D = 1 byte), twice each per round.
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -Iinclude -Ibuild/host/include docs/variants-s23/pf.cpp -o /tmp/pf
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/pf [long]
//
// Results: docs/performance.md, session 23.
#include <cstring>
#include <initializer_list>

#include "mb.hpp"

template <class T>
void run(long R, long K, const char* name, std::initializer_list<long> distances) {
  DataFieldOperands<T> d(R, K);
  const long cells = grain::impl::flat_cells_per_item(d.C, R * K * long(sizeof(T)), 2);
  const long cell_bytes = (R * K + K) * long(sizeof(T)), n = (d.C + cells - 1) / cells;
  std::printf("%s", name);
  for (long D : distances) {
    const grain::impl::ContractFlatDataRowsKernel<T> rows{d.p, cells, D == 0 ? 0 : (D + cell_bytes - 1) / cell_bytes};
    const double s = d.best_of_8([&] {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) rows(i);
    });
    std::printf("  D%ld:%6.2f", D, s * 1e3);
  }
  const double c = d.copy_s();
  std::printf("  copy-equiv %.2f ms (kernel bytes at copy rate)\n", d.bytes() / (double(d.C * R * K) * sizeof(T) / c) * 1e3);
}

int main(int argc, char** argv) {
  const bool long_cells = argc > 1 && std::strcmp(argv[1], "long") == 0;
  for (int round = 0; round < 3; round++) {
    if (long_cells) {
      run<float>(27, 81, "DFV-Q2-f", {0, 1, 0, 1});
      run<double>(27, 81, "DFV-Q2-d", {0, 1, 0, 1});
      run<float>(64, 64, "DFS-Q3-f", {0, 1, 0, 1});
      run<float>(27, 243, "DFT-Q2-f", {0, 1, 0, 1});
      run<float>(8, 24, "DFV-Q1-f", {0, 1, 0, 1});
    } else {
      run<float>(8, 8, "DFS-Q1-f", {0, 1024, 2048, 4096, 8192});
      run<double>(8, 8, "DFS-Q1-d", {0, 1024, 2048, 4096, 8192});
      run<float>(27, 27, "DFS-Q2-f", {0, 1024, 2048, 4096, 8192});
      run<double>(27, 27, "DFS-Q2-d", {0, 1024, 2048, 4096, 8192});
      run<float>(64, 64, "DFS-Q3-f", {0, 1024, 2048, 4096, 8192});
      run<float>(8, 24, "DFV-Q1-f", {0, 1024, 2048, 4096, 8192});
      run<float>(8, 72, "DFT-Q1-f", {0, 1024, 2048, 4096, 8192});
      run<double>(8, 72, "DFT-Q1-d", {0, 1024, 2048, 4096, 8192});
    }
  }
}
