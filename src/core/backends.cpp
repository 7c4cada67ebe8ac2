// The back ends by name (include/grain/core/backends.hpp).
#include "grain/core/backends.hpp"

#include "grain/core/error.hpp"

namespace grain {

std::string backend_unavailable_reason(const std::string& name) {
  if (name == "serial") return "";
  if (name == "openmp") {
#if defined(GRAIN_ENABLE_OPENMP)
    return "";
#else
    return "this grain was built without OpenMP";
#endif
  }
  if (name == "cuda") {
#if defined(GRAIN_ENABLE_CUDA)
    return impl::cuda_device_count() > 0 ? "" : "no CUDA device is visible";
#else
    return "this grain was built without CUDA";
#endif
  }
  return "unknown back end (serial, openmp or cuda)";
}

void check_backend(const std::string& name) {
  const std::string why = backend_unavailable_reason(name);
  if (!why.empty()) impl::throw_error("back end '", name, "': ", why);
}

std::vector<std::string> available_backends() {
  std::vector<std::string> out;
  for (const char* b : {"serial", "openmp", "cuda"})
    if (backend_unavailable_reason(b).empty()) out.push_back(b);
  return out;
}

std::string default_backend() { return available_backends().back(); }

}  // namespace grain
