// A rank's share of a sparse tensor: read from a file in parts (each rank parses only its bytes or
// nonzero range) or generated (each rank keeps the nonzeros whose coordinates hash to it, so the
// tensor is the same for any number of ranks). The ranks agree on the dimensions (the given ones,
// the binary header's, or the largest index over all parts) and on failure: one rank's error (an
// unreadable part, a malformed line) stops every rank with that error, naming the rank.
#pragma once

#include <string>

#include "grain/dist/comm.hpp"
#include "grain/sparse/generate.hpp"
#include "grain/sparse/io.hpp"

namespace grain::dist {

template <class T>
SparseTensor<T, HostSpace> read_sparse_share(Comm& comm, const std::string& path, const TnsReadOptions& opts = {},
                                             TnsReadStats* stats = nullptr);
template <class T>
SparseTensor<T, HostSpace> generate_sparse_share(Comm& comm, const GenerateOptions& opts);

// The nonzeros of all ranks' shares.
template <class T, class Space>
index_type total_nnz(Comm& comm, const SparseTensor<T, Space>& X) {
  return static_cast<index_type>(comm.allreduce_value<std::int64_t>(X.nnz()));
}

}  // namespace grain::dist
