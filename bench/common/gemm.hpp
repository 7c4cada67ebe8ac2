// GEMM peak: the floating-point ceiling of docs/benchmarks.md, measured through the vendor library
// (OpenBLAS on the CPU, cuBLAS on the GPU) in the same run as the kernels it judges.
#pragma once

#include <string>

namespace grain::bench {

struct GemmPeak {
  double float_GFLOPs = 0;   // 0: not measured (library absent)
  double double_GFLOPs = 0;
};

// Square n x n x n GEMMs on random data, median of several; zeros when built without OpenBLAS.
GemmPeak host_gemm_peak(int n = 2048);
bool have_openblas();
// OpenBLAS's build and the kernel set it runs ("OpenBLAS 0.3.21 DYNAMIC_ARCH ... SkylakeX"); ""
// without OpenBLAS.
std::string openblas_config();

// The kernel set to ask OpenBLAS for (OPENBLAS_CORETYPE) where the one it chose, `chosen`, uses
// narrower vectors than the CPU runs: "SkylakeX" on a CPU with AVX-512 F, CD, BW, DQ and VL for
// a kernel set without AVX-512, "Haswell" on a CPU with AVX2 and FMA for one without AVX2. ""
// where its choice stands.
std::string openblas_core_upgrade(const std::string& chosen, bool avx2_fma, bool avx512);

// Where OpenBLAS chose narrower kernels than this CPU runs and OPENBLAS_CORETYPE is unset,
// runs this program again (argv, through /proc/self/exe) with OPENBLAS_CORETYPE set, since
// OpenBLAS reads it once, as it loads. Debian 12's OpenBLAS 0.3.21, for one, takes its
// "Prescott" (SSE3) kernels on an AVX-512 CPU whose model it does not know (common in virtual
// machines), which would understate the CPU ceiling and the openblas-gemm peer several times.
// Returns where nothing was to be done, or, with a warning, where the exec failed.
void openblas_use_cpu_kernels(char** argv);

#if defined(GRAIN_ENABLE_CUDA)
// cuBLAS, default math mode (no TF32 for float), random data.
GemmPeak cuda_gemm_peak(int n = 8192);
#endif

}  // namespace grain::bench
