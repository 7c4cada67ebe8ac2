// Device helpers shared by mma's kernel files (mma_cuda.cu, wgmma_cuda.cu): the 3xTF32 split and
// the result stores. Device code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "grain/contract/problem.hpp"

namespace grain::impl {

// x = big + small: big is x rounded to TF32 (its leading 11 bits, to nearest, ties away from zero:
// the add carries into the kept bits, the mask drops the rest), small = x - big, exact in fp32.
// small goes to the MMA as it is: a TF32 operand's low 13 bits are not used, so small keeps its
// leading 11 bits, a loss under 2^-21 of x, within the tests' bound. Three instructions, where
// two cvt.rna.tf32.f32 would make the integer pipe the kernel's busiest.
__device__ __forceinline__ void split_tf32(float x, std::uint32_t& big, std::uint32_t& small) {
  big = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}

// V elements of T stored as one access (8 or 16 bytes).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T x[V];
};

// V neighbouring cells' results into o (aligned to V elements): written, or added to what is there
// (sum_into); atomic: added atomically (blocks sharing a tile's stages add into a zeroed output;
// float only, one vector atomic on compute capability 9.0).
template <class T, int V>
__device__ __forceinline__ void store_cells(T* o, Pack<T, V> v, bool sum_into, bool atomic = false) {
  auto* q = reinterpret_cast<Pack<T, V>*>(o);
  if (atomic) {
    if constexpr (std::is_same_v<T, float> && V == 4) {
      atomicAdd(reinterpret_cast<float4*>(o), make_float4(v.x[0], v.x[1], v.x[2], v.x[3]));
    } else if constexpr (std::is_same_v<T, float> && V == 2) {
      atomicAdd(reinterpret_cast<float2*>(o), make_float2(v.x[0], v.x[1]));
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) atomicAdd(o + i, v.x[i]);
    }
    return;
  }
  if (sum_into) {
    const Pack<T, V> w = *q;
#pragma unroll
    for (int i = 0; i < V; ++i) v.x[i] += w.x[i];
  }
  *q = v;
}

}  // namespace grain::impl
