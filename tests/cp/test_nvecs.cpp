// The nvecs start: against the eigenvectors of X_(n) X_(n)^T formed from a dense copy and
// diagonalized here (Jacobi, long double); reaching fit 1 from every seed where random starts
// stall; its errors.
#include "cp_test_util.hpp"
#include "grain_test.hpp"

namespace {

using grain::index_type;

// Eigenvalues (descending) and eigenvectors (columns of V, n x n row-major) of the symmetric A,
// by cyclic Jacobi rotations.
void jacobi(std::vector<long double> A, int n, std::vector<long double>& w, std::vector<long double>& V) {
  V.assign(static_cast<std::size_t>(n) * n, 0.0L);
  for (int i = 0; i < n; ++i) V[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    long double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += A[p * n + q] * A[p * n + q];
    if (off < 1e-40L) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (A[p * n + q] == 0) continue;
        const long double theta = (A[q * n + q] - A[p * n + p]) / (2 * A[p * n + q]);
        const long double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const long double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // A = J^T A J
          const long double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {
          const long double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; ++k) {
          const long double vkp = V[k * n + p], vkq = V[k * n + q];
          V[k * n + p] = c * vkp - s * vkq;
          V[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return A[a * n + a] > A[b * n + b]; });
  std::vector<long double> W(V.size());
  w.resize(n);
  for (int k = 0; k < n; ++k) {
    w[k] = A[order[k] * n + order[k]];
    for (int i = 0; i < n; ++i) W[i * n + k] = V[i * n + order[k]];
  }
  V.swap(W);
}

// X_(n) X_(n)^T from a dense copy of the (3-way) tensor.
std::vector<long double> unfolding_gram(const grain::SparseTensor<double>& H, int n) {
  const auto d = H.dims();
  std::vector<long double> dense(static_cast<std::size_t>(d[0] * d[1] * d[2]), 0.0L);
  for (index_type j = 0; j < H.nnz(); ++j)
    dense[(H.subscripts()(j, 0) * d[1] + H.subscripts()(j, 1)) * d[2] + H.subscripts()(j, 2)] += H.values()(j);
  const index_type I = d[n];
  std::vector<long double> G(static_cast<std::size_t>(I * I), 0.0L);
  for (index_type a = 0; a < d[0]; ++a)
    for (index_type b = 0; b < d[1]; ++b)
      for (index_type c = 0; c < d[2]; ++c) {
        const index_type at[3] = {a, b, c};
        const long double x = dense[(a * d[1] + b) * d[2] + c];
        if (x == 0) continue;
        for (index_type i = 0; i < I; ++i) {
          index_type other[3] = {a, b, c};
          other[n] = i;
          G[at[n] * I + i] += x * dense[(other[0] * d[1] + other[1]) * d[2] + other[2]];
        }
      }
  return G;
}

template <class Exec>
void check_against_eigenvectors() {
  using Space = typename Exec::memory_space;
  // Mode sizes below and above the block (R + 10), so that both the one-step exact case and the
  // iteration are checked.
  const auto H = grain::test::random_ktensor_tensor({9, 23, 31}, 900, 4, 3);
  const auto X = H.template to_space<Space>();
  const int R = 3;
  for (bool absolute : {false, true}) {
    grain::cp::NvecsOptions o;
    o.seed = 7;
    o.absolute = absolute;
    o.tol = 1e-12;
    o.maxiters = 1000;
    const auto K = grain::cp::nvecs_ktensor<Exec>(X, R, o);
    const auto lambda = grain::test::to_host(K.lambda);
    for (int r = 0; r < R; ++r) EXPECT_EQ(lambda(r), 1.0);
    for (int n = 0; n < 3; ++n) {
      const index_type I = H.dim(n);
      std::vector<long double> w, V;
      jacobi(unfolding_gram(H, n), static_cast<int>(I), w, V);
      for (int r = 0; r < R; ++r) ASSERT_TRUE(w[r] - w[r + 1] > 1e-3L * w[0]) << "mode " << n << ": a close pair";
      const auto F = grain::test::to_host(K.factors[n]);
      for (int r = 0; r < R; ++r) {
        // Up to sign: the sign making the largest-magnitude entry positive.
        index_type big = 0;
        for (index_type i = 1; i < I; ++i)
          if (std::abs(V[i * I + r]) > std::abs(V[big * I + r])) big = i;
        const double sign = V[big * I + r] < 0 ? -1 : 1;
        for (index_type i = 0; i < I; ++i) {
          double ref = sign * static_cast<double>(V[i * I + r]);
          if (absolute) ref = std::abs(ref);
          ASSERT_TRUE(grain::test::near(F(i, r), ref, 1e-6)) << "mode " << n << " vector " << r << " row " << i;
        }
      }
    }
  }
}
GRAIN_BACKEND_TEST(Nvecs, MatchesTheEigenvectorsOfTheUnfoldingsGram) { check_against_eigenvectors<TypeParam>(); }

// An exactly rank-6 tensor with block-like supports, where random starts stall in local minima:
// from the nvecs start CP-ALS reaches fit 1 whatever the seed.
template <class Exec>
void check_nvecs_reaches_fit_one() {
  using Space = typename Exec::memory_space;
  const auto H = grain::test::block_tensor(3, 6, 8, 4);
  const auto X = H.template to_space<Space>();
  grain::cp::CpAlsOptions o;
  o.maxiters = 300;
  o.tol = 1e-10;
  int stalled = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    grain::cp::NvecsOptions no;
    no.seed = seed;
    auto M = grain::cp::nvecs_ktensor<Exec>(X, 6, no);
    const auto res = grain::cp::cp_als<Exec>(X, M, o);
    EXPECT_TRUE(res.fit > 0.9999) << "seed " << seed << ": fit " << res.fit << " after " << res.iterations.size()
                                  << " iterations";
    auto Mr = grain::cp::random_ktensor<double, Space>(X.dims(), 6, seed);
    stalled += grain::cp::cp_als<Exec>(X, Mr, o).fit < 0.9;
  }
  // The premise: the tensor has local minima that random starts fall into.
  EXPECT_TRUE(stalled > 0) << "every random start reached fit 1";
}
GRAIN_BACKEND_TEST(Nvecs, ReachesFitOneFromEverySeedOnABlockTensor) { check_nvecs_reaches_fit_one<TypeParam>(); }

TEST(Nvecs, ErrorsNameTheProblem) {
  const auto H = grain::test::random_ktensor_tensor({4, 9, 8}, 100, 2, 3);
  std::string e = grain::test::error_of([&] { (void)grain::cp::nvecs_ktensor<grain::Serial>(H, 5); });
  EXPECT_TRUE(e.find("rank 5 exceeds mode 1's size 4") != std::string::npos) << e;
  e = grain::test::error_of([&] { (void)grain::cp::nvecs_ktensor<grain::Serial>(H, 0); });
  EXPECT_TRUE(e.find("rank 0") != std::string::npos) << e;
  grain::cp::NvecsOptions o;
  o.maxiters = 0;
  e = grain::test::error_of([&] { (void)grain::cp::nvecs_ktensor<grain::Serial>(H, 2, o); });
  EXPECT_TRUE(e.find("maxiters 0") != std::string::npos) << e;
}

}  // namespace
