// The time of one small contraction called from C++, the baseline of bench/overhead.py's Python
// timing of the same call: grain_python_overhead [C L R P [calls]] prints the median over batches
// of nanoseconds per call of contract_field_field_scalar on double, LayoutRight, into a given out.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "grain/grain.hpp"

int main(int argc, char** argv) {
  const int C = argc > 4 ? std::atoi(argv[1]) : 8, L = argc > 4 ? std::atoi(argv[2]) : 4;
  const int R = argc > 4 ? std::atoi(argv[3]) : 4, P = argc > 4 ? std::atoi(argv[4]) : 8;
  const int calls = argc > 5 ? std::atoi(argv[5]) : 20000;
  std::vector<double> a(static_cast<std::size_t>(C) * L * P, 0.5), b(static_cast<std::size_t>(C) * R * P, 0.25),
      o(static_cast<std::size_t>(C) * L * R);
  // Unmanaged Views over plain vectors, as the Python module wraps NumPy's memory.
  grain::View<const double***, grain::LayoutRight> left(a.data(), C, L, P), right(b.data(), C, R, P);
  grain::View<double***, grain::LayoutRight> out(o.data(), C, L, R);
  std::vector<double> per_call;
  for (int batch = 0; batch < 15; ++batch) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls / 10; ++i) grain::contract_field_field_scalar(out, left, right);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    per_call.push_back(s / (calls / 10) * 1e9);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("cpp C=%d L=%d R=%d P=%d: %.0f ns per call (median of %zu batches)\n", C, L, R, P,
              per_call[per_call.size() / 2], per_call.size());
  return 0;
}
