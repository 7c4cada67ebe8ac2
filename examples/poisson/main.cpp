// poisson [n] [all|serial|openmp|cuda]: assembles and solves -lap u + u = f on the unit cube with trilinear hexahedra, the
// element matrices by grain's contractions, on meshes of n / 4, n / 2 and n cells along each edge
// (default 32), on every back end present (or the one named); prints the L2 error, its convergence rate, the
// solver's iterations and the time of each step, and runs the patch test.
//
// This file is C++ (GCC compiles it in every build); main_cuda.cu runs the GPU part.
#include <cerrno>
#include <cstring>

#include "poisson/run.hpp"

int main(int argc, char** argv) {
  long long n = 32;
  const char* usage = "usage: poisson [n: cells along each edge, 1 to 256] [all|serial|openmp|cuda]\n";
  if (argc > 3) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  const std::string only = argc == 3 ? argv[2] : "all";
  if (only != "all" && only != "serial" && only != "openmp" && only != "cuda") {
    std::fprintf(stderr, "poisson: unknown back end '%s'\n%s", only.c_str(), usage);
    return 2;
  }
  if (argc >= 2) {
    char* end = nullptr;
    errno = 0;
    n = std::strtoll(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || n < 1 || n > 256) {
      std::fprintf(stderr, "poisson: n must be an integer from 1 to 256, got '%s'\n", argv[1]);
      return 2;
    }
  }
  try {
    bool ok = true, ran = false;
    if (only == "all" || only == "serial") ok = run<grain::Serial>(n) && ok, ran = true;
#if defined(GRAIN_ENABLE_OPENMP)
    if (only == "all" || only == "openmp") ok = run<grain::OpenMP>(n) && ok, ran = true;
#endif
#if defined(GRAIN_ENABLE_CUDA)
    if (only == "all" || only == "cuda") ok = run_cuda(n) && ok, ran = true;
#endif
    if (!ran) {
      std::fprintf(stderr, "poisson: back end '%s' is not in this build\n", only.c_str());
      return 2;
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "poisson: error: %s\n", e.what());
    return 1;
  }
}
