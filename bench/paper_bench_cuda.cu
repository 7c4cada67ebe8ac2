// `grain bench paper` on the GPU: the measurements of paper_bench.hpp instantiated for grain::Cuda
// (a CUDA translation unit; the host back ends are instantiated in paper_bench.cpp, C++).
#include "paper_bench.hpp"

namespace grain::bench::paper {

void bench_backend_cuda(Report& rep, const PaperOptions& opt, std::size_t copy_bytes) {
  bench_backend<Cuda>(rep, opt, copy_bytes);
}

}  // namespace grain::bench::paper
