// The CUDA back end: kernels for every policy, compiled only in nvcc translation units.
//
// Mapping (docs/architecture.md): a range index is a thread (exact grid, grid-stride past 2^31
// blocks); an MD tile is a thread block; a team is a thread block of blockDim = (vector_length,
// team_size);
// team scratch level 0 is dynamic shared memory, level 1 a global buffer per resident block.
// Reductions combine warp shuffles with one shared slot per warp, and finish in the last block
// to arrive (one launch, one small copy back).
#pragma once

#include "grain/core/config.hpp"

#if GRAIN_CUDA_LAUNCH_AVAILABLE

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "grain/core/backend/cuda_runtime.hpp"
#include "grain/core/backend/host.hpp"
#include "grain/core/md_index.hpp"
#include "grain/core/parallel.hpp"
#include "grain/core/policy.hpp"

namespace grain::impl {

// Bytes at the start of dynamic shared memory reserved for reductions: one slot per warp plus a
// broadcast slot, for values up to kCudaMaxReduceBytes.
inline constexpr int kCudaMaxReduceBytes = 64;
inline constexpr std::size_t kCudaReduceReserve = 33 * kCudaMaxReduceBytes;
inline constexpr int kCudaRangeBlock = 256;

__device__ inline unsigned char* cuda_shmem() {
  extern __shared__ __align__(16) unsigned char grain_dynamic_shared[];
  return grain_dynamic_shared;
}

// ---- warp and block reductions for any plain value type --------------------------------------------
template <class T>
__device__ GRAIN_FORCEINLINE T shfl_down(unsigned mask, const T& v, int delta) {
  if constexpr (std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    return __shfl_down_sync(mask, v, delta);
  } else {
    constexpr int n = (sizeof(T) + 3) / 4;
    int w[n];
    std::memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < n; ++k) w[k] = __shfl_down_sync(mask, w[k], delta);
    T out;
    std::memcpy(&out, w, sizeof(T));
    return out;
  }
}
template <class T>
__device__ GRAIN_FORCEINLINE T shfl_xor(unsigned mask, const T& v, int lane_mask, int width) {
  if constexpr (std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    return __shfl_xor_sync(mask, v, lane_mask, width);
  } else {
    constexpr int n = (sizeof(T) + 3) / 4;
    int w[n];
    std::memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < n; ++k) w[k] = __shfl_xor_sync(mask, w[k], lane_mask, width);
    T out;
    std::memcpy(&out, w, sizeof(T));
    return out;
  }
}

__device__ GRAIN_FORCEINLINE int cuda_block_threads() { return blockDim.x * blockDim.y; }
__device__ GRAIN_FORCEINLINE int cuda_thread_id() { return threadIdx.y * blockDim.x + threadIdx.x; }
// Mask of the lanes that exist in this thread's warp (the last warp may be partial).
__device__ GRAIN_FORCEINLINE unsigned cuda_warp_mask() {
  const int n = cuda_block_threads() - (cuda_thread_id() & ~31);
  return n >= 32 ? 0xffffffffu : ((1u << n) - 1u);
}

// Reduces v over the lanes of this warp into lane 0.
template <class R, class T>
__device__ GRAIN_FORCEINLINE void cuda_warp_reduce(const R& red, T& v) {
  const unsigned mask = cuda_warp_mask();
  const int active = __popc(mask);
  const int lane = cuda_thread_id() & 31;
  for (int d = 16; d > 0; d >>= 1) {
    const T other = shfl_down(mask, v, d);
    if (lane + d < active) red.join(v, other);
  }
}

// Reduces v over every thread of the block; every thread receives the result. All threads of
// the block must call it.
template <class R, class T>
__device__ void cuda_block_reduce(const R& red, T& v) {
  static_assert(sizeof(T) <= kCudaMaxReduceBytes,
                "grain (CUDA): reduction values are limited to 64 bytes");
  T* slot = reinterpret_cast<T*>(cuda_shmem());
  const int tid = cuda_thread_id();
  const int nwarps = (cuda_block_threads() + 31) / 32;
  cuda_warp_reduce(red, v);
  if ((tid & 31) == 0) slot[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    T w;
    if (tid < nwarps) {
      w = slot[tid];
    } else {
      red.init(w);
    }
    // A block of fewer than 32 threads has a partial first warp: name only its lanes.
    const unsigned mask = cuda_warp_mask();
    const int active = __popc(mask);
    for (int d = 16; d > 0; d >>= 1) {
      const T other = shfl_down(mask, w, d);
      if (tid + d < active) red.join(w, other);
    }
    if (tid == 0) slot[32] = w;
  }
  __syncthreads();
  v = slot[32];
  __syncthreads();  // the slots may be reused by the next reduction
}

// Reads a value another block wrote (and fenced) through the L2, never a stale L1 line; works
// for any plain value type, word by word.
template <class T>
__device__ GRAIN_FORCEINLINE T load_bypassing_l1(const T* p) {
  T out;
  if constexpr (sizeof(T) % 4 == 0) {
    constexpr int n = sizeof(T) / 4;
    unsigned w[n];
    const unsigned* src = reinterpret_cast<const unsigned*>(p);
#pragma unroll
    for (int k = 0; k < n; ++k) w[k] = __ldcg(src + k);
    memcpy(&out, w, sizeof(T));
  } else {
    const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p);
    unsigned char* dst = reinterpret_cast<unsigned char*>(&out);
    for (unsigned k = 0; k < sizeof(T); ++k) dst[k] = src[k];
  }
  return out;
}

// Block partials -> one value: the last block to finish reduces all partials into *result.
template <class R, class T>
__device__ void cuda_grid_finish(const R& red, const T& block_value, T* partials,
                                 unsigned* counter, T* result) {
  __shared__ bool last;
  const int tid = cuda_thread_id();
  if (tid == 0) {
    partials[blockIdx.x] = block_value;
    __threadfence();
    // atomicInc wraps to 0 at gridDim.x - 1, so the counter is ready for the next launch.
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  T v;
  red.init(v);
  for (unsigned b = tid; b < gridDim.x; b += cuda_block_threads()) {
    red.join(v, load_bypassing_l1(partials + b));
  }
  cuda_block_reduce(red, v);
  if (tid == 0) *result = v;
}

// ---- kernels -------------------------------------------------------------------------------------
// One index per thread over an exact grid: no loop, one bounds test (what a hand-written
// kernel does; faster than the grid-stride form on a bandwidth-bound triad).
template <class F>
__global__ void cuda_range_for_exact_kernel(const F f, index_type begin, index_type end) {
  const index_type i = begin + static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < end) f(i);
}

// Grid-stride form for ranges beyond 2^31 - 1 blocks.
template <class F>
__global__ void cuda_range_for_kernel(const F f, index_type begin, index_type end) {
  const index_type stride = static_cast<index_type>(gridDim.x) * blockDim.x;
  for (index_type i = begin + static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < end; i += stride)
    f(i);
}

template <class F, class R>
__global__ void cuda_range_reduce_kernel(const F f, const R red, index_type begin, index_type end,
                                         typename R::value_type* partials, unsigned* counter,
                                         typename R::value_type* result) {
  using T = typename R::value_type;
  T v;
  red.init(v);
  const index_type stride = static_cast<index_type>(gridDim.x) * blockDim.x;
  for (index_type i = begin + static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < end; i += stride)
    f(i, v);
  cuda_block_reduce(red, v);
  cuda_grid_finish(red, v, partials, counter, result);
}

template <class F, int R>
__global__ void cuda_md_for_kernel(const F f, const MDIndexer<R> ix) {
  for (index_type t = blockIdx.x; t < ix.num_tiles; t += gridDim.x) {
    index_type o[R], idx[R];
    ix.tile_origin(t, o);
    if (ix.point(o, threadIdx.x, idx)) md_call(f, idx, std::make_index_sequence<R>{});
  }
}

template <class F, class Red, int R>
__global__ void cuda_md_reduce_kernel(const F f, const Red red, const MDIndexer<R> ix,
                                      typename Red::value_type* partials, unsigned* counter,
                                      typename Red::value_type* result) {
  using T = typename Red::value_type;
  T v;
  red.init(v);
  for (index_type t = blockIdx.x; t < ix.num_tiles; t += gridDim.x) {
    index_type o[R], idx[R];
    ix.tile_origin(t, o);
    if (ix.point(o, threadIdx.x, idx)) md_call(f, idx, std::make_index_sequence<R>{}, v);
  }
  cuda_block_reduce(red, v);
  cuda_grid_finish(red, v, partials, counter, result);
}

}  // namespace grain::impl

namespace grain::impl {

// ---- the team member ----------------------------------------------------------------------------
struct CudaTeamLaunch {
  index_type league_size;
  std::size_t team_bytes[2];
  std::size_t thread_bytes[2];
  char* level1;                // global scratch, level1_per_block bytes per resident block
  std::size_t level1_per_block;
};

template <>
class TeamMember<Cuda> {
 public:
  using is_team_member = void;
  using execution_space = Cuda;

  __device__ TeamMember(index_type league_rank, const CudaTeamLaunch& L) : league_rank_(league_rank), league_size_(L.league_size) {
    char* l0 = reinterpret_cast<char*>(cuda_shmem()) + kCudaReduceReserve;
    char* l1 = L.level1 + L.level1_per_block * blockIdx.x;
    team_scratch_[0] = ScratchAllocator(l0, L.team_bytes[0]);
    thread_scratch_[0] =
        ScratchAllocator(l0 + L.team_bytes[0] + L.thread_bytes[0] * threadIdx.y, L.thread_bytes[0]);
    team_scratch_[1] = ScratchAllocator(l1, L.team_bytes[1]);
    thread_scratch_[1] =
        ScratchAllocator(l1 + L.team_bytes[1] + L.thread_bytes[1] * threadIdx.y, L.thread_bytes[1]);
  }

  __device__ GRAIN_FORCEINLINE index_type league_rank() const { return league_rank_; }
  __device__ GRAIN_FORCEINLINE index_type league_size() const { return league_size_; }
  __device__ GRAIN_FORCEINLINE int team_rank() const { return threadIdx.y; }
  __device__ GRAIN_FORCEINLINE int team_size() const { return blockDim.y; }
  __device__ GRAIN_FORCEINLINE int vector_length() const { return blockDim.x; }
  __device__ GRAIN_FORCEINLINE void team_barrier() const { __syncthreads(); }
  // Copies n elements of 4, 8 or 16 bytes from global memory into team scratch, the team's
  // threads taking consecutive elements, without waiting for them: on compute capability 8.0 and
  // later each is a cp.async, which moves global -> shared without a register, so a thread may
  // have any number in flight (a load-then-store loop holds one per register it spends). The
  // copies are complete for this thread after team_copy_wait(), and for the team after a
  // team_barrier() that follows it. Both pointers aligned to the element size.
  template <class E>
  __device__ GRAIN_FORCEINLINE void team_copy_async(E* dst, const E* src, index_type n) const {
    const int t = cuda_thread_id(), nt = cuda_block_threads();
    for (index_type i = t; i < n; i += nt) copy_async(dst + i, src + i);
  }
  // One element of 4, 8 or 16 bytes, global -> team scratch, by this thread alone (cp.async on
  // 8.0 and later, as team_copy_async; complete after team_copy_wait). Both pointers aligned to
  // the element size.
  template <class E>
  __device__ GRAIN_FORCEINLINE void copy_async(E* dst, const E* src) const {
    static_assert(sizeof(E) == 4 || sizeof(E) == 8 || sizeof(E) == 16, "copy_async: 4, 8 or 16-byte elements");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    if constexpr (sizeof(E) == 16)  // .cg: 16-byte copies may skip L1
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(int(sizeof(E))) : "memory");
#else
    *dst = *src;
#endif
  }
  __device__ GRAIN_FORCEINLINE void team_copy_wait() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
  }
  // Double buffering: copy_commit() closes this thread's copies issued since the last commit into
  // a batch; copy_wait_prior() waits for every batch but the latest (cp.async.commit_group /
  // wait_group 1). A team_barrier() after it makes the older batches visible to the team.
  __device__ GRAIN_FORCEINLINE void copy_commit() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
  }
  __device__ GRAIN_FORCEINLINE void copy_wait_prior() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
  }
  __device__ GRAIN_FORCEINLINE bool is_team_leader() const { return threadIdx.x == 0 && threadIdx.y == 0; }
  __device__ GRAIN_FORCEINLINE bool is_vector_leader() const { return threadIdx.x == 0; }
  __device__ GRAIN_FORCEINLINE const ScratchAllocator& team_scratch(int level) const { return team_scratch_[level & 1]; }
  __device__ GRAIN_FORCEINLINE const ScratchAllocator& thread_scratch(int level) const { return thread_scratch_[level & 1]; }
  __device__ GRAIN_FORCEINLINE const ScratchAllocator& team_shmem() const { return team_scratch_[0]; }

  template <NestLevel L, class F>
  __device__ GRAIN_FORCEINLINE void nested_for(index_type b, index_type e, const F& f) const {
    if constexpr (L == NestLevel::TeamThread) {
      for (index_type i = b + threadIdx.y; i < e; i += blockDim.y) f(i);
    } else if constexpr (L == NestLevel::ThreadVector) {
      for (index_type i = b + threadIdx.x; i < e; i += blockDim.x) f(i);
    } else {
      for (index_type i = b + cuda_thread_id(); i < e; i += cuda_block_threads()) f(i);
    }
  }

  template <NestLevel L, class F, class Red>
  __device__ void nested_reduce(index_type b, index_type e, const F& f, const Red& red) const {
    using T = typename Red::value_type;
    T v;
    red.init(v);
    if constexpr (L == NestLevel::TeamThread) {
      for (index_type i = b + threadIdx.y; i < e; i += blockDim.y) f(i, v);
      // Vector lanes ran the same iterations; count each thread once.
      if (threadIdx.x != 0) red.init(v);
      cuda_block_reduce(red, v);
    } else if constexpr (L == NestLevel::ThreadVector) {
      for (index_type i = b + threadIdx.x; i < e; i += blockDim.x) f(i, v);
      // Only this thread's vector lanes take part: the other threads of the warp may be in a
      // different iteration of an enclosing TeamThreadRange loop, or past its end.
      const int group = (cuda_thread_id() & 31) & ~(static_cast<int>(blockDim.x) - 1);
      const unsigned mask =
          blockDim.x >= 32 ? 0xffffffffu : (((1u << blockDim.x) - 1u) << group);
      for (int d = blockDim.x / 2; d > 0; d >>= 1) {
        const T other = shfl_xor(mask, v, d, blockDim.x);
        red.join(v, other);
      }
    } else {
      for (index_type i = b + cuda_thread_id(); i < e; i += cuda_block_threads()) f(i, v);
      cuda_block_reduce(red, v);
    }
    red.reference() = v;
  }

 private:
  index_type league_rank_, league_size_;
  ScratchAllocator team_scratch_[2], thread_scratch_[2];
};

template <class F>
__global__ void cuda_team_for_kernel(const F f, const CudaTeamLaunch L) {
  for (index_type l = blockIdx.x; l < L.league_size; l += gridDim.x) {
    const TeamMember<Cuda> m(l, L);
    f(m);
    if (l + gridDim.x < L.league_size) __syncthreads();  // scratch is reused by the next team
  }
}

template <class F, class R>
__global__ void cuda_team_reduce_kernel(const F f, const R red, const CudaTeamLaunch L,
                                        typename R::value_type* partials, unsigned* counter,
                                        typename R::value_type* result) {
  using T = typename R::value_type;
  T v;
  red.init(v);
  for (index_type l = blockIdx.x; l < L.league_size; l += gridDim.x) {
    const TeamMember<Cuda> m(l, L);
    f(m, v);
    if (l + gridDim.x < L.league_size) __syncthreads();
  }
  cuda_block_reduce(red, v);
  cuda_grid_finish(red, v, partials, counter, result);
}

// ---- scan -------------------------------------------------------------------------------------------
// Pass 1: each block sums its contiguous chunk.
template <class F, class R>
__global__ void cuda_scan_sum_kernel(const F f, const R red, index_type begin, index_type end,
                                     index_type chunk, typename R::value_type* block_sums) {
  using T = typename R::value_type;
  T v;
  red.init(v);
  const index_type lo = begin + chunk * blockIdx.x;
  const index_type hi = lo + chunk < end ? lo + chunk : end;
  for (index_type i = lo + threadIdx.x; i < hi; i += blockDim.x) f(i, v, false);
  cuda_block_reduce(red, v);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = v;
}

// Pass 2: an exclusive scan over the block sums (a few hundred values: one thread suffices).
template <class R>
__global__ void cuda_scan_blocks_kernel(const R red, int nblocks, typename R::value_type* sums,
                                        typename R::value_type* total) {
  using T = typename R::value_type;
  T run;
  red.init(run);
  for (int b = 0; b < nblocks; ++b) {
    const T s = sums[b];
    sums[b] = run;
    red.join(run, s);
  }
  *total = run;
}

// Pass 3: each block rescans its chunk tile by tile from its exclusive prefix.
template <class F, class R>
__global__ void cuda_scan_final_kernel(const F f, const R red, index_type begin, index_type end,
                                       index_type chunk, const typename R::value_type* prefixes) {
  using T = typename R::value_type;
  T* buf = reinterpret_cast<T*>(cuda_shmem());  // 2 * blockDim.x values (double buffer)
  const int tid = threadIdx.x, nb = blockDim.x;
  T run = prefixes[blockIdx.x];
  const index_type lo = begin + chunk * blockIdx.x;
  const index_type hi = lo + chunk < end ? lo + chunk : end;
  for (index_type base = lo; base < hi; base += nb) {
    const index_type i = base + tid;
    T c;
    red.init(c);
    if (i < hi) f(i, c, false);  // this index's own contribution
    // Hillis-Steele inclusive scan of the tile's contributions.
    int src = 0;
    buf[tid] = c;
    __syncthreads();
    for (int d = 1; d < nb; d <<= 1) {
      T x = buf[src * nb + tid];
      if (tid >= d) {
        T y = buf[src * nb + tid - d];
        red.join(y, x);
        x = y;
      }
      buf[(1 - src) * nb + tid] = x;
      src = 1 - src;
      __syncthreads();
    }
    T pre = run;
    if (tid > 0) red.join(pre, buf[src * nb + tid - 1]);
    if (i < hi) f(i, pre, true);
    const T tile_total = buf[src * nb + nb - 1];
    red.join(run, tile_total);
    __syncthreads();
  }
}

// ---- host-side launchers --------------------------------------------------------------------------
inline unsigned cuda_grid_for(index_type items, int block) {
  const index_type blocks = (items + block - 1) / block;
  return static_cast<unsigned>(std::min<index_type>(std::max<index_type>(blocks, 1), 2147483647));
}

template <class Kernel>
int cuda_resident_blocks(Kernel kernel, int block, std::size_t shmem) {
  int per_sm = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shmem),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::max(1, per_sm) * cuda_device().sm_count;
}

// Reduction workspace: `blocks` partials, the block counter and the result slot.
template <class T>
struct CudaReduceSpace {
  T* partials;
  unsigned* counter;
  T* result;
  explicit CudaReduceSpace(unsigned blocks) {
    char* base = static_cast<char*>(cuda_reduction_workspace((blocks + 1) * sizeof(T) + 64));
    counter = reinterpret_cast<unsigned*>(base);
    result = reinterpret_cast<T*>(base + 64);
    partials = result + 1;
  }
  T fetch() const {
    T v;
    cuda_check(cudaMemcpy(&v, result, sizeof(T), cudaMemcpyDeviceToHost), "parallel_reduce result copy");
    return v;
  }
};

template <class F>
struct ParallelFor<RangePolicy<Cuda>, F, Cuda> {
  static void execute(const RangePolicy<Cuda>& p, const F& f) {
    if (p.size() == 0) return;
    const index_type blocks = (p.size() + kCudaRangeBlock - 1) / kCudaRangeBlock;
    if (blocks <= 2147483647)
      cuda_range_for_exact_kernel<F><<<static_cast<unsigned>(blocks), kCudaRangeBlock>>>(f, p.begin(), p.end());
    else
      cuda_range_for_kernel<F><<<cuda_grid_for(p.size(), kCudaRangeBlock), kCudaRangeBlock>>>(f, p.begin(), p.end());
    cuda_check_launch("parallel_for(RangePolicy<Cuda>)");
  }
};

template <class F, class R>
struct ParallelReduce<RangePolicy<Cuda>, F, R, Cuda> {
  using T = typename R::value_type;
  static void execute(const RangePolicy<Cuda>& p, const F& f, const R& red) {
    if (p.size() == 0) {
      red.init(red.reference());
      return;
    }
    auto kernel = cuda_range_reduce_kernel<F, R>;
    const unsigned blocks = std::min<unsigned>(
        cuda_grid_for(p.size(), kCudaRangeBlock),
        cuda_resident_blocks(kernel, kCudaRangeBlock, kCudaReduceReserve));
    CudaReduceSpace<T> ws(blocks);
    kernel<<<blocks, kCudaRangeBlock, kCudaReduceReserve>>>(f, red, p.begin(), p.end(), ws.partials,
                                                          ws.counter, ws.result);
    cuda_check_launch("parallel_reduce(RangePolicy<Cuda>)");
    red.reference() = ws.fetch();
  }
};

template <class F, class RankT>
struct ParallelFor<MDRangePolicy<Cuda, RankT>, F, Cuda> {
  static constexpr int R = RankT::rank;
  static void execute(const MDRangePolicy<Cuda, RankT>& p, const F& f) {
    const MDIndexer<R> ix(p);
    if (ix.num_tiles == 0) return;
    const unsigned blocks = static_cast<unsigned>(std::min<index_type>(ix.num_tiles, 2147483647));
    cuda_md_for_kernel<F, R><<<blocks, static_cast<unsigned>(ix.tile_volume)>>>(f, ix);
    cuda_check_launch("parallel_for(MDRangePolicy<Cuda>)");
  }
};

template <class F, class Red, class RankT>
struct ParallelReduce<MDRangePolicy<Cuda, RankT>, F, Red, Cuda> {
  static constexpr int R = RankT::rank;
  using T = typename Red::value_type;
  static void execute(const MDRangePolicy<Cuda, RankT>& p, const F& f, const Red& red) {
    const MDIndexer<R> ix(p);
    if (ix.num_tiles == 0) {
      red.init(red.reference());
      return;
    }
    auto kernel = cuda_md_reduce_kernel<F, Red, R>;
    const int block = static_cast<int>(ix.tile_volume);
    const unsigned blocks = static_cast<unsigned>(std::min<index_type>(
        ix.num_tiles, cuda_resident_blocks(kernel, block, kCudaReduceReserve)));
    CudaReduceSpace<T> ws(blocks);
    kernel<<<blocks, block, kCudaReduceReserve>>>(f, red, ix, ws.partials, ws.counter, ws.result);
    cuda_check_launch("parallel_reduce(MDRangePolicy<Cuda>)");
    red.reference() = ws.fetch();
  }
};

// Validates and sizes a team launch for `kernel`; returns the grid (resident blocks at most).
template <class Kernel>
unsigned cuda_team_setup(Kernel kernel, const TeamPolicy<Cuda>& p, dim3& block, std::size_t& shmem,
                         CudaTeamLaunch& L) {
  cudaFuncAttributes attr{};
  cuda_check(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes");
  const int vec = p.vector_length();
  int team = p.team_size_requested();
  if (team == 0) team = std::max(1, std::min(256, attr.maxThreadsPerBlock) / vec);
  if (team * vec > attr.maxThreadsPerBlock)
    throw_error("grain::TeamPolicy<Cuda>: team_size ", team, " x vector_length ", vec, " = ",
                team * vec, " threads exceeds the ", attr.maxThreadsPerBlock,
                " threads per block this kernel can launch with (", attr.numRegs,
                " registers per thread)");
  block = dim3(vec, team, 1);
  const std::size_t l0 = p.scratch_bytes(0, team);
  shmem = kCudaReduceReserve + l0;
  const std::size_t limit = cuda_device().shared_per_block_optin;
  if (shmem + attr.sharedSizeBytes > limit)
    throw_error("grain::TeamPolicy<Cuda>: level-0 scratch of ", l0, " bytes per team (plus ",
                kCudaReduceReserve + attr.sharedSizeBytes, " reserved) exceeds the ", limit,
                " bytes of shared memory per block on ", cuda_device().name,
                "; move the excess to scratch level 1");
  if (shmem > 48 * 1024)
    cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shmem)),
               "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  const unsigned grid = static_cast<unsigned>(std::max<index_type>(
      1, std::min<index_type>(p.league_size(), cuda_resident_blocks(kernel, team * vec, shmem))));
  L.league_size = p.league_size();
  for (int l = 0; l < 2; ++l) {
    L.team_bytes[l] = p.team_scratch_size(l);
    L.thread_bytes[l] = p.thread_scratch_size(l);
  }
  L.level1_per_block = p.scratch_bytes(1, team);
  L.level1 = L.level1_per_block
                 ? static_cast<char*>(cuda_level1_workspace(L.level1_per_block * grid))
                 : nullptr;
  return grid;
}

template <class F>
struct ParallelFor<TeamPolicy<Cuda>, F, Cuda> {
  static void execute(const TeamPolicy<Cuda>& p, const F& f) {
    if (p.league_size() == 0) return;
    auto kernel = cuda_team_for_kernel<F>;
    dim3 block;
    std::size_t shmem;
    CudaTeamLaunch L;
    const unsigned grid = cuda_team_setup(kernel, p, block, shmem, L);
    kernel<<<grid, block, shmem>>>(f, L);
    cuda_check_launch("parallel_for(TeamPolicy<Cuda>)");
  }
};

template <class F, class R>
struct ParallelReduce<TeamPolicy<Cuda>, F, R, Cuda> {
  using T = typename R::value_type;
  static void execute(const TeamPolicy<Cuda>& p, const F& f, const R& red) {
    if (p.league_size() == 0) {
      red.init(red.reference());
      return;
    }
    auto kernel = cuda_team_reduce_kernel<F, R>;
    dim3 block;
    std::size_t shmem;
    CudaTeamLaunch L;
    const unsigned grid = cuda_team_setup(kernel, p, block, shmem, L);
    CudaReduceSpace<T> ws(grid);
    kernel<<<grid, block, shmem>>>(f, red, L, ws.partials, ws.counter, ws.result);
    cuda_check_launch("parallel_reduce(TeamPolicy<Cuda>)");
    red.reference() = ws.fetch();
  }
};

template <class F, class R>
struct ParallelScan<RangePolicy<Cuda>, F, R, Cuda> {
  using T = typename R::value_type;
  static void execute(const RangePolicy<Cuda>& p, const F& f, const R& red) {
    if (p.size() == 0) {
      red.init(red.reference());
      return;
    }
    static_assert(sizeof(T) <= kCudaMaxReduceBytes, "grain (CUDA): scan values are limited to 64 bytes");
    const int block = kCudaRangeBlock;
    const unsigned blocks = std::min<unsigned>(cuda_grid_for(p.size(), block),
                                               static_cast<unsigned>(4 * cuda_device().sm_count));
    const index_type chunk = (p.size() + blocks - 1) / blocks;
    CudaReduceSpace<T> ws(blocks);  // partials = per-block sums, result = total
    cuda_scan_sum_kernel<F, R><<<blocks, block, kCudaReduceReserve>>>(f, red, p.begin(), p.end(),
                                                                     chunk, ws.partials);
    cuda_check_launch("parallel_scan(RangePolicy<Cuda>) pass 1");
    cuda_scan_blocks_kernel<R><<<1, 1>>>(red, static_cast<int>(blocks), ws.partials, ws.result);
    cuda_check_launch("parallel_scan(RangePolicy<Cuda>) pass 2");
    cuda_scan_final_kernel<F, R><<<blocks, block, 2 * block * sizeof(T)>>>(f, red, p.begin(),
                                                                          p.end(), chunk, ws.partials);
    cuda_check_launch("parallel_scan(RangePolicy<Cuda>) pass 3");
    red.reference() = ws.fetch();
  }
};

}  // namespace grain::impl

#endif  // GRAIN_CUDA_LAUNCH_AVAILABLE
