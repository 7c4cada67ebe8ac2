// Session 23: LayoutRight DataFieldScalar over 128 MiB on 2 threads, four loops side by side:
// `flat`'s ContractFlatDataRowsKernel without prefetch (ahead = 0, as session 22 left it), a copy
// of half the fields, the same W-field dot products in a plain loop over cells, and that loop with
// the fields of the cell 2, 4 or 8 ahead prefetched.
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -Iinclude -Ibuild/host/include docs/variants-s23/big.cpp -o /tmp/big
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/big
//
// One run (ms): DataFieldScalar Q1 float, kernel 10.8-11.5, plain 10.6-11.2, 8 ahead 8.1-8.9;
// Q2 float 10.1-10.3, 8.1-8.6, 4 ahead 6.5-6.6; Q1 double 10.1-10.4, 9.9-10.5, 4 ahead 7.4-7.7.
#include "mb.hpp"

using namespace grain::impl;

template <class T>
void run(long R, long K, const char* name) {
  DataFieldOperands<T> d(R, K);
  constexpr int W = kHostVectorBytes / sizeof(T);
  using HV = HostVector<T, W>;
  const T* a = d.a;
  const T* b = d.b;
  T* o = d.o;
  const long C = d.C;
  auto show = [&](const char* what, double s) {
    std::printf("%s %-22s %7.2f ms %6.1f GB/s\n", name, what, s * 1e3, d.bytes() / s / 1e9);
  };
  const long cells = flat_cells_per_item(C, R * K * long(sizeof(T)), 2), n = (C + cells - 1) / cells;
  const ContractFlatDataRowsKernel<T> rows{d.p, cells, 0};
  for (int round = 0; round < 2; round++) {
    show("rows", d.best_of_8([&] {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) rows(i);
    }));
    show("copy", d.copy_s());
    show("plain-dotlanes", d.best_of_8([&] {
#pragma omp parallel for schedule(static)
      for (long c = 0; c < C; c++)
        for (long r = 0; r + W <= R; r += W) HV::store(o + c * R + r, HV::dot_lanes(K, a + c * K, 0, b + c * R * K + r * K, K));
    }));
    for (long dist : {2, 4, 8}) {
      char what[32];
      std::snprintf(what, sizeof what, "plain-pf%ld", dist);
      show(what, d.best_of_8([&] {
#pragma omp parallel for schedule(static)
        for (long c = 0; c < C; c++) {
          if (c + dist < C) host_prefetch_span(b + (c + dist) * R * K, R * K * long(sizeof(T)));
          for (long r = 0; r + W <= R; r += W) HV::store(o + c * R + r, HV::dot_lanes(K, a + c * K, 0, b + c * R * K + r * K, K));
        }
      }));
    }
  }
}

int main() {
  run<float>(8, 8, "DFS-Q1-f");
  run<float>(27, 27, "DFS-Q2-f");
  run<double>(8, 8, "DFS-Q1-d");
}
