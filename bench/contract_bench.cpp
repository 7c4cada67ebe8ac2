// `grain bench contract` and `grain tune`: the nine contractions on the docs/benchmarks.md cases,
// every applicable algorithm timed beside the copy bandwidth and GEMM peak of the same run, each
// output checked against a host reference, Auto's pick marked, and the peers a user would
// otherwise call (per-cell OpenBLAS on the CPU, cuBLAS strided-batched on the GPU) in the same
// table.
//
// Inputs are defined by their logical index: left(c, l, p, d1, d2) = value(seed, flattened
// logical index), whatever the layout, so the reference is computed on the host from the formula
// alone (no copy of the inputs) for a sample of cells, and every layout sees the same numbers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../apps/grain/commands.hpp"
#include "common/affinity.hpp"
#include "common/ceilings.hpp"
#include "common/gemm.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "contract_peers.hpp"
#include "grain/contract/select.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/grain.hpp"

namespace grain::cli {

namespace {

using bench::Report;
using bench::Row;
using bench::Timing;

constexpr ContractKernel kKernels[] = {
    ContractKernel::DataDataScalar,   ContractKernel::DataDataVector,   ContractKernel::DataDataTensor,
    ContractKernel::DataFieldScalar,  ContractKernel::DataFieldVector,  ContractKernel::DataFieldTensor,
    ContractKernel::FieldFieldScalar, ContractKernel::FieldFieldVector, ContractKernel::FieldFieldTensor};

// docs/benchmarks.md: hexahedra of order q, (q+1)^3 fields, (q+2)^3 points.
struct Case {
  std::string name;
  std::int64_t fields, P;
};
const Case kCases[] = {{"Q1", 8, 8}, {"Q2", 27, 27}, {"Q3", 64, 64}, {"Q4", 125, 216}};

constexpr const char* kPeerOpenBLAS = "openblas-gemm";
constexpr const char* kPeerCublas = "cublas-strided-batched";

// One contraction shape: L = R = 1 for DataData, L = 1 and R = F for DataField.
struct Shape {
  ContractKernel kernel = ContractKernel::DataDataScalar;
  std::string case_name;
  std::int64_t C = 0, L = 1, R = 1, P = 0, D1 = 1, D2 = 1;
  double budget_mib = 0;
  int family() const { return contract_kernel_family(kernel); }
  std::int64_t K() const { return P * D1 * D2; }
  std::int64_t left_cell() const { return (family() == 2 ? L : 1) * K(); }
  std::int64_t right_cell() const { return (family() >= 1 ? R : 1) * K(); }
};

// C is chosen so that the larger input holds the budget (docs/benchmarks.md).
Shape make_shape(ContractKernel k, const std::string& name, std::int64_t fields, std::int64_t P,
                 double budget_mib, std::size_t elem) {
  Shape s;
  s.kernel = k;
  s.case_name = name;
  s.P = P;
  const int fam = contract_kernel_family(k), nk = contract_kernel_contracted(k);
  s.L = fam == 2 ? fields : 1;
  s.R = fam >= 1 ? fields : 1;
  s.D1 = nk >= 2 ? 3 : 1;
  s.D2 = nk >= 3 ? 3 : 1;
  s.budget_mib = budget_mib;
  const double per_cell = double(std::max(s.left_cell(), s.right_cell())) * double(elem);
  s.C = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget_mib * 1048576.0 / per_cell));
  return s;
}

// ---- the inputs: a value per logical index ----------------------------------------------------

// A splitmix64 hash of (seed, i) mapped to +/-[0.5, 1.5): random, non-zero, reproducible anywhere.
GRAIN_INLINE_FUNCTION double bench_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  const double u = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
  return (x & 1) ? -(0.5 + u) : (0.5 + u);
}

template <class V>
struct FillLogical {
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
    const T x = static_cast<T>(bench_value(seed, static_cast<std::uint64_t>(i)));
    if constexpr (V::rank == 1) v(idx[0]) = x;
    if constexpr (V::rank == 2) v(idx[0], idx[1]) = x;
    if constexpr (V::rank == 3) v(idx[0], idx[1], idx[2]) = x;
    if constexpr (V::rank == 4) v(idx[0], idx[1], idx[2], idx[3]) = x;
    if constexpr (V::rank == 5) v(idx[0], idx[1], idx[2], idx[3], idx[4]) = x;
  }
};

template <class Exec, class V>
void fill_logical(const V& v, std::uint64_t seed) {
  FillLogical<V> f{v, seed, {}};
  for (int r = 0; r < 8; ++r) f.ext[r] = v.extent(r);
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(v.size())), f);
  Exec().fence();
}

constexpr std::uint64_t kSeedLeft = 11, kSeedRight = 23;

// ---- the host reference for a sample of cells --------------------------------------------------

struct Reference {
  std::vector<std::int64_t> cells;
  std::vector<double> value, magnitude;  // [cell sample][l][r]: sum a*b and sum |a*b|
};

template <class T>
Reference make_reference(const Shape& s) {
  Reference ref;
  const std::int64_t Lf = s.family() == 2 ? s.L : 1, Rf = s.family() >= 1 ? s.R : 1, K = s.K();
  // About 3e7 multiply-adds in all; at least the first and the last cell.
  const double per_cell = double(Lf) * double(Rf) * double(K) + 1;
  const std::int64_t n = std::min<std::int64_t>(
      s.C, std::max<std::int64_t>(2, std::min<std::int64_t>(64, static_cast<std::int64_t>(3e7 / per_cell))));
  for (std::int64_t j = 0; j < n; ++j) ref.cells.push_back(n == 1 ? 0 : j * (s.C - 1) / (n - 1));
  ref.value.assign(std::size_t(n * Lf * Rf), 0.0);
  ref.magnitude.assign(ref.value.size(), 0.0);
  std::vector<double> a(std::size_t(Lf * K)), b(std::size_t(Rf * K));
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t c = ref.cells[std::size_t(j)];
    for (std::int64_t i = 0; i < Lf * K; ++i)
      a[std::size_t(i)] = double(static_cast<T>(bench_value(kSeedLeft, std::uint64_t(c * Lf * K + i))));
    for (std::int64_t i = 0; i < Rf * K; ++i)
      b[std::size_t(i)] = double(static_cast<T>(bench_value(kSeedRight, std::uint64_t(c * Rf * K + i))));
    for (std::int64_t l = 0; l < Lf; ++l)
      for (std::int64_t r = 0; r < Rf; ++r) {
        double sum = 0, mag = 0;
        const double* x = &a[std::size_t(l * K)];
        const double* y = &b[std::size_t(r * K)];
        for (std::int64_t k = 0; k < K; ++k) {
          sum += x[k] * y[k];
          mag += std::abs(x[k] * y[k]);
        }
        ref.value[std::size_t((j * Lf + l) * Rf + r)] = sum;
        ref.magnitude[std::size_t((j * Lf + l) * Rf + r)] = mag;
      }
  }
  return ref;
}

// Compares the sampled cells of a host copy of `out`, read through get(c, l, r), and scans the
// whole output for non-finite values (an unwritten, NaN-poisoned entry).
template <class T, class Get>
bool check_output(const Shape& s, const Reference& ref, std::size_t n_out, const T* all, Get get,
                  std::string* why) {
  for (std::size_t i = 0; i < n_out; ++i)
    if (!std::isfinite(all[i])) {
      *why = "non-finite output entry " + std::to_string(i) + " (unwritten?)";
      return false;
    }
  const double tol = 2.0 * double(s.K() + 8) * double(std::numeric_limits<T>::epsilon());
  const std::int64_t Lf = s.family() == 2 ? s.L : 1, Rf = s.family() >= 1 ? s.R : 1;
  for (std::size_t j = 0; j < ref.cells.size(); ++j)
    for (std::int64_t l = 0; l < Lf; ++l)
      for (std::int64_t r = 0; r < Rf; ++r) {
        const std::size_t at = (j * Lf + l) * Rf + r;
        const double got = double(get(ref.cells[j], l, r));
        const double err = std::abs(got - ref.value[at]);
        if (!(err <= tol * ref.magnitude[at] + 1e-30)) {
          std::ostringstream os;
          os << "out(" << ref.cells[j] << "," << l << "," << r << ") = " << got << ", expected "
             << ref.value[at];
          *why = os.str();
          return false;
        }
      }
  return true;
}

// ---- the engine's view of a call (for Auto's pick and applicability) ---------------------------

template <int Family, int NK, class O, class A, class B>
impl::ContractProblem<typename O::value_type> make_problem(ContractKernel kernel, const O& out,
                                                          const A& left, const B& right) {
  constexpr int lf = Family == 2 ? 1 : 0, rf = Family >= 1 ? 1 : 0;
  impl::ContractProblem<typename O::value_type> p;
  p.kernel = kernel;
  p.function = "grain bench contract";
  p.C = static_cast<index_type>(right.extent(0));
  p.L = lf ? static_cast<index_type>(left.extent(1)) : 1;
  p.R = rf ? static_cast<index_type>(right.extent(1)) : 1;
  for (int j = 0; j < NK; ++j) {
    const int slot = 3 - NK + j, la = 1 + lf + j, rb = 1 + rf + j;
    p.x[slot] = static_cast<index_type>(right.extent(rb));
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

// out(c), out(c, r) or out(c, l, r) by the rank of a host View.
template <class V>
double read_out(const V& h, std::int64_t c, std::int64_t l, std::int64_t r) {
  if constexpr (V::rank == 1) {
    (void)l, (void)r;
    return double(h(c));
  } else if constexpr (V::rank == 2) {
    (void)l;
    return double(h(c, r));
  } else {
    return double(h(c, l, r));
  }
}

template <int Family, int NK, class O, class A, class B>
void call_contract(const O& out, const A& left, const B& right, const ContractOptions& opt) {
  if constexpr (Family == 0 && NK == 1) contract_data_data_scalar(out, left, right, opt);
  if constexpr (Family == 0 && NK == 2) contract_data_data_vector(out, left, right, opt);
  if constexpr (Family == 0 && NK == 3) contract_data_data_tensor(out, left, right, opt);
  if constexpr (Family == 1 && NK == 1) contract_data_field_scalar(out, left, right, opt);
  if constexpr (Family == 1 && NK == 2) contract_data_field_vector(out, left, right, opt);
  if constexpr (Family == 1 && NK == 3) contract_data_field_tensor(out, left, right, opt);
  if constexpr (Family == 2 && NK == 1) contract_field_field_scalar(out, left, right, opt);
  if constexpr (Family == 2 && NK == 2) contract_field_field_vector(out, left, right, opt);
  if constexpr (Family == 2 && NK == 3) contract_field_field_tensor(out, left, right, opt);
}

template <class Exec>
ContractExec exec_of() {
#if defined(GRAIN_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Cuda>) return ContractExec::Cuda;
#endif
#if defined(GRAIN_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, OpenMP>) return ContractExec::OpenMP;
#endif
  return ContractExec::Serial;
}

template <class Exec>
constexpr bool on_gpu() {
#if defined(GRAIN_ENABLE_CUDA)
  return std::is_same_v<Exec, Cuda>;
#else
  return false;
#endif
}

// ---- measuring one shape -------------------------------------------------------------------------

// What to measure for one shape.
struct Plan {
  std::vector<std::string> algorithms;  // grain algorithm names, "auto", and peer names
  bool serial_when_cheap = false;       // time serial too when the case is small (host only)
  bool verify = true;
  int reps = 10;
  bool quiet = false;
  // Host suite: the copy bandwidth now (HostCopyProbe), taken just before and just after each
  // timed row; empty on the GPU, whose copy holds steady, and outside the suite.
  std::function<double()> copy_probe;
};

template <int Rank>
void shape_extents(std::size_t (&e)[Rank], const Shape& s, bool has_field, std::int64_t fields) {
  int i = 0;
  e[i++] = std::size_t(s.C);
  if (has_field) e[i++] = std::size_t(fields);
  e[i++] = std::size_t(s.P);
  if (i < Rank) e[i++] = std::size_t(s.D1);
  if (i < Rank) e[i++] = std::size_t(s.D2);
}

template <class T>
const char* dtype_name() {
  return std::is_same_v<T, double> ? "double" : "float";
}

// Times fn: one probe run (also the warm-up) decides the repetitions: `reps` normally, 3 when a
// single run takes over a quarter of a second (recorded in the row's "reps").
template <class Exec, class Fn>
Timing time_adaptive(Fn&& fn, int reps, int* used) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  Exec().fence();
  const double probe = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *used = probe > 0.25 ? 3 : reps;
  return bench::time_on<Exec>(fn, *used, probe > 0.25 ? 0 : 1);
}

template <class Exec, class T, class Layout, int Family, int NK>
std::vector<Row> measure(const Shape& s, const Plan& plan, ContractAlgorithm* auto_pick_out = nullptr) {
  using Space = typename Exec::memory_space;
  constexpr int lrank = 1 + (Family == 2 ? 1 : 0) + NK, rrank = 1 + (Family >= 1 ? 1 : 0) + NK,
                orank = 1 + Family;
  using LeftV = View<typename impl::DataTypeOf<T, lrank>::type, Layout, Space>;
  using RightV = View<typename impl::DataTypeOf<T, rrank>::type, Layout, Space>;
  using OutV = View<typename impl::DataTypeOf<T, orank>::type, Layout, Space>;

  std::size_t le[lrank], re[rrank], oe[orank];
  shape_extents(le, s, Family == 2, s.L);
  shape_extents(re, s, Family >= 1, s.R);
  oe[0] = std::size_t(s.C);
  if (Family == 1) oe[1] = std::size_t(s.R);
  if (Family == 2) {
    oe[1] = std::size_t(s.L);
    oe[2] = std::size_t(s.R);
  }
  LeftV left("contract_left", le);
  RightV right("contract_right", re);
  OutV out("contract_out", oe);
  fill_logical<Exec>(left, kSeedLeft);
  fill_logical<Exec>(right, kSeedRight);

  const ContractExec e = exec_of<Exec>();
  const auto p = make_problem<Family, NK>(s.kernel, out, left, right);
  const ContractAlgorithm pick = impl::contract_auto_algorithm(p, e);
  if (auto_pick_out) *auto_pick_out = pick;

  Reference ref;
  bool have_ref = false;
  auto reference = [&]() -> const Reference& {
    if (!have_ref) ref = make_reference<T>(s);
    have_ref = true;
    return ref;
  };

  const double bytes = double(left.size() + right.size() + out.size()) * sizeof(T);
  const double flops = 2.0 * double(s.C) * double(s.L) * double(s.R) * double(s.K());

  auto base_row = [&](const std::string& alg) {
    Row r;
    r.kernel = contract_kernel_name(s.kernel);
    r.case_name = s.case_name;
    r.dtype = dtype_name<T>();
    r.algorithm = alg;
    r.C = s.C;
    r.L = s.L;
    r.R = s.R;
    r.P = s.P;
    r.D1 = s.D1;
    r.D2 = s.D2;
    r.bytes = bytes;
    r.flops = flops;
    r.extra.push_back({"budget_MiB", s.budget_mib});
    r.extra.push_back({"layout_left", std::is_same_v<Layout, LayoutLeft> ? 1.0 : 0.0});
    return r;
  };

  // Verifies a host copy of an output (either layout) against the sampled reference.
  auto verify_view = [&](auto out_view, std::string* why) {
    using V = decltype(out_view);
    typename V::HostMirror h;
    if constexpr (Space::host_accessible) {
      h = out_view;
    } else {
      h = create_mirror_view(out_view);
      deep_copy(h, out_view);
    }
    return check_output<T>(s, reference(), h.size(), h.data(),
                           [&](std::int64_t c, std::int64_t l, std::int64_t r) {
                             return read_out(h, c, l, r);
                           },
                           why);
  };

  std::vector<Row> rows;
  for (const std::string& name : plan.algorithms) {
    if (name == kPeerOpenBLAS || name == kPeerCublas) continue;
    const ContractAlgorithm a = parse_contract_algorithm(name);
    // The serial loops on one GPU thread would take minutes: the GPU sweep times serial on the
    // host instead (run_sweep).
    if (a == ContractAlgorithm::Serial && on_gpu<Exec>()) continue;
    if (a != ContractAlgorithm::Auto && !impl::contract_not_applicable(p, a, e).empty()) continue;
    ContractOptions opt;
    opt.algorithm = a;
    opt.exec = e;
    deep_copy(out, std::numeric_limits<T>::quiet_NaN());
    Row r = base_row(name);
    int used = 0;
    try {
      const double copy_before = plan.copy_probe ? plan.copy_probe() : 0.0;
      const Timing t = time_adaptive<Exec>([&] { call_contract<Family, NK>(out, left, right, opt); },
                                           plan.reps, &used);
      r.ms = t.ms;
      r.ms_min = t.ms_min;
      if (plan.copy_probe) bench::note_row_copy(r, copy_before, plan.copy_probe());
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "grain bench contract: %s %s %s %s failed: %s\n", r.kernel.c_str(),
                   s.case_name.c_str(), r.dtype.c_str(), name.c_str(), ex.what());
      continue;
    }
    r.extra.push_back({"reps", double(used)});
    r.selected = a == pick;
    if (plan.verify) {
      std::string why;
      r.verified = verify_view(out, &why);
      if (!r.verified)
        std::fprintf(stderr, "grain bench contract: %s %s %s %s: WRONG RESULT: %s\n",
                     r.kernel.c_str(), s.case_name.c_str(), r.dtype.c_str(), name.c_str(),
                     why.c_str());
    }
    rows.push_back(r);
  }

  // Peers: FieldField only, on LayoutRight (row-major cells) data.
  if constexpr (Family == 2) {
    const bool want_blas = std::find(plan.algorithms.begin(), plan.algorithms.end(),
                                     std::string(on_gpu<Exec>() ? kPeerCublas : kPeerOpenBLAS)) !=
                           plan.algorithms.end();
    bool runnable = want_blas;
    if constexpr (!on_gpu<Exec>()) runnable = runnable && bench::have_openblas_peer();
    if (runnable) {
      using LR = View<typename impl::DataTypeOf<T, lrank>::type, LayoutRight, Space>;
      using RR = View<typename impl::DataTypeOf<T, rrank>::type, LayoutRight, Space>;
      using OR = View<typename impl::DataTypeOf<T, orank>::type, LayoutRight, Space>;
      LR l2;
      RR r2;
      OR o2;
      if constexpr (std::is_same_v<Layout, LayoutRight>) {
        l2 = left;
        r2 = right;
        o2 = out;
      } else {
        // Separate row-major copies of the same values (the peer cannot read cell-fastest data).
        left = LeftV();
        right = RightV();
        l2 = LR("peer_left", le);
        r2 = RR("peer_right", re);
        o2 = OR("peer_out", oe);
        fill_logical<Exec>(l2, kSeedLeft);
        fill_logical<Exec>(r2, kSeedRight);
      }
      deep_copy(o2, std::numeric_limits<T>::quiet_NaN());
      Row r = base_row(on_gpu<Exec>() ? kPeerCublas : kPeerOpenBLAS);
      r.extra.back().second = 0.0;  // layout_left: the peer always reads row-major cells
      const T* a = l2.data();
      const T* b = r2.data();
      T* o = o2.data();
      const std::int64_t C = s.C, L = s.L, R = s.R, K = s.K();
      int used = 0;
      try {
        Timing t;
        const double copy_before = plan.copy_probe ? plan.copy_probe() : 0.0;
        if constexpr (on_gpu<Exec>()) {
#if defined(GRAIN_ENABLE_CUDA)
          t = time_adaptive<Exec>([&] { bench::cublas_strided_batched(a, b, o, C, L, R, K); },
                                  plan.reps, &used);
#endif
        } else {
          const int threads = Exec::concurrency();
          t = time_adaptive<Exec>([&] { bench::openblas_per_cell(a, b, o, C, L, R, K, threads); },
                                  plan.reps, &used);
        }
        r.ms = t.ms;
        r.ms_min = t.ms_min;
        if (plan.copy_probe) bench::note_row_copy(r, copy_before, plan.copy_probe());
        r.extra.push_back({"reps", double(used)});
        if (plan.verify) {
          std::string why;
          r.verified = verify_view(o2, &why);
          if (!r.verified)
            std::fprintf(stderr, "grain bench contract: %s %s %s %s: WRONG RESULT: %s\n",
                         r.kernel.c_str(), s.case_name.c_str(), r.dtype.c_str(), r.algorithm.c_str(),
                         why.c_str());
        }
        rows.push_back(r);
      } catch (const std::exception& ex) {
        std::fprintf(stderr, "grain bench contract: %s %s %s %s failed: %s\n", r.kernel.c_str(),
                     s.case_name.c_str(), r.dtype.c_str(), r.algorithm.c_str(), ex.what());
      }
    }
  }
  return rows;
}

// Runtime (kernel, dtype, layout) -> the template instantiation.
template <class Exec, class T, class Layout>
std::vector<Row> measure_kernel(const Shape& s, const Plan& plan, ContractAlgorithm* pick) {
  switch (s.kernel) {
    case ContractKernel::DataDataScalar: return measure<Exec, T, Layout, 0, 1>(s, plan, pick);
    case ContractKernel::DataDataVector: return measure<Exec, T, Layout, 0, 2>(s, plan, pick);
    case ContractKernel::DataDataTensor: return measure<Exec, T, Layout, 0, 3>(s, plan, pick);
    case ContractKernel::DataFieldScalar: return measure<Exec, T, Layout, 1, 1>(s, plan, pick);
    case ContractKernel::DataFieldVector: return measure<Exec, T, Layout, 1, 2>(s, plan, pick);
    case ContractKernel::DataFieldTensor: return measure<Exec, T, Layout, 1, 3>(s, plan, pick);
    case ContractKernel::FieldFieldScalar: return measure<Exec, T, Layout, 2, 1>(s, plan, pick);
    case ContractKernel::FieldFieldVector: return measure<Exec, T, Layout, 2, 2>(s, plan, pick);
    case ContractKernel::FieldFieldTensor: return measure<Exec, T, Layout, 2, 3>(s, plan, pick);
  }
  return {};
}

template <class Exec>
std::vector<Row> measure_any(const Shape& s, const std::string& dtype, bool layout_left,
                             const Plan& plan, ContractAlgorithm* pick = nullptr) {
  if (dtype == "float")
    return layout_left ? measure_kernel<Exec, float, LayoutLeft>(s, plan, pick)
                       : measure_kernel<Exec, float, LayoutRight>(s, plan, pick);
  return layout_left ? measure_kernel<Exec, double, LayoutLeft>(s, plan, pick)
                     : measure_kernel<Exec, double, LayoutRight>(s, plan, pick);
}

// ---- options ---------------------------------------------------------------------------------------

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s + ",") {
    if (ch == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  return out;
}

std::vector<ContractKernel> parse_kernels(const std::string& s) {
  if (s == "all") return std::vector<ContractKernel>(std::begin(kKernels), std::end(kKernels));
  std::vector<ContractKernel> out;
  for (const std::string& name : split_list(s)) {
    bool found = false;
    for (ContractKernel k : kKernels)
      if (name == contract_kernel_name(k)) {
        out.push_back(k);
        found = true;
      }
    if (!found)
      impl::throw_error("--kernel: unknown kernel '", name,
                        "' (all, DataDataScalar, DataDataVector, DataDataTensor, DataFieldScalar, "
                        "DataFieldVector, DataFieldTensor, FieldFieldScalar, FieldFieldVector, "
                        "FieldFieldTensor; a comma-separated list is fine)");
  }
  return out;
}

std::vector<Case> parse_cases(const std::string& s) {
  if (s == "all") return std::vector<Case>(std::begin(kCases), std::end(kCases));
  std::vector<Case> out;
  for (const std::string& name : split_list(s)) {
    bool found = false;
    for (const Case& c : kCases)
      if (name == c.name) {
        out.push_back(c);
        found = true;
      }
    if (!found) impl::throw_error("--case: unknown case '", name, "' (Q1, Q2, Q3, Q4 or all)");
  }
  return out;
}

std::vector<std::string> parse_dtypes(const std::string& s) {
  if (s == "all") return {"float", "double"};
  if (s == "float" || s == "double") return {s};
  impl::throw_error("--dtype must be float, double or all; got '", s, "'");
}

// Every grain algorithm except serial, then the peers.
std::vector<std::string> default_algorithms() {
  std::vector<std::string> v;
  for (ContractAlgorithm a : kAllContractAlgorithms)
    if (a != ContractAlgorithm::Serial) v.push_back(contract_algorithm_name(a));
  v.push_back(kPeerOpenBLAS);
  v.push_back(kPeerCublas);
  return v;
}

std::vector<std::string> parse_algorithms(const std::string& s) {
  if (s == "all") return default_algorithms();
  std::vector<std::string> out;
  for (const std::string& name : split_list(s)) {
    if (name != kPeerOpenBLAS && name != kPeerCublas) parse_contract_algorithm(name);  // validates
    out.push_back(name);
  }
  return out;
}

std::vector<double> parse_numbers(const std::string& s, const char* what) {
  std::vector<double> out;
  for (const std::string& v : split_list(s)) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (*end != '\0' || !(x > 0)) impl::throw_error(what, ": expected positive numbers, got '", v, "'");
    out.push_back(x);
  }
  if (out.empty()) impl::throw_error(what, ": empty list");
  return out;
}

void check_backend(const std::string& b) {
  if (b != "serial" && b != "openmp" && b != "cuda")
    impl::throw_error("--backend must be serial, openmp or cuda; got '", b, "'");
#if !defined(GRAIN_ENABLE_OPENMP)
  if (b == "openmp") impl::throw_error("--backend openmp: this grain was built without OpenMP");
#endif
#if !GRAIN_CUDA_LAUNCH_AVAILABLE
  if (b == "cuda") impl::throw_error("--backend cuda: this grain was built without CUDA");
#else
  if (b == "cuda" && impl::cuda_device_count() == 0)
    impl::throw_error("--backend cuda: no CUDA device is visible");
#endif
}

bool parse_layout(const std::string& v, const std::string& backend) {
  if (v.empty() || v == "default") return backend == "cuda";  // LayoutLeft on the GPU, as Kokkos
  if (v == "left") return true;
  if (v == "right") return false;
  impl::throw_error("--layout must be left or right; got '", v, "'");
}

// Runs f<Exec>() for the back end named b.
template <class F>
auto with_backend(const std::string& b, F&& f) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (b == "cuda") return f(Cuda());
#endif
#if defined(GRAIN_ENABLE_OPENMP)
  if (b == "openmp") return f(OpenMP());
#endif
  return f(Serial());
}

// Bytes per buffer of the copy that sets the bandwidth ceiling (measure_ceilings, and the CPU
// suite's copies around each row).
std::size_t ceiling_copy_bytes(const std::string& backend, double budget_mib) {
  return static_cast<std::size_t>(std::min(1024.0, std::max(backend == "cuda" ? 256.0 : 64.0, budget_mib)) *
                                  1048576.0);
}

// Ceilings of the run: copy bandwidth of the back end's memory and the vendor GEMM peak. The
// first call sets them; later calls (`again`) measure once more, the copy alone unless `gemm`,
// and keep the highest (Report::raise_ceilings): the suite re-measures the copy after every shape
// and both at the end, because on a shared machine one early measurement may fall in a slow
// moment and understate the ceiling by a large factor.
void measure_ceilings(Report& rep, const std::string& backend, double budget_mib, bool again = false,
                      bool gemm = true) {
  const std::size_t copy_bytes = ceiling_copy_bytes(backend, budget_mib);
  double copy = 0;
  bench::GemmPeak g{};
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (backend == "cuda") {
    rep.device = bench::device_name<Cuda>();
    rep.threads = Cuda::concurrency();
    copy = bench::copy_bandwidth_GBps<Cuda>(copy_bytes);
    if (gemm) g = bench::cuda_gemm_peak(8192);
  }
#endif
  if (backend != "cuda") {
    rep.device = bench::host_cpu_name();
    rep.threads = 1;
#if defined(GRAIN_ENABLE_OPENMP)
    if (backend == "openmp") rep.threads = OpenMP::concurrency();
#endif
    if (!again && rep.threads > 1) {
      rep.cpus = bench::host_team_cpus(rep.threads);
      if (rep.cpus > 0 && rep.cpus < rep.threads)
        std::fprintf(stderr, "grain bench: warning: the %d threads may run on only %d CPU%s between them "
                     "(their affinity masks; see OMP_PROC_BIND, OMP_PLACES, taskset): the times "
                     "measure shared CPUs\n", rep.threads, rep.cpus, rep.cpus == 1 ? "" : "s");
    }
    copy = bench::copy_bandwidth_GBps<Serial>(copy_bytes);
    if (gemm) g = bench::host_gemm_peak(budget_mib < 64 ? 1024 : 2048);
    rep.peak_library = bench::openblas_config();
  }
  rep.copy_last = copy;
  if (again) return rep.raise_ceilings(copy, g.float_GFLOPs, g.double_GFLOPs);
  rep.copy_GBps = copy;
  rep.peak_GFLOPs_float = g.float_GFLOPs;
  rep.peak_GFLOPs_double = g.double_GFLOPs;
}

// Per shape: Auto's pick against the best measured grain algorithm and the peers.
void print_summary(const Report& rep) {
  struct Key {
    std::string kernel, case_name, dtype;
    bool operator<(const Key& o) const {
      return std::tie(kernel, case_name, dtype) < std::tie(o.kernel, o.case_name, o.dtype);
    }
  };
  std::map<Key, std::vector<const Row*>> groups;
  std::vector<Key> order;
  for (const Row& r : rep.rows) {
    Key k{r.kernel, r.case_name, r.dtype};
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  std::printf("\nAuto's pick per shape (roofline: against the run's highest ceilings; (local): the "
              "copy measured just before and after the row (CPU) or the shape (GPU), the higher, "
              "'~' where the two differ by over 1.3x; auto/best: 1.00 = Auto chose the fastest; "
              "peer/auto > 1: grain ahead):\n");
  std::printf("%-18s %-10s %-6s %-16s %9s %9s %-16s %9s %9s  %s\n", "kernel", "case", "dtype", "auto",
              "roofline", "(local)", "best", "auto/best", "peer/auto", "all verified");
  for (const Key& k : order) {
    const Row* pick = nullptr;
    const Row* best = nullptr;
    const Row* peer = nullptr;
    bool all_ok = true;
    for (const Row* r : groups[k]) {
      all_ok = all_ok && r->verified;
      const bool is_peer = r->algorithm == kPeerOpenBLAS || r->algorithm == kPeerCublas;
      if (is_peer) {
        peer = r;
        continue;
      }
      if (r->algorithm == "serial" || r->algorithm == "auto") continue;
      if (r->selected) pick = r;
      if (!best || r->ms < best->ms) best = r;
    }
    const double local = pick ? pick->extra_value("roofline_local") : 0.0;
    const bool moved = pick && pick->extra_value("copy_row_spread") > 1.3;
    std::printf("%-18s %-10s %-6s %-16s %9.3f %8.3f%c %-16s %9.2f %9s  %s\n", k.kernel.c_str(),
                k.case_name.c_str(), k.dtype.c_str(), pick ? pick->algorithm.c_str() : "(not timed)",
                pick ? pick->roofline : 0.0, local, moved ? '~' : ' ', best ? best->algorithm.c_str() : "-",
                pick && best ? pick->ms / best->ms : 0.0,
                peer && pick ? std::to_string(peer->ms / pick->ms).substr(0, 5).c_str() : "-",
                all_ok ? "yes" : "NO");
  }
}

// ---- the sweep: speedup over serial across P x budget (the study's Figure 3.1) --------------------

struct SweepOptions {
  std::vector<ContractKernel> kernels;
  std::vector<double> P, budgets;
  std::int64_t fields = 8;
};

template <class Exec>
void run_sweep(Report& rep, const SweepOptions& so, const std::vector<std::string>& dtypes,
               bool layout_left, const Plan& plan) {
  Plan host_serial;
  host_serial.algorithms = {"serial"};
  host_serial.reps = 3;
  host_serial.verify = plan.verify;
  for (ContractKernel k : so.kernels)
    for (const std::string& dtype : dtypes)
      for (double budget : so.budgets)
        for (double P : so.P) {
          std::ostringstream name;
          name << "P" << std::int64_t(P) << "-" << budget << "MiB";
          const Shape s = make_shape(k, name.str(), so.fields, std::int64_t(P), budget,
                                     dtype == "float" ? 4 : 8);
          std::vector<Row> rows = measure_any<Exec>(s, dtype, layout_left, plan);
          // The baseline: the serial reference loops on one host core, LayoutRight (their
          // natural layout), on the same values.
          std::vector<Row> base = measure_any<Serial>(s, dtype, false, host_serial);
          double serial_ms = 0;
          for (Row& b : base) {
            serial_ms = b.ms;
            b.extra.push_back({"host_serial", 1.0});
            rows.push_back(b);
          }
          for (Row& r : rows) {
            if (serial_ms > 0 && r.ms > 0) r.extra.push_back({"speedup_over_serial", serial_ms / r.ms});
            rep.add(r);
          }
          if (!plan.quiet) {
            const Row* best = nullptr;
            for (const Row& r : rows)
              if (r.algorithm != "serial" && r.algorithm != kPeerOpenBLAS &&
                  r.algorithm != kPeerCublas && (!best || r.ms < best->ms))
                best = &r;
            std::printf("  %-18s %-6s %-16s C=%-9lld serial %9.3f ms  best %-16s %9.3f ms  x%.1f\n",
                        contract_kernel_name(k), dtype.c_str(), s.case_name.c_str(),
                        static_cast<long long>(s.C), serial_ms, best ? best->algorithm.c_str() : "-",
                        best ? best->ms : 0.0, best && best->ms > 0 ? serial_ms / best->ms : 0.0);
            std::fflush(stdout);
          }
        }
}

}  // namespace

namespace {

// One back end's run of `grain bench contract`.
void bench_contract_on(const Args& args, const std::string& backend, const std::string& json) {
  check_backend(backend);
  const bool sweep = args.has("--sweep");
  const std::vector<ContractKernel> kernels = parse_kernels(args.value("--kernel", "all"));
  const std::vector<Case> cases = parse_cases(args.value("--case", "all"));
  const std::vector<std::string> dtypes = parse_dtypes(args.value("--dtype", sweep ? "double" : "all"));
  const bool layout_left = parse_layout(args.value("--layout", ""), backend);
  const double budget = static_cast<double>(args.integer("--budget-mib", backend == "cuda" ? 512 : 128));
  const int reps = static_cast<int>(args.integer("--reps", backend == "cuda" ? 20 : 10));
  if (budget < 1 || reps < 1) impl::throw_error("--budget-mib and --reps must be positive");

  Plan plan;
  plan.algorithms = parse_algorithms(args.value("--algorithm", "all"));
  plan.reps = reps;
  plan.verify = !args.has("--no-verify");
  plan.quiet = args.has("--quiet");

  Report rep;
  rep.backend = backend;
  measure_ceilings(rep, backend, budget);
  std::printf("grain bench contract: %s, %s, copy %.1f GB/s, GEMM peak %.0f / %.0f GFLOP/s "
              "(float / double%s%s), layout %s\n",
              rep.device.c_str(), backend.c_str(), rep.copy_GBps, rep.peak_GFLOPs_float,
              rep.peak_GFLOPs_double, rep.peak_library.empty() ? "" : "; ", rep.peak_library.c_str(),
              layout_left ? "left" : "right");
  std::fflush(stdout);

  if (sweep) {
    SweepOptions so;
    so.kernels = parse_kernels(args.value(
        "--sweep-kernels", args.value("--kernel", "DataDataScalar,DataFieldScalar,FieldFieldScalar")));
    so.P = parse_numbers(args.value("--sweep-p", "8,16,32,64,128,256,512,1024"), "--sweep-p");
    so.budgets = parse_numbers(
        args.value("--sweep-budgets", backend == "cuda" ? "8,32,128" : "1,4,16"), "--sweep-budgets");
    so.fields = args.integer("--sweep-fields", 8);
    if (so.fields < 1) impl::throw_error("--sweep-fields must be positive");
    with_backend(backend, [&](auto exec) {
      run_sweep<decltype(exec)>(rep, so, dtypes, layout_left, plan);
      return 0;
    });
    std::printf("\n%zu sweep rows (speedup_over_serial in the JSON; plot with bench/plot.py heatmap "
                "--x P --y budget_MiB --speedup-over serial)\n",
                rep.rows.size());
  } else {
    // On the CPU each row is bracketed by copies over buffers kept for the run (note_row_copy).
    std::unique_ptr<bench::HostCopyProbe> probe;
    if (backend != "cuda") {
      probe = std::make_unique<bench::HostCopyProbe>(ceiling_copy_bytes(backend, budget));
      plan.copy_probe = [&probe] { return probe->GBps(); };
    }
    with_backend(backend, [&](auto exec) {
      using Exec = decltype(exec);
      for (ContractKernel k : kernels)
        for (const Case& c : cases)
          for (const std::string& dtype : dtypes) {
            const Shape s = make_shape(k, c.name, c.fields, c.P, budget, dtype == "float" ? 4 : 8);
            Plan p = plan;
            // Serial is the oracle, not a contender: timed only when asked for by name, or on
            // small host cases when every algorithm is requested.
            const bool all = args.value("--algorithm", "all") == "all";
            if (all && !on_gpu<Exec>() &&
                2.0 * double(s.C) * s.L * s.R * s.K() <= 2e8)
              p.algorithms.insert(p.algorithms.begin(), "serial");
            // The copy measured just before and just after this shape: its rows' local ceiling.
            const double copy_before = rep.copy_last;
            std::vector<Row> shape_rows = measure_any<Exec>(s, dtype, layout_left, p);
            measure_ceilings(rep, backend, budget, true, false);
            for (Row& r : shape_rows) {
              if (r.extra_value("copy_GBps_local") <= 0)  // rows the probe did not bracket (GPU)
                r.extra.push_back({"copy_GBps_local", std::max(copy_before, rep.copy_last)});
              const Row& added = rep.add(r);
              if (!plan.quiet)
                std::printf("  %-18s %-3s %-6s %-24s %10.4f ms %8.1f GB/s %8.1f GFLOP/s  %.3f%s%s\n",
                            added.kernel.c_str(), added.case_name.c_str(), added.dtype.c_str(),
                            added.algorithm.c_str(), added.ms, added.GBps, added.GFLOPs,
                            added.roofline, added.selected ? " *auto" : "",
                            added.verified ? "" : " (unverified)");
              std::fflush(stdout);
            }
          }
      return 0;
    });
    measure_ceilings(rep, backend, budget, true, true);
    std::printf("\nceilings: copy %.1f GB/s, GEMM peak %.0f / %.0f GFLOP/s, the highest of the run "
                "(copy measured %d times, lowest %.1f GB/s); rooflines below use these\n",
                rep.copy_GBps, rep.peak_GFLOPs_float, rep.peak_GFLOPs_double, rep.copy_samples,
                rep.copy_GBps_lowest);
    rep.print_table();
    print_summary(rep);
  }
  if (!json.empty()) {
    rep.write_json(json);
    std::printf("wrote %s\n", json.c_str());
  }
}

}  // namespace

int run_bench_contract(const Args& args) {
  args.expect_only({"--kernel", "--case", "--dtype", "--backend", "--algorithm", "--budget-mib",
                    "--json", "--reps", "--layout", "--sweep-p", "--sweep-budgets",
                    "--sweep-fields", "--sweep-kernels"},
                   {"--sweep", "--no-verify", "--quiet"});
  const std::string backend = args.value("--backend", default_backend());
  const std::string json = args.value("--json", "");
  if (backend != "all") {
    bench_contract_on(args, backend, json);
    return 0;
  }
  // Every parallel back end present, one report each (FILE.json -> FILE-<backend>.json).
  std::vector<std::string> list;
#if defined(GRAIN_ENABLE_OPENMP)
  list.push_back("openmp");
#else
  list.push_back("serial");
#endif
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (impl::cuda_device_count() > 0) list.push_back("cuda");
#endif
  for (const std::string& b : list) {
    std::string file = json;
    if (!file.empty()) {
      const std::size_t dot = file.rfind(".json");
      file = (dot == std::string::npos ? file : file.substr(0, dot)) + "-" + b + ".json";
    }
    bench_contract_on(args, b, file);
    std::printf("\n");
  }
  return 0;
}

// ---- grain tune ------------------------------------------------------------------------------------

int run_tune(const Args& args) {
  args.expect_only({"--backend", "--output", "--budget-mib", "--reps", "--kernel", "--dtype",
                    "--layout", "--fields", "--points"},
                   {"--quick", "--quiet"});
  const std::string backend = args.value("--backend", default_backend());
  check_backend(backend);
  const bool layout_left = parse_layout(args.value("--layout", ""), backend);
  const double budget = static_cast<double>(args.integer("--budget-mib", backend == "cuda" ? 128 : 16));
  const int reps = static_cast<int>(args.integer("--reps", backend == "cuda" ? 10 : 5));
  if (budget < 1 || reps < 1) impl::throw_error("--budget-mib and --reps must be positive");
  const std::vector<ContractKernel> kernels = parse_kernels(args.value("--kernel", "all"));
  const std::vector<std::string> dtypes = parse_dtypes(args.value("--dtype", "all"));
  std::string path = args.value("--output", "");
  if (path.empty()) path = contract_tuning_path();
  if (path.empty())
    impl::throw_error("no tuning file to write: pass --output FILE (GRAIN_TUNING_FILE is 'off')");
  // Measure against the model alone: an existing tuning file must not steer 'untuned pick'.
  const std::string read_path = contract_tuning_path();
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  impl::contract_tuning_reset();

  // Shapes: the benchmark cases (fields = P: 8, 27, 64; 125 x 216), or with --quick only those;
  // by default also every pair of fields x points from the lists.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;  // (fields, P)
  for (const Case& c : kCases) shapes.push_back({c.fields, c.P});
  if (!args.has("--quick")) {
    const std::vector<double> fields = parse_numbers(args.value("--fields", "4,8,27,64,125"), "--fields");
    const std::vector<double> points = parse_numbers(args.value("--points", "8,27,64,216,512"), "--points");
    for (double f : fields)
      for (double pts : points) shapes.push_back({std::int64_t(f), std::int64_t(pts)});
  }

  // Keep the other devices' and back ends' entries of an existing file.
  ContractTuningTable table;
  try {
    table = ContractTuningTable::load(path);
  } catch (const std::exception&) {
    table = ContractTuningTable();  // absent or unreadable: start afresh
  }
  const ContractExec exec = backend == "cuda" ? ContractExec::Cuda
                            : backend == "openmp" ? ContractExec::OpenMP : ContractExec::Serial;
  const std::string device = contract_tuning_device(exec);
  table.erase(device, backend);

  Plan plan;
  plan.algorithms = default_algorithms();
  plan.algorithms.erase(std::remove_if(plan.algorithms.begin(), plan.algorithms.end(),
                                       [](const std::string& a) {
                                         return a == "auto" || a == kPeerOpenBLAS || a == kPeerCublas;
                                       }),
                        plan.algorithms.end());
  plan.reps = reps;
  plan.verify = false;
  std::printf("grain tune: %s, %s, layout %s, budget %.0f MiB, %zu shapes x %zu kernels x %zu "
              "dtypes -> %s\n",
              device.c_str(), backend.c_str(), layout_left ? "left" : "right", budget, shapes.size(),
              kernels.size(), dtypes.size(), path.c_str());
  int changed = 0, total = 0;
  with_backend(backend, [&](auto exec_tag) {
    using Exec = decltype(exec_tag);
    for (ContractKernel k : kernels)
      for (const std::string& dtype : dtypes)
        for (const auto& [fields, P] : shapes) {
          const Shape s = make_shape(k, "tune", fields, P, budget, dtype == "float" ? 4 : 8);
          const ContractTuningKey key =
              contract_tuning_key(k, dtype, layout_left && s.C > 1, s.L, s.R, s.K(), exec);
          if (table.find(key)) continue;  // this shape class is measured already
          ContractAlgorithm model = ContractAlgorithm::Auto;
          const std::vector<Row> rows = measure_any<Exec>(s, dtype, layout_left, plan, &model);
          // The winner by minimum time: robust to interference on a shared machine.
          const Row* best = nullptr;
          for (const Row& r : rows)
            if (!best || r.ms_min < best->ms_min) best = &r;
          if (!best) continue;
          ContractTuningEntry e;
          e.key = key;
          e.algorithm = parse_contract_algorithm(best->algorithm);
          e.ms = best->ms_min;
          table.set(e);
          ++total;
          double model_ms = 0;
          for (const Row& r : rows)
            if (r.algorithm == contract_algorithm_name(model)) model_ms = r.ms_min;
          if (e.algorithm != model) ++changed;
          if (!args.has("--quiet"))
            std::printf("  %-18s %-6s L=%-4lld R=%-4lld K=%-5lld C=%-8lld best %-16s %9.4f ms  "
                        "(untuned pick %s %.4f ms; minimum times)\n",
                        contract_kernel_name(k), dtype.c_str(), (long long)s.L, (long long)s.R,
                        (long long)s.K(), (long long)s.C, best->algorithm.c_str(), best->ms_min,
                        contract_algorithm_name(model), model_ms);
          std::fflush(stdout);
        }
    return 0;
  });
  table.save(path);
  std::printf("grain tune: wrote %d entries for %s (%s) to %s; the tuned choice differs from the "
              "untuned Auto in %d of them\n",
              total, device.c_str(), backend.c_str(), path.c_str(), changed);
  if (path == read_path)
    std::printf("Auto reads it from now on (it is the file Auto looks for)\n");
  else
    std::printf("Auto reads it with GRAIN_TUNING_FILE=%s (the default path is %s)\n", path.c_str(),
                read_path.empty() ? "(off)" : read_path.c_str());
  return 0;
}

}  // namespace grain::cli
