// Shared test scaffolding: one test source runs on every enabled back end.
//
//   template <class Exec> void check_something() { ... GRAIN_LAMBDA ... }
//   GRAIN_BACKEND_TEST(CoreRange, Something) { check_something<TypeParam>(); }
//
// The test bodies live in free function templates because nvcc forbids extended (device)
// lambdas inside the private TestBody of a gtest class.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "grain/grain.hpp"

namespace grain::test {

// The execution spaces this translation unit can launch on.
using ExecSpaces = ::testing::Types<grain::Serial
#if defined(GRAIN_ENABLE_OPENMP)
                                    ,
                                    grain::OpenMP
#endif
#if GRAIN_CUDA_LAUNCH_AVAILABLE
                                    ,
                                    grain::Cuda
#endif
                                    >;

struct ExecName {
  template <class E>
  static std::string GetName(int) {
    return E::name();
  }
};

// True when Exec can run here (a CUDA build on a machine without a GPU cannot run Cuda).
template <class Exec>
bool available() {
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, grain::Cuda>) return grain::impl::cuda_device_count() > 0;
#endif
  return true;
}

// Relative tolerance for sums of n products in T.
template <class T>
T tolerance(std::size_t n = 1) {
  return static_cast<T>(16) * std::numeric_limits<T>::epsilon() *
         static_cast<T>(std::sqrt(static_cast<double>(n) + 1.0)) * static_cast<T>(8);
}

// Fills a host View with random non-zero values in [0.5, 1.5) * (+/-1).
template <class V>
void fill_random(const V& v, std::uint64_t seed) {
  using T = typename V::non_const_value_type;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  T* p = v.data();
  for (std::size_t i = 0; i < v.size(); ++i)
    p[i] = static_cast<T>((gen() & 1 ? 1.0 : -1.0) * mag(gen));
}

// NaN-poisons a View in any space so an unwritten entry fails a comparison.
template <class V>
void poison(const V& v) {
  using T = typename V::non_const_value_type;
  if constexpr (std::is_floating_point_v<T>) {
    grain::deep_copy(v, std::numeric_limits<T>::quiet_NaN());
  } else {
    grain::deep_copy(v, static_cast<T>(-12345));
  }
}

// |a - b| <= tol * max(1, |b|), written so that NaN fails.
template <class T>
::testing::AssertionResult near(T a, T b, T tol) {
  const T scale = std::abs(b) > T(1) ? std::abs(b) : T(1);
  if (std::abs(a - b) <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a << " vs expected " << b << " (tol " << tol * scale << ")";
}

// A host copy of any View (the View itself when it already lives on the host).
template <class V>
auto to_host(const V& v) {
  auto h = grain::create_mirror_view(v);
  grain::deep_copy(h, v);
  return h;
}

// The message of the grain::Error that f throws, or "(no error)": for tests of the errors a user
// sees.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const grain::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace grain::test

template <class Exec>
class BackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!grain::test::available<Exec>()) GTEST_SKIP() << Exec::name() << ": no device here";
  }
};
TYPED_TEST_SUITE(BackendTest, grain::test::ExecSpaces, grain::test::ExecName);

// Declares a test that runs once per enabled back end; TypeParam is the execution space.
#define GRAIN_BACKEND_TEST(Suite, Name)                                            \
  template <class Exec>                                                            \
  class Suite##_##Name : public BackendTest<Exec> {};                              \
  TYPED_TEST_SUITE(Suite##_##Name, grain::test::ExecSpaces, grain::test::ExecName); \
  TYPED_TEST(Suite##_##Name, Name)
