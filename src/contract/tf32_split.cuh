// The 3xTF32 split shared by mma's kernels (mma_cuda.cu, wgmma_cuda.cu). Device code only.
#pragma once

#include <cstdint>

namespace grain::impl {

// x = big + small: big is x rounded to TF32 (its leading 11 bits, to nearest, ties away from zero:
// the add carries into the kept bits, the mask drops the rest), small = x - big, exact in fp32.
// small goes to the MMA as it is: a TF32 operand's low 13 bits are not used, so small keeps its
// leading 11 bits, a loss under 2^-21 of x (the tests' worst error did not move). Three
// instructions; the two cvt.rna.tf32.f32 they replace kept the integer pipe the busiest in the
// kernel (Nsight Compute, H100, session 10: FieldFieldTensor Q4 float 1.50 -> 1.23 ms).
__device__ __forceinline__ void split_tf32(float x, std::uint32_t& big, std::uint32_t& small) {
  big = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}

}  // namespace grain::impl
