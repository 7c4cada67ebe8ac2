// Reducers: how parallel_reduce combines per-thread values (init and join, as in Edwards,
// Sunderland et al. 2011, "Manycore/GPGPU Portable Computational Mechanics Kernels via
// Multidimensional Arrays", §IV.A).
//
//   parallel_reduce(policy, f, sum);              // a scalar: summed
//   parallel_reduce(policy, f, Max<double>(mx));  // a named reducer
//   parallel_reduce(policy, CenterOfMass{...}, r) // a functor with value_type, init and join
#pragma once

#include <limits>
#include <type_traits>

#include "grain/core/config.hpp"

namespace grain {

namespace impl {
struct reducer_tag {};
}

template <class T>
struct Sum {
  using is_reducer = impl::reducer_tag;
  using value_type = T;
  T* ref;
  GRAIN_INLINE_FUNCTION explicit Sum(T& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(T& v) { v = T(0); }
  GRAIN_INLINE_FUNCTION static void join(T& a, const T& b) { a += b; }
  GRAIN_INLINE_FUNCTION T& reference() const { return *ref; }
};

template <class T>
struct Prod {
  using is_reducer = impl::reducer_tag;
  using value_type = T;
  T* ref;
  GRAIN_INLINE_FUNCTION explicit Prod(T& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(T& v) { v = T(1); }
  GRAIN_INLINE_FUNCTION static void join(T& a, const T& b) { a *= b; }
  GRAIN_INLINE_FUNCTION T& reference() const { return *ref; }
};

template <class T>
struct Min {
  using is_reducer = impl::reducer_tag;
  using value_type = T;
  T* ref;
  GRAIN_INLINE_FUNCTION explicit Min(T& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(T& v) { v = std::numeric_limits<T>::max(); }
  GRAIN_INLINE_FUNCTION static void join(T& a, const T& b) {
    if (b < a) a = b;
  }
  GRAIN_INLINE_FUNCTION T& reference() const { return *ref; }
};

template <class T>
struct Max {
  using is_reducer = impl::reducer_tag;
  using value_type = T;
  T* ref;
  GRAIN_INLINE_FUNCTION explicit Max(T& r) : ref(&r) {}
  GRAIN_INLINE_FUNCTION static void init(T& v) { v = std::numeric_limits<T>::lowest(); }
  GRAIN_INLINE_FUNCTION static void join(T& a, const T& b) {
    if (a < b) a = b;
  }
  GRAIN_INLINE_FUNCTION T& reference() const { return *ref; }
};

namespace impl {

template <class R, class = void>
struct is_reducer : std::false_type {};
template <class R>
struct is_reducer<R, std::void_t<typename R::is_reducer>> : std::true_type {};

template <class F, class = void>
struct has_value_type : std::false_type {};
template <class F>
struct has_value_type<F, std::void_t<typename F::value_type>> : std::true_type {};

// Adapts a functor that defines value_type, init and join (static or member; the paper's
// volatile-qualified join signatures work too) to the reducer interface.
template <class F>
struct FunctorReducer {
  using value_type = typename F::value_type;
  F f;
  value_type* ref;
  GRAIN_INLINE_FUNCTION void init(value_type& v) const { f.init(v); }
  GRAIN_INLINE_FUNCTION void join(value_type& a, const value_type& b) const { f.join(a, b); }
  GRAIN_INLINE_FUNCTION value_type& reference() const { return *ref; }
};

// Picks the reducer for parallel_reduce(policy, functor, result).
template <class F, class Result>
GRAIN_INLINE_FUNCTION auto make_reducer(const F& f, Result& result) {
  if constexpr (is_reducer<std::remove_cv_t<Result>>::value) {
    return result;
  } else if constexpr (has_value_type<F>::value) {
    static_assert(std::is_same_v<Result, typename F::value_type>,
                  "grain::parallel_reduce: the result must have the functor's value_type");
    return FunctorReducer<F>{f, &result};
  } else {
    static_assert(std::is_arithmetic_v<Result>,
                  "grain::parallel_reduce: a result without a reducer must be arithmetic (it is "
                  "summed); pass Sum/Min/Max/Prod or a functor with value_type, init and join");
    return Sum<Result>(result);
  }
}

}  // namespace impl
}  // namespace grain
