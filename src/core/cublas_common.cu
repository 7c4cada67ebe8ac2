// See cublas_common.hpp.
#include "cublas_common.hpp"

#include "grain/core/backend/cuda_per_device.hpp"

namespace grain::impl {

const char* cublas_status_text(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "not supported";
    default: return "unknown status";
  }
}

void cublas_check(cublasStatus_t s, const char* fn, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw_error(fn, ": ", what, " failed: ", cublas_status_text(s));
}

cublasHandle_t cublas_handle(const char* fn) {
  struct Made {
    cublasHandle_t handle = nullptr;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  };
  static PerDevice<Made> handles;
  const Made& m = handles.get([] {
    Made out;
    out.status = cublasCreate(&out.handle);
    return out;
  });
  cublas_check(m.status, fn, "cublasCreate");
  return m.handle;
}

}  // namespace grain::impl
