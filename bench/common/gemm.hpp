// GEMM peak: the floating-point ceiling of BENCHMARKS.md, measured through the vendor library
// (OpenBLAS on the CPU, cuBLAS on the GPU) in the same run as the kernels it judges.
#pragma once

namespace grain::bench {

struct GemmPeak {
  double float_GFLOPs = 0;   // 0: not measured (library absent)
  double double_GFLOPs = 0;
};

// Square n x n x n GEMMs on random data, median of several; zeros when built without OpenBLAS.
GemmPeak host_gemm_peak(int n = 2048);
bool have_openblas();

#if defined(GRAIN_ENABLE_CUDA)
// cuBLAS, default math mode (no TF32 for float), random data.
GemmPeak cuda_gemm_peak(int n = 8192);
#endif

}  // namespace grain::bench
