// Measuring contractions: what the contraction suite (`grain bench contract`, bench/contract_*.cpp)
// and the tuner (contract_tune, tune.hpp) share to time one shape, written once so that both time
// the same thing the same way:
//
//   the benchmark cases (docs/benchmarks.md) and a shape whose cell count fills a memory budget;
//   inputs defined by their logical index, so a host reference needs no copy of them and every
//     layout sees the same numbers;
//   ContractOperands: a shape's Views on a back end, its problem description (Auto's pick,
//     applicability) and one algorithm timed on it;
//   contract_dispatch: the run-time (kernel, element type, layout) to the template instantiation;
//   a fenced timer (median and minimum; device events on the GPU).
//
// Internal building blocks (namespace impl). The templates launch on Exec: instantiate them in
// portable sources (compiled as CUDA in CUDA builds, grain_portable_sources).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "grain/contract/contract.hpp"
#include "grain/contract/select.hpp"
#include "grain/core.hpp"

#if defined(GRAIN_ENABLE_CUDA)
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::impl {

// ---- timing ----------------------------------------------------------------------------------------

struct Timing {
  double ms = 0;      // median
  double ms_min = 0;  // minimum
  int reps = 0;       // timed repetitions
};

inline Timing summarize(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  t.ms_min = ms.front();
  const std::size_t n = ms.size();
  t.ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.reps = static_cast<int>(n);
  return t;
}

// Times fn() `reps` times after `warmup` untimed calls. OnGpu selects device events, which time
// the GPU's work alone; the host clock would add the launch and the synchronisation.
template <bool OnGpu, class Fn>
Timing time_region(Fn&& fn, int reps = 10, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(reps > 0 ? reps : 0));
  if constexpr (OnGpu) {
#if defined(GRAIN_ENABLE_CUDA)
    cudaEvent_t start, stop;
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (int i = 0; i < reps; ++i) {
      cuda_check(cudaEventRecord(start), "cudaEventRecord");
      fn();
      cuda_check(cudaEventRecord(stop), "cudaEventRecord");
      cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize (a kernel failed?)");
      float t = 0;
      cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
#endif
  } else {
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      fn();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  return summarize(std::move(ms));
}

template <class Exec>
constexpr bool exec_on_gpu() {
#if defined(GRAIN_ENABLE_CUDA)
  return std::is_same_v<Exec, Cuda>;
#else
  return false;
#endif
}

// Times work launched on Exec: fn launches it, and the fence is inside the measurement.
template <class Exec, class Fn>
Timing time_on(Fn&& fn, int reps = 10, int warmup = 2) {
  return time_region<exec_on_gpu<Exec>()>(
      [&] {
        fn();
        Exec().fence();
      },
      reps, warmup);
}

// Times fn on Exec, its first run (untimed, also the warm-up) deciding the repetitions: `reps`,
// or 3 without further warm-up when one run takes over a quarter of a second, so that a suite of
// large shapes ends in minutes.
template <class Exec, class Fn>
Timing time_adaptive(Fn&& fn, int reps) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  Exec().fence();
  const double probe = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return probe > 0.25 ? time_on<Exec>(fn, 3, 0) : time_on<Exec>(fn, reps, 1);
}

// ---- shapes ----------------------------------------------------------------------------------------

// One contraction shape: L = R = 1 for DataData, L = 1 and R = F for DataField; D1 = 3 for Vector
// and Tensor kernels, D2 = 3 for Tensor ones.
struct ContractShape {
  ContractKernel kernel = ContractKernel::DataDataScalar;
  std::int64_t C = 0, L = 1, R = 1, P = 0, D1 = 1, D2 = 1;
  ContractFamily family() const { return contract_kernel_family(kernel); }
  std::int64_t K() const { return P * D1 * D2; }
  bool left_fields() const { return family() == ContractFamily::FieldField; }
  bool right_fields() const { return family() != ContractFamily::DataData; }
  std::int64_t left_cell() const { return (left_fields() ? L : 1) * K(); }
  std::int64_t right_cell() const { return (right_fields() ? R : 1) * K(); }
};

// docs/benchmarks.md's cases: hexahedra of order q, (q+1)^3 fields and (q+2)^3 points.
struct ContractBenchCase {
  const char* name;
  std::int64_t fields, points;
};
inline constexpr ContractBenchCase kContractBenchCases[] = {
    {"Q1", 8, 8}, {"Q2", 27, 27}, {"Q3", 64, 64}, {"Q4", 125, 216}};

// The shape of `kernel` with `fields` fields and P points whose larger input holds budget_mib MiB
// of `elem_bytes`-byte elements (at least one cell): the suites compare shapes at equal memory.
inline ContractShape contract_shape_at_budget(ContractKernel kernel, std::int64_t fields, std::int64_t P,
                                              double budget_mib, std::size_t elem_bytes) {
  ContractShape s;
  s.kernel = kernel;
  s.P = P;
  const int nk = contract_kernel_contracted(kernel);
  s.L = s.left_fields() ? fields : 1;
  s.R = s.right_fields() ? fields : 1;
  s.D1 = nk >= 2 ? 3 : 1;
  s.D2 = nk >= 3 ? 3 : 1;
  const double per_cell = double(std::max(s.left_cell(), s.right_cell())) * double(elem_bytes);
  s.C = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget_mib * 1048576.0 / per_cell));
  return s;
}

// Whether a run on back end `backend` uses LayoutLeft: `layout` "left" or "right"; "" or "default"
// is left on cuda (cells the unit-stride index, as Kokkos lays out its CUDA Views) and right on
// the CPU. grain::Error naming `option` for any other value.
inline bool contract_layout_left(const std::string& layout, const std::string& backend,
                                 const char* option = "layout") {
  if (layout.empty() || layout == "default") return backend == "cuda";
  if (layout == "left") return true;
  if (layout == "right") return false;
  throw_error(option, " must be left or right; got '", layout, "'");
}

// ---- inputs: a value per logical index ----------------------------------------------------------

inline constexpr std::uint64_t kContractSeedLeft = 11, kContractSeedRight = 23;

// A splitmix64 hash of (seed, i) mapped to +/-[0.5, 1.5): random, non-zero, reproducible anywhere.
GRAIN_INLINE_FUNCTION double contract_input_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  const double u = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
  return (x & 1) ? -(0.5 + u) : (0.5 + u);
}

// v(i0, i1, ...) = contract_input_value(seed, the row-major flattened logical index), whatever the
// layout.
template <class V>
struct ContractFillLogical {
  V v;
  std::uint64_t seed;
  std::size_t ext[8];
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const {
    std::size_t idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t rem = static_cast<std::size_t>(i);
    for (int r = V::rank - 1; r >= 0; --r) {
      idx[r] = rem % ext[r];
      rem /= ext[r];
    }
    using T = typename V::non_const_value_type;
    const T x = static_cast<T>(contract_input_value(seed, static_cast<std::uint64_t>(i)));
    if constexpr (V::rank == 1) v(idx[0]) = x;
    if constexpr (V::rank == 2) v(idx[0], idx[1]) = x;
    if constexpr (V::rank == 3) v(idx[0], idx[1], idx[2]) = x;
    if constexpr (V::rank == 4) v(idx[0], idx[1], idx[2], idx[3]) = x;
    if constexpr (V::rank == 5) v(idx[0], idx[1], idx[2], idx[3], idx[4]) = x;
  }
};

template <class Exec, class V>
void contract_fill_logical(const V& v, std::uint64_t seed) {
  ContractFillLogical<V> f{v, seed, {}};
  for (int r = 0; r < 8; ++r) f.ext[r] = v.extent(r);
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(v.size())), f);
  Exec().fence();
}

// ---- a shape's Views on a back end ------------------------------------------------------------------

// The compile-time side of one call: element type, layout of the three Views, kernel family
// (0 DataData, 1 DataField, 2 FieldField) and contracted indices.
template <class T, class Layout, int Family, int NK>
struct ContractTypes {
  using value_type = T;
  using layout = Layout;
  static constexpr int family = Family, nk = NK;
  static constexpr ContractKernel kernel = contract_kernel_of(Family, NK);
  static constexpr int left_rank = 1 + (Family == 2 ? 1 : 0) + NK;
  static constexpr int right_rank = 1 + (Family >= 1 ? 1 : 0) + NK;
  static constexpr int out_rank = 1 + Family;
};

template <class T, class Layout, class F>
decltype(auto) contract_dispatch_kernel(ContractKernel k, F&& f) {
  switch (k) {
    case ContractKernel::DataDataScalar: return f(ContractTypes<T, Layout, 0, 1>{});
    case ContractKernel::DataDataVector: return f(ContractTypes<T, Layout, 0, 2>{});
    case ContractKernel::DataDataTensor: return f(ContractTypes<T, Layout, 0, 3>{});
    case ContractKernel::DataFieldScalar: return f(ContractTypes<T, Layout, 1, 1>{});
    case ContractKernel::DataFieldVector: return f(ContractTypes<T, Layout, 1, 2>{});
    case ContractKernel::DataFieldTensor: return f(ContractTypes<T, Layout, 1, 3>{});
    case ContractKernel::FieldFieldScalar: return f(ContractTypes<T, Layout, 2, 1>{});
    case ContractKernel::FieldFieldVector: return f(ContractTypes<T, Layout, 2, 2>{});
    case ContractKernel::FieldFieldTensor: return f(ContractTypes<T, Layout, 2, 3>{});
  }
  throw_error("grain: contraction kernel ", static_cast<int>(k), " is none of the nine");
}

// f(ContractTypes<...>{}) for a run-time kernel, element type and layout (LayoutLeft or
// LayoutRight); every branch returns the same type.
template <class F>
decltype(auto) contract_dispatch(ContractKernel k, bool is_double, bool layout_left, F&& f) {
  if (is_double)
    return layout_left ? contract_dispatch_kernel<double, LayoutLeft>(k, f)
                       : contract_dispatch_kernel<double, LayoutRight>(k, f);
  return layout_left ? contract_dispatch_kernel<float, LayoutLeft>(k, f)
                     : contract_dispatch_kernel<float, LayoutRight>(k, f);
}

template <class Exec>
ContractExec contract_exec_of() {
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Cuda>) return ContractExec::Cuda;
#endif
#if defined(GRAIN_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, OpenMP>) return ContractExec::OpenMP;
#endif
  return ContractExec::Serial;
}

// A shape's left, right and out in Exec's memory space, inputs filled by their logical index
// (seeds kContractSeedLeft and kContractSeedRight), and the call on them.
template <class Exec, class Types>
struct ContractOperands {
  using T = typename Types::value_type;
  using Layout = typename Types::layout;
  using Space = typename Exec::memory_space;
  template <int Rank, class L = Layout>
  using ViewOf = View<typename DataTypeOf<T, Rank>::type, L, Space>;
  using LeftView = ViewOf<Types::left_rank>;
  using RightView = ViewOf<Types::right_rank>;
  using OutView = ViewOf<Types::out_rank>;

  ContractShape shape;
  std::size_t left_extents[Types::left_rank], right_extents[Types::right_rank],
      out_extents[Types::out_rank];
  LeftView left;
  RightView right;
  OutView out;

  explicit ContractOperands(const ContractShape& s) : shape(s) {
    operand_extents(left_extents, Types::family == 2, s.L);
    operand_extents(right_extents, Types::family >= 1, s.R);
    out_extents[0] = std::size_t(s.C);
    if constexpr (Types::family == 1) out_extents[1] = std::size_t(s.R);
    if constexpr (Types::family == 2) {
      out_extents[1] = std::size_t(s.L);
      out_extents[2] = std::size_t(s.R);
    }
    left = LeftView("contract_left", left_extents);
    right = RightView("contract_right", right_extents);
    out = OutView("contract_out", out_extents);
    contract_fill_logical<Exec>(left, kContractSeedLeft);
    contract_fill_logical<Exec>(right, kContractSeedRight);
  }

  ContractExec exec() const { return contract_exec_of<Exec>(); }
  ContractProblem<T> problem() const { return contract_problem(Types::kernel, out, left, right); }

  // Whether timing `a` here makes sense: Auto always; otherwise where `a` applies, and never the
  // serial reference on the GPU (one GPU thread would take minutes).
  bool measurable(ContractAlgorithm a) const {
    if (a == ContractAlgorithm::Auto) return true;
    if (a == ContractAlgorithm::Serial && exec_on_gpu<Exec>()) return false;
    return contract_not_applicable(problem(), a, exec()).empty();
  }

  void run(const ContractOptions& opt) const {
    contract_generic<Types::family, Types::nk>(contract_function_name(Types::kernel), Types::kernel,
                                               out, left, right, opt);
  }

  // Times algorithm `a` (time_adaptive) on this back end. The output is NaN-poisoned first, so a
  // check afterwards finds any entry the algorithm left unwritten. Raises what the call raises.
  Timing time(ContractAlgorithm a, int reps) const {
    ContractOptions opt;
    opt.algorithm = a;
    opt.exec = exec();
    deep_copy(out, std::numeric_limits<T>::quiet_NaN());
    return time_adaptive<Exec>([&] { run(opt); }, reps);
  }

  // (C, [fields], P, [D1], [D2]) for an input of rank `Rank`.
  template <int Rank>
  void operand_extents(std::size_t (&e)[Rank], bool has_field, std::int64_t fields) const {
    int i = 0;
    e[i++] = std::size_t(shape.C);
    if (has_field) e[i++] = std::size_t(fields);
    e[i++] = std::size_t(shape.P);
    if (i < Rank) e[i++] = std::size_t(shape.D1);
    if (i < Rank) e[i++] = std::size_t(shape.D2);
  }
};

}  // namespace grain::impl
