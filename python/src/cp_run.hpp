// CP-ALS and GCP of a host tensor on a back end chosen by name: the one part of the Python module that
// launches kernels itself, compiled as CUDA in CUDA builds (cp_run.cpp) so that the module's
// other source stays plain C++ with pybind11.
#pragma once

#include <string>

#include "grain/cp/cp_als.hpp"
#include "grain/cp/gcp.hpp"

namespace grain::python {

// Copies X and the start M to the back end's memory (after checking that the run fits there),
// runs CP-ALS with opts, and copies the result back into M.
template <class T>
cp::CpAlsResult cp_als_on_backend(const std::string& backend, const SparseTensor<T, HostSpace>& X,
                                  cp::Ktensor<T, HostSpace>& M, const cp::CpAlsOptions& opts);

// GCP-SGD the same way: M is the random start (prepared here), the result comes back arranged
// (normalized, components by decreasing weight).
template <class T>
cp::GcpSgdResult gcp_on_backend(const std::string& backend, const SparseTensor<T, HostSpace>& X,
                                cp::Ktensor<T, HostSpace>& M, const cp::GcpSgdOptions& opts,
                                const std::function<bool(const cp::GcpSgdEpoch&)>& after_epoch);

extern template cp::GcpSgdResult gcp_on_backend<float>(const std::string&, const SparseTensor<float, HostSpace>&,
                                                       cp::Ktensor<float, HostSpace>&, const cp::GcpSgdOptions&,
                                                       const std::function<bool(const cp::GcpSgdEpoch&)>&);
extern template cp::GcpSgdResult gcp_on_backend<double>(const std::string&, const SparseTensor<double, HostSpace>&,
                                                        cp::Ktensor<double, HostSpace>&, const cp::GcpSgdOptions&,
                                                        const std::function<bool(const cp::GcpSgdEpoch&)>&);
extern template cp::CpAlsResult cp_als_on_backend<float>(const std::string&, const SparseTensor<float, HostSpace>&,
                                                         cp::Ktensor<float, HostSpace>&, const cp::CpAlsOptions&);
extern template cp::CpAlsResult cp_als_on_backend<double>(const std::string&, const SparseTensor<double, HostSpace>&,
                                                          cp::Ktensor<double, HostSpace>&, const cp::CpAlsOptions&);

}  // namespace grain::python
