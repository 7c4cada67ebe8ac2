#include "grain/sparse/compact.hpp"

#include <algorithm>
#include <cstdint>

namespace grain {
namespace {

// Mode m's used indices, ascending: a bitmap when the range is small next to the nonzeros,
// otherwise a sort of the subscripts (a 2^32 range would need a 512 MB bitmap).
template <class T>
std::vector<index_type> used_list(const SparseTensor<T, HostSpace>& X, int m) {
  const int N = X.ndims();
  const index_type nnz = X.nnz(), dim = X.dim(m);
  const subscript_type* s = X.subscripts().data();
  std::vector<index_type> out;
  if (dim <= 8 * nnz + 1024) {
    std::vector<bool> seen(static_cast<std::size_t>(dim), false);
    for (index_type j = 0; j < nnz; ++j) seen[s[j * N + m]] = true;
    for (index_type i = 0; i < dim; ++i)
      if (seen[i]) out.push_back(i);
  } else {
    std::vector<subscript_type> v(static_cast<std::size_t>(nnz));
    for (index_type j = 0; j < nnz; ++j) v[j] = s[j * N + m];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    out.assign(v.begin(), v.end());
  }
  return out;
}

}  // namespace

template <class T>
std::vector<index_type> used_indices(const SparseTensor<T, HostSpace>& X) {
  std::vector<index_type> used(X.ndims());
  for (int m = 0; m < X.ndims(); ++m) used[m] = static_cast<index_type>(used_list(X, m).size());
  return used;
}

template <class T>
CompactTensor<T> compact(const SparseTensor<T, HostSpace>& X) {
  const int N = X.ndims();
  const index_type nnz = X.nnz();
  CompactTensor<T> c;
  std::vector<index_type> dims(N);
  c.original.resize(N);
  for (int m = 0; m < N; ++m) {
    c.original[m] = used_list(X, m);
    dims[m] = std::max<index_type>(1, static_cast<index_type>(c.original[m].size()));
    if (c.original[m].empty()) c.original[m].push_back(0);  // an empty tensor keeps one row per mode
  }
  SparseTensor<T, HostSpace> Y(dims, nnz);
  const subscript_type* s = X.subscripts().data();
  subscript_type* t = Y.subscripts().data();
  for (int m = 0; m < N; ++m) {
    const std::vector<index_type>& ids = c.original[m];
    for (index_type j = 0; j < nnz; ++j) {
      const auto it = std::lower_bound(ids.begin(), ids.end(), static_cast<index_type>(s[j * N + m]));
      t[j * N + m] = static_cast<subscript_type>(it - ids.begin());
    }
  }
  std::copy(X.values().data(), X.values().data() + nnz, Y.values().data());
  c.tensor = Y;
  return c;
}

template CompactTensor<float> compact(const SparseTensor<float, HostSpace>&);
template CompactTensor<double> compact(const SparseTensor<double, HostSpace>&);
template std::vector<index_type> used_indices(const SparseTensor<float, HostSpace>&);
template std::vector<index_type> used_indices(const SparseTensor<double, HostSpace>&);

}  // namespace grain
