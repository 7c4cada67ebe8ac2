// The hex_gradient example on the GPU: run<grain::Cuda> (run.hpp), in a CUDA translation unit; nothing
// to run (true) where no GPU is visible.
#include "hex_gradient/run.hpp"

bool run_cuda(long long n) { return grain::impl::cuda_device_count() == 0 || run<grain::Cuda>(n); }
