// Session 23's microbenchmarks (big.cpp, pf.cpp): LayoutRight DataFieldScalar operands of
// 128 MiB (the fields) on huge pages, filled in parallel, and the problem `flat` sees for them.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "grain/contract/algorithms/flat.hpp"

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class T>
struct DataFieldOperands {
  long C, R, K;
  T *a, *b, *o;
  grain::impl::ContractProblem<T> p;
  static T* alloc(long n) {
    const std::size_t bytes = std::size_t(n) * sizeof(T), huge = std::size_t(2) << 20;
    void* q = std::aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
    madvise(q, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(q);
  }
  DataFieldOperands(long R_, long K_)
      : C((128L << 20) / (R_ * K_ * long(sizeof(T)))), R(R_), K(K_), a(alloc(C * K)), b(alloc(C * R * K)), o(alloc(C * R)) {
#pragma omp parallel for
    for (long i = 0; i < C * R * K; i++) b[i] = T(0.5) + T(i % 13) * T(0.01);
#pragma omp parallel for
    for (long i = 0; i < C * K; i++) a[i] = T(1);
#pragma omp parallel for
    for (long i = 0; i < C * R; i++) o[i] = T(0);
    p.kernel = grain::ContractKernel::DataFieldScalar;
    p.C = C, p.L = 1, p.R = R;
    p.x[2] = K, p.ax[2] = p.bx[2] = 1;
    p.a_c = K, p.b_c = R * K, p.b_r = K, p.o_c = R, p.o_r = 1;
    p.canonicalize();
    p.a = a, p.b = b, p.out = o;
  }
  ~DataFieldOperands() { std::free(a), std::free(b), std::free(o); }
  DataFieldOperands(const DataFieldOperands&) = delete;
  DataFieldOperands& operator=(const DataFieldOperands&) = delete;
  double bytes() const { return double(C) * double(K + R * K + R) * sizeof(T); }
  // The best of 8 calls of f, in seconds.
  template <class F>
  static double best_of_8(F&& f) {
    double best = 1e9;
    for (int rep = 0; rep < 8; rep++) {
      const double t = now_s();
      f();
      best = std::min(best, now_s() - t);
    }
    return best;
  }
  // Half the fields copied onto the other half: the copy rate of the same moment.
  double copy_s() {
    const long half = C * R * K / 2;
    return best_of_8([&] {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < half; i++) b[half + i] = b[i];
    });
  }
};
