// Serial and OpenMP back ends, written once: every loop below is an OpenMP region guarded by
// `if (Parallel)`, which is false for Serial (and ignored entirely in a build without OpenMP).
//
// Work is split statically into one contiguous block per thread, without OpenMP worksharing
// barriers, so an exception thrown by a kernel (a failed bounds check, say) is caught per thread
// and rethrown on the calling thread after the region instead of terminating the program.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "grain/core/config.hpp"
#include "grain/core/error.hpp"
#include "grain/core/md_index.hpp"
#include "grain/core/parallel.hpp"
#include "grain/core/policy.hpp"

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace grain::impl {

template <class Exec>
inline constexpr bool host_parallel_v =
#if defined(GRAIN_ENABLE_OPENMP)
    std::is_same_v<Exec, OpenMP>;
#else
    false;
#endif

// Threads a host region may use: 1 for Serial or when already inside a parallel region.
template <class Exec>
int host_threads() {
#if defined(GRAIN_ENABLE_OPENMP)
  if (host_parallel_v<Exec> && !omp_in_parallel()) return omp_get_max_threads();
#endif
  return 1;
}
inline int host_thread_id() {
#if defined(GRAIN_ENABLE_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Collects the first exception of any thread of a region.
class ExceptionTrap {
 public:
  template <class Body>
  void run(Body&& body) noexcept {
    try {
      body();
    } catch (...) {
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp critical(grain_exception_trap)
#endif
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::exception_ptr first_;
};

// Runs body(thread, nthreads, lo, hi) on each thread over its contiguous share of [begin, end).
template <class Exec, class Body>
void host_split(index_type begin, index_type end, int nthreads, Body&& body) {
  ExceptionTrap trap;
  const index_type n = end - begin;
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
#endif
  {
    // The runtime may grant fewer threads than asked (OMP_DYNAMIC, thread limits): the granted
    // ones then take the nthreads blocks in turn, so every block still runs exactly once.
#if defined(GRAIN_ENABLE_OPENMP)
    const int granted = nthreads > 1 ? omp_get_num_threads() : 1;
#else
    const int granted = 1;
#endif
    const int nt = nthreads;
    for (int t = nthreads > 1 ? host_thread_id() : 0; t < nt; t += granted) {
      const index_type lo = begin + n * t / nt;
      const index_type hi = begin + n * (t + 1) / nt;
      trap.run([&] { body(t, nt, lo, hi); });
    }
  }
  trap.rethrow();
}

// ---- RangePolicy -----------------------------------------------------------------------------------
template <class F, class Exec>
struct HostRangeFor {
  static void execute(const RangePolicy<Exec>& p, const F& f) {
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), p.size()));
    host_split<Exec>(p.begin(), p.end(), nt, [&](int, int, index_type lo, index_type hi) {
      for (index_type i = lo; i < hi; ++i) f(i);
    });
  }
};

template <class F, class Reducer, class Exec>
struct HostRangeReduce {
  using value_type = typename Reducer::value_type;
  static void execute(const RangePolicy<Exec>& p, const F& f, const Reducer& red) {
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), p.size()));
    std::vector<value_type> partial(nt);
    host_split<Exec>(p.begin(), p.end(), nt, [&](int t, int, index_type lo, index_type hi) {
      value_type v;
      red.init(v);
      for (index_type i = lo; i < hi; ++i) f(i, v);
      partial[t] = v;
    });
    // Joined in thread order: the same threads give the same rounding every time.
    value_type total = partial[0];
    for (int t = 1; t < nt; ++t) red.join(total, partial[t]);
    red.reference() = total;
  }
};

template <class F, class Reducer, class Exec>
struct HostRangeScan {
  using value_type = typename Reducer::value_type;
  static void execute(const RangePolicy<Exec>& p, const F& f, const Reducer& red) {
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), p.size()));
    std::vector<value_type> prefix(nt + 1);
    // Pass 1: each thread sums its block (final = false).
    host_split<Exec>(p.begin(), p.end(), nt, [&](int t, int, index_type lo, index_type hi) {
      value_type v;
      red.init(v);
      for (index_type i = lo; i < hi; ++i) f(i, v, false);
      prefix[t + 1] = v;
    });
    red.init(prefix[0]);
    for (int t = 1; t <= nt; ++t) {
      value_type s = prefix[t - 1];
      red.join(s, prefix[t]);
      prefix[t] = s;
    }
    // Pass 2: each thread rescans its block from its exclusive prefix (final = true).
    host_split<Exec>(p.begin(), p.end(), nt, [&](int t, int, index_type lo, index_type hi) {
      value_type v = prefix[t];
      for (index_type i = lo; i < hi; ++i) f(i, v, true);
    });
    red.reference() = prefix[nt];
  }
};

// ---- MDRangePolicy: tiles are split among threads; inside a tile the fast index is innermost --
template <int R, class Body>
GRAIN_FORCEINLINE void host_tile_loop(const MDIndexer<R>& ix, index_type t, Body&& body) {
  index_type o[R];
  ix.tile_origin(t, o);
  index_type hi[R];
  for (int r = 0; r < R; ++r) hi[r] = std::min(o[r] + ix.tile[r], ix.upper[r]);
  index_type idx[R];
  // Nested loops over the tile, fast dimension innermost so it vectorizes.
  if constexpr (R == 2) {
    if (ix.left) {
      for (idx[1] = o[1]; idx[1] < hi[1]; ++idx[1])
        for (idx[0] = o[0]; idx[0] < hi[0]; ++idx[0]) body(idx);
    } else {
      for (idx[0] = o[0]; idx[0] < hi[0]; ++idx[0])
        for (idx[1] = o[1]; idx[1] < hi[1]; ++idx[1]) body(idx);
    }
  } else {
    // Ranks 3 and 4: a linear walk over the tile's points in the policy's order.
    index_type ext[R], vol = 1;
    for (int r = 0; r < R; ++r) {
      ext[r] = hi[r] - o[r];
      vol *= ext[r];
    }
    for (index_type lin = 0; lin < vol; ++lin) {
      ix.split(lin, ext, idx);
      for (int r = 0; r < R; ++r) idx[r] += o[r];
      body(idx);
    }
  }
}

template <class F, class Exec, class RankT>
struct HostMDFor {
  using Policy = MDRangePolicy<Exec, RankT>;
  static constexpr int R = RankT::rank;
  static void execute(const Policy& p, const F& f) {
    const MDIndexer<R> ix(p);
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), ix.num_tiles));
    host_split<Exec>(0, ix.num_tiles, nt, [&](int, int, index_type lo, index_type hi) {
      for (index_type t = lo; t < hi; ++t)
        host_tile_loop<R>(ix, t, [&](const index_type* idx) {
          md_call(f, idx, std::make_index_sequence<R>{});
        });
    });
  }
};

template <class F, class Reducer, class Exec, class RankT>
struct HostMDReduce {
  using Policy = MDRangePolicy<Exec, RankT>;
  using value_type = typename Reducer::value_type;
  static constexpr int R = RankT::rank;
  static void execute(const Policy& p, const F& f, const Reducer& red) {
    const MDIndexer<R> ix(p);
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), ix.num_tiles));
    std::vector<value_type> partial(nt);
    host_split<Exec>(0, ix.num_tiles, nt, [&](int t, int, index_type lo, index_type hi) {
      value_type v;
      red.init(v);
      for (index_type tile = lo; tile < hi; ++tile)
        host_tile_loop<R>(ix, tile, [&](const index_type* idx) {
          md_call(f, idx, std::make_index_sequence<R>{}, v);
        });
      partial[t] = v;
    });
    value_type total = partial[0];
    for (int t = 1; t < nt; ++t) red.join(total, partial[t]);
    red.reference() = total;
  }
};

// ---- teams -------------------------------------------------------------------------------------
// Bump allocator over one scratch level (Kokkos' get_shmem). Every thread of a team makes the
// same sequence of requests and so receives the same addresses.
class ScratchAllocator {
 public:
  GRAIN_INLINE_FUNCTION ScratchAllocator() = default;
  GRAIN_INLINE_FUNCTION ScratchAllocator(char* base, std::size_t bytes) : base_(base), size_(bytes) {}
  // Returns `bytes` of scratch (16-byte aligned), or nullptr when the policy reserved too little.
  GRAIN_INLINE_FUNCTION void* get_shmem(std::size_t bytes) const {
    const std::size_t b = (bytes + 15) / 16 * 16;
    if (offset_ + b > size_) return nullptr;
    void* p = base_ + offset_;
    offset_ += b;
    return p;
  }
  template <class T>
  GRAIN_INLINE_FUNCTION T* get(std::size_t count) const {
    return static_cast<T*>(get_shmem(count * sizeof(T)));
  }
  GRAIN_INLINE_FUNCTION std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  mutable std::size_t offset_ = 0;
};

// The host team member: a team is one thread (team_size 1), its vector lanes a SIMD loop.
template <class Exec>
class TeamMember {
 public:
  using is_team_member = void;
  using execution_space = Exec;

  TeamMember(index_type league_rank, index_type league_size, char* const team_base[2],
             const std::size_t team_bytes[2], char* const thread_base[2],
             const std::size_t thread_bytes[2])
      : league_rank_(league_rank), league_size_(league_size) {
    for (int l = 0; l < 2; ++l) {
      team_scratch_[l] = ScratchAllocator(team_base[l], team_bytes[l]);
      thread_scratch_[l] = ScratchAllocator(thread_base[l], thread_bytes[l]);
    }
  }

  GRAIN_INLINE_FUNCTION index_type league_rank() const { return league_rank_; }
  GRAIN_INLINE_FUNCTION index_type league_size() const { return league_size_; }
  GRAIN_INLINE_FUNCTION int team_rank() const { return 0; }
  GRAIN_INLINE_FUNCTION int team_size() const { return 1; }
  GRAIN_INLINE_FUNCTION int vector_length() const { return 1; }
  GRAIN_INLINE_FUNCTION void team_barrier() const {}
  // team_copy_async / copy_async / team_copy_wait / copy_commit / copy_wait_prior: see
  // TeamMember<Cuda>; on the host a plain copy.
  template <class E>
  GRAIN_INLINE_FUNCTION void team_copy_async(E* dst, const E* src, index_type n) const {
    for (index_type i = 0; i < n; ++i) dst[i] = src[i];
  }
  template <class E>
  GRAIN_INLINE_FUNCTION void copy_async(E* dst, const E* src) const {
    *dst = *src;
  }
  GRAIN_INLINE_FUNCTION void team_copy_wait() const {}
  GRAIN_INLINE_FUNCTION void copy_commit() const {}
  GRAIN_INLINE_FUNCTION void copy_wait_prior() const {}
  GRAIN_INLINE_FUNCTION bool is_team_leader() const { return true; }
  GRAIN_INLINE_FUNCTION bool is_vector_leader() const { return true; }
  GRAIN_INLINE_FUNCTION const ScratchAllocator& team_scratch(int level) const { return team_scratch_[level & 1]; }
  GRAIN_INLINE_FUNCTION const ScratchAllocator& thread_scratch(int level) const { return thread_scratch_[level & 1]; }
  GRAIN_INLINE_FUNCTION const ScratchAllocator& team_shmem() const { return team_scratch_[0]; }

  template <NestLevel L, class F>
  GRAIN_INLINE_FUNCTION void nested_for(index_type b, index_type e, const F& f) const {
    if constexpr (L == NestLevel::TeamThread) {
      for (index_type i = b; i < e; ++i) f(i);
    } else {
#pragma omp simd
      for (index_type i = b; i < e; ++i) f(i);
    }
  }

  template <NestLevel L, class F, class Reducer>
  GRAIN_INLINE_FUNCTION void nested_reduce(index_type b, index_type e, const F& f, const Reducer& red) const {
    using T = typename Reducer::value_type;
    T v;
    red.init(v);
    if constexpr (L != NestLevel::TeamThread && std::is_arithmetic_v<T> &&
                  std::is_same_v<Reducer, Sum<T>>) {
#pragma omp simd reduction(+ : v)
      for (index_type i = b; i < e; ++i) f(i, v);
    } else {
      for (index_type i = b; i < e; ++i) f(i, v);
    }
    red.reference() = v;
  }

 private:
  index_type league_rank_, league_size_;
  ScratchAllocator team_scratch_[2], thread_scratch_[2];
};

// One scratch buffer per host thread, allocated before the region (kernels never allocate).
struct HostScratch {
  std::unique_ptr<char[]> storage;
  char* team_base[2] = {nullptr, nullptr};
  char* thread_base[2] = {nullptr, nullptr};
  std::size_t team_bytes[2] = {0, 0};
  std::size_t thread_bytes[2] = {0, 0};

  template <class Exec>
  explicit HostScratch(const TeamPolicy<Exec>& p) {
    std::size_t total = 0;
    for (int l = 0; l < 2; ++l) {
      team_bytes[l] = p.team_scratch_size(l);
      thread_bytes[l] = p.thread_scratch_size(l);
      total += team_bytes[l] + thread_bytes[l];
    }
    if (total == 0) return;
    storage.reset(new char[total + 64]);
    char* base = storage.get();
    base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
    for (int l = 0; l < 2; ++l) {
      team_base[l] = base;
      base += team_bytes[l];
      thread_base[l] = base;
      base += thread_bytes[l];
    }
  }
};

template <class Exec>
void check_host_team(const TeamPolicy<Exec>& p) {
  if (p.team_size_requested() > 1)
    throw_error("grain::TeamPolicy: team size ", p.team_size_requested(), " on the ", Exec::name(),
                " back end; host teams have one thread (ask for grain::AUTO or 1)");
}

template <class F, class Exec>
struct HostTeamFor {
  static void execute(const TeamPolicy<Exec>& p, const F& f) {
    check_host_team(p);
    const index_type league = p.league_size();
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), league));
    host_split<Exec>(0, league, nt, [&](int, int, index_type lo, index_type hi) {
      HostScratch s(p);
      for (index_type l = lo; l < hi; ++l) {
        const TeamMember<Exec> m(l, league, s.team_base, s.team_bytes, s.thread_base,
                                 s.thread_bytes);
        f(m);
      }
    });
  }
};

template <class F, class Reducer, class Exec>
struct HostTeamReduce {
  using value_type = typename Reducer::value_type;
  static void execute(const TeamPolicy<Exec>& p, const F& f, const Reducer& red) {
    check_host_team(p);
    const index_type league = p.league_size();
    const int nt = std::max<index_type>(1, std::min<index_type>(host_threads<Exec>(), league));
    std::vector<value_type> partial(nt);
    host_split<Exec>(0, league, nt, [&](int t, int, index_type lo, index_type hi) {
      HostScratch s(p);
      value_type v;
      red.init(v);
      for (index_type l = lo; l < hi; ++l) {
        const TeamMember<Exec> m(l, league, s.team_base, s.team_bytes, s.thread_base,
                                 s.thread_bytes);
        f(m, v);
      }
      partial[t] = v;
    });
    value_type total = partial[0];
    for (int t = 1; t < nt; ++t) red.join(total, partial[t]);
    red.reference() = total;
  }
};

// ---- binding the host implementations to the dispatch templates ---------------------------------
#define GRAIN_BIND_HOST_BACKEND(EXEC)                                                             \
  template <class F>                                                                              \
  struct ParallelFor<RangePolicy<EXEC>, F, EXEC> : HostRangeFor<F, EXEC> {};                     \
  template <class F, class RankT>                                                                 \
  struct ParallelFor<MDRangePolicy<EXEC, RankT>, F, EXEC> : HostMDFor<F, EXEC, RankT> {};        \
  template <class F>                                                                              \
  struct ParallelFor<TeamPolicy<EXEC>, F, EXEC> : HostTeamFor<F, EXEC> {};                       \
  template <class F, class Red>                                                                   \
  struct ParallelReduce<RangePolicy<EXEC>, F, Red, EXEC> : HostRangeReduce<F, Red, EXEC> {};     \
  template <class F, class Red, class RankT>                                                      \
  struct ParallelReduce<MDRangePolicy<EXEC, RankT>, F, Red, EXEC>                                 \
      : HostMDReduce<F, Red, EXEC, RankT> {};                                                     \
  template <class F, class Red>                                                                   \
  struct ParallelReduce<TeamPolicy<EXEC>, F, Red, EXEC> : HostTeamReduce<F, Red, EXEC> {};       \
  template <class F, class Red>                                                                   \
  struct ParallelScan<RangePolicy<EXEC>, F, Red, EXEC> : HostRangeScan<F, Red, EXEC> {};

GRAIN_BIND_HOST_BACKEND(Serial)
#if defined(GRAIN_ENABLE_OPENMP)
GRAIN_BIND_HOST_BACKEND(OpenMP)
#endif
#undef GRAIN_BIND_HOST_BACKEND

}  // namespace grain::impl
