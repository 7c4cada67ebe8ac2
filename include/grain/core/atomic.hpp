// Atomic updates on host and device memory.
#pragma once

#include <cstring>
#include <type_traits>

#include "grain/core/config.hpp"

namespace grain {

namespace impl {
// Host compare-and-swap loop on the value's bit pattern (works for float and double, which the
// GCC __atomic_fetch_add builtin does not take).
template <class T, class Op>
inline T host_atomic_update(T* p, Op op) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "grain atomics take 4- or 8-byte values");
  using Bits = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  Bits* bp = reinterpret_cast<Bits*>(p);
  Bits expected = __atomic_load_n(bp, __ATOMIC_RELAXED);
  for (;;) {
    T old;
    std::memcpy(&old, &expected, sizeof(T));
    const T desired_v = op(old);
    Bits desired;
    std::memcpy(&desired, &desired_v, sizeof(T));
    if (__atomic_compare_exchange_n(bp, &expected, desired, true, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return old;
  }
}
}  // namespace impl

// Adds v to *p atomically and returns the previous value.
template <class T>
GRAIN_INLINE_FUNCTION T atomic_fetch_add(T* p, T v) {
#if GRAIN_IN_DEVICE_CODE
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    // CUDA has atomicAdd only for unsigned 64-bit integers; two's complement addition is the
    // same for signed ones (long long, and long = grain::index_type on Linux).
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(p),
                                    static_cast<unsigned long long>(v)));
  } else {
    return atomicAdd(p, v);
  }
#else
  if constexpr (std::is_integral_v<T>) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  } else {
    return impl::host_atomic_update(p, [v](T old) { return old + v; });
  }
#endif
}

template <class T>
GRAIN_INLINE_FUNCTION void atomic_add(T* p, T v) {
  (void)atomic_fetch_add(p, v);
}

// Integer maximum and minimum (the GPU has no floating-point atomicMax).
template <class T>
GRAIN_INLINE_FUNCTION T atomic_fetch_max(T* p, T v) {
  static_assert(std::is_integral_v<T>, "grain::atomic_fetch_max takes integers");
#if GRAIN_IN_DEVICE_CODE
  return atomicMax(p, v);
#else
  return impl::host_atomic_update(p, [v](T old) { return old < v ? v : old; });
#endif
}

template <class T>
GRAIN_INLINE_FUNCTION T atomic_fetch_min(T* p, T v) {
  static_assert(std::is_integral_v<T>, "grain::atomic_fetch_min takes integers");
#if GRAIN_IN_DEVICE_CODE
  return atomicMin(p, v);
#else
  return impl::host_atomic_update(p, [v](T old) { return v < old ? v : old; });
#endif
}

}  // namespace grain
