// The poisson example on the GPU: run<grain::Cuda> (run.hpp), in a CUDA translation unit; nothing
// to run (true, with a note) where no GPU is visible.
#include "poisson/run.hpp"

bool run_cuda(long long n_max) {
  if (grain::impl::cuda_device_count() == 0) {
    std::printf("cuda: no GPU visible, skipped\n");
    return true;
  }
  return run<grain::Cuda>(n_max);
}
