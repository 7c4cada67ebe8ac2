// A rank's share of a sparse tensor (include/grain/dist/sparse.hpp).
#include "grain/dist/sparse.hpp"

#include <algorithm>
#include <vector>

namespace grain::dist {
namespace {

// The shares' common dimensions: each rank's largest indices (none for an empty share) maxed over
// the ranks; shares that disagree on the number of modes are an error on every rank.
template <class T>
SparseTensor<T, HostSpace> with_common_dims(Comm& comm, SparseTensor<T, HostSpace> X, const std::string& what) {
  const std::int64_t N = X.ndims();
  const std::int64_t maxN = comm.allreduce_value(N, ReduceOp::Max);
  const std::int64_t minN = comm.allreduce_value(N == 0 ? maxN : N, ReduceOp::Min);
  std::string error;
  if (maxN == 0) error = what + ": no nonzeros in any part (an empty tensor)";
  else if (minN != maxN) error = what + ": the parts disagree on the number of modes (" + std::to_string(minN) +
                                 " and " + std::to_string(maxN) + "); every line needs the same number of indices";
  comm.agree(error);
  std::vector<std::int64_t> dims(static_cast<std::size_t>(maxN), 1);
  for (int m = 0; m < N; ++m) dims[m] = X.dim(m);
  comm.allreduce(dims.data(), dims.size(), ReduceOp::Max);
  const std::vector<index_type> d(dims.begin(), dims.end());
  if (N == 0) return SparseTensor<T, HostSpace>(d, 0);
  if (d == X.dims()) return X;
  return SparseTensor<T, HostSpace>(d, X.subscripts(), X.values());
}

}  // namespace

template <class T>
SparseTensor<T, HostSpace> read_sparse_share(Comm& comm, const std::string& path, const TnsReadOptions& opts,
                                             TnsReadStats* stats) {
  SparseTensor<T, HostSpace> X;
  std::string error;
  try {
    X = read_sparse_part<T>(path, comm.rank(), comm.size(), opts, stats);
  } catch (const std::exception& e) {
    error = e.what();
  }
  comm.agree(error);
  return with_common_dims(comm, std::move(X), path);
}

template <class T>
SparseTensor<T, HostSpace> generate_sparse_share(Comm& comm, const GenerateOptions& opts) {
  SparseTensor<T, HostSpace> X;
  std::string error;
  try {
    X = generate_sparse_part<T>(opts, comm.rank(), comm.size());
  } catch (const std::exception& e) {
    error = e.what();
  }
  comm.agree(error);
  return X;
}

template SparseTensor<float, HostSpace> read_sparse_share(Comm&, const std::string&, const TnsReadOptions&,
                                                          TnsReadStats*);
template SparseTensor<double, HostSpace> read_sparse_share(Comm&, const std::string&, const TnsReadOptions&,
                                                           TnsReadStats*);
template SparseTensor<float, HostSpace> generate_sparse_share(Comm&, const GenerateOptions&);
template SparseTensor<double, HostSpace> generate_sparse_share(Comm&, const GenerateOptions&);

}  // namespace grain::dist
