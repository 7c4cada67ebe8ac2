// The nine Intrepid contractions (study 001, chapter 2), contracted indices last:
//
//   function                      out       left (data)        right (fields)
//   contract_data_data_scalar     (C)       (C,P)              (C,P)
//   contract_data_data_vector     (C)       (C,P,D)            (C,P,D)
//   contract_data_data_tensor     (C)       (C,P,D1,D2)        (C,P,D1,D2)
//   contract_data_field_scalar    (C,F)     data (C,P)         fields (C,F,P)
//   contract_data_field_vector    (C,F)     data (C,P,D)       fields (C,F,P,D)
//   contract_data_field_tensor    (C,F)     data (C,P,D1,D2)   fields (C,F,P,D1,D2)
//   contract_field_field_scalar   (C,L,R)   (C,L,P)            (C,R,P)
//   contract_field_field_vector   (C,L,R)   (C,L,P,D)          (C,R,P,D)
//   contract_field_field_tensor   (C,L,R)   (C,L,P,D1,D2)      (C,R,P,D1,D2)
//
//   grain::contract_field_field_scalar(out, left, right);            // overwrite, Auto
//   grain::contract_field_field_scalar(out, left, right, {true});    // out += ...
//
// A DataField `data` array whose point extent is 1 is constant over the points and broadcast,
// as in Intrepid. Element types float and double; inputs may be View<const T...>; left and right
// share a layout, out may have either; all three live in one memory space (checked at compile
// time). The back end follows the memory space (ContractOptions::exec may force Serial on host
// Views). Extents, aliasing and algorithm applicability are checked at run time and raise
// grain::Error naming the function, the argument, and the extents expected and seen. C = 0 and
// P = 0 are valid: nothing to do, or zeros (out unchanged with sum_into).
//
// Every function flattens the contracted indices into K and hands (C, L, R, K, strides) to one
// engine (engine.hpp); the algorithms are in algorithms/, the Auto rule in select.hpp.
// contract_problem(kernel, out, left, right) returns that description without running it, for
// code that asks what Auto picks or which algorithms apply (the benchmarks, `grain tune`).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "grain/contract/engine.hpp"
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"
#include "grain/contract/select.hpp"
#include "grain/core/error.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/core/memory_space.hpp"
#include "grain/core/view.hpp"

namespace grain {
namespace impl {

template <class V>
std::string contract_shape(const V& v) {
  return v.shape();
}

inline std::string contract_join(const std::size_t* e, int n) {
  std::ostringstream os;
  os << '(';
  for (int i = 0; i < n; ++i) os << (i ? "," : "") << e[i];
  os << ')';
  return os.str();
}

// Throws unless v's extents equal `want` (slot `bcast`, when >= 0, may also be 1).
template <class V>
void contract_expect(const char* fn, const char* name, const V& v, const std::size_t* want,
                     const char* names, const char* from, int bcast = -1) {
  bool ok = true;
  for (int r = 0; r < V::rank; ++r)
    if (v.extent(r) != want[r] && !(r == bcast && v.extent(r) == 1)) ok = false;
  if (ok) return;
  std::ostringstream os;
  os << fn << ": argument '" << name << "' has extents " << v.shape() << ", expected "
     << names << " = " << contract_join(want, V::rank);
  if (bcast >= 0) {
    std::size_t alt[8];
    for (int r = 0; r < V::rank; ++r) alt[r] = want[r];
    alt[bcast] = 1;
    os << " or " << contract_join(alt, V::rank) << " (constant over the points)";
  }
  os << " (extents taken from '" << from << "')";
  throw Error(os.str());
}

template <class A, class B>
void contract_no_alias(const char* fn, const A& out, const B& in, const char* name) {
  if (out.size() == 0 || in.size() == 0) return;
  const auto o0 = reinterpret_cast<std::uintptr_t>(out.data());
  const auto o1 = o0 + out.size() * sizeof(typename A::value_type);
  const auto i0 = reinterpret_cast<std::uintptr_t>(in.data());
  const auto i1 = i0 + in.size() * sizeof(typename B::value_type);
  if (o0 < i1 && i0 < o1)
    throw_error(fn, ": argument 'out' ", out.shape(), " overlaps argument '", name, "' ",
                in.shape(), " in memory; the output must not alias an input");
}

template <class Space>
ContractExec contract_resolve_exec(const char* fn, ContractExec requested) {
  constexpr bool device = !Space::host_accessible;
  if (device) {
    if (requested == ContractExec::Auto || requested == ContractExec::Cuda) {
#if defined(GRAIN_ENABLE_CUDA)
      return ContractExec::Cuda;
#else
      throw_error(fn, ": the Views live in ", Space::name(), " but grain was built without CUDA");
#endif
    }
    throw_error(fn, ": options.exec = ", contract_exec_name(requested), " but the Views live in ",
                Space::name(), "; device Views run on cuda (or leave exec = auto)");
  }
  switch (requested) {
    case ContractExec::Auto:
#if defined(GRAIN_ENABLE_OPENMP)
      return ContractExec::OpenMP;
#else
      return ContractExec::Serial;
#endif
    case ContractExec::Serial: return ContractExec::Serial;
    case ContractExec::OpenMP:
#if defined(GRAIN_ENABLE_OPENMP)
      return ContractExec::OpenMP;
#else
      throw_error(fn, ": options.exec = openmp but grain was built without OpenMP");
#endif
    case ContractExec::Cuda:
      throw_error(fn, ": options.exec = cuda but the Views live in ", Space::name(),
                  " (host memory); copy them to CudaSpace Views first");
  }
  return ContractExec::Serial;
}

// The engine's description of `fn`(out, left, right, opt) after the run-time checks of the call
// (extents, aliasing): Family 0: DataData, 1: DataField, 2: FieldField; NK contracted indices.
template <int Family, int NK, class Out, class Left, class Right>
ContractProblem<typename Out::value_type> contract_checked_problem(const char* fn, ContractKernel kernel,
                                                                   const Out& out, const Left& left,
                                                                   const Right& right,
                                                                   const ContractOptions& opt) {
  using T = typename Out::value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "grain::contract_*: the element type must be float or double");
  static_assert(std::is_same_v<typename Left::non_const_value_type, T> &&
                    std::is_same_v<typename Right::non_const_value_type, T>,
                "grain::contract_*: out, left and right must have the same element type "
                "(inputs may be const)");
  static_assert(where_of<typename Out::memory_space>() == where_of<typename Left::memory_space>() &&
                    where_of<typename Out::memory_space>() == where_of<typename Right::memory_space>(),
                "grain::contract_*: out, left and right must live in the same memory space "
                "(all on the host or all on the GPU); deep_copy them first");
  static_assert(std::is_same_v<typename Left::array_layout, typename Right::array_layout>,
                "grain::contract_*: left and right must have the same layout (out may differ)");

  constexpr int lf = Family == 2 ? 1 : 0;  // left has a field index
  constexpr int rf = Family >= 1 ? 1 : 0;  // right has a field index
  const bool fields_ref = Family == 1;     // DataField: C and P come from the fields
  const char* lname = Family == 1 ? "data" : "left";
  const char* rname = Family == 1 ? "fields" : "right";

  // Reference extents.
  std::size_t C = fields_ref ? right.extent(0) : left.extent(0);
  std::size_t kx[3] = {1, 1, 1};
  for (int j = 0; j < NK; ++j)
    kx[j] = fields_ref ? right.extent(1 + rf + j) : left.extent(1 + lf + j);
  const std::size_t Lx = lf ? left.extent(1) : 1;
  const std::size_t Rx = rf ? right.extent(1) : 1;

  static const char* const kNames[3][3] = {{"(C,P)", "(C,P,D)", "(C,P,D1,D2)"},
                                           {"(C,P)", "(C,P,D)", "(C,P,D1,D2)"},
                                           {"(C,L,P)", "(C,L,P,D)", "(C,L,P,D1,D2)"}};
  static const char* const kRightNames[3][3] = {{"(C,P)", "(C,P,D)", "(C,P,D1,D2)"},
                                                {"(C,F,P)", "(C,F,P,D)", "(C,F,P,D1,D2)"},
                                                {"(C,R,P)", "(C,R,P,D)", "(C,R,P,D1,D2)"}};
  static const char* const kOutNames[3] = {"(C)", "(C,F)", "(C,L,R)"};

  std::size_t want[8];
  // left / data
  want[0] = C;
  if (lf) want[1] = Lx;
  for (int j = 0; j < NK; ++j) want[1 + lf + j] = kx[j];
  if (Family == 1)
    contract_expect(fn, lname, left, want, kNames[Family][NK - 1], rname, 1);
  else
    contract_expect(fn, lname, left, want, kNames[Family][NK - 1], lname);
  // right / fields
  want[0] = C;
  if (rf) want[1] = Rx;
  for (int j = 0; j < NK; ++j) want[1 + rf + j] = kx[j];
  contract_expect(fn, rname, right, want, kRightNames[Family][NK - 1], fields_ref ? rname : lname);
  // out
  want[0] = C;
  int n = 1;
  if (Family == 1) want[n++] = Rx;
  if (Family == 2) {
    want[n++] = Lx;
    want[n++] = Rx;
  }
  contract_expect(fn, "out", out, want, kOutNames[Family], Family == 2 ? "left and right" : rname);

  contract_no_alias(fn, out, left, lname);
  contract_no_alias(fn, out, right, rname);

  ContractProblem<T> p;
  p.kernel = kernel;
  p.function = fn;
  p.sum_into = opt.sum_into;
  p.C = static_cast<index_type>(C);
  p.L = static_cast<index_type>(Lx);
  p.R = static_cast<index_type>(Rx);
  for (int j = 0; j < NK; ++j) {
    const int slot = 3 - NK + j;
    p.x[slot] = static_cast<index_type>(kx[j]);
    const int la = 1 + lf + j, rb = 1 + rf + j;
    p.ax[slot] = left.extent(la) == 1 ? 0 : static_cast<index_type>(left.stride(la));
    p.bx[slot] = right.extent(rb) == 1 ? 0 : static_cast<index_type>(right.stride(rb));
  }
  p.a_c = static_cast<index_type>(left.stride(0));
  p.b_c = static_cast<index_type>(right.stride(0));
  p.a_l = lf ? static_cast<index_type>(left.stride(1)) : 0;
  p.b_r = rf ? static_cast<index_type>(right.stride(1)) : 0;
  p.o_c = static_cast<index_type>(out.stride(0));
  p.o_l = Family == 2 ? static_cast<index_type>(out.stride(1)) : 0;
  p.o_r = Family == 2 ? static_cast<index_type>(out.stride(2))
                      : (Family == 1 ? static_cast<index_type>(out.stride(1)) : 0);
  p.a = left.data();
  p.b = right.data();
  p.out = out.data();
  p.canonicalize();
  return p;
}

template <int Family, int NK, class Out, class Left, class Right>
void contract_generic(const char* fn, ContractKernel kernel, const Out& out, const Left& left,
                      const Right& right, const ContractOptions& opt) {
  const auto p = contract_checked_problem<Family, NK>(fn, kernel, out, left, right, opt);
  const ContractExec e = contract_resolve_exec<typename Out::memory_space>(fn, opt.exec);
  contract_run(p, opt.algorithm, e);
}

}  // namespace impl

// The engine's description of the call contract_<kernel>(out, left, right, opt): the
// impl::ContractProblem (C, L, R, K, the strides, the canonical two-level K, the pointers) that
// the typed function hands to the engine, built by the same code. Auto's pick for it is
// impl::contract_auto_algorithm(p, exec), and impl::contract_not_applicable(p, a, exec) says
// whether algorithm `a` applies (select.hpp). Raises the grain::Error the call would raise, naming
// that function, for extents that do not match or an `out` that overlaps an input; and one naming
// grain::contract_problem when the Views' ranks are not those of `kernel` (the ranks and element
// types are otherwise checked at compile time, as for the call).
template <class Out, class Left, class Right>
impl::ContractProblem<typename Out::value_type> contract_problem(ContractKernel kernel, const Out& out,
                                                                 const Left& left, const Right& right,
                                                                 const ContractOptions& opt = {}) {
  static_assert(is_view_v<Out> && is_view_v<Left> && is_view_v<Right>,
                "grain::contract_problem: out, left and right must be grain::Views");
  // The ranks tell the kernel: out (C) | (C,F) | (C,L,R); right (C,[F|R,]P[,D1[,D2]]).
  constexpr int family = Out::rank - 1;
  constexpr int nk = Right::rank - 1 - (family >= 1 ? 1 : 0);
  static_assert(family >= 0 && family <= 2 && nk >= 1 && nk <= 3 &&
                    Left::rank == 1 + (family == 2 ? 1 : 0) + nk,
                "grain::contract_problem: the ranks of out, left and right are those of none of the "
                "nine contractions");
  if (kernel != contract_kernel_of(family, nk))
    impl::throw_error("grain::contract_problem: kernel ", contract_kernel_name(kernel),
                      " does not take Views of ranks ", int(Out::rank), ", ", int(Left::rank), ", ",
                      int(Right::rank), " (out, left, right): those are ",
                      contract_kernel_name(contract_kernel_of(family, nk)), "'s");
  return impl::contract_checked_problem<family, nk>(contract_function_name(kernel), kernel, out,
                                                    left, right, opt);
}

// ---- the nine public functions ----------------------------------------------------------------

#define GRAIN_CONTRACT_RANKS(OUT, LEFT, RIGHT, FN, OUTS, LEFTS, RIGHTS)                         \
  static_assert(is_view_v<Out> && is_view_v<Left> && is_view_v<Right>,                       \
                "grain::" FN ": out, left and right must be grain::Views");                    \
  static_assert(Out::rank == OUT, "grain::" FN ": 'out' must have rank " #OUT " " OUTS);        \
  static_assert(Left::rank == LEFT, "grain::" FN ": the left input must have rank " #LEFT " " LEFTS); \
  static_assert(Right::rank == RIGHT,                                                            \
                "grain::" FN ": the right input must have rank " #RIGHT " " RIGHTS);             \
  static_assert(!std::is_const_v<typename Out::value_type>,                                       \
                "grain::" FN ": 'out' must not have a const element type")

template <class Out, class Left, class Right>
void contract_data_data_scalar(const Out& out, const Left& left, const Right& right,
                               const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(1, 2, 2, "contract_data_data_scalar", "(C)", "(C,P)", "(C,P)");
  impl::contract_generic<0, 1>("grain::contract_data_data_scalar", ContractKernel::DataDataScalar,
                               out, left, right, opt);
}
template <class Out, class Left, class Right>
void contract_data_data_vector(const Out& out, const Left& left, const Right& right,
                               const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(1, 3, 3, "contract_data_data_vector", "(C)", "(C,P,D)", "(C,P,D)");
  impl::contract_generic<0, 2>("grain::contract_data_data_vector", ContractKernel::DataDataVector,
                               out, left, right, opt);
}
template <class Out, class Left, class Right>
void contract_data_data_tensor(const Out& out, const Left& left, const Right& right,
                               const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(1, 4, 4, "contract_data_data_tensor", "(C)", "(C,P,D1,D2)", "(C,P,D1,D2)");
  impl::contract_generic<0, 3>("grain::contract_data_data_tensor", ContractKernel::DataDataTensor,
                               out, left, right, opt);
}
template <class Out, class Left, class Right>
void contract_data_field_scalar(const Out& out, const Left& data, const Right& fields,
                                const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(2, 2, 3, "contract_data_field_scalar", "(C,F)", "(C,P)", "(C,F,P)");
  impl::contract_generic<1, 1>("grain::contract_data_field_scalar", ContractKernel::DataFieldScalar,
                               out, data, fields, opt);
}
template <class Out, class Left, class Right>
void contract_data_field_vector(const Out& out, const Left& data, const Right& fields,
                                const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(2, 3, 4, "contract_data_field_vector", "(C,F)", "(C,P,D)", "(C,F,P,D)");
  impl::contract_generic<1, 2>("grain::contract_data_field_vector", ContractKernel::DataFieldVector,
                               out, data, fields, opt);
}
template <class Out, class Left, class Right>
void contract_data_field_tensor(const Out& out, const Left& data, const Right& fields,
                                const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(2, 4, 5, "contract_data_field_tensor", "(C,F)", "(C,P,D1,D2)",
                       "(C,F,P,D1,D2)");
  impl::contract_generic<1, 3>("grain::contract_data_field_tensor", ContractKernel::DataFieldTensor,
                               out, data, fields, opt);
}
template <class Out, class Left, class Right>
void contract_field_field_scalar(const Out& out, const Left& left, const Right& right,
                                 const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(3, 3, 3, "contract_field_field_scalar", "(C,L,R)", "(C,L,P)", "(C,R,P)");
  impl::contract_generic<2, 1>("grain::contract_field_field_scalar",
                               ContractKernel::FieldFieldScalar, out, left, right, opt);
}
template <class Out, class Left, class Right>
void contract_field_field_vector(const Out& out, const Left& left, const Right& right,
                                 const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(3, 4, 4, "contract_field_field_vector", "(C,L,R)", "(C,L,P,D)",
                       "(C,R,P,D)");
  impl::contract_generic<2, 2>("grain::contract_field_field_vector",
                               ContractKernel::FieldFieldVector, out, left, right, opt);
}
template <class Out, class Left, class Right>
void contract_field_field_tensor(const Out& out, const Left& left, const Right& right,
                                 const ContractOptions& opt = {}) {
  GRAIN_CONTRACT_RANKS(3, 5, 5, "contract_field_field_tensor", "(C,L,R)", "(C,L,P,D1,D2)",
                       "(C,R,P,D1,D2)");
  impl::contract_generic<2, 3>("grain::contract_field_field_tensor",
                               ContractKernel::FieldFieldTensor, out, left, right, opt);
}

#undef GRAIN_CONTRACT_RANKS

}  // namespace grain
