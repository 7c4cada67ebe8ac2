// grain._grain: the extension module under the Python package grain (python/grain/__init__.py).
// One translation unit, so a build with the Python package compiles one more source.
//
// The GIL is released around every piece of grain's work (contractions, plans, reading,
// writing, CP-ALS): other Python threads run meanwhile, and grain's OpenMP threads never touch
// Python objects. CP-ALS takes the GIL back between iterations only, to run the callback and to see
// Ctrl-C.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "arrays.hpp"
#include "cp_run.hpp"
#include "grain/contract/contract.hpp"
#include "grain/contract/explain.hpp"
#include "grain/contract/plan.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/core/backends.hpp"
#include "grain/cp/cp_als.hpp"
#include "grain/cp/score.hpp"
#include "grain/sparse/io.hpp"

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif
#if defined(GRAIN_ENABLE_CUDA)
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace py = pybind11;
using namespace py::literals;

namespace grain::python {

// ---- NumPy arrays over grain's memory ------------------------------------------------------------

// A NumPy array over a grain View's memory, holding a copy of the View (a reference) so the
// memory lives as long as the array does. LayoutRight Views only (C order).
template <class V>
py::array numpy_view(const V& v, bool writable) {
  using T = std::remove_const_t<typename V::value_type>;
  std::vector<py::ssize_t> shape, strides;
  for (int r = 0; r < V::rank; ++r) {
    shape.push_back(static_cast<py::ssize_t>(v.extent(r)));
    strides.push_back(static_cast<py::ssize_t>(v.stride(r) * sizeof(T)));
  }
  auto* keep = new V(v);
  py::capsule owner(keep, [](void* p) { delete static_cast<V*>(p); });
  py::array a(py::dtype::of<T>(), shape, strides, const_cast<T*>(v.data()), owner);
  if (!writable) a.attr("flags").attr("writeable") = false;
  return a;
}

// ---- the nine contractions ----------------------------------------------------------------------

#define GRAIN_PY_KERNEL(NAME, KERNEL, FAMILY, NK, LEFT, RIGHT, OUT)                                  \
  struct Kernel_##NAME {                                                                            \
    static constexpr int family = FAMILY, nk = NK;                                                  \
    static constexpr ContractKernel kernel = ContractKernel::KERNEL;                                \
    static constexpr const char* fn = "grain.contract_" #NAME;                                     \
    static constexpr const char* plan_fn = "grain.plan_" #NAME;                                    \
    static constexpr const char* shapes[3] = {LEFT, RIGHT, OUT};                                    \
    template <class O, class L, class R>                                                            \
    static void call(const O& o, const L& l, const R& r, const ContractOptions& opt) {              \
      grain::contract_##NAME(o, l, r, opt);                                                         \
    }                                                                                               \
  };
GRAIN_PY_KERNEL(data_data_scalar, DataDataScalar, 0, 1, "(C,P)", "(C,P)", "(C)")
GRAIN_PY_KERNEL(data_data_vector, DataDataVector, 0, 2, "(C,P,D)", "(C,P,D)", "(C)")
GRAIN_PY_KERNEL(data_data_tensor, DataDataTensor, 0, 3, "(C,P,D1,D2)", "(C,P,D1,D2)", "(C)")
GRAIN_PY_KERNEL(data_field_scalar, DataFieldScalar, 1, 1, "(C,P)", "(C,F,P)", "(C,F)")
GRAIN_PY_KERNEL(data_field_vector, DataFieldVector, 1, 2, "(C,P,D)", "(C,F,P,D)", "(C,F)")
GRAIN_PY_KERNEL(data_field_tensor, DataFieldTensor, 1, 3, "(C,P,D1,D2)", "(C,F,P,D1,D2)", "(C,F)")
GRAIN_PY_KERNEL(field_field_scalar, FieldFieldScalar, 2, 1, "(C,L,P)", "(C,R,P)", "(C,L,R)")
GRAIN_PY_KERNEL(field_field_vector, FieldFieldVector, 2, 2, "(C,L,P,D)", "(C,R,P,D)", "(C,L,R)")
GRAIN_PY_KERNEL(field_field_tensor, FieldFieldTensor, 2, 3, "(C,L,P,D1,D2)", "(C,R,P,D1,D2)", "(C,L,R)")
#undef GRAIN_PY_KERNEL

template <class T, int Rank, class Layout, class Space, std::size_t... I>
auto wrap_view(void* p, const std::vector<std::int64_t>& s, std::index_sequence<I...>) {
  using D = typename grain::impl::DataTypeOf<T, Rank>::type;
  return View<D, Layout, Space>(static_cast<T*>(p), static_cast<std::size_t>(s[I])...);
}
// An unmanaged View over the caller's memory, in Space (HostSpace or CudaSpace).
template <class T, int Rank, class Layout, class Space>
auto wrap_view(const ArrayRef& a) {
  return wrap_view<T, Rank, Layout, Space>(a.data, a.shape, std::make_index_sequence<Rank>());
}

// ---- GPU arrays ---------------------------------------------------------------------------------

// The device an array lives on, checked against what this build and grain can run: host memory,
// or the GPU grain runs on.
void check_device(const char* fn, const char* arg, const ArrayRef& a) {
  if (a.device == Device::Host) return;
  if (a.device == Device::Other)
    raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg +
                                "' lives on a device grain does not run on (host and CUDA GPUs only)");
#if defined(GRAIN_ENABLE_CUDA)
  const int grain_device = grain::impl::cuda_device().id;
  if (a.device_id != grain_device)
    raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg + "' is on GPU " + std::to_string(a.device_id) +
                                " but grain runs on GPU " + std::to_string(grain_device) +
                                " (CUDA's current device when grain started; CUDA_VISIBLE_DEVICES chooses another)");
#else
  raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg +
                              "' lives on a GPU but this grain module was built without CUDA; pass host arrays "
                              "or build grain where nvcc is (docs/python.md)");
#endif
}

// grain's GPU work runs on CUDA's legacy default stream. The caller's current stream (PyTorch's
// or CuPy's) is ordered with it through events, without a host wait: grain's work after what the
// caller queued before the call, and what the caller queues next after grain's work. The default
// streams (0 legacy, 1 and 2 per-thread, as DLPack and CUDA number them) are ordered by CUDA
// already; arrays of another library get the order from their producer's __dlpack__(stream=) and
// a host wait after the work.
std::uintptr_t caller_stream(const ArrayRef& a) {
  if (a.lib == Lib::Torch) {
    static const py::object* current = new py::object(py::module_::import("torch.cuda").attr("current_stream"));
    return (*current)(a.device_id).attr("cuda_stream").cast<std::uintptr_t>();
  }
  if (a.lib == Lib::CuPy)
    return py::module_::import("cupy.cuda").attr("get_current_stream")().attr("ptr").cast<std::uintptr_t>();
  return 0;
}

#if defined(GRAIN_ENABLE_CUDA)
// `from` -> event -> `to`: the work queued on `to` from now on waits for the work queued on `from`.
void stream_wait(cudaStream_t from, cudaStream_t to) {
  using grain::impl::cuda_check;
  static const cudaEvent_t event = [] {
    cudaEvent_t e;
    cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return e;
  }();
  cuda_check(cudaEventRecord(event, from), "cudaEventRecord (ordering grain's stream with the caller's)");
  cuda_check(cudaStreamWaitEvent(to, event, 0), "cudaStreamWaitEvent (ordering grain's stream with the caller's)");
}
#endif

void order_before_grain(const ArrayRef& a, std::uintptr_t stream) {
#if defined(GRAIN_ENABLE_CUDA)
  // PyTorch tensors come through torch's C exporter, which orders nothing (borrow_array).
  if (a.lib == Lib::Torch && stream > 2) stream_wait(reinterpret_cast<cudaStream_t>(stream), nullptr);
#else
  (void)a, (void)stream;
#endif
}

void order_after_grain(const ArrayRef& a, std::uintptr_t stream) {
#if defined(GRAIN_ENABLE_CUDA)
  if (a.lib != Lib::Torch && a.lib != Lib::CuPy) {
    py::gil_scoped_release nogil;
    grain::impl::cuda_check(cudaStreamSynchronize(nullptr),
                            "cudaStreamSynchronize (grain's work for arrays of another library)");
  } else if (stream > 2) {
    stream_wait(nullptr, reinterpret_cast<cudaStream_t>(stream));
  }
#else
  (void)a, (void)stream;
#endif
}

// A new array of the library and device of `like` (the reference input), in row-major (C) or
// column-major (Fortran) order: NumPy for host arrays of other libraries.
py::object new_array(py::handle like, const ArrayRef& a, const std::vector<py::ssize_t>& shape, bool right,
                     const char* fn) {
  const py::ssize_t item = a.dtype == Dtype::F64 ? 8 : 4;
  std::vector<py::ssize_t> strides(shape.size());  // in elements
  py::ssize_t s = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::size_t d = right ? shape.size() - 1 - i : i;
    strides[d] = s;
    s *= shape[d];
  }
  if (a.lib == Lib::Torch)
    return py::module_::import("torch").attr("empty_strided")(py::tuple(py::cast(shape)), py::tuple(py::cast(strides)),
                                                              "dtype"_a = like.attr("dtype"), "device"_a = like.attr("device"));
  if (a.lib == Lib::CuPy)
    return py::module_::import("cupy").attr("empty")(py::tuple(py::cast(shape)), "dtype"_a = like.attr("dtype"),
                                                     "order"_a = right ? "C" : "F");
  if (a.device != Device::Host)
    raise(PyExc_ValueError, std::string(fn) + ": the inputs are GPU arrays of a library grain does not make arrays "
                                              "for (it makes NumPy, PyTorch and CuPy ones); pass out=");
  for (auto& e : strides) e *= item;
  return py::array(a.dtype == Dtype::F64 ? py::dtype::of<double>() : py::dtype::of<float>(), shape, strides);
}

// Checks what grain's typed call cannot see from Python (a rank, an element type, a device) and
// raises in Python's terms; extents, aliasing and the algorithm are left to grain's own checks.
// `fn` names the Python function in messages.
void check_operand(const char* fn, const ArrayRef& a, const char* arg, int rank, const char* shape) {
  if (a.ndim() != rank)
    raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg + "' has " + std::to_string(a.ndim()) +
                                " dimensions (shape " + join(a.shape) + "), expected " + std::to_string(rank) +
                                ": " + shape);
  check_device(fn, arg, a);
  if (a.dtype == Dtype::Other)
    raise(PyExc_TypeError, std::string(fn) + ": argument '" + arg + "' has dtype " + a.dtype_name +
                               "; grain takes float32 or float64 (convert with " + arg + ".astype(np.float64))");
}

const char* device_word(Device d) { return d == Device::Host ? "host memory" : "a GPU"; }

// The three arrays of one call, borrowed and checked, with the layouts they are wrapped in.
struct Operands {
  ArrayRef l, r, o;
  py::object out;  // the caller's out, or the new array made for it
  bool in_right = true, out_right = true;
};

// Borrows and checks left, right and out for kernel K (making out when it is None) as every
// contraction, plan and plan call does; `fn` names the Python function in messages.
template <class K>
Operands borrow_operands(const char* fn, py::handle left, py::handle right, py::object out, bool sum_into) {
  constexpr int lrank = 1 + (K::family == 2) + K::nk, rrank = 1 + (K::family >= 1) + K::nk;
  const char* lname = K::family == 1 ? "data" : "left";
  const char* rname = K::family == 1 ? "fields" : "right";
  Operands a;
  a.l = borrow_array(left, fn, lname, false);
  a.r = borrow_array(right, fn, rname, false);
  const ArrayRef &l = a.l, &r = a.r;
  check_operand(fn, l, lname, lrank, K::shapes[0]);
  check_operand(fn, r, rname, rrank, K::shapes[1]);
  if (r.dtype != l.dtype)
    raise(PyExc_TypeError, std::string(fn) + ": argument '" + rname + "' has dtype " + r.dtype_name + " but '" +
                               lname + "' has " + l.dtype_name + "; give both the same element type");
  if (r.device != l.device)
    raise(PyExc_ValueError, std::string(fn) + ": '" + lname + "' is in " + device_word(l.device) + " and '" + rname +
                                "' in " + device_word(r.device) + "; give every array on one device");
  // left and right share one layout (grain's engine takes one for both inputs).
  const Fit lf = l.fit(), rf = r.fit();
  if (lf == Fit::None) raise_strides(fn, lname, l);
  if (rf == Fit::None) raise_strides(fn, rname, r);
  a.in_right = fits_right(lf) && fits_right(rf);
  if (!a.in_right && !(fits_left(lf) && fits_left(rf)))
    raise(PyExc_ValueError, std::string(fn) + ": '" + lname + "' is " +
                                (fits_right(lf) ? "C-contiguous" : "Fortran-contiguous") + " and '" + rname + "' is " +
                                (fits_right(rf) ? "C-contiguous" : "Fortran-contiguous") +
                                "; grain takes both inputs in one layout (np.ascontiguousarray or "
                                "np.asfortranarray on one of them)");
  if (out.is_none()) {
    if (sum_into) raise(PyExc_ValueError, std::string(fn) + ": sum_into=True adds into 'out'; pass out=");
    // A new array in the inputs' layout, of the extents grain expects (taken from the reference
    // inputs; grain then checks the other input against them).
    std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(K::family == 1 ? r.shape[0] : l.shape[0])};
    if (K::family == 1) shape.push_back(r.shape[1]);
    if (K::family == 2) shape.push_back(l.shape[1]), shape.push_back(r.shape[1]);
    out = K::family == 1 ? new_array(right, r, shape, a.in_right, fn) : new_array(left, l, shape, a.in_right, fn);
  }
  a.o = borrow_array(out, fn, "out", true);
  const ArrayRef& o = a.o;
  check_operand(fn, o, "out", 1 + K::family, K::shapes[2]);
  if (o.dtype != l.dtype)
    raise(PyExc_TypeError, std::string(fn) + ": argument 'out' has dtype " + o.dtype_name + " but '" + lname +
                               "' has " + l.dtype_name + "; give 'out' the inputs' element type");
  if (o.device != l.device)
    raise(PyExc_ValueError, std::string(fn) + ": 'out' is in " + device_word(o.device) + " and '" + lname + "' in " +
                                device_word(l.device) + "; give every array on one device");
  const Fit of = o.fit();
  if (of == Fit::None) raise_strides(fn, "out", o);
  // An out that fits both layouts takes the inputs' one.
  a.out_right = of == Fit::Both ? a.in_right : of == Fit::Right;
  a.out = std::move(out);
  return a;
}

// Calls f(out, left, right) with the arrays wrapped as Views of element type T in their layouts
// and memory space, the GIL released; on the GPU, ordered with the caller's stream.
template <class K, class T, class In, class Out, class Space, class F>
void with_views(const Operands& a, F&& f) {
  constexpr int lrank = 1 + (K::family == 2) + K::nk, rrank = 1 + (K::family >= 1) + K::nk;
  const auto lv = wrap_view<const T, lrank, In, Space>(a.l);
  const auto rv = wrap_view<const T, rrank, In, Space>(a.r);
  const auto ov = wrap_view<T, 1 + K::family, Out, Space>(a.o);
  py::gil_scoped_release nogil;
  f(ov, lv, rv);
}

template <class K, class T, class Space, class F>
void with_views(const Operands& a, F&& f) {
  if (a.in_right)
    a.out_right ? with_views<K, T, LayoutRight, LayoutRight, Space>(a, f)
                : with_views<K, T, LayoutRight, LayoutLeft, Space>(a, f);
  else
    a.out_right ? with_views<K, T, LayoutLeft, LayoutRight, Space>(a, f)
                : with_views<K, T, LayoutLeft, LayoutLeft, Space>(a, f);
}

template <class K, class T, class F>
void with_views(const Operands& a, F&& f) {
#if defined(GRAIN_ENABLE_CUDA)
  if (a.l.device == Device::Cuda) {
    const std::uintptr_t stream = caller_stream(a.l);
    order_before_grain(a.l, stream);
    with_views<K, T, CudaSpace>(a, f);
    order_after_grain(a.o, stream);
    return;
  }
#endif
  with_views<K, T, HostSpace>(a, f);
}

template <class K>
py::object contract(py::handle left, py::handle right, py::object out, bool sum_into, const std::string& algorithm) {
  ContractOptions opt;
  opt.sum_into = sum_into;
  opt.algorithm = parse_contract_algorithm(algorithm);  // grain::Error -> ValueError
  const Operands a = borrow_operands<K>(K::fn, left, right, std::move(out), sum_into);
  const auto run = [&](const auto& o, const auto& l, const auto& r) { K::call(o, l, r, opt); };
  if (a.l.dtype == Dtype::F64)
    with_views<K, double>(a, run);
  else
    with_views<K, float>(a, run);
  return a.out;
}

template <class K>
void def_contract(py::module_& m, const char* name, const char* doc) {
  m.def(name, &contract<K>, doc, "left"_a, "right"_a, py::kw_only(), "out"_a = py::none(), "sum_into"_a = false,
        "algorithm"_a = "auto");
}

// ---- plans --------------------------------------------------------------------------------------

// The back end a plan's `device` argument asks for: auto (where the arrays are), cpu (OpenMP when
// built with it), or a back end's name. grain checks it against the arrays.
ContractExec exec_for(const std::string& device, const char* fn) {
  if (device == "auto") return ContractExec::Auto;
  if (device == "serial") return ContractExec::Serial;
  if (device == "openmp") return ContractExec::OpenMP;
  if (device == "cuda") return ContractExec::Cuda;
  if (device == "cpu") {
    const auto have = available_backends();
    return std::find(have.begin(), have.end(), "openmp") != have.end() ? ContractExec::OpenMP : ContractExec::Serial;
  }
  raise(PyExc_ValueError, std::string(fn) + ": unknown device '" + device + "' (auto, cpu, cuda, openmp or serial)");
}

Tuning tuning_for(const std::string& tuning, const char* fn) {
  if (tuning == "model") return Tuning::Model;
  if (tuning == "measure") return Tuning::Measure;
  raise(PyExc_ValueError, std::string(fn) + ": unknown tuning '" + tuning + "' (model or measure)");
}

// grain.Plan: a ContractPlan of either element type, with the kernel's argument handling for its
// calls (arrays of either layout reach the C++ plan, which raises when they are not its own).
class PyPlan {
 public:
  template <class T>
  explicit PyPlan(ContractPlan<T> p) : plan(std::move(p)) {}

  std::variant<ContractPlan<float>, ContractPlan<double>> plan;
  py::object (*call)(const PyPlan&, py::handle, py::handle, py::object) = nullptr;
  bool sum_into = false, in_right = true;
  std::string left_shape, right_shape, out_shape;

  bool is_double() const { return plan.index() == 1; }
  template <class Fn>
  decltype(auto) visit(Fn&& f) const { return std::visit(std::forward<Fn>(f), plan); }
};

template <class K>
py::object plan_call(const PyPlan& p, py::handle left, py::handle right, py::object out) {
  const char* fn = "grain.Plan";
  const Operands a = borrow_operands<K>(fn, left, right, std::move(out), p.sum_into);
  const bool dbl = a.l.dtype == Dtype::F64;
  if (dbl != p.is_double())
    raise(PyExc_TypeError, std::string(fn) + " (" + contract_kernel_name(K::kernel) + "): made for " +
                               (p.is_double() ? "float64" : "float32") + " arrays, called with " + a.l.dtype_name +
                               " ones; make a plan for these");
  if (dbl) {
    const auto& plan = std::get<ContractPlan<double>>(p.plan);
    with_views<K, double>(a, [&](const auto& o, const auto& l, const auto& r) { plan(o, l, r); });
  } else {
    const auto& plan = std::get<ContractPlan<float>>(p.plan);
    with_views<K, float>(a, [&](const auto& o, const auto& l, const auto& r) { plan(o, l, r); });
  }
  return a.out;
}

template <class K, class T>
PyPlan make_plan_typed(const Operands& a, const PlanOptions& opt) {
  std::optional<ContractPlan<T>> made;
  with_views<K, T>(a, [&](const auto& o, const auto& l, const auto& r) {
    made.emplace(grain::contract_plan(K::kernel, o, l, r, opt));
  });
  return PyPlan(std::move(*made));
}

template <class K>
PyPlan make_plan(py::handle left, py::handle right, py::object out, const std::string& tuning, bool sum_into,
                 const std::string& device, int candidates, int reps, bool save, const std::string& tuning_file) {
  PlanOptions opt;
  opt.tuning = tuning_for(tuning, K::plan_fn);
  opt.exec = exec_for(device, K::plan_fn);
  opt.sum_into = sum_into;
  opt.candidates = candidates;  // grain checks both for >= 0
  opt.reps = reps;
  opt.save = save;
  opt.tuning_file = tuning_file;
  const Operands a = borrow_operands<K>(K::plan_fn, left, right, std::move(out), sum_into);
  PyPlan p = a.l.dtype == Dtype::F64 ? make_plan_typed<K, double>(a, opt) : make_plan_typed<K, float>(a, opt);
  p.call = &plan_call<K>;
  p.sum_into = sum_into;
  p.in_right = a.in_right;
  p.left_shape = join(a.l.shape), p.right_shape = join(a.r.shape), p.out_shape = join(a.o.shape);
  return p;
}

template <class K>
void def_plan(py::module_& m, const char* name, const char* doc) {
  m.def(name, &make_plan<K>, doc, "left"_a, "right"_a, py::kw_only(), "out"_a = py::none(), "tuning"_a = "model",
        "sum_into"_a = false, "device"_a = "auto", "candidates"_a = 0, "reps"_a = 0, "save"_a = false,
        "tuning_file"_a = "");
}

std::string plan_repr(const PyPlan& p) {
  return p.visit([&](const auto& x) {
    std::string s = std::string("grain.Plan(kernel='") + contract_kernel_name(x.kernel()) + "', algorithm='" +
                    contract_algorithm_name(x.algorithm()) + "', source='" + x.source() + "', backend='" +
                    contract_exec_name(x.exec()) + "', dtype=" + (p.is_double() ? "float64" : "float32") +
                    ", order='" + (p.in_right ? "C" : "F") + "', left=" + p.left_shape + ", right=" + p.right_shape +
                    ", out=" + p.out_shape;
    if (p.sum_into) s += ", sum_into=True";
    if (!x.timings().empty()) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.3f", x.planning_ms());
      s += std::string(", planning_ms=") + ms;
    }
    return s + ")";
  });
}

// The kernel a name gives: contract_kernel_name's spelling ("FieldFieldScalar") or the Python
// functions' ("field_field_scalar").
ContractKernel kernel_named(const std::string& name) {
  const std::string prefix = "grain::contract_";
  for (ContractKernel k : kAllContractKernels)
    if (name == std::string(contract_function_name(k)).substr(prefix.size())) return k;
  return parse_contract_kernel(name);  // grain::Error naming the kernels
}

bool is_double(py::handle dtype, bool fallback, const char* fn);  // below, with the sparse tensors

std::string explain(const std::string& kernel_name, py::handle shape, py::handle layout, py::handle dtype,
                    py::handle backend) {
  const char* fn = "grain.explain";
  const ContractKernel kernel = kernel_named(kernel_name);
  // A tuple reads as its "C,L,R,P[,D1[,D2]]" text would: the same defaults and checks.
  std::string text;
  if (py::isinstance<py::str>(shape)) {
    text = shape.cast<std::string>();
  } else {
    if (!py::isinstance<py::sequence>(shape))
      raise(PyExc_TypeError, std::string(fn) + ": shape is a " +
                                 std::string(py::str(py::type::handle_of(shape).attr("__name__"))) +
                                 "; give a tuple (C, L, R, P[, D1[, D2]]) or a string 'C,L,R,P'");
    for (auto v : shape) {
      if (!PyIndex_Check(v.ptr()))
        raise(PyExc_TypeError, std::string(fn) + ": shape entry " + std::string(py::repr(v)) +
                                   " is not a whole number; give a tuple (C, L, R, P[, D1[, D2]])");
      const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
      if (!index) throw py::error_already_set();
      text += (text.empty() ? "" : ",") + std::string(py::str(index));
    }
  }
  ContractShapeSpec s = parse_contract_shape(kernel, text);
  const std::string b = backend.is_none() ? default_backend() : backend.cast<std::string>();
  if (layout.is_none()) {
    s.layout_left = b == "cuda";
  } else {
    const std::string l = layout.cast<std::string>();
    if (l != "left" && l != "right" && l != "F" && l != "C")
      raise(PyExc_ValueError, std::string(fn) + ": unknown layout '" + l + "' (left or F, right or C)");
    s.layout_left = l == "left" || l == "F";
  }
  // C++'s names "double" and "float" too (NumPy reads "float" as float64).
  const std::string name = py::isinstance<py::str>(dtype) ? dtype.cast<std::string>() : "";
  s.dbl = name == "double" || (name != "float" && is_double(dtype, true, fn));
  return contract_explain_text(contract_explain(s, b));
}

// ---- sparse tensors -----------------------------------------------------------------------------

std::string fspath(py::handle p) { return py::str(py::module_::import("os").attr("fspath")(p)); }

// The value type a dtype argument names: None keeps `fallback`.
bool is_double(py::handle dtype, bool fallback, const char* fn) {
  if (dtype.is_none()) return fallback;
  if (library_of(dtype) == Lib::Torch) {  // torch.float64, torch.float32
    const std::string name = py::str(dtype);
    if (name == "torch.float64") return true;
    if (name == "torch.float32") return false;
    raise(PyExc_TypeError, std::string(fn) + ": dtype " + name + "; grain takes float32 or float64");
  }
  const py::dtype d = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
  if (d.kind() == 'f' && d.itemsize() == 8) return true;
  if (d.kind() == 'f' && d.itemsize() == 4) return false;
  raise(PyExc_TypeError, std::string(fn) + ": dtype " + d.attr("name").cast<std::string>() + "; grain takes float32 or float64");
}

class PySparse {
 public:
  using F = SparseTensor<float, HostSpace>;
  using D = SparseTensor<double, HostSpace>;
  std::variant<F, D> t;
  // The library of the arrays it was made from ("numpy" for files): cp_als returns its factors
  // as arrays of that library.
  std::string library = "numpy";

  explicit PySparse(std::variant<F, D> x) : t(std::move(x)) {}

  template <class Fn>
  decltype(auto) visit(Fn&& f) const { return std::visit(std::forward<Fn>(f), t); }
  bool is_double() const { return t.index() == 1; }
  std::vector<index_type> dims() const { return visit([](const auto& x) { return x.dims(); }); }

  template <class T>
  SparseTensor<T, HostSpace> as() const {
    if (const auto* x = std::get_if<SparseTensor<T, HostSpace>>(&t)) return *x;
    return visit([](const auto& x) {
      SparseTensor<T, HostSpace> y(x.dims(), x.subscripts(), typename SparseTensor<T, HostSpace>::values_view(
                                                                  WithoutInitializing, "sparse_values", x.nnz()));
      for (index_type j = 0; j < x.nnz(); ++j) y.values()(j) = static_cast<T>(x.values()(j));
      return y;
    });
  }
};

std::vector<index_type> dims_from(py::handle shape, const char* fn) {
  std::vector<index_type> dims;
  if (shape.is_none()) return dims;
  for (auto d : py::iter(shape)) {
    const auto v = d.cast<long long>();
    if (v < 1) raise(PyExc_ValueError, std::string(fn) + ": shape entry " + std::to_string(v) + " must be at least 1");
    dims.push_back(v);
  }
  return dims;
}

PySparse sparse_read(py::handle path, py::handle dtype, py::handle shape) {
  const char* fn = "grain.SparseTensor.read";
  const std::string p = fspath(path);
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) {
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, p.c_str());
    throw py::error_already_set();
  }
  TnsReadOptions opts;
  opts.dims = dims_from(shape, fn);
  const bool dbl = is_double(dtype, true, fn);
  py::gil_scoped_release nogil;
  if (dbl) return PySparse(read_sparse<double>(p, opts));
  return PySparse(read_sparse<float>(p, opts));
}

void sparse_write(const PySparse& x, py::handle path) {
  const std::string p = fspath(path);
  auto ends = [&](const std::string& s) { return p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0; };
  const bool text = ends(".tns") || ends(".tns.gz");
  py::gil_scoped_release nogil;
  x.visit([&](const auto& t) { text ? write_tns(p, t) : write_binary(p, t); });
}

// Subscripts from an integer array (nnz, N): checked (non-negative, below the shape or 2^32 - 1)
// and narrowed to grain's 32 bits; the shape is the largest index + 1 of each mode when not given.
template <class I>
void fill_subscripts(const I* in, index_type nnz, int N, std::vector<index_type>& dims, subscript_type* out) {
  const bool infer = dims.empty();
  std::vector<std::uint64_t> top(N, 0);
  for (index_type j = 0; j < nnz; ++j)
    for (int m = 0; m < N; ++m) {
      const I v = in[j * N + m];
      if constexpr (std::is_signed_v<I>)
        if (v < 0)
          raise(PyExc_ValueError, "grain.SparseTensor: index " + std::to_string(v) + " of mode " + std::to_string(m) +
                                      " at nonzero " + std::to_string(j) + " is negative (indices are 0-based)");
      const auto u = static_cast<std::uint64_t>(v);
      const std::uint64_t limit = infer ? 0xFFFFFFFFull : static_cast<std::uint64_t>(dims[m]);
      if (u >= limit)
        raise(PyExc_ValueError, "grain.SparseTensor: index " + std::to_string(u) + " of mode " + std::to_string(m) +
                                    " at nonzero " + std::to_string(j) +
                                    (infer ? std::string(" does not fit grain's 32-bit indices")
                                           : " is outside the shape's " + std::to_string(dims[m])));
      top[m] = std::max(top[m], u + 1);
      out[j * N + m] = static_cast<subscript_type>(u);
    }
  if (infer)
    for (int m = 0; m < N; ++m) dims.push_back(static_cast<index_type>(std::max<std::uint64_t>(top[m], 1)));
}

template <class T>
SparseTensor<T, HostSpace> sparse_from_arrays(const py::array& ind, const py::array& vals, std::vector<index_type> dims) {
  const auto nnz = static_cast<index_type>(ind.shape(0));
  const int N = static_cast<int>(ind.shape(1));
  typename SparseTensor<T, HostSpace>::subscripts_view subs(WithoutInitializing, "sparse_subscripts", nnz, N);
  const char kind = ind.dtype().kind();
  if (kind == 'u' && ind.itemsize() == 8) {
    auto a = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(ind);
    fill_subscripts(a.data(), nnz, N, dims, subs.data());
  } else {
    auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(ind);
    fill_subscripts(a.data(), nnz, N, dims, subs.data());
  }
  auto v = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(vals);
  typename SparseTensor<T, HostSpace>::values_view values(WithoutInitializing, "sparse_values", nnz);
  for (index_type j = 0; j < nnz; ++j) {
    if (!std::isfinite(v.data()[j]))
      raise(PyExc_ValueError, "grain.SparseTensor: value " + std::to_string(v.data()[j]) + " at nonzero " +
                                  std::to_string(j) + " is not finite (or does not fit the dtype)");
    values(j) = v.data()[j];
  }
  if (static_cast<int>(dims.size()) != N)
    raise(PyExc_ValueError, "grain.SparseTensor: shape has " + std::to_string(dims.size()) + " entries for " +
                                std::to_string(N) + "-way indices");
  return SparseTensor<T, HostSpace>(dims, subs, values);
}

// A NumPy array with obj's values: PyTorch tensors and CuPy arrays (on a GPU too) are copied to
// the host by their library.
py::array host_numpy(py::handle obj) {
  const Lib lib = library_of(obj);
  if (lib == Lib::Torch && py::hasattr(obj, "detach")) return obj.attr("detach")().attr("cpu")().attr("numpy")();
  if (lib == Lib::CuPy && py::hasattr(obj, "get")) return obj.attr("get")();
  return py::module_::import("numpy").attr("asarray")(obj);
}

const char* library_name(Lib lib) {
  return lib == Lib::Torch ? "torch" : lib == Lib::CuPy ? "cupy" : "numpy";
}

PySparse sparse_new(py::handle indices, py::handle values, py::handle shape, py::handle dtype) {
  const char* fn = "grain.SparseTensor";
  const py::array ind = host_numpy(indices);
  const py::array vals = host_numpy(values);
  const char ik = ind.dtype().kind(), vk = vals.dtype().kind();
  if (ik != 'i' && ik != 'u')
    raise(PyExc_TypeError, std::string(fn) + ": indices have dtype " + ind.dtype().attr("name").cast<std::string>() +
                               "; give integers (0-based)");
  if (vk != 'f' && vk != 'i' && vk != 'u')
    raise(PyExc_TypeError, std::string(fn) + ": values have dtype " + vals.dtype().attr("name").cast<std::string>() +
                               "; give real numbers");
  if (ind.ndim() != 2 || ind.shape(1) < 2 || ind.shape(1) > kMaxSparseModes)
    raise(PyExc_ValueError, std::string(fn) + ": indices must have shape (nnz, N) with N from 2 to " +
                                std::to_string(kMaxSparseModes) + ", not " +
                                std::string(py::str(py::tuple(ind.attr("shape")))));
  if (vals.ndim() != 1 || vals.shape(0) != ind.shape(0))
    raise(PyExc_ValueError, std::string(fn) + ": values must have shape (" + std::to_string(ind.shape(0)) +
                                ",) to match indices " + std::string(py::str(py::tuple(ind.attr("shape")))) +
                                ", not " + std::string(py::str(py::tuple(vals.attr("shape")))));
  std::vector<index_type> dims = dims_from(shape, fn);
  if (dims.empty() && ind.shape(0) == 0)
    raise(PyExc_ValueError, std::string(fn) + ": an empty tensor needs its shape");
  const bool dbl = is_double(dtype, !(vk == 'f' && vals.itemsize() == 4), fn);
  PySparse x = dbl ? PySparse(sparse_from_arrays<double>(ind, vals, dims)) : PySparse(sparse_from_arrays<float>(ind, vals, dims));
  x.library = library_name(library_of(values));
  return x;
}

// ---- CP-ALS -------------------------------------------------------------------------------------

enum class Stop { Converged, MaxIters, Callback, Interrupted };

// Between a run's iterations (or epochs), with the GIL: Ctrl-C (a pending SIGINT raises
// KeyboardInterrupt in PyErr_CheckSignals) and a KeyboardInterrupt from the callback stop the run
// and keep the factors so far; a false return value (not None) stops it; any other exception from
// the callback stops it and is raised after the run.
struct RunWatcher {
  explicit RunWatcher(py::handle cb) : callback(cb) {}
  py::handle callback;
  Stop stop = Stop::MaxIters;
  std::optional<py::error_already_set> error;

  template <class... A>
  bool go_on(A... args) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) return caught(py::error_already_set());
    if (callback.is_none()) return true;
    try {
      const py::object r = callback(args...);
      if (!r.is_none() && PyObject_IsTrue(r.ptr()) == 0) {
        stop = Stop::Callback;
        return false;
      }
    } catch (py::error_already_set& e) {
      return caught(std::move(e));
    }
    return true;
  }
  bool caught(py::error_already_set e) {
    if (e.matches(PyExc_KeyboardInterrupt)) stop = Stop::Interrupted;
    else error.emplace(std::move(e));
    return false;
  }
};

const char* stop_name(Stop s) {
  static const char* const kStop[] = {"converged", "maxiters", "callback", "interrupted"};
  return kStop[static_cast<int>(s)];
}

// The back end a `device` argument names: auto (the GPU when there is one), cpu (OpenMP when built
// with it), or a back end's own name; one that cannot run here is a ValueError saying why.
std::string backend_for(const std::string& device, const char* fn) {
  std::string backend = device;
  if (device == "auto") {
    backend = default_backend();
  } else if (device == "cpu") {
    const auto have = available_backends();
    backend = std::find(have.begin(), have.end(), "openmp") != have.end() ? "openmp" : "serial";
  } else if (device != "cuda" && device != "openmp" && device != "serial") {
    raise(PyExc_ValueError, std::string(fn) + ": unknown device '" + device + "' (auto, cpu, cuda, openmp or serial)");
  }
  const std::string why = backend_unavailable_reason(backend);
  if (!why.empty()) raise(PyExc_ValueError, std::string(fn) + ": device '" + device + "': " + why);
  return backend;
}

template <class T>
py::dict cp_als_typed(const SparseTensor<T, HostSpace>& X, int rank, int maxiters, double tol, std::uint64_t seed,
                      py::handle init_weights, py::handle init_factors, const std::string& mttkrp,
                      const std::string& backend, py::handle callback) {
  cp::CpAlsOptions opt;
  opt.maxiters = maxiters;
  opt.tol = tol;
  opt.mttkrp = cp::parse_mttkrp_algorithm(mttkrp);
  if (rank < 1) raise(PyExc_ValueError, "grain.cp_als: rank " + std::to_string(rank) + " must be at least 1");
  cp::Ktensor<T, HostSpace> M;
  if (init_factors.is_none()) {
    M = cp::random_ktensor<T, HostSpace>(X.dims(), rank, seed);
  } else {
    M = cp::Ktensor<T, HostSpace>(X.dims(), rank);
    const py::list fs(py::reinterpret_borrow<py::object>(init_factors));
    if (static_cast<int>(fs.size()) != X.ndims())
      raise(PyExc_ValueError, "grain.cp_als: init has " + std::to_string(fs.size()) + " factors for a " +
                                  std::to_string(X.ndims()) + "-way tensor");
    for (int m = 0; m < X.ndims(); ++m) {
      auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(fs[m]);
      if (!a || a.ndim() != 2 || a.shape(0) != X.dim(m) || a.shape(1) != rank)
        raise(PyExc_ValueError, "grain.cp_als: init factor " + std::to_string(m) + " must have shape (" +
                                    std::to_string(X.dim(m)) + ", " + std::to_string(rank) + ")");
      std::memcpy(M.factors[m].data(), a.data(), sizeof(T) * a.size());
    }
    auto w = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(init_weights);
    if (!w || w.ndim() != 1 || w.shape(0) != rank)
      raise(PyExc_ValueError, "grain.cp_als: init weights must have shape (" + std::to_string(rank) + ",)");
    std::memcpy(M.lambda.data(), w.data(), sizeof(T) * rank);
  }
  RunWatcher watch(callback);
  opt.after_iteration = [&](const cp::CpAlsIteration& it) { return watch.go_on(it.iteration, it.fit, it.seconds); };
  cp::CpAlsResult res;
  {
    py::gil_scoped_release nogil;
    res = cp_als_on_backend<T>(backend, X, M, opt);
  }
  if (watch.error) throw *watch.error;
  Stop stop = watch.stop;
  if (!res.stopped && !res.iterations.empty()) {
    const auto& last = res.iterations.back();
    stop = last.iteration > 1 && last.change < tol ? Stop::Converged : Stop::MaxIters;
  }
  py::list factors, algorithms, fits, seconds, mttkrp_seconds;
  for (int m = 0; m < M.ndims(); ++m) factors.append(numpy_view(M.factors[m], true));
  for (auto a : res.algorithms) algorithms.append(cp::mttkrp_algorithm_name(a));
  for (const auto& it : res.iterations) {
    fits.append(it.fit);
    seconds.append(it.seconds);
    mttkrp_seconds.append(it.mttkrp_seconds);
  }
  return py::dict("weights"_a = numpy_view(M.lambda, true), "factors"_a = factors, "fits"_a = fits,
                  "seconds"_a = seconds, "mttkrp_seconds"_a = mttkrp_seconds, "algorithms"_a = algorithms,
                  "setup_seconds"_a = res.setup_seconds, "stop_reason"_a = stop_name(stop),
                  "used_pseudo_inverse"_a = res.used_pseudo_inverse, "backend"_a = backend);
}

py::dict cp_als(const PySparse& X, int rank, int maxiters, double tol, std::uint64_t seed, py::handle init_weights,
                py::handle init_factors, const std::string& mttkrp, const std::string& device, py::handle dtype,
                py::handle callback) {
  const std::string backend = backend_for(device, "grain.cp_als");
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    raise(PyExc_TypeError, "grain.cp_als: callback must be callable as callback(iteration, fit, seconds)");
  if (is_double(dtype, X.is_double(), "grain.cp_als"))
    return cp_als_typed(X.as<double>(), rank, maxiters, tol, seed, init_weights, init_factors, mttkrp, backend, callback);
  return cp_als_typed(X.as<float>(), rank, maxiters, tol, seed, init_weights, init_factors, mttkrp, backend, callback);
}

// ---- GCP ----------------------------------------------------------------------------------------

template <class T>
py::dict gcp_typed(const SparseTensor<T, HostSpace>& X, int rank, const cp::GcpSgdOptions& opt,
                   const std::string& backend, py::handle callback) {
  if (rank < 1) raise(PyExc_ValueError, "grain.gcp: rank " + std::to_string(rank) + " must be at least 1");
  cp::Ktensor<T, HostSpace> M = cp::random_ktensor<T, HostSpace>(X.dims(), rank, opt.seed);
  RunWatcher watch(callback);
  const auto after = [&](const cp::GcpSgdEpoch& e) { return watch.go_on(e.epoch, e.loss, e.seconds); };
  cp::GcpSgdResult res;
  {
    py::gil_scoped_release nogil;
    res = gcp_on_backend<T>(backend, X, M, opt, after);
  }
  if (watch.error) throw *watch.error;
  const bool all = static_cast<int>(res.epochs.size()) == opt.epochs;
  py::list factors, losses, seconds, rates, failed;
  for (int m = 0; m < M.ndims(); ++m) factors.append(numpy_view(M.factors[m], true));
  for (const auto& e : res.epochs) {
    losses.append(e.loss);
    seconds.append(e.seconds);
    rates.append(e.rate);
    failed.append(e.failed);
  }
  const char* stop = watch.stop != Stop::MaxIters ? stop_name(watch.stop) : all ? "epochs" : "max_fails";
  return py::dict("weights"_a = numpy_view(M.lambda, true), "factors"_a = factors, "losses"_a = losses,
                  "seconds"_a = seconds, "rates"_a = rates, "failed"_a = failed,
                  "initial_loss"_a = res.initial_loss, "stop_reason"_a = stop, "backend"_a = backend,
                  "sampled_entries"_a = res.sampled_entries);
}

py::dict gcp(const PySparse& X, int rank, const std::string& loss, int epochs, int iters, long long samples,
             long long loss_samples, double rate, int max_fails, std::uint64_t seed, const std::string& device,
             py::handle dtype, py::handle callback) {
  const std::string backend = backend_for(device, "grain.gcp");
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    raise(PyExc_TypeError, "grain.gcp: callback must be callable as callback(epoch, loss, seconds)");
  cp::GcpSgdOptions opt;
  opt.loss = cp::parse_gcp_loss(loss);
  opt.epochs = epochs;
  opt.iters = iters;
  opt.gradient_samples = samples;
  opt.loss_samples = loss_samples;
  opt.rate = rate;
  opt.max_fails = max_fails;
  opt.seed = seed;
  if (is_double(dtype, X.is_double(), "grain.gcp")) return gcp_typed(X.as<double>(), rank, opt, backend, callback);
  return gcp_typed(X.as<float>(), rank, opt, backend, callback);
}

// The factor match score of two models given as (weights, factors) in double.
py::tuple factor_match_score(py::handle wa, py::handle fa, py::handle wb, py::handle fb, bool weights) {
  auto to_ktensor = [](py::handle w, py::handle f, const char* name) {
    auto lambda = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(w);
    const py::list fs(py::reinterpret_borrow<py::object>(f));
    if (!lambda || lambda.ndim() != 1)
      raise(PyExc_ValueError, std::string("grain.factor_match_score: ") + name + "'s weights must be one-dimensional");
    const int R = static_cast<int>(lambda.shape(0));
    std::vector<index_type> dims;
    std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>> arrays;
    for (auto x : fs) {
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x);
      if (!a || a.ndim() != 2 || a.shape(1) != R)
        raise(PyExc_ValueError, std::string("grain.factor_match_score: ") + name + "'s factor " +
                                    std::to_string(arrays.size()) + " must have shape (I, " + std::to_string(R) + ")");
      dims.push_back(a.shape(0));
      arrays.push_back(a);
    }
    cp::Ktensor<double, HostSpace> K(dims, R);
    std::memcpy(K.lambda.data(), lambda.data(), sizeof(double) * R);
    for (std::size_t m = 0; m < arrays.size(); ++m)
      std::memcpy(K.factors[m].data(), arrays[m].data(), sizeof(double) * arrays[m].size());
    return K;
  };
  cp::FactorMatchOptions o;
  o.weight_penalty = weights;
  const auto r = cp::factor_match_score(to_ktensor(wa, fa, "A"), to_ktensor(wb, fb, "B"), o);
  py::list pairs;
  for (const auto& p : r.pairs) pairs.append(py::make_tuple(p.a, p.b, p.score));
  return py::make_tuple(r.score, pairs);
}

// ---- the module ---------------------------------------------------------------------------------

py::dict info() {
  py::list backends;
  for (const auto& b : available_backends()) backends.append(b);
  py::dict d("version"_a = GRAIN_VERSION_STRING, "backends"_a = backends);
#if defined(GRAIN_ENABLE_OPENMP)
  d["threads"] = omp_get_max_threads();
#else
  d["threads"] = 1;
#endif
#if defined(GRAIN_ENABLE_CUDA)
  d["cuda_compiled"] = true;
#else
  d["cuda_compiled"] = false;
#endif
#if defined(GRAIN_PYTHON_DLPACK)
  d["array_protocols"] = py::make_tuple("buffer", "dlpack");
#else
  d["array_protocols"] = py::make_tuple("buffer");
#endif
#if defined(GRAIN_ENABLE_CUDA)
  d["array_devices"] = py::make_tuple("cpu", "cuda");
#else
  d["array_devices"] = py::make_tuple("cpu");
#endif
  return d;
}

}  // namespace grain::python

PYBIND11_MODULE(_grain, m) {
  using namespace grain::python;
  m.doc() = "grain's kernels over NumPy, PyTorch and CuPy arrays: the nine contractions, sparse tensors, CP-ALS";
  m.attr("__version__") = GRAIN_VERSION_STRING;
  // grain's checks (extents, aliasing, algorithms, file formats, CP-ALS settings) raise
  // grain::Error with a message naming the argument: a ValueError in Python.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const grain::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("info", &info, "version, back ends, threads and the array protocols of this build, as a dict");

  const char* doc = "out = contraction of left and right (docs/python.md); returns out";
  const char* plan_doc =
      "a grain.Plan for this contraction's shape, layout, element type and back end (docs/python.md); "
      "tuning='measure' times the model's top candidates on these arrays, overwriting out";
  // contract_<name> and plan_<name> of each kernel.
#define GRAIN_DEF_KERNEL(NAME)                                   \
  def_contract<Kernel_##NAME>(m, "contract_" #NAME, doc); \
  def_plan<Kernel_##NAME>(m, "plan_" #NAME, plan_doc)
  GRAIN_DEF_KERNEL(data_data_scalar);
  GRAIN_DEF_KERNEL(data_data_vector);
  GRAIN_DEF_KERNEL(data_data_tensor);
  GRAIN_DEF_KERNEL(data_field_scalar);
  GRAIN_DEF_KERNEL(data_field_vector);
  GRAIN_DEF_KERNEL(data_field_tensor);
  GRAIN_DEF_KERNEL(field_field_scalar);
  GRAIN_DEF_KERNEL(field_field_vector);
  GRAIN_DEF_KERNEL(field_field_tensor);
#undef GRAIN_DEF_KERNEL

  py::class_<PyPlan>(m, "Plan",
                     "A contraction's algorithm chosen once for one shape, layout, element type and back end "
                     "(grain::ContractPlan); made by grain.plan_<kernel>")
      .def("__call__",
           [](const PyPlan& p, py::handle left, py::handle right, py::object out) {
             return p.call(p, left, right, std::move(out));
           },
           "left"_a, "right"_a, "out"_a = py::none(),
           "out = the contraction of left and right by the plan's algorithm; returns out (a new array when None)")
      .def_property_readonly("kernel", [](const PyPlan& p) {
        return p.visit([](const auto& x) { return std::string(contract_kernel_name(x.kernel())); });
      })
      .def_property_readonly("algorithm", [](const PyPlan& p) {
        return p.visit([](const auto& x) { return std::string(contract_algorithm_name(x.algorithm())); });
      })
      .def_property_readonly(
          "source", [](const PyPlan& p) { return p.visit([](const auto& x) { return x.source(); }); },
          "model, plan cache, measured, or the tuning file's path")
      .def_property_readonly("planning_ms", [](const PyPlan& p) {
        return p.visit([](const auto& x) { return x.planning_ms(); });
      })
      .def_property_readonly("timings", [](const PyPlan& p) {
        return p.visit([](const auto& x) {
          py::list l;
          for (const auto& t : x.timings()) l.append(py::make_tuple(contract_algorithm_name(t.algorithm), t.ms, t.cut));
          return l;
        });
      }, "(algorithm, ms, cut) of each candidate timed; empty when nothing was timed")
      .def_property_readonly("ranking", [](const PyPlan& p) {
        return p.visit([](const auto& x) {
          py::list l;
          for (grain::ContractAlgorithm a : x.ranking()) l.append(contract_algorithm_name(a));
          return l;
        });
      }, "the model's ranking, best first")
      .def_property_readonly("backend", [](const PyPlan& p) {
        return p.visit([](const auto& x) { return std::string(contract_exec_name(x.exec())); });
      })
      .def_property_readonly("dtype", [](const PyPlan& p) {
        return p.is_double() ? py::dtype::of<double>() : py::dtype::of<float>();
      })
      .def_property_readonly("sum_into", [](const PyPlan& p) { return p.sum_into; })
      .def("__repr__", &plan_repr);

  m.def("explain", &explain, "kernel"_a, "shape"_a, py::kw_only(), "layout"_a = py::none(), "dtype"_a = "float64",
        "backend"_a = py::none(),
        "the text of `grain contract explain`: why Auto picks what it picks for one shape (docs/python.md)");
  m.def("clear_plan_cache", [] { grain::impl::contract_plan_cache_clear(); },
        "forgets the algorithms measured by plans in this process");
  m.def("_tuning_reset", [] { grain::impl::contract_tuning_reset(); });  // tests: read GRAIN_TUNING_FILE again

  py::class_<PySparse>(m, "SparseTensor", "An N-way sparse tensor in coordinate form (grain::SparseTensor)")
      .def(py::init(&sparse_new), "indices"_a, "values"_a, "shape"_a = py::none(), py::kw_only(),
           "dtype"_a = py::none(),
           "From 0-based integer indices (nnz, N) and values (nnz,), copied; shape defaults to the "
           "largest index + 1 of each mode")
      .def_static("read", &sparse_read, "path"_a, py::kw_only(), "dtype"_a = "float64", "shape"_a = py::none(),
                  "Reads FROSTT .tns, .tns.gz or grain's binary form (recognized by its magic bytes)")
      .def("write", &sparse_write, "path"_a, "Writes .tns / .tns.gz text by the name's ending, else the binary form")
      .def_property_readonly("shape", [](const PySparse& x) { return py::tuple(py::cast(x.dims())); })
      .def_property_readonly("ndim", [](const PySparse& x) { return static_cast<int>(x.dims().size()); })
      .def_property_readonly("array_library", [](const PySparse& x) { return x.library; },
                             "numpy, torch or cupy: the library of the values it was made from (numpy when read)")
      .def_property_readonly("nnz", [](const PySparse& x) { return x.visit([](const auto& t) { return t.nnz(); }); })
      .def_property_readonly("dtype", [](const PySparse& x) {
        return x.is_double() ? py::dtype::of<double>() : py::dtype::of<float>();
      })
      // Read-only views of grain's memory: the tensor caches sorted copies of itself, which a
      // write through these arrays would leave stale.
      .def_property_readonly("indices", [](const PySparse& x) {
        return x.visit([](const auto& t) { return numpy_view(t.subscripts(), false); });
      })
      .def_property_readonly("values", [](const PySparse& x) {
        return x.visit([](const auto& t) { return numpy_view(t.values(), false); });
      })
      .def("norm", [](const PySparse& x) {
        return x.visit([](const auto& t) { return std::sqrt(grain::cp::norm_squared<grain::DefaultHostExecutionSpace>(t)); });
      })
      .def("__repr__", [](const PySparse& x) {
        return "grain.SparseTensor(shape=" + grain::dims_string(x.dims()) + ", nnz=" +
               std::to_string(x.visit([](const auto& t) { return t.nnz(); })) +
               ", dtype=" + (x.is_double() ? "float64" : "float32") + ")";
      });

  m.def("_gcp", &gcp, "X"_a, "rank"_a, "loss"_a, "epochs"_a, "iters"_a, "samples"_a, "loss_samples"_a, "rate"_a,
        "max_fails"_a, "seed"_a, "device"_a, "dtype"_a, "callback"_a);
  m.def("_factor_match_score", &factor_match_score, "wa"_a, "fa"_a, "wb"_a, "fb"_a, "weights"_a);
  m.def("_cp_als", &cp_als, "X"_a, "rank"_a, "maxiters"_a, "tol"_a, "seed"_a, "init_weights"_a, "init_factors"_a,
        "mttkrp"_a, "device"_a, "dtype"_a, "callback"_a);
}
