// poisson [n]: assembles and solves -lap u + u = f on the unit cube with trilinear hexahedra, the
// element matrices by grain's contractions, on meshes of n / 4, n / 2 and n cells along each edge
// (default 32), on every back end present; prints the L2 error, its convergence rate, the
// solver's iterations and the time of each step, and runs the patch test.
//
// This file is C++ (GCC compiles it in every build); main_cuda.cu runs the GPU part.
#include <cerrno>

#include "poisson/run.hpp"

int main(int argc, char** argv) {
  long long n = 32;
  if (argc > 2) {
    std::fprintf(stderr, "usage: poisson [n: cells along each edge, 1 to 256]\n");
    return 2;
  }
  if (argc == 2) {
    char* end = nullptr;
    errno = 0;
    n = std::strtoll(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || n < 1 || n > 256) {
      std::fprintf(stderr, "poisson: n must be an integer from 1 to 256, got '%s'\n", argv[1]);
      return 2;
    }
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
    std::fprintf(stderr, "poisson: error: %s\n", e.what());
    return 1;
  }
}
