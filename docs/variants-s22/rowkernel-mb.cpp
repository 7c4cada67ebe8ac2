// Session 22: the cost of `flat`'s LayoutRight row kernel (ContractFlatRowKernel) per
// DataFieldScalar Q1 float cell (8 fields x 8 points, all in L2), against the kernel that replaced
// it for the Data kernels (ContractFlatDataRowsKernel, 64 cells a call), the same W-field dot
// product written out in a plain loop over cells (HostVector::dot_lanes with a run-time K) and
// with K known (8 loads, 8 products, the lane sums).
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -Iinclude -Ibuild/host/include \
//       docs/variants-s22/rowkernel-mb.cpp -o /tmp/rowkernel-mb && /tmp/rowkernel-mb
//
// On the 2-core Xeon VM beside other work: 23-31 ns a cell through the row kernel, 9-13 with
// dot_lanes in a plain loop, 7-12 with K known (the row kernel 2.2-2.7x behind the plain loop in
// every run). Quiet (the machine alternates between a fast and a twice slower state; fast runs):
// the row kernel 13.4-13.7, ContractFlatDataRowsKernel 7.6-8.7 (9.4-9.9 before its store test
// became a template parameter), the plain loop 6.1-6.6.
#include <chrono>
#include <cstdio>
#include <vector>

#include "grain/contract/algorithms/flat.hpp"

using namespace grain::impl;

template <class F>
void time_it(const char* what, long C, F&& f) {
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < 1000; ++it) f();
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("%-28s %.2f ns a cell\n", what, std::chrono::duration<double, std::nano>(t1 - t0).count() / (1000.0 * C));
  }
}

int main() {
  const long C = 4096, R = 8, K = 8;
  std::vector<float> a(C * K, 1.0f), b(C * R * K, 0.5f), out(C * R);
  ContractProblem<float> p;
  p.kernel = grain::ContractKernel::DataFieldScalar;
  p.C = C, p.L = 1, p.R = R;
  p.x[2] = K, p.ax[2] = p.bx[2] = 1;
  p.a_c = K, p.b_c = R * K, p.b_r = K, p.o_c = R, p.o_r = 1;
  p.canonicalize();
  p.a = a.data(), p.b = b.data(), p.out = out.data();
  const ContractFlatRowKernel<float> kernel{p, false};
  time_it("ContractFlatRowKernel", C, [&] {
    for (long o = 0; o < C; ++o) kernel(o);
  });
  const ContractFlatDataRowsKernel<float> rows{p, 64};
  time_it("ContractFlatDataRowsKernel", C, [&] {
    for (long o = 0; o < C / 64; ++o) rows(o);
  });
  using HV = HostVector<float, 8>;
  volatile long k_runtime = K;
  const long Kr = k_runtime;
  time_it("dot_lanes, run-time K", C, [&] {
    for (long c = 0; c < C; ++c) HV::store(&out[c * R], HV::dot_lanes(Kr, &a[c * Kr], 0, &b[c * R * Kr], Kr));
  });
  time_it("K known", C, [&] {
    for (long c = 0; c < C; ++c) {
      const HV::V x = HV::load(&a[c * K]);
      HV::V acc[8];
      for (int w = 0; w < 8; ++w) acc[w] = x * HV::load(&b[c * R * K + w * K]);
      HV::store(&out[c * R], HV::sum_lanes(acc));
    }
  });
  std::printf("check: %g (expected %g)\n", double(out[5]), 0.5 * K);
  return 0;
}
