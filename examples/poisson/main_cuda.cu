// The poisson example on the GPU: run<grain::Cuda> (run.hpp), in a CUDA translation unit; nothing
// to run (true) where no GPU is visible.
#include "poisson/run.hpp"

bool run_cuda(long long n_max) { return grain::impl::cuda_device_count() == 0 || run<grain::Cuda>(n_max); }
