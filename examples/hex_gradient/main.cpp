// hex_gradient [elements]: gradients of the trilinear basis functions of `elements` linear
// hexahedra (default 1000000) with grain's portable kernel and the hand-written one, on every back
// end present; checks both against the analytic gradients of axis-aligned boxes and against
// each other on distorted elements, and prints the times.
//
// This file is C++ (GCC compiles it in every build); main_cuda.cu runs the GPU part.
#include "hex_gradient/run.hpp"

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: hex_gradient [elements > 0]\n");
    return 2;
  }
  try {
    bool ok = run<grain::Serial>(n);
#if defined(GRAIN_ENABLE_OPENMP)
    ok = run<grain::OpenMP>(n) && ok;
#endif
#if defined(GRAIN_ENABLE_CUDA)
    ok = run_cuda(n) && ok;
#endif
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hex_gradient: error: %s\n", e.what());
    return 1;
  }
}
