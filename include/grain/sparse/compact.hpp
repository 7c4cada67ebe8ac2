// Compacting a sparse tensor's index ranges: each mode keeps only the indices its nonzeros use,
// renumbered 0, 1, ... in increasing order, with the map back to the original indices. A tensor
// whose indices are sparse in a huge range (hashed IDs, a subset of a larger index) then needs
// factor matrices of the used rows only; the rows of unused indices are zero in a CP model anyway.
#pragma once

#include <vector>

#include "grain/sparse/sparse_tensor.hpp"

namespace grain {

template <class T>
struct CompactTensor {
  SparseTensor<T, HostSpace> tensor;                 // dims: the used index counts
  std::vector<std::vector<index_type>> original;     // original[m][i]: mode m's 0-based index of row i
};

template <class T>
CompactTensor<T> compact(const SparseTensor<T, HostSpace>& X);

// How many distinct indices each mode's nonzeros use.
template <class T>
std::vector<index_type> used_indices(const SparseTensor<T, HostSpace>& X);

}  // namespace grain
