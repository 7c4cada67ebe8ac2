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

template <class T>
cp::GcpSgdResult gcp_on_backend(const std::string& backend, const SparseTensor<T, HostSpace>& X,
                                cp::Ktensor<T, HostSpace>& M, const cp::GcpSgdOptions& opts,
                                const std::function<bool(const cp::GcpSgdEpoch&)>& after_epoch) {
  cp::check_gcp_data(X, opts.loss);
  return with_backend(backend, [&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    const auto run = [&](const SparseTensor<T, Space>& Xs, cp::Ktensor<T, Space>& Ms) {
      cp::gcp_prepare_start<Exec>(Xs, Ms, opts.loss);
      cp::GcpSgdResult res = cp::gcp_sgd<Exec>(Xs, Ms, opts, after_epoch);
      cp::arrange<Exec>(Ms);
      return res;
    };
    if constexpr (std::is_same_v<Space, HostSpace>) {
      return run(X, M);
    } else {
      auto Md = M.template to_space<Space>();
      cp::GcpSgdResult res = run(X.template to_space<Space>(), Md);
      M = Md.template to_space<HostSpace>();
      return res;
    }
  });
}

template cp::GcpSgdResult gcp_on_backend<float>(const std::string&, const SparseTensor<float, HostSpace>&,
                                                cp::Ktensor<float, HostSpace>&, const cp::GcpSgdOptions&,
                                                const std::function<bool(const cp::GcpSgdEpoch&)>&);
template cp::GcpSgdResult gcp_on_backend<double>(const std::string&, const SparseTensor<double, HostSpace>&,
                                                 cp::Ktensor<double, HostSpace>&, const cp::GcpSgdOptions&,
                                                 const std::function<bool(const cp::GcpSgdEpoch&)>&);
template cp::CpAlsResult cp_als_on_backend<float>(const std::string&, const SparseTensor<float, HostSpace>&,
                                                  cp::Ktensor<float, HostSpace>&, const cp::CpAlsOptions&);
template cp::CpAlsResult cp_als_on_backend<double>(const std::string&, const SparseTensor<double, HostSpace>&,
                                                   cp::Ktensor<double, HostSpace>&, const cp::CpAlsOptions&);

}  // namespace grain::python
