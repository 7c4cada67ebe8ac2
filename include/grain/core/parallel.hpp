// The parallel patterns: parallel_for, parallel_reduce, parallel_scan over range, MD-range and
// team policies, plus the nested TeamThreadRange / ThreadVectorRange / TeamVectorRange forms.
//
// One kernel source runs on every back end: these front ends only choose the policy and the
// reducer; each back end specializes ParallelFor / ParallelReduce / ParallelScan once
// (include/grain/core/backend/).
#pragma once

#include <string>
#include <type_traits>

#include "grain/core/config.hpp"
#include "grain/core/policy.hpp"
#include "grain/core/reducers.hpp"

namespace grain {
namespace impl {

template <class Policy, class F, class Exec = typename Policy::execution_space>
struct ParallelFor {
  static_assert(sizeof(F) == 0,
                "grain: this back end cannot run this policy here. Launching on grain::Cuda needs "
                "a translation unit compiled by nvcc (CUDA language) in a CUDA-enabled build.");
};
template <class Policy, class F, class Reducer, class Exec = typename Policy::execution_space>
struct ParallelReduce {
  static_assert(sizeof(F) == 0,
                "grain: this back end cannot run this policy here. Launching on grain::Cuda needs "
                "a translation unit compiled by nvcc (CUDA language) in a CUDA-enabled build.");
};
template <class Policy, class F, class Reducer, class Exec = typename Policy::execution_space>
struct ParallelScan {
  static_assert(sizeof(F) == 0,
                "grain: parallel_scan takes a RangePolicy; launching on grain::Cuda needs a "
                "translation unit compiled by nvcc.");
};

template <class P>
struct is_policy : std::false_type {};
template <class E>
struct is_policy<RangePolicy<E>> : std::true_type {};
template <class E, class R>
struct is_policy<MDRangePolicy<E, R>> : std::true_type {};
template <class E>
struct is_policy<TeamPolicy<E>> : std::true_type {};

template <class P>
auto as_policy(const P& p) {
  if constexpr (is_policy<P>::value) {
    return p;
  } else {
    static_assert(std::is_integral_v<P>, "grain: a pattern takes a policy or an iteration count");
    return RangePolicy<DefaultExecutionSpace>(0, static_cast<index_type>(p));
  }
}

}  // namespace impl

// ---- top level ------------------------------------------------------------------------------------
template <class Policy, class F>
void parallel_for(const Policy& policy, const F& f) {
  auto p = impl::as_policy(policy);
  impl::ParallelFor<decltype(p), F>::execute(p, f);
}
template <class Policy, class F>
void parallel_for(const std::string& /*label*/, const Policy& policy, const F& f) {
  parallel_for(policy, f);
}

// result: a host variable (summed), a reducer (Sum, Min, Max, Prod), or the functor's
// value_type when the functor defines value_type / init / join.
template <class Policy, class F, class Result,
          class = std::enable_if_t<!impl::is_policy<F>::value>>
void parallel_reduce(const Policy& policy, const F& f, Result&& result) {
  auto p = impl::as_policy(policy);
  auto reducer = impl::make_reducer(f, result);
  impl::ParallelReduce<decltype(p), F, decltype(reducer)>::execute(p, f, reducer);
}
template <class Policy, class F, class Result>
void parallel_reduce(const std::string& /*label*/, const Policy& policy, const F& f,
                     Result&& result) {
  parallel_reduce(policy, f, std::forward<Result>(result));
}

// Exclusive prefix scan: f(i, update, final) adds i's contribution to update; when final is
// true, update holds the sum of all contributions before i. `total` receives the full sum.
template <class Policy, class F, class T>
void parallel_scan(const Policy& policy, const F& f, T& total) {
  auto p = impl::as_policy(policy);
  static_assert(std::is_same_v<decltype(p), RangePolicy<typename decltype(p)::execution_space>>,
                "grain::parallel_scan takes a RangePolicy or an iteration count");
  Sum<T> reducer(total);
  impl::ParallelScan<decltype(p), F, Sum<T>>::execute(p, f, reducer);
}
template <class Policy, class F>
void parallel_scan(const Policy& policy, const F& f) {
  static_assert(impl::has_value_type<F>::value,
                "grain::parallel_scan(policy, f): f must define value_type; or pass a total: "
                "parallel_scan(policy, f, total)");
  typename F::value_type total{};
  parallel_scan(policy, f, total);
}

// ---- nested, inside a team ------------------------------------------------------------------------
template <class Member, impl::NestLevel L, class F>
GRAIN_INLINE_FUNCTION void parallel_for(const impl::NestedRange<Member, L>& r, const F& f) {
  r.member.template nested_for<L>(r.begin, r.end, f);
}

// The result is overwritten with the reduction over the range, on every participating thread.
template <class Member, impl::NestLevel L, class F, class Result>
GRAIN_INLINE_FUNCTION void parallel_reduce(const impl::NestedRange<Member, L>& r, const F& f,
                                           Result&& result) {
  auto reducer = impl::make_reducer(f, result);
  r.member.template nested_reduce<L>(r.begin, r.end, f, reducer);
}

}  // namespace grain
