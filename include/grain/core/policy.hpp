// Execution policies: what index space a pattern runs over, and how it is split.
//
//   RangePolicy<E>(begin, end)                       1-D range
//   MDRangePolicy<E, Rank<3>>({b0,b1,b2}, {e0,e1,e2}, {t0,t1,t2})   tiled 2..4-D range
//   TeamPolicy<E>(league_size, team_size, vector_length)           teams with scratch memory
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "grain/core/config.hpp"
#include "grain/core/error.hpp"
#include "grain/core/execution_space.hpp"

namespace grain {

using index_type = std::int64_t;

// ---- RangePolicy ---------------------------------------------------------------------------------
template <class ExecSpace = DefaultExecutionSpace>
class RangePolicy {
 public:
  using execution_space = ExecSpace;
  RangePolicy(index_type begin, index_type end) : begin_(begin), end_(end) {
    if (end < begin)
      impl::throw_error("grain::RangePolicy: end ", end, " is before begin ", begin);
  }
  RangePolicy(ExecSpace, index_type begin, index_type end) : RangePolicy(begin, end) {}
  index_type begin() const { return begin_; }
  index_type end() const { return end_; }
  index_type size() const { return end_ - begin_; }

 private:
  index_type begin_, end_;
};

// ---- MDRangePolicy -------------------------------------------------------------------------------
enum class Iterate { Default, Left, Right };

template <int N, Iterate Order = Iterate::Default>
struct Rank {
  static_assert(N >= 2 && N <= 4, "grain::MDRangePolicy supports ranks 2 to 4");
  static constexpr int rank = N;
  static constexpr Iterate order = Order;
};

template <class ExecSpace, class RankT>
class MDRangePolicy {
 public:
  using execution_space = ExecSpace;
  static constexpr int rank = RankT::rank;
  // Left: the first index varies fastest (matches LayoutLeft, the GPU default); Right: the last.
  static constexpr Iterate iterate =
      RankT::order != Iterate::Default
          ? RankT::order
          : (is_host_execution_space_v<ExecSpace> ? Iterate::Right : Iterate::Left);
  using point_type = std::array<index_type, rank>;

  MDRangePolicy(const point_type& lower, const point_type& upper, const point_type& tile = {})
      : lower_(lower), upper_(upper), tile_(tile) {
    for (int r = 0; r < rank; ++r) {
      if (upper_[r] < lower_[r])
        impl::throw_error("grain::MDRangePolicy: upper bound ", upper_[r], " is below lower bound ",
                          lower_[r], " in dimension ", r);
      if (tile_[r] < 0)
        impl::throw_error("grain::MDRangePolicy: negative tile size ", tile_[r], " in dimension ", r);
    }
    default_tiles();
  }
  MDRangePolicy(std::initializer_list<index_type> lower, std::initializer_list<index_type> upper,
                std::initializer_list<index_type> tile = {})
      : MDRangePolicy(to_point(lower, "lower"), to_point(upper, "upper"), to_tile(tile)) {}

  index_type lower(int r) const { return lower_[r]; }
  index_type upper(int r) const { return upper_[r]; }
  index_type extent(int r) const { return upper_[r] - lower_[r]; }
  index_type tile(int r) const { return tile_[r]; }
  index_type tiles(int r) const {
    return extent(r) == 0 ? 0 : (extent(r) + tile_[r] - 1) / tile_[r];
  }
  index_type num_tiles() const {
    index_type n = 1;
    for (int r = 0; r < rank; ++r) n *= tiles(r);
    return n;
  }
  index_type tile_volume() const {
    index_type n = 1;
    for (int r = 0; r < rank; ++r) n *= tile_[r];
    return n;
  }
  index_type size() const {
    index_type n = 1;
    for (int r = 0; r < rank; ++r) n *= extent(r);
    return n;
  }

 private:
  static point_type to_point(std::initializer_list<index_type> l, const char* what) {
    if (static_cast<int>(l.size()) != rank)
      impl::throw_error("grain::MDRangePolicy: ", what, " bound has ", l.size(),
                        " entries, the policy's rank is ", rank);
    point_type p{};
    int r = 0;
    for (index_type v : l) p[r++] = v;
    return p;
  }
  static point_type to_tile(std::initializer_list<index_type> l) {
    if (l.size() == 0) return point_type{};
    return to_point(l, "tile");
  }
  // Unset tiles (0): on the GPU a tile is a thread block, so the fast dimension gets up to 32
  // (a warp) or the whole extent, the next ones share the rest of 256 threads; on the CPU a tile
  // is a cache block: the fast dimension whole, the others small.
  void default_tiles() {
    const bool host = is_host_execution_space_v<ExecSpace>;
    index_type budget = host ? (index_type(1) << 40) : 256;
    for (int k = 0; k < rank; ++k) {
      const int r = iterate == Iterate::Left ? k : rank - 1 - k;
      if (tile_[r] > 0) {
        budget = budget / tile_[r] > 0 ? budget / tile_[r] : 1;
        continue;
      }
      index_type want = host ? (k == 0 ? extent(r) : 4) : (k == 0 ? 32 : budget);
      if (want > extent(r)) want = extent(r);
      if (want > budget) want = budget;
      if (want < 1) want = 1;
      tile_[r] = want;
      budget = budget / want > 0 ? budget / want : 1;
    }
    if (!host && tile_volume() > 1024)
      impl::throw_error("grain::MDRangePolicy: tile volume ", tile_volume(),
                        " exceeds the 1024 threads of a CUDA block");
  }

  point_type lower_, upper_, tile_;
};

// ---- TeamPolicy ----------------------------------------------------------------------------------
struct AUTO_t {};
inline constexpr AUTO_t AUTO{};

namespace impl {
struct PerTeamValue {
  std::size_t bytes;
};
struct PerThreadValue {
  std::size_t bytes;
};
}  // namespace impl

inline impl::PerTeamValue PerTeam(std::size_t bytes) { return {bytes}; }
inline impl::PerThreadValue PerThread(std::size_t bytes) { return {bytes}; }

namespace impl {
template <class ExecSpace>
class TeamMember;  // specialized per back end
}

template <class ExecSpace = DefaultExecutionSpace>
class TeamPolicy {
 public:
  using execution_space = ExecSpace;
  using member_type = impl::TeamMember<ExecSpace>;
  static constexpr int max_vector_length = 32;

  TeamPolicy(index_type league_size, int team_size, int vector_length = 1)
      : league_(league_size), team_(team_size), vector_(vector_length) {
    validate();
  }
  TeamPolicy(index_type league_size, AUTO_t, int vector_length = 1)
      : league_(league_size), team_(0), vector_(vector_length) {
    validate();
  }
  TeamPolicy(ExecSpace, index_type league_size, int team_size, int vector_length = 1)
      : TeamPolicy(league_size, team_size, vector_length) {}

  // Scratch sizes per level (0: fast, shared memory on the GPU; 1: larger, global memory).
  TeamPolicy& set_scratch_size(int level, impl::PerTeamValue team) {
    return set_scratch_size(level, team, impl::PerThreadValue{thread_bytes_[check_level(level)]});
  }
  TeamPolicy& set_scratch_size(int level, impl::PerThreadValue thread) {
    return set_scratch_size(level, impl::PerTeamValue{team_bytes_[check_level(level)]}, thread);
  }
  TeamPolicy& set_scratch_size(int level, impl::PerTeamValue team, impl::PerThreadValue thread) {
    check_level(level);
    team_bytes_[level] = align(team.bytes);
    thread_bytes_[level] = align(thread.bytes);
    return *this;
  }

  index_type league_size() const { return league_; }
  // 0 means AUTO: the back end chooses (1 on the CPU).
  int team_size_requested() const { return team_; }
  int vector_length() const { return vector_; }
  std::size_t team_scratch_size(int level) const { return team_bytes_[level]; }
  std::size_t thread_scratch_size(int level) const { return thread_bytes_[level]; }
  // Total scratch bytes one team needs at a level for a team of `team_size` threads.
  std::size_t scratch_bytes(int level, int team_size) const {
    return team_bytes_[level] + thread_bytes_[level] * static_cast<std::size_t>(team_size);
  }

 private:
  static std::size_t align(std::size_t b) { return (b + 15) / 16 * 16; }
  static int check_level(int level) {
    if (level != 0 && level != 1)
      impl::throw_error("grain::TeamPolicy: scratch level ", level, " does not exist (use 0 or 1)");
    return level;
  }
  void validate() const {
    if (league_ < 0) impl::throw_error("grain::TeamPolicy: negative league size ", league_);
    if (team_ < 0) impl::throw_error("grain::TeamPolicy: negative team size ", team_);
    if (vector_ < 1 || vector_ > max_vector_length || (vector_ & (vector_ - 1)) != 0)
      impl::throw_error("grain::TeamPolicy: vector length ", vector_,
                        " must be a power of two from 1 to ", max_vector_length);
  }
  index_type league_;
  int team_;
  int vector_;
  std::size_t team_bytes_[2] = {0, 0};
  std::size_t thread_bytes_[2] = {0, 0};
};

// ---- nested ranges (descriptors; executed by the back end's TeamMember) ------------------------
namespace impl {
enum class NestLevel { TeamThread, ThreadVector, TeamVector };
template <class Member, NestLevel Level>
struct NestedRange {
  const Member& member;
  index_type begin, end;
};
}  // namespace impl

template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::TeamThread> TeamThreadRange(
    const Member& m, index_type n) {
  return {m, 0, n};
}
template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::TeamThread> TeamThreadRange(
    const Member& m, index_type b, index_type e) {
  return {m, b, e};
}
template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::ThreadVector> ThreadVectorRange(
    const Member& m, index_type n) {
  return {m, 0, n};
}
template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::ThreadVector> ThreadVectorRange(
    const Member& m, index_type b, index_type e) {
  return {m, b, e};
}
template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::TeamVector> TeamVectorRange(
    const Member& m, index_type n) {
  return {m, 0, n};
}
template <class Member>
GRAIN_INLINE_FUNCTION impl::NestedRange<Member, impl::NestLevel::TeamVector> TeamVectorRange(
    const Member& m, index_type b, index_type e) {
  return {m, b, e};
}

// single(PerTeam(member), f): f runs once per team; single(PerThread(member), f): once per
// thread (one vector lane).
namespace impl {
template <class Member>
struct SingleTeam {
  const Member& member;
};
template <class Member>
struct SingleThread {
  const Member& member;
};
}  // namespace impl
template <class Member, class = typename Member::is_team_member>
GRAIN_INLINE_FUNCTION impl::SingleTeam<Member> PerTeam(const Member& m) {
  return {m};
}
template <class Member, class = typename Member::is_team_member>
GRAIN_INLINE_FUNCTION impl::SingleThread<Member> PerThread(const Member& m) {
  return {m};
}
template <class Member, class F>
GRAIN_INLINE_FUNCTION void single(const impl::SingleTeam<Member>& s, const F& f) {
  if (s.member.is_team_leader()) f();
}
template <class Member, class F>
GRAIN_INLINE_FUNCTION void single(const impl::SingleThread<Member>& s, const F& f) {
  if (s.member.is_vector_leader()) f();
}

}  // namespace grain
