// The caller's arrays as grain sees them, without a copy: an ArrayRef borrows an object's memory
// through the buffer protocol (NumPy, memoryview, array.array) or DLPack (`__dlpack__`: NumPy,
// PyTorch, CuPy) and keeps the exporter's handle until it is destroyed, so the memory stays valid
// for the call. Every array that enters grain from Python passes through borrow_array, host and
// GPU (DLPack's kDLCUDA) alike.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#if defined(GRAIN_PYTHON_DLPACK)
#include <dlpack/dlpack.h>
#endif

namespace grain::python {

namespace py = pybind11;
using namespace py::literals;

enum class Dtype { F32, F64, Other };
enum class Device { Host, Cuda, Other };
// The array library an object comes from (its type's top-level module): grain makes the arrays it
// returns with that library, on the device of the caller's arrays.
enum class Lib { NumPy, Torch, CuPy, Other };

inline Lib library_of(py::handle obj) {
  const std::string mod = py::str(py::type::handle_of(obj).attr("__module__"));
  const std::string top = mod.substr(0, mod.find('.'));
  return top == "numpy" ? Lib::NumPy : top == "torch" ? Lib::Torch : top == "cupy" ? Lib::CuPy : Lib::Other;
}
// How an array's strides match grain's layouts. An array whose strides fit both (one element,
// a single row or column, extents of 1, no elements) is Both.
enum class Fit { None, Right, Left, Both };

inline bool fits_right(Fit f) { return f == Fit::Right || f == Fit::Both; }
inline bool fits_left(Fit f) { return f == Fit::Left || f == Fit::Both; }

inline std::string join(const std::vector<std::int64_t>& v) {
  std::ostringstream os;
  os << '(';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  if (v.size() == 1) os << ',';
  os << ')';
  return os.str();
}

class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(const ArrayRef&) = delete;
  ArrayRef& operator=(const ArrayRef&) = delete;
  ArrayRef(ArrayRef&& o) noexcept { *this = std::move(o); }
  ArrayRef& operator=(ArrayRef&& o) noexcept {
    release();
    data = o.data, dtype = o.dtype, dtype_name = std::move(o.dtype_name), shape = std::move(o.shape);
    strides = std::move(o.strides), device = o.device, device_id = o.device_id, readonly = o.readonly, lib = o.lib;
    view_ = o.view_, has_view_ = o.has_view_, capsule_ = std::move(o.capsule_);
    o.has_view_ = false;
    return *this;
  }
  ~ArrayRef() { release(); }

  void* data = nullptr;
  Dtype dtype = Dtype::Other;
  std::string dtype_name;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // in elements
  Device device = Device::Host;
  int device_id = 0;
  bool readonly = false;
  Lib lib = Lib::Other;

  int ndim() const { return static_cast<int>(shape.size()); }
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
  // Which layout the strides are: extents of 1 carry no stride (NumPy sets anything there), and an
  // empty array fits both.
  Fit fit() const {
    if (size() == 0) return Fit::Both;
    bool right = true, left = true;
    std::int64_t s = 1;
    for (int r = ndim() - 1; r >= 0; --r) {
      if (shape[r] != 1 && strides[r] != s) right = false;
      s *= shape[r];
    }
    s = 1;
    for (int r = 0; r < ndim(); ++r) {
      if (shape[r] != 1 && strides[r] != s) left = false;
      s *= shape[r];
    }
    return right && left ? Fit::Both : right ? Fit::Right : left ? Fit::Left : Fit::None;
  }

 private:
  friend ArrayRef borrow_array(py::handle, const char*, const char*, bool);
  void release() {
    if (has_view_) PyBuffer_Release(&view_);
    has_view_ = false;
    capsule_ = py::object();  // an unconsumed DLPack capsule frees its tensor when it dies
  }
  Py_buffer view_{};
  bool has_view_ = false;
  py::object capsule_;
};

// What an array's format names, for messages ("int64", "float32").
inline std::string buffer_dtype_name(const char* format, Py_ssize_t itemsize) {
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '>' || f[0] == '!')) f.erase(0, 1);
  if (f == "d" && itemsize == 8) return "float64";
  if (f == "f" && itemsize == 4) return "float32";
  if (f == "e") return "float16";
  if (f == "?") return "bool";
  if (f.size() == 1 && std::string("bBhHiIlLqQnN").find(f[0]) != std::string::npos)
    return std::string(std::islower(static_cast<unsigned char>(f[0])) ? "int" : "uint") + std::to_string(8 * itemsize);
  if (f == "Zf" || f == "Zd") return "complex" + std::to_string(8 * itemsize);
  return "format '" + f + "'";
}

// Raises the Python exception `type` (ValueError, TypeError) with msg, through pybind11's own
// exception types, which its dispatcher turns into the Python exception.
[[noreturn]] inline void raise(PyObject* type, const std::string& msg) {
  if (type == PyExc_TypeError) throw py::type_error(msg);
  throw py::value_error(msg);
}

// The stream grain's GPU work runs on, as DLPack's `__dlpack__(stream=...)` numbers it: CUDA's
// legacy default stream. The producer orders its pending work on the caller's current stream
// before it.
constexpr int kDlpackLegacyStream = 1;

// Borrows obj's memory. Tries the buffer protocol first (it says whether the memory is
// read-only and costs no allocation), then `__dlpack__`. `writable`: the array is written
// (out=); a read-only buffer is then a ValueError.
inline ArrayRef borrow_array(py::handle obj, const char* fn, const char* arg, bool writable) {
  ArrayRef a;
  a.lib = library_of(obj);
  // CuPy arrays offer a buffer protocol that refuses device memory: DLPack for them.
  if (a.lib != Lib::CuPy && PyObject_CheckBuffer(obj.ptr())) {
    const int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &a.view_, flags) != 0) {
      // Exporters refuse a writable view of read-only memory with differing exceptions (NumPy: a
      // ValueError): the memory is read-only when a read-only view then succeeds.
      if (writable) {
        PyObject *type, *value, *trace;
        PyErr_Fetch(&type, &value, &trace);
        Py_buffer probe;
        if (PyObject_GetBuffer(obj.ptr(), &probe, PyBUF_STRIDES) == 0) {
          PyBuffer_Release(&probe);
          Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(trace);
          raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg +
                                      "' is read-only; grain writes the result into it (pass a writable array)");
        }
        PyErr_Clear();
        PyErr_Restore(type, value, trace);
      }
      throw py::error_already_set();
    }
    a.has_view_ = true;
    const Py_buffer& v = a.view_;
    a.data = v.buf;
    a.readonly = v.readonly != 0;
    a.dtype_name = buffer_dtype_name(v.format, v.itemsize);
    a.dtype = a.dtype_name == "float64" ? Dtype::F64 : a.dtype_name == "float32" ? Dtype::F32 : Dtype::Other;
    for (int r = 0; r < v.ndim; ++r) {
      a.shape.push_back(v.shape[r]);
      if (v.strides[r] % v.itemsize != 0)
        raise(PyExc_ValueError, std::string(fn) + ": argument '" + arg + "' has a stride of " +
                                    std::to_string(v.strides[r]) + " bytes, not a whole number of elements");
      a.strides.push_back(v.strides[r] / v.itemsize);
    }
    return a;
  }
#if defined(GRAIN_PYTHON_DLPACK)
  if (py::hasattr(obj, "__dlpack__")) {
    // Legacy capsule ("dltensor"), which every producer gives when asked without max_version.
    // Left unconsumed: the capsule's destructor calls the tensor's deleter when `a` releases it.
    // A PyTorch tensor comes through torch's C exporter (a tenth of the cost of its __dlpack__),
    // which orders no streams: the caller does (order_before_grain in module.cpp). Another
    // library's GPU array is asked for with grain's stream, so that its producer orders the work
    // queued on the caller's stream first.
    if (a.lib == Lib::Torch) {
      // Looked up once and never destroyed (at exit Python may already be gone).
      static const py::object* to_dlpack = new py::object(py::module_::import("torch.utils.dlpack").attr("to_dlpack"));
      a.capsule_ = (*to_dlpack)(obj);
    } else {
      bool on_gpu = false;
      if (py::hasattr(obj, "__dlpack_device__")) {
        const auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
        on_gpu = dev.first == kDLCUDA || dev.first == kDLCUDAManaged;
      }
      a.capsule_ = on_gpu ? obj.attr("__dlpack__")("stream"_a = kDlpackLegacyStream) : obj.attr("__dlpack__")();
    }
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(a.capsule_.ptr(), "dltensor"));
    if (!t) throw py::error_already_set();
    const DLTensor& d = t->dl_tensor;
    a.data = static_cast<char*>(d.data) + d.byte_offset;
    if (d.device.device_type == kDLCPU) a.device = Device::Host;
    else if (d.device.device_type == kDLCUDA || d.device.device_type == kDLCUDAManaged) a.device = Device::Cuda;
    else a.device = Device::Other;
    a.device_id = d.device.device_id;
    if (d.dtype.code == kDLFloat && d.dtype.lanes == 1 && d.dtype.bits == 64) a.dtype = Dtype::F64, a.dtype_name = "float64";
    else if (d.dtype.code == kDLFloat && d.dtype.lanes == 1 && d.dtype.bits == 32) a.dtype = Dtype::F32, a.dtype_name = "float32";
    else
      a.dtype_name = std::string(d.dtype.code == kDLInt ? "int" : d.dtype.code == kDLUInt ? "uint"
                                 : d.dtype.code == kDLFloat ? "float" : d.dtype.code == kDLBfloat ? "bfloat"
                                 : d.dtype.code == kDLComplex ? "complex" : "dlpack type ") + std::to_string(d.dtype.bits);
    std::int64_t s = 1;
    for (int r = 0; r < d.ndim; ++r) a.shape.push_back(d.shape[r]);
    a.strides.assign(d.ndim, 0);
    for (int r = d.ndim - 1; r >= 0; --r) {  // no strides: compact row-major
      a.strides[r] = d.strides ? d.strides[r] : s;
      s *= d.shape[r];
    }
    return a;
  }
#endif
  raise(PyExc_TypeError, std::string(fn) + ": argument '" + arg + "' is a " +
                             std::string(py::str(py::type::handle_of(obj).attr("__name__"))) +
                             ", not an array (grain takes objects with the buffer protocol or __dlpack__: "
                             "NumPy arrays, PyTorch tensors, CuPy arrays)");
}

// The ValueError for strides that are neither layout, naming them and the fix.
[[noreturn]] inline void raise_strides(const char* fn, const char* arg, const ArrayRef& a) {
  raise(PyExc_ValueError,
        std::string(fn) + ": argument '" + arg + "' with shape " + join(a.shape) + " has strides " +
            join(a.strides) + " (in elements), neither C-contiguous (row-major) nor Fortran-contiguous "
            "(column-major); grain wraps memory without copying, so pass np.ascontiguousarray(" + arg +
            ") or np.asfortranarray(" + arg + ")");
}

}  // namespace grain::python
