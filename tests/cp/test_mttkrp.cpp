// MTTKRP: every algorithm on every back end against an independent dense reference.
#include <map>

#include "grain_test.hpp"

namespace {

using grain::index_type;
using grain::cp::MttkrpAlgorithm;

// A host tensor with random coordinates, explicit duplicates, and index 1 of mode 0 never used
// (an empty slice).
grain::SparseTensor<double> make_tensor(const std::vector<index_type>& dims, index_type nnz,
                                        std::uint64_t seed) {
  const int N = static_cast<int>(dims.size());
  grain::SparseTensor<double> X(dims, nnz);
  std::mt19937_64 g(seed);
  for (index_type j = 0; j < nnz; ++j) {
    if (j % 7 == 3) {  // a duplicate of an earlier coordinate
      for (int m = 0; m < N; ++m) X.subscripts()(j, m) = X.subscripts()(j / 2, m);
    } else {
      for (int m = 0; m < N; ++m) {
        auto i = static_cast<grain::subscript_type>(g() % dims[m]);
        if (m == 0 && i == 1) i = 0;
        X.subscripts()(j, m) = i;
      }
    }
    X.values()(j) = (g() & 1 ? 1.0 : -1.0) * (0.5 + (g() % 1000) / 1000.0);
  }
  return X;
}

// Dense tensor from the coordinates (duplicates summed), then MTTKRP by visiting every entry.
std::vector<double> dense_mttkrp(const grain::SparseTensor<double>& X,
                                 const std::vector<std::vector<double>>& A, int n, index_type R) {
  const int N = X.ndims();
  index_type total = 1;
  for (int m = 0; m < N; ++m) total *= X.dim(m);
  std::vector<double> dense(total, 0.0);
  for (index_type j = 0; j < X.nnz(); ++j) {
    index_type lin = 0;
    for (int m = 0; m < N; ++m) lin = lin * X.dim(m) + X.subscripts()(j, m);
    dense[lin] += X.values()(j);
  }
  std::vector<double> out(X.dim(n) * R, 0.0);
  std::vector<index_type> idx(N);
  for (index_type lin = 0; lin < total; ++lin) {
    index_type q = lin;
    for (int m = N - 1; m >= 0; --m) {
      idx[m] = q % X.dim(m);
      q /= X.dim(m);
    }
    if (dense[lin] == 0) continue;
    for (index_type r = 0; r < R; ++r) {
      double p = dense[lin];
      for (int m = 0; m < N; ++m)
        if (m != n) p *= A[m][idx[m] * R + r];
      out[idx[n] * R + r] += p;
    }
  }
  return out;
}

template <class Exec, class T>
void check_case(const std::vector<index_type>& dims, index_type R, std::uint64_t seed) {
  using Space = typename Exec::memory_space;
  const int N = static_cast<int>(dims.size());
  auto H = make_tensor(dims, 150 + 10 * N, seed);
  // Tensor and factors in T on Exec's space.
  grain::SparseTensor<T> HT(dims, H.nnz());
  grain::deep_copy(HT.subscripts(), H.subscripts());
  for (index_type j = 0; j < H.nnz(); ++j) HT.values()(j) = static_cast<T>(H.values()(j));
  for (index_type j = 0; j < H.nnz(); ++j) H.values()(j) = static_cast<double>(HT.values()(j));
  auto X = HT.template to_space<Space>();
  auto KH = grain::cp::random_ktensor<T, grain::HostSpace>(dims, static_cast<int>(R), seed + 1);
  std::vector<std::vector<double>> A(N);
  for (int m = 0; m < N; ++m) {
    grain::test::fill_random(KH.factors[m], seed + 10 + m);
    A[m].assign(KH.factors[m].data(), KH.factors[m].data() + KH.factors[m].size());
  }
  auto K = KH.template to_space<Space>();
  const T tol = grain::test::tolerance<T>(64);
  for (int n = 0; n < N; ++n) {
    const auto ref = dense_mttkrp(H, A, n, R);
    double scale = 1;
    for (double v : ref) scale = std::max(scale, std::abs(v));
    // The tiled algorithm runs twice: with its default tile (one tile at these sizes) and with
    // tiles of 2 rows (every staged row change is a tile change).
    for (auto [alg, tile_rows] : std::initializer_list<std::pair<MttkrpAlgorithm, index_type>>{
             {MttkrpAlgorithm::Atomic, 0}, {MttkrpAlgorithm::Team, 0}, {MttkrpAlgorithm::Perm, 0},
             {MttkrpAlgorithm::Tiled, 0}, {MttkrpAlgorithm::Tiled, 2}, {MttkrpAlgorithm::Privatized, 0},
             {MttkrpAlgorithm::Auto, 0}}) {
      grain::View<T**, grain::LayoutRight, Space> out("out", dims[n], R);
      grain::test::poison(out);
      grain::cp::MttkrpWorkspace<T, Space> ws;
      ws.tiled_rows = tile_rows;
      const auto ran = grain::cp::mttkrp<Exec>(X, K, n, out, alg, &ws);
      EXPECT_NE(ran, MttkrpAlgorithm::Auto);
      auto h = grain::create_mirror_view(out);
      grain::deep_copy(h, out);
      for (index_type e = 0; e < dims[n] * R; ++e) {
        const double err = std::abs(static_cast<double>(h.data()[e]) - ref[e]) / scale;
        ASSERT_TRUE(err <= tol) << "N=" << N << " R=" << R << " mode " << n << " algorithm "
                                << grain::cp::mttkrp_algorithm_name(alg) << " (tile rows " << tile_rows << ") entry " << e << ": "
                                << h.data()[e] << " vs " << ref[e];
      }
    }
  }
}

template <class Exec>
void check_all_shapes() {
  std::uint64_t seed = 100;
  for (index_type R : {1, 5, 17, 64}) {
    check_case<Exec, double>({7, 5, 9}, R, seed++);
    check_case<Exec, double>({3, 6, 5, 4}, R, seed++);
    check_case<Exec, double>({3, 4, 5, 3, 5}, R, seed++);
  }
  check_case<Exec, double>({7, 5, 9}, 70, seed++);  // two R blocks of the team and perm kernels
  check_case<Exec, double>({3, 6, 5, 4}, 150, seed++);  // three passes, the last one partial
  check_case<Exec, float>({7, 5, 9}, 17, seed++);
  check_case<Exec, float>({3, 6, 5, 4}, 64, seed++);
}
GRAIN_BACKEND_TEST(Mttkrp, EveryAlgorithmMatchesDenseReference) { check_all_shapes<TypeParam>(); }

template <class Exec>
void check_shape_errors() {
  using Space = typename Exec::memory_space;
  auto X = make_tensor({4, 5, 6}, 20, 1).template to_space<Space>();
  auto K = grain::cp::random_ktensor<double, Space>({4, 5, 6}, 3, 2);
  grain::View<double**, grain::LayoutRight, Space> bad("bad", 5, 3);
  EXPECT_THROW(grain::cp::mttkrp<Exec>(X, K, 0, bad), grain::Error);
  EXPECT_THROW(grain::cp::mttkrp<Exec>(X, K, 3, bad), grain::Error);
  auto K2 = grain::cp::random_ktensor<double, Space>({4, 5, 7}, 3, 2);
  grain::View<double**, grain::LayoutRight, Space> ok("ok", 4, 3);
  EXPECT_THROW(grain::cp::mttkrp<Exec>(X, K2, 0, ok), grain::Error);
}
GRAIN_BACKEND_TEST(Mttkrp, ShapeErrors) { check_shape_errors<TypeParam>(); }

// The tiled order's plan on Genten's tensors (double): tiles only where the gathered factors'
// columns of one pass exceed the live budget, and then few row updates next to 10M nonzeros.
TEST(Mttkrp, TiledPlanOnGentenShapes) {
  using grain::cp::mttkrp_tiled_plan;
  const std::vector<index_type> three{30000, 40000, 50000}, four{5000, 250000, 5000, 100};
  auto p = mttkrp_tiled_plan<double>(three, 0, 16);
  EXPECT_EQ(p.s, 2);
  EXPECT_EQ(p.tiles, 1);  // 11.5 MB of gathered rows: they fit
  p = mttkrp_tiled_plan<double>(three, 0, 64);
  EXPECT_EQ(p.s, 2);
  EXPECT_EQ(p.rows_per_tile, 12288);  // a quarter of the budget: B alone takes 20.5 MB
  EXPECT_EQ(p.tiles, 5);
  EXPECT_EQ(mttkrp_tiled_plan<double>(three, 0, 128).tiles, 5);  // per pass of 64 columns
  p = mttkrp_tiled_plan<double>(four, 0, 64);
  EXPECT_EQ(p.s, 1);
  EXPECT_EQ(p.tiles, 6);
  EXPECT_EQ(mttkrp_tiled_plan<double>(four, 1, 64).tiles, 1);  // 5000-row factors fit
  EXPECT_EQ(mttkrp_tiled_plan<double>(four, 3, 16).tiles, 2);
  EXPECT_EQ(mttkrp_tiled_plan<double>(four, 0, 64, 1000).tiles, 250);  // explicit height
  // Row updates: every (tile, row) pair is hit when rows are hot, few when nonzeros are scarce.
  EXPECT_NEAR(grain::cp::mttkrp_tiled_row_updates(30000, 5, 10000000), 150000.0, 1.0);
  EXPECT_NEAR(grain::cp::mttkrp_tiled_row_updates(1000000, 10, 100), 100.0, 0.01);
}

TEST(Mttkrp, AlgorithmNames) {
  EXPECT_EQ(grain::cp::parse_mttkrp_algorithm("perm"), MttkrpAlgorithm::Perm);
  EXPECT_EQ(grain::cp::parse_mttkrp_algorithm("tiled"), MttkrpAlgorithm::Tiled);
  EXPECT_THROW((void)grain::cp::parse_mttkrp_algorithm("fast"), grain::Error);
}

template <class Exec>
void check_ktensor_ops() {
  using Space = typename Exec::memory_space;
  const std::vector<index_type> dims = {5, 7, 3};
  auto X = make_tensor(dims, 40, 3);
  auto KH = grain::cp::random_ktensor<double, grain::HostSpace>(dims, 4, 9);
  KH.lambda(0) = 2.0;
  KH.lambda(1) = 0.5;
  KH.lambda(2) = 3.0;
  KH.lambda(3) = 1.0;
  // Dense reference of <X, K> and ||K||.
  double ip = 0, nn = 0;
  for (index_type j = 0; j < X.nnz(); ++j) {
    double s = 0;
    for (int r = 0; r < 4; ++r) {
      double p = KH.lambda(r);
      for (int m = 0; m < 3; ++m) p *= KH.factors[m](X.subscripts()(j, m), r);
      s += p;
    }
    ip += X.values()(j) * s;
  }
  for (index_type a = 0; a < 5; ++a)
    for (index_type b = 0; b < 7; ++b)
      for (index_type c = 0; c < 3; ++c) {
        double s = 0;
        for (int r = 0; r < 4; ++r)
          s += KH.lambda(r) * KH.factors[0](a, r) * KH.factors[1](b, r) * KH.factors[2](c, r);
        nn += s * s;
      }
  auto K = KH.template to_space<Space>();
  auto XD = X.template to_space<Space>();
  EXPECT_TRUE(grain::test::near(grain::cp::inner_product<Exec>(XD, K), ip, 1e-12));
  EXPECT_TRUE(grain::test::near(grain::cp::norm<Exec>(K), std::sqrt(nn), 1e-12));
  grain::cp::arrange<Exec>(K);
  EXPECT_TRUE(grain::test::near(grain::cp::norm<Exec>(K), std::sqrt(nn), 1e-12));
  EXPECT_TRUE(grain::test::near(grain::cp::inner_product<Exec>(XD, K), ip, 1e-12));
  auto l = grain::cp::host_lambda<Exec>(K);
  for (int r = 1; r < 4; ++r) EXPECT_GE(l[r - 1], l[r]);
  auto n = grain::cp::column_norms<Exec>(K.factors[1], false);
  for (double v : n) EXPECT_TRUE(grain::test::near(v, 1.0, 1e-12));
}
GRAIN_BACKEND_TEST(Ktensor, NormInnerProductArrange) { check_ktensor_ops<TypeParam>(); }

TEST(DenseSolve, CholeskyAndPseudoInverse) {
  std::vector<double> V = {4, 2, 0, 2, 3, 1, 0, 1, 2};
  const auto A = V;
  EXPECT_FALSE(grain::cp::spd_inverse(V, 3));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += A[i * 3 + k] * V[k * 3 + j];
      EXPECT_TRUE(grain::test::near(s, i == j ? 1.0 : 0.0, 1e-12));
    }
  // Rank 1: [1 1; 1 1] has pseudo-inverse [1 1; 1 1] / 4.
  std::vector<double> S = {1, 1, 1, 1};
  EXPECT_TRUE(grain::cp::spd_inverse(S, 2));
  for (double v : S) EXPECT_TRUE(grain::test::near(v, 0.25, 1e-12));
}

}  // namespace
