// The time of one small contraction called from C++, the baseline of bench/overhead.py's Python
// timing of the same call: grain_python_overhead [host|cuda] [C L R P [calls]] prints the median
// over batches of nanoseconds per call of contract_field_field_scalar on double, LayoutRight, into
// a given out. On the GPU the calls of a batch are queued and the batch ends with a fence, as the
// Python calls on GPU tensors are timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "grain/grain.hpp"

template <class Space>
void time_calls(const char* where, int C, int L, int R, int P, int calls) {
  grain::View<double***, grain::LayoutRight, Space> a("left", C, L, P), b("right", C, R, P), out("out", C, L, R);
  grain::deep_copy(a, 0.5);
  grain::deep_copy(b, 0.25);
  const grain::View<const double***, grain::LayoutRight, Space> left = a, right = b;
  std::vector<double> per_call;
  for (int batch = 0; batch < 15; ++batch) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls / 10; ++i) grain::contract_field_field_scalar(out, left, right);
    grain::fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    per_call.push_back(s / (calls / 10) * 1e9);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("cpp %s C=%d L=%d R=%d P=%d: %.0f ns per call (median of %zu batches)\n", where, C, L, R, P,
              per_call[per_call.size() / 2], per_call.size());
}

int main(int argc, char** argv) {
  const bool cuda = argc > 1 && std::strcmp(argv[1], "cuda") == 0;
  const int first = argc > 1 && (cuda || std::strcmp(argv[1], "host") == 0) ? 2 : 1;
  auto arg = [&](int i, int d) { return argc > first + i ? std::atoi(argv[first + i]) : d; };
  const int C = arg(0, 8), L = arg(1, 4), R = arg(2, 4), P = arg(3, 8), calls = arg(4, 20000);
  if (cuda) {
#if defined(GRAIN_ENABLE_CUDA)
    time_calls<grain::CudaSpace>("cuda", C, L, R, P, calls);
#else
    std::fprintf(stderr, "grain_python_overhead: built without CUDA\n");
    return 1;
#endif
  } else {
    time_calls<grain::HostSpace>("host", C, L, R, P, calls);
  }
  return 0;
}
