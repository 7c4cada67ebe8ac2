// grain::cp::Ktensor: a CP model, weights lambda (R) and one factor matrix per mode (rows of
// length R, LayoutRight, so a nonzero's MTTKRP reads one contiguous row per mode), with the
// small portable kernels CP-ALS needs: Gram matrices, column norms, scaling, the inner product
// with a sparse tensor.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/dense_cuda.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cp {

template <class T, class Space = HostSpace>
struct Ktensor {
  using factor_view = View<T**, LayoutRight, Space>;
  View<T*, LayoutRight, Space> lambda;
  std::vector<factor_view> factors;

  Ktensor() = default;
  Ktensor(const std::vector<index_type>& dims, int rank) {
    if (rank < 1) grain::impl::throw_error("grain::cp::Ktensor: rank ", rank, " must be at least 1");
    lambda = View<T*, LayoutRight, Space>("ktensor_lambda", rank);
    for (std::size_t m = 0; m < dims.size(); ++m)
      factors.emplace_back("ktensor_factor_" + std::to_string(m), dims[m], rank);
  }
  int ndims() const { return static_cast<int>(factors.size()); }
  int rank() const { return static_cast<int>(lambda.extent(0)); }
  index_type dim(int m) const { return static_cast<index_type>(factors.at(m).extent(0)); }
  std::vector<index_type> dims() const {
    std::vector<index_type> d;
    for (int m = 0; m < ndims(); ++m) d.push_back(dim(m));
    return d;
  }

  template <class Space2>
  Ktensor<T, Space2> to_space() const {
    Ktensor<T, Space2> K(dims(), rank());
    deep_copy(K.lambda, lambda);
    for (int m = 0; m < ndims(); ++m) deep_copy(K.factors[m], factors[m]);
    return K;
  }
};

// ---- kernels (functors at namespace scope: usable from nvcc translation units) -------------------
namespace impl {

template <class Exec>
constexpr bool on_host() {
  return is_host_execution_space_v<Exec>;
}

// The host kernels below are register-blocked for the CPU (the GPU takes cuBLAS instead):
// a 4 x 8 block of results stays in registers while K runs, so each loaded row element feeds
// four FMAs and no partial sum goes back to memory inside the loop.
inline constexpr index_type kDenseRows = 4, kDenseCols = 8;

// G += A^T A, upper triangle. Item (rows, tile): a block of kGramRows rows of A against one
// 4 x 8 tile (r0.., s0..) of G with s0 + 8 > r0; the tile's sums go to G by atomic add.
inline constexpr index_type kGramRows = 256;
template <class T>
struct GramFunctor {
  const T* A;
  T* G;
  index_type I, R, ntr, ntc;  // tiles along r (4 wide) and s (8 wide)
  GRAIN_INLINE_FUNCTION void operator()(index_type item) const {
    const index_type tile = item % (ntr * ntc), blk = item / (ntr * ntc);
    const index_type r0 = (tile / ntc) * kDenseRows, s0 = (tile % ntc) * kDenseCols;
    if (s0 + kDenseCols <= r0) return;  // strictly below the diagonal: mirrored later
    const index_type i0 = blk * kGramRows, i1 = i0 + kGramRows < I ? i0 + kGramRows : I;
    T acc[kDenseRows][kDenseCols] = {};
    if (r0 + kDenseRows <= R && s0 + kDenseCols <= R) {
      for (index_type i = i0; i < i1; ++i) {
        const T* a = A + i * R;
        for (int u = 0; u < kDenseRows; ++u) {
          const T x = a[r0 + u];
          GRAIN_SIMD
          for (int v = 0; v < kDenseCols; ++v) acc[u][v] += x * a[s0 + v];
        }
      }
    } else {
      for (index_type i = i0; i < i1; ++i) {
        const T* a = A + i * R;
        for (int u = 0; u < kDenseRows && r0 + u < R; ++u)
          for (int v = 0; v < kDenseCols && s0 + v < R; ++v) acc[u][v] += a[r0 + u] * a[s0 + v];
      }
    }
    for (int u = 0; u < kDenseRows && r0 + u < R; ++u)
      for (int v = 0; v < kDenseCols && s0 + v < R; ++v)
        if (s0 + v >= r0 + u) atomic_add(&G[(r0 + u) * R + s0 + v], acc[u][v]);
  }
};

// Column norms over blocks of rows: sum of squares (atomic add) or largest magnitude (atomic max
// on the bit pattern, which orders like the value for non-negative floats).
template <class T, class Member>
struct ColumnNormFunctor {
  const T* A;
  T* out;
  index_type I, R, rows;
  bool max_norm;
  GRAIN_INLINE_FUNCTION void operator()(const Member& m) const {
    const index_type i0 = m.league_rank() * rows;
    const index_type i1 = i0 + rows < I ? i0 + rows : I;
    parallel_for(TeamThreadRange(m, R), [&](index_type r) {
      T v = T(0);
      for (index_type i = i0; i < i1; ++i) {
        const T x = A[i * R + r];
        if (max_norm) {
          const T ax = x < T(0) ? -x : x;
          v = ax > v ? ax : v;
        } else {
          v += x * x;
        }
      }
      single(PerThread(m), [&]() {
        if (max_norm) {
          using Bits = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
          Bits b;
          memcpy(&b, &v, sizeof(T));
          atomic_fetch_max(reinterpret_cast<Bits*>(out + r), b);
        } else {
          atomic_add(out + r, v);
        }
      });
    });
  }
};

// out(i, :) = B(i, :) * W for an R x R matrix W. Item (row block, column tile): 4 rows of B
// against 8 columns of W, the 4 x 8 results in registers across k.
template <class T>
struct RowTimesMatrixFunctor {
  const T* B;
  const T* W;
  T* out;
  index_type I, R, ntc;
  GRAIN_INLINE_FUNCTION void operator()(index_type item) const {
    const index_type i0 = (item / ntc) * kDenseRows, c0 = (item % ntc) * kDenseCols;
    T acc[kDenseRows][kDenseCols] = {};
    if (i0 + kDenseRows <= I && c0 + kDenseCols <= R) {
      for (index_type k = 0; k < R; ++k) {
        const T* w = W + k * R + c0;
        for (int u = 0; u < kDenseRows; ++u) {
          const T x = B[(i0 + u) * R + k];
          GRAIN_SIMD
          for (int v = 0; v < kDenseCols; ++v) acc[u][v] += x * w[v];
        }
      }
    } else {
      for (index_type k = 0; k < R; ++k)
        for (int u = 0; u < kDenseRows && i0 + u < I; ++u)
          for (int v = 0; v < kDenseCols && c0 + v < R; ++v) acc[u][v] += B[(i0 + u) * R + k] * W[k * R + c0 + v];
    }
    for (int u = 0; u < kDenseRows && i0 + u < I; ++u)
      for (int v = 0; v < kDenseCols && c0 + v < R; ++v) out[(i0 + u) * R + c0 + v] = acc[u][v];
  }
};

// sum(e) = sum over s < S of parts[s * n + e] (the GPU Gram's row slices; MTTKRP's private copies)
template <class T>
struct SumSlicesFunctor {
  const T* parts;
  T* sum;
  index_type n, S;
  GRAIN_INLINE_FUNCTION void operator()(index_type e) const {
    T s = 0;
    for (index_type k = 0; k < S; ++k) s += parts[k * n + e];
    sum[e] = s;
  }
};

// A(i, r) *= scale[r], a row per index.
template <class T>
struct ScaleColumnsFunctor {
  T* A;
  const T* scale;
  index_type R;
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const {
    T* a = A + i * R;
    for (index_type r = 0; r < R; ++r) a[r] *= scale[r];
  }
};

template <class T>
struct WeightedDotFunctor {
  const T* A;
  const T* B;
  const T* w;
  index_type R;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, double& s) const {
    for (index_type r = 0; r < R; ++r)
      s += static_cast<double>(A[i * R + r]) * static_cast<double>(B[i * R + r]) * static_cast<double>(w[r]);
  }
};

template <class T>
struct SquaresFunctor {
  const T* v;
  GRAIN_INLINE_FUNCTION void operator()(index_type j, double& s) const {
    s += static_cast<double>(v[j]) * static_cast<double>(v[j]);
  }
};

// <X, K> = sum_j x_j sum_r lambda_r prod_m A_m(i_m, r)
template <class T>
struct InnerProductFunctor {
  const subscript_type* subs;
  const T* vals;
  const T* lambda;
  const T* fac[kMaxSparseModes];
  int N;
  index_type R;
  GRAIN_INLINE_FUNCTION void operator()(index_type j, double& s) const {
    double x = 0;
    for (index_type r = 0; r < R; ++r) {
      double p = static_cast<double>(lambda[r]);
      for (int m = 0; m < N; ++m) p *= static_cast<double>(fac[m][subs[j * N + m] * R + r]);
      x += p;
    }
    s += static_cast<double>(vals[j]) * x;
  }
};

template <class Exec>
int team_rows() {
  return on_host<Exec>() ? 64 : 128;
}

}  // namespace impl

// A View of n elements in *buf, grown (never shrunk) on demand; a fresh one when buf is null.
// Lets CP-ALS reuse its small device buffers instead of allocating several per mode.
template <class T, class Space>
View<T*, LayoutRight, Space> reuse_buffer(View<T*, LayoutRight, Space>* buf, index_type n, const char* label) {
  if (!buf) return View<T*, LayoutRight, Space>(WithoutInitializing, label, n);
  if (static_cast<index_type>(buf->extent(0)) < n) *buf = View<T*, LayoutRight, Space>(WithoutInitializing, label, n);
  return View<T*, LayoutRight, Space>(buf->data(), n);
}

namespace impl {
// G (R x R, full, row-major, in A's space) = A^T A, without a trip to the host. On the GPU one
// strided-batched cuBLAS call over slices of rows plus a pass summing them; on the CPU the
// register-blocked GramFunctor. `buf` is scratch for the GPU's partial products (reused).
template <class Exec, class T, class Space>
void gram_device(const View<T**, LayoutRight, Space>& A, T* G, View<T*, LayoutRight, Space>* buf) {
  const index_type I = static_cast<index_type>(A.extent(0)), R = static_cast<index_type>(A.extent(1));
  if constexpr (!on_host<Exec>()) {
#if defined(GRAIN_ENABLE_CUDA)
    const index_type S = gram_slices(I, R), RR = R * R;
    if (S == 1) {
      gram_cuda(A.data(), I, R, G);
    } else {
      View<T*, LayoutRight, Space> parts = reuse_buffer(buf, RR * S, "gram_parts");
      gram_cuda(A.data(), I, R, parts.data());
      parallel_for(RangePolicy<Exec>(0, RR), SumSlicesFunctor<T>{parts.data(), G, RR, S});
    }
#endif
  } else {
    (void)buf;
    for (index_type e = 0; e < R * R; ++e) G[e] = T(0);
    if (I > 0) {
      const index_type ntr = (R + kDenseRows - 1) / kDenseRows;
      const index_type ntc = (R + kDenseCols - 1) / kDenseCols;
      const index_type blocks = (I + kGramRows - 1) / kGramRows;
      parallel_for(RangePolicy<Exec>(0, blocks * ntr * ntc), GramFunctor<T>{A.data(), G, I, R, ntr, ntc});
    }
  }
}

// Per-column 2-norms squared (max_norm false) or max-norms of A into out[0..R), in A's space.
template <class Exec, class T, class Space>
void column_norms_device(const View<T**, LayoutRight, Space>& A, bool max_norm, T* out) {
  const index_type I = static_cast<index_type>(A.extent(0)), R = static_cast<index_type>(A.extent(1));
  deep_copy(View<T*, LayoutRight, Space>(out, R), T(0));
  if (I > 0) {
    const index_type rows = team_rows<Exec>() * 4;
    TeamPolicy<Exec> policy((I + rows - 1) / rows, on_host<Exec>() ? 1 : (R < 256 ? static_cast<int>(R) : 256), 1);
    parallel_for(policy, ColumnNormFunctor<T, typename TeamPolicy<Exec>::member_type>{A.data(), out, I, R, rows, max_norm});
  }
}

// CP-ALS's column weight from a column_norms_device result: the 2-norm (sqrt of the sum of
// squares) on the first iteration, max(max-norm, 1) after, as the Tensor Toolbox does.
GRAIN_INLINE_FUNCTION double cp_weight(double norm_result, bool max_norm) {
  return max_norm ? (norm_result > 1.0 ? norm_result : 1.0) : std::sqrt(norm_result);
}

// scale[r] = 1 / cp_weight(norms[r]), or 1 for a column of weight 0 (left as it is).
template <class T>
struct InverseWeightsFunctor {
  const T* norms;
  T* scale;
  bool max_norm;
  GRAIN_INLINE_FUNCTION void operator()(index_type r) const {
    const double w = cp_weight(static_cast<double>(norms[r]), max_norm);
    scale[r] = static_cast<T>(w > 0 ? 1.0 / w : 1.0);
  }
};

// A(i, r) *= scale[r], one element per index: consecutive threads take consecutive elements of
// a row, so a warp's accesses coalesce (a row per thread would put them R elements apart).
template <class T>
struct ScaleElementsFunctor {
  T* A;
  const T* scale;
  index_type R;
  GRAIN_INLINE_FUNCTION void operator()(index_type e) const { A[e] *= scale[e % R]; }
};

// A(:, r) *= scale[r] with scale in A's space: on the CPU a row per index (vectorizes along the
// row), on the GPU an element per index (coalesced).
template <class Exec, class T, class Space>
void scale_columns_device(const View<T**, LayoutRight, Space>& A, const T* scale) {
  const index_type I = static_cast<index_type>(A.extent(0)), R = static_cast<index_type>(A.extent(1));
  if constexpr (on_host<Exec>())
    parallel_for(RangePolicy<Exec>(0, I), ScaleColumnsFunctor<T>{A.data(), scale, R});
  else
    parallel_for(RangePolicy<Exec>(0, I * R), ScaleElementsFunctor<T>{A.data(), scale, R});
}
}  // namespace impl

// The upper triangle of a row-major R x R G mirrored, in double.
template <class T>
std::vector<double> symmetric_from_upper(const T* G, index_type R) {
  std::vector<double> out(static_cast<std::size_t>(R * R));
  for (index_type r = 0; r < R; ++r)
    for (index_type c = 0; c < R; ++c) out[r * R + c] = static_cast<double>(c >= r ? G[r * R + c] : G[c * R + r]);
  return out;
}

// G = A^T A (R x R, row-major, returned on the host in double). `buf` (optional) is device
// scratch reused between calls.
template <class Exec, class T, class Space>
std::vector<double> gram(const View<T**, LayoutRight, Space>& A, View<T*, LayoutRight, Space>* buf = nullptr) {
  const index_type R = static_cast<index_type>(A.extent(1));
  View<T*, LayoutRight, Space> G(WithoutInitializing, "gram", R * R);
  impl::gram_device<Exec>(A, G.data(), buf);
  auto h = create_mirror_view(G);
  deep_copy(h, G);
  return symmetric_from_upper(h.data(), R);
}

// out = B W for B (I x R) and W (R x R, row-major); out must not alias B. On the GPU one cuBLAS
// GEMM; on the CPU the register-blocked RowTimesMatrixFunctor (4 rows x 8 columns per item).
template <class Exec, class T, class Space>
void times_matrix(const View<T**, LayoutRight, Space>& B, const View<T*, LayoutRight, Space>& W,
                  const View<T**, LayoutRight, Space>& out) {
  const index_type I = static_cast<index_type>(B.extent(0)), R = static_cast<index_type>(B.extent(1));
  if (static_cast<index_type>(out.extent(0)) != I || static_cast<index_type>(out.extent(1)) != R ||
      static_cast<index_type>(W.extent(0)) < R * R)
    grain::impl::throw_error("grain::cp::times_matrix: out ", out.shape(), " and W ", W.shape(),
                             " do not fit B ", B.shape());
  if (I == 0 || R == 0) return;
  if constexpr (!impl::on_host<Exec>()) {
#if defined(GRAIN_ENABLE_CUDA)
    impl::times_matrix_cuda(B.data(), W.data(), I, R, out.data());
#endif
  } else {
    const index_type ntc = (R + impl::kDenseCols - 1) / impl::kDenseCols;
    const index_type nrb = (I + impl::kDenseRows - 1) / impl::kDenseRows;
    parallel_for(RangePolicy<Exec>(0, nrb * ntc), impl::RowTimesMatrixFunctor<T>{B.data(), W.data(), out.data(), I, R, ntc});
  }
}

// Per-column 2-norms (max_norm false) or max-norms of A, on the host.
template <class Exec, class T, class Space>
std::vector<double> column_norms(const View<T**, LayoutRight, Space>& A, bool max_norm,
                                 View<T*, LayoutRight, Space>* buf = nullptr) {
  const index_type R = static_cast<index_type>(A.extent(1));
  View<T*, LayoutRight, Space> n = reuse_buffer(buf, R, "column_norms");
  impl::column_norms_device<Exec>(A, max_norm, n.data());
  auto h = create_mirror_view(n);
  deep_copy(h, n);
  std::vector<double> out(R);
  for (index_type r = 0; r < R; ++r) out[r] = max_norm ? h(r) : std::sqrt(static_cast<double>(h(r)));
  return out;
}

// A(:, r) *= scale[r]
template <class Exec, class T, class Space>
void scale_columns(const View<T**, LayoutRight, Space>& A, const std::vector<double>& scale,
                   View<T*, LayoutRight, Space>* buf = nullptr) {
  const index_type R = static_cast<index_type>(A.extent(1));
  View<T*, LayoutRight, Space> s = reuse_buffer(buf, R, "column_scale");
  auto h = create_mirror_view(s);
  for (index_type r = 0; r < R; ++r) h(r) = static_cast<T>(scale[r]);
  deep_copy(s, h);
  impl::scale_columns_device<Exec>(A, s.data());
}

// ||K||^2 from the Gram matrices: lambda^T (G_1 .* ... .* G_N) lambda.
inline double ktensor_norm_squared(const std::vector<double>& lambda,
                                   const std::vector<std::vector<double>>& grams) {
  const std::size_t R = lambda.size();
  double s = 0;
  for (std::size_t e = 0; e < R * R; ++e) {
    double h = lambda[e / R] * lambda[e % R];
    for (const auto& g : grams) h *= g[e];
    s += h;
  }
  return s;
}

template <class Exec, class T, class Space>
std::vector<double> host_lambda(const Ktensor<T, Space>& K) {
  auto h = create_mirror_view(K.lambda);
  deep_copy(h, K.lambda);
  return std::vector<double>(h.data(), h.data() + K.rank());
}

template <class Exec, class T, class Space>
double norm(const Ktensor<T, Space>& K) {
  std::vector<std::vector<double>> g;
  for (int m = 0; m < K.ndims(); ++m) g.push_back(gram<Exec>(K.factors[m]));
  return std::sqrt(std::max(0.0, ktensor_norm_squared(host_lambda<Exec>(K), g)));
}

// Columns scaled to unit 2-norm, the norms moved into lambda (zero columns left as they are).
template <class Exec, class T, class Space>
void normalize(Ktensor<T, Space>& K) {
  std::vector<double> lambda = host_lambda<Exec>(K);
  for (int m = 0; m < K.ndims(); ++m) {
    std::vector<double> n = column_norms<Exec>(K.factors[m], false);
    std::vector<double> inv(n.size());
    for (std::size_t r = 0; r < n.size(); ++r) {
      inv[r] = n[r] > 0 ? 1.0 / n[r] : 1.0;
      lambda[r] *= n[r] > 0 ? n[r] : 1.0;
    }
    scale_columns<Exec>(K.factors[m], inv);
  }
  auto h = create_mirror_view(K.lambda);
  for (int r = 0; r < K.rank(); ++r) h(r) = static_cast<T>(lambda[r]);
  deep_copy(K.lambda, h);
}

// Normalizes, then orders the components by decreasing weight (on the host: R columns).
template <class Exec, class T, class Space>
void arrange(Ktensor<T, Space>& K) {
  normalize<Exec>(K);
  const int R = K.rank();
  std::vector<double> lambda = host_lambda<Exec>(K);
  std::vector<int> order(R);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] > lambda[b]; });
  auto hl = create_mirror_view(K.lambda);
  for (int r = 0; r < R; ++r) hl(r) = static_cast<T>(lambda[order[r]]);
  deep_copy(K.lambda, hl);
  for (int m = 0; m < K.ndims(); ++m) {
    auto h = create_mirror(K.factors[m]);
    deep_copy(h, K.factors[m]);
    auto p = create_mirror(K.factors[m]);
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (int r = 0; r < R; ++r) p(i, r) = h(i, order[r]);
    deep_copy(K.factors[m], p);
  }
}

// <X, K>, one pass over the nonzeros.
template <class Exec, class T, class Space>
double inner_product(const SparseTensor<T, Space>& X, const Ktensor<T, Space>& K) {
  if (X.dims() != K.dims())
    grain::impl::throw_error("grain::cp::inner_product: tensor ", dims_string(X.dims()), " and Ktensor ",
                      dims_string(K.dims()), " differ in shape");
  impl::InnerProductFunctor<T> f{X.subscripts().data(), X.values().data(), K.lambda.data(), {},
                                 X.ndims(), K.rank()};
  for (int m = 0; m < X.ndims(); ++m) f.fac[m] = K.factors[m].data();
  double s = 0;
  parallel_reduce(RangePolicy<Exec>(0, X.nnz()), f, s);
  return s;
}

// ||X||^2
template <class Exec, class T, class Space>
double norm_squared(const SparseTensor<T, Space>& X) {
  double s = 0;
  parallel_reduce(RangePolicy<Exec>(0, X.nnz()), impl::SquaresFunctor<T>{X.values().data()}, s);
  return s;
}

// Factor entries uniform in [0, 1) from one seeded stream, drawn on the host in mode order and
// copied to Space: the same seed gives the same start on every back end. lambda = 1.
template <class T, class Space>
Ktensor<T, Space> random_ktensor(const std::vector<index_type>& dims, int rank, std::uint64_t seed) {
  Ktensor<T, Space> K(dims, rank);
  std::mt19937_64 g(seed);
  for (int m = 0; m < K.ndims(); ++m) {
    auto h = create_mirror(K.factors[m]);
    for (std::size_t e = 0; e < h.size(); ++e) h.data()[e] = static_cast<T>((g() >> 11) * (1.0 / 9007199254740992.0));
    deep_copy(K.factors[m], h);
  }
  deep_copy(K.lambda, T(1));
  return K;
}

// Text files: PREFIX_lambda.txt (R values) and PREFIX_mode<m>.txt (one factor row per line).
// Rows are written with the shortest text that reads back exactly.
template <class T>
void write_ktensor(const std::string& prefix, const Ktensor<T, HostSpace>& K);
// The same for a Ktensor of a compacted tensor (grain::compact): each line of PREFIX_mode<m>.txt
// starts with the row's 1-based index in the original tensor, original[m][i] + 1, then its R
// values; the rows of indices the tensor never uses are zero and left out.
template <class T>
void write_ktensor(const std::string& prefix, const Ktensor<T, HostSpace>& K,
                   const std::vector<std::vector<index_type>>& original);
// Reads PREFIX_lambda.txt (optional: ones when absent) and PREFIX_mode<m>.txt for m = 1..N,
// checking each file's shape against dims and rank.
template <class T>
Ktensor<T, HostSpace> read_ktensor(const std::string& prefix, const std::vector<index_type>& dims,
                                   int rank);
// The same with the shape taken from the files: the modes are PREFIX_mode1.txt, PREFIX_mode2.txt, ...
// up to the first one absent; each one's rows are its mode's size; the rank is the number of lines
// of PREFIX_lambda.txt, or the values per row of PREFIX_mode1.txt without it. Factor files of a
// --compact run (an index before each row) have one value more per row than the weights and are
// refused, naming the file.
template <class T>
Ktensor<T, HostSpace> read_ktensor(const std::string& prefix);

}  // namespace grain::cp
