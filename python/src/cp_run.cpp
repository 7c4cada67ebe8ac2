#include "cp_run.hpp"

#include "grain/core/backends.hpp"
#include "grain/cp/memory.hpp"

namespace grain::python {

template <class T>
cp::CpAlsResult cp_als_on_backend(const std::string& backend, const SparseTensor<T, HostSpace>& X,
                                  cp::Ktensor<T, HostSpace>& M, const cp::CpAlsOptions& opts) {
  return with_backend(backend, [&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    cp::check_cp_als_memory<Exec, T>(X, M.rank(), opts.mttkrp);
    if constexpr (std::is_same_v<Space, HostSpace>) {
      return cp::cp_als<Exec>(X, M, opts);
    } else {
      const auto Xd = X.template to_space<Space>();
      auto Md = M.template to_space<Space>();
      // The callback sees the iteration's numbers only, never the model: it stays on the device.
      cp::CpAlsResult res = cp::cp_als<Exec>(Xd, Md, opts);
      M = Md.template to_space<HostSpace>();
      return res;
    }
  });
}

template cp::CpAlsResult cp_als_on_backend<float>(const std::string&, const SparseTensor<float, HostSpace>&,
                                                  cp::Ktensor<float, HostSpace>&, const cp::CpAlsOptions&);
template cp::CpAlsResult cp_als_on_backend<double>(const std::string&, const SparseTensor<double, HostSpace>&,
                                                   cp::Ktensor<double, HostSpace>&, const cp::CpAlsOptions&);

}  // namespace grain::python
