// The cuBLAS handle of each device and its status checks, shared by every CUDA-only source that
// calls cuBLAS (contract's blas algorithm, CP-ALS's dense products). Private to src/.
#pragma once

#include <cublas_v2.h>

#include <limits>

#include "grain/core/error.hpp"
#include "grain/core/policy.hpp"

namespace grain::impl {

const char* cublas_status_text(cublasStatus_t s);
// Raises grain::Error("<fn>: <what> failed: <status>") unless s is CUBLAS_STATUS_SUCCESS.
void cublas_check(cublasStatus_t s, const char* fn, const char* what);
// The current device's, created on first use; raises grain::Error naming fn when it cannot be.
cublasHandle_t cublas_handle(const char* fn);

// v as cuBLAS's int, or grain::Error naming fn and what.
inline int cublas_int(index_type v, const char* fn, const char* what) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw_error(fn, ": ", what, " = ", v, " does not fit cuBLAS's int arguments");
  return static_cast<int>(v);
}

}  // namespace grain::impl
