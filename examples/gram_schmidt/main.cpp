// gram_schmidt [rows]: Modified Gram-Schmidt QR of a rows x 32 multivector (default 100000) with
// grain's level-1 operations and with the hand-written version(s), on every back end present;
// prints ||Q^T Q - I||, ||A - QR|| / ||A|| and the times.
//
// This file is C++ (GCC compiles it in every build); main_cuda.cu runs the GPU part.
#include "gram_schmidt/run.hpp"

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : 100000;
  if (n < ex::kGramSchmidtColumns) {
    std::fprintf(stderr, "usage: gram_schmidt [rows >= %d]\n", ex::kGramSchmidtColumns);
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
    std::fprintf(stderr, "gram_schmidt: error: %s\n", e.what());
    return 1;
  }
}
