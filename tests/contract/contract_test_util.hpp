// Helpers of the contraction tests: Views of any of the nine kernels' ranks, an independent
// naive reference (plain loops over the logical indices, offsets from the Views' strides), and
// a dispatcher to the nine public functions.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "grain_test.hpp"

namespace contract_test {

template <class T, int N>
struct Ptr {
  using type = typename Ptr<T, N - 1>::type*;
};
template <class T>
struct Ptr<T, 0> {
  using type = T;
};

template <class T, int N, class Layout, class Space>
using ViewN = grain::View<typename Ptr<T, N>::type, Layout, Space>;

// Extents of one test case; each kernel uses the ones it has.
struct Shape {
  std::size_t C, L, R, P, D1, D2;
};

inline std::string describe(const Shape& s) {
  return "C=" + std::to_string(s.C) + " L=" + std::to_string(s.L) + " R=" + std::to_string(s.R) +
         " P=" + std::to_string(s.P) + " D1=" + std::to_string(s.D1) + " D2=" + std::to_string(s.D2);
}

// Family 0 DataData, 1 DataField, 2 FieldField; NK contracted indices.
template <int Family, int NK>
struct KernelShape {
  static constexpr int lf = Family == 2 ? 1 : 0;
  static constexpr int rf = Family >= 1 ? 1 : 0;
  static constexpr int left_rank = 1 + lf + NK;
  static constexpr int right_rank = 1 + rf + NK;
  static constexpr int out_rank = Family == 0 ? 1 : (Family == 1 ? 2 : 3);

  static std::size_t L(const Shape& s) { return lf ? s.L : 1; }
  static std::size_t R(const Shape& s) { return rf ? s.R : 1; }
  static void contracted(const Shape& s, std::size_t* x) {
    x[0] = s.P;
    x[1] = s.D1;
    x[2] = s.D2;
  }
  // data_points: the point extent of left (1 for a broadcast DataField data array).
  static std::vector<std::size_t> left_extents(const Shape& s, std::size_t data_points) {
    std::vector<std::size_t> e{s.C};
    if (lf) e.push_back(s.L);
    std::size_t x[3];
    contracted(s, x);
    for (int j = 0; j < NK; ++j) e.push_back(j == 0 ? data_points : x[j]);
    return e;
  }
  static std::vector<std::size_t> right_extents(const Shape& s) {
    std::vector<std::size_t> e{s.C};
    if (rf) e.push_back(s.R);
    std::size_t x[3];
    contracted(s, x);
    for (int j = 0; j < NK; ++j) e.push_back(x[j]);
    return e;
  }
  static std::vector<std::size_t> out_extents(const Shape& s) {
    std::vector<std::size_t> e{s.C};
    if (Family == 1) e.push_back(s.R);
    if (Family == 2) {
      e.push_back(s.L);
      e.push_back(s.R);
    }
    return e;
  }
};

template <class V>
V make_view(const std::string& label, const std::vector<std::size_t>& e) {
  std::size_t ext[V::rank];
  for (int r = 0; r < V::rank; ++r) ext[r] = e[r];
  return V(label, ext);
}

template <class V>
std::size_t offset_of(const V& v, const std::size_t* idx) {
  std::size_t o = 0;
  for (int r = 0; r < V::rank; ++r) o += idx[r] * v.stride(r);
  return o;
}

// out_ref[c,l,r] = sum over (p, d1, d2) of left * right, and the sum of |products| (the scale of
// the rounding error). Independent of the engine: logical indices, the Views' own strides.
template <int Family, int NK, class LV, class RV>
void naive(const Shape& s, const LV& left, const RV& right, std::vector<double>& ref,
           std::vector<double>& mag) {
  using KS = KernelShape<Family, NK>;
  const std::size_t L = KS::L(s), R = KS::R(s);
  const std::size_t P = s.P, D1 = NK >= 2 ? s.D1 : 1, D2 = NK >= 3 ? s.D2 : 1;
  const bool bcast = left.extent(1 + KS::lf) == 1;
  ref.assign(s.C * L * R, 0.0);
  mag.assign(s.C * L * R, 0.0);
  for (std::size_t c = 0; c < s.C; ++c)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t r = 0; r < R; ++r) {
        double sum = 0, m = 0;
        for (std::size_t p = 0; p < P; ++p)
          for (std::size_t d1 = 0; d1 < D1; ++d1)
            for (std::size_t d2 = 0; d2 < D2; ++d2) {
              std::size_t li[5], ri[5];
              int nl = 0, nr = 0;
              li[nl++] = c;
              if (KS::lf) li[nl++] = l;
              li[nl++] = bcast ? 0 : p;
              if (NK >= 2) li[nl++] = d1;
              if (NK >= 3) li[nl++] = d2;
              ri[nr++] = c;
              if (KS::rf) ri[nr++] = r;
              ri[nr++] = p;
              if (NK >= 2) ri[nr++] = d1;
              if (NK >= 3) ri[nr++] = d2;
              const double prod = static_cast<double>(left.data()[offset_of(left, li)]) *
                                  static_cast<double>(right.data()[offset_of(right, ri)]);
              sum += prod;
              m += std::abs(prod);
            }
        ref[(c * L + l) * R + r] = sum;
        mag[(c * L + l) * R + r] = m;
      }
}

// Reads out(c, l, r) of a host out View of any of the three output ranks.
template <int Family, class OV>
double out_at(const OV& out, std::size_t c, std::size_t l, std::size_t r) {
  std::size_t idx[3];
  int n = 0;
  idx[n++] = c;
  if (Family == 2) idx[n++] = l;
  if (Family >= 1) idx[n++] = r;
  return static_cast<double>(out.data()[offset_of(out, idx)]);
}

template <int Family, int NK, class O, class A, class B>
void call(const O& out, const A& left, const B& right, const grain::ContractOptions& opt) {
  if constexpr (Family == 0 && NK == 1) grain::contract_data_data_scalar(out, left, right, opt);
  if constexpr (Family == 0 && NK == 2) grain::contract_data_data_vector(out, left, right, opt);
  if constexpr (Family == 0 && NK == 3) grain::contract_data_data_tensor(out, left, right, opt);
  if constexpr (Family == 1 && NK == 1) grain::contract_data_field_scalar(out, left, right, opt);
  if constexpr (Family == 1 && NK == 2) grain::contract_data_field_vector(out, left, right, opt);
  if constexpr (Family == 1 && NK == 3) grain::contract_data_field_tensor(out, left, right, opt);
  if constexpr (Family == 2 && NK == 1) grain::contract_field_field_scalar(out, left, right, opt);
  if constexpr (Family == 2 && NK == 2) grain::contract_field_field_vector(out, left, right, opt);
  if constexpr (Family == 2 && NK == 3) grain::contract_field_field_tensor(out, left, right, opt);
}

template <class Exec>
grain::ContractExec exec_of() {
  if constexpr (std::is_same_v<Exec, grain::Serial>) return grain::ContractExec::Serial;
#if defined(GRAIN_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, grain::OpenMP>) return grain::ContractExec::OpenMP;
#endif
  return grain::ContractExec::Auto;
}

}  // namespace contract_test
