// Peers of grain's contractions, called the way a user would call them (raw pointers, row-major
// cells: LayoutRight (C,L,K) left, (C,R,K) right, (C,L,R) out): out_c = left_c * right_c^T.
//   openblas-gemm            one cblas_?gemm per cell, cells split over OpenMP threads (CPU)
//   cublas-strided-batched   one cublas?gemmStridedBatched over all cells (GPU)
#pragma once

#include <cstdint>

namespace grain::bench {

// False when built without OpenBLAS (the peer is then skipped).
bool have_openblas_peer();
void openblas_per_cell(const double* left, const double* right, double* out, std::int64_t C,
                       std::int64_t L, std::int64_t R, std::int64_t K, int threads);
void openblas_per_cell(const float* left, const float* right, float* out, std::int64_t C,
                       std::int64_t L, std::int64_t R, std::int64_t K, int threads);

#if defined(GRAIN_ENABLE_CUDA)
// Device pointers; asynchronous on the default stream.
void cublas_strided_batched(const double* left, const double* right, double* out, std::int64_t C,
                            std::int64_t L, std::int64_t R, std::int64_t K);
void cublas_strided_batched(const float* left, const float* right, float* out, std::int64_t C,
                            std::int64_t L, std::int64_t R, std::int64_t K);
#endif

}  // namespace grain::bench
