// `grain bench core` on the GPU: the measurements of core_bench.hpp instantiated for grain::Cuda
// (a CUDA translation unit; the host back ends are instantiated in core_bench.cpp, C++).
#include "core_bench.hpp"

namespace grain::bench::core {

void run_backend_cuda(Report& rep, const Inputs& in, int reps) {
  run_backend<Cuda>(rep, in, reps, bench::hand::cuda_triad, bench::hand::cuda_dot);
}

}  // namespace grain::bench::core
