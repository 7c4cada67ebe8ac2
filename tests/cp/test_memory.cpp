// Memory before allocation and compacted index ranges: a run that cannot fit stops with the
// sizes and what to change, Auto gives up copies before the run, and a compacted decomposition is
// the full one restricted to the used rows.
#include <fstream>
#include <set>

#include "grain_test.hpp"

namespace {

using grain::index_type;
using grain::cp::MttkrpAlgorithm;

// Random nonzeros whose mode-m indices are drawn from every third index plus a far one: most of
// each range unused.
grain::SparseTensor<double> gappy_tensor(const std::vector<index_type>& dims, index_type nnz, std::uint64_t seed) {
  const int N = static_cast<int>(dims.size());
  grain::SparseTensor<double> X(dims, nnz);
  std::mt19937_64 g(seed);
  for (index_type j = 0; j < nnz; ++j) {
    for (int m = 0; m < N; ++m) {
      const index_type i = j == 0 ? dims[m] - 1 : 3 * static_cast<index_type>(g() % ((dims[m] - 1) / 3));
      X.subscripts()(j, m) = static_cast<grain::subscript_type>(i);
    }
    X.values()(j) = (g() & 1 ? 1.0 : -1.0) * (0.5 + (g() % 1000) / 1000.0);
  }
  return X;
}

// A 3-way tensor of 2^31 - 1 indices per mode: at rank 1024 its factors need 48 TiB.
grain::SparseTensor<double> huge_range_tensor() {
  grain::SparseTensor<double> X({2147483647, 2147483647, 2147483647}, 2);
  for (int m = 0; m < 3; ++m) X.subscripts()(0, m) = 2147483646u, X.subscripts()(1, m) = 5;
  X.values()(0) = 1.5, X.values()(1) = -2;
  return X;
}

template <class Exec>
void check_too_big_is_a_clear_error() {
  const auto X = huge_range_tensor();
  const std::string msg = grain::test::error_of([&] { grain::cp::check_cp_als_memory<Exec, double>(X, 1024, MttkrpAlgorithm::Auto); });
  EXPECT_NE(msg.find("not enough memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 1024"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the factor matrices (6442450941 rows x 1024 x 8 B)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--compact (mode 1 uses 2 of 2147483647 indices"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a smaller rank"), std::string::npos) << msg;
  // A tensor that fits passes.
  const auto Y = gappy_tensor({40, 50, 60}, 500, 3);
  EXPECT_EQ(grain::test::error_of([&] { grain::cp::check_cp_als_memory<Exec, double>(Y, 8, MttkrpAlgorithm::Auto); }),
            "(no error)");
  // So does the library's own check inside cp_als, which runs the decomposition.
  using Space = typename Exec::memory_space;
  auto Xd = Y.template to_space<Space>();
  auto M = grain::cp::random_ktensor<double, Space>(Xd.dims(), 4, 1);
  grain::cp::CpAlsOptions o;
  o.maxiters = 3;
  const auto res = grain::cp::cp_als<Exec>(Xd, M, o);
  EXPECT_TRUE(res.fit > 0 && res.fit < 1) << res.fit;
}
GRAIN_BACKEND_TEST(CpMemory, TooBigIsAClearError) { check_too_big_is_a_clear_error<TypeParam>(); }

template <class Exec>
void check_auto_gives_up_copies() {
  // Hot modes: Auto's first choice copies the tensor (perm or tiled).
  const auto X = gappy_tensor({30, 40, 50}, 20000, 4);
  const index_type R = 8;
  const auto plenty = grain::cp::plan_mttkrp_algorithms<Exec>(X, R, MttkrpAlgorithm::Auto, 1e15, true);
  ASSERT_EQ(plenty.size(), 3u);
  for (MttkrpAlgorithm a : plenty) EXPECT_NE(a, MttkrpAlgorithm::Auto);
  const double copy_free = grain::cp::total_bytes(
      grain::cp::cp_als_memory<Exec>(X, R, std::vector<MttkrpAlgorithm>(3, MttkrpAlgorithm::Team), true));
  const double first = grain::cp::total_bytes(grain::cp::cp_als_memory<Exec>(X, R, plenty, true));
  if (first > copy_free) {
    // Only the copy-free run fits: every mode falls back to team.
    const auto tight = grain::cp::plan_mttkrp_algorithms<Exec>(X, R, MttkrpAlgorithm::Auto,
                                                               copy_free / grain::cp::kAutoCopiesFraction, true);
    for (MttkrpAlgorithm a : tight) EXPECT_EQ(a, MttkrpAlgorithm::Team);
  }
  // An algorithm asked for is kept whatever the memory.
  for (MttkrpAlgorithm a : grain::cp::plan_mttkrp_algorithms<Exec>(X, R, MttkrpAlgorithm::Perm, 1.0, true))
    EXPECT_EQ(a, MttkrpAlgorithm::Perm);
  // The parts grow with what each algorithm keeps: perm's sorted copies are counted.
  const double perm = grain::cp::total_bytes(
      grain::cp::cp_als_memory<Exec>(X, R, std::vector<MttkrpAlgorithm>(3, MttkrpAlgorithm::Perm), true));
  EXPECT_GE(perm, copy_free + 3.0 * double(X.bytes()));
}
GRAIN_BACKEND_TEST(CpMemory, AutoGivesUpCopiesBeforeTheRun) { check_auto_gives_up_copies<TypeParam>(); }

// The privatized MTTKRP with one copy accumulates into the output: no workspace of the mode's
// size (a one-nonzero tensor of a huge range once took gigabytes here).
TEST(CpMemory, OneCopyPrivatizedTakesNoWorkspace) {
  const auto X = gappy_tensor({300000, 20, 30}, 1, 5);
  auto K = grain::cp::random_ktensor<double, grain::HostSpace>(X.dims(), 4, 2);
  grain::View<double**, grain::LayoutRight, grain::HostSpace> out("out", X.dim(0), 4);
  grain::test::poison(out);
  grain::cp::MttkrpWorkspace<double, grain::HostSpace> ws;
  grain::cp::mttkrp<grain::Serial>(X, K, 0, out, MttkrpAlgorithm::Privatized, &ws);
  EXPECT_EQ(ws.privatized.extent(0), 0u);
  const index_type i = X.subscripts()(0, 0);
  for (int r = 0; r < 4; ++r) {
    const double want = X.values()(0) * K.factors[1](X.subscripts()(0, 1), r) * K.factors[2](X.subscripts()(0, 2), r);
    EXPECT_TRUE(grain::test::near(out(i, r), want, 1e-14));
    EXPECT_TRUE(out(i == 0 ? 1 : 0, r) == 0.0);
  }
}

TEST(Compact, MapsUsedIndicesDenselyAndBack) {
  for (std::uint64_t seed : {1u, 2u}) {
    const auto X = gappy_tensor({1000, 3000000, 70}, 400, seed);
    const auto C = grain::compact(X);
    const auto used = grain::used_indices(X);
    ASSERT_EQ(C.tensor.ndims(), 3);
    ASSERT_EQ(C.tensor.nnz(), X.nnz());
    for (int m = 0; m < 3; ++m) {
      std::set<index_type> distinct;
      for (index_type j = 0; j < X.nnz(); ++j) distinct.insert(X.subscripts()(j, m));
      EXPECT_EQ(C.tensor.dim(m), static_cast<index_type>(distinct.size()));
      EXPECT_EQ(used[m], static_cast<index_type>(distinct.size()));
      ASSERT_EQ(C.original[m].size(), distinct.size());
      EXPECT_TRUE(std::equal(distinct.begin(), distinct.end(), C.original[m].begin()));  // ascending, exact
    }
    for (index_type j = 0; j < X.nnz(); ++j) {
      EXPECT_EQ(C.tensor.values()(j), X.values()(j));
      for (int m = 0; m < 3; ++m)
        EXPECT_EQ(C.original[m][C.tensor.subscripts()(j, m)], static_cast<index_type>(X.subscripts()(j, m)));
    }
  }
}

// CP-ALS on the compacted tensor is CP-ALS on the full one restricted to the used rows, when the
// full start's unused rows are zero (they stay zero: their MTTKRP rows are).
template <class Exec>
void check_compact_run_matches_full() {
  using Space = typename Exec::memory_space;
  const auto X = gappy_tensor({200, 90, 400}, 1500, 7);
  const auto C = grain::compact(X);
  const int R = 3;
  auto full = grain::cp::random_ktensor<double, grain::HostSpace>(X.dims(), R, 9);
  grain::cp::Ktensor<double, grain::HostSpace> small(C.tensor.dims(), R);
  grain::deep_copy(small.lambda, 1.0);
  for (int m = 0; m < 3; ++m) {
    std::vector<bool> used(X.dim(m), false);
    for (index_type i : C.original[m]) used[i] = true;
    for (index_type i = 0; i < X.dim(m); ++i)
      for (int r = 0; r < R; ++r)
        if (!used[i]) full.factors[m](i, r) = 0;
    for (index_type i = 0; i < C.tensor.dim(m); ++i)
      for (int r = 0; r < R; ++r) small.factors[m](i, r) = full.factors[m](C.original[m][i], r);
  }
  grain::cp::CpAlsOptions o;
  o.maxiters = 6;
  o.tol = 0;
  o.mttkrp = MttkrpAlgorithm::Atomic;
  auto Mf = full.template to_space<Space>();
  auto Ms = small.template to_space<Space>();
  const auto rf = grain::cp::cp_als<Exec>(X.template to_space<Space>(), Mf, o);
  const auto rs = grain::cp::cp_als<Exec>(C.tensor.template to_space<Space>(), Ms, o);
  EXPECT_TRUE(grain::test::near(rs.fit, rf.fit, 1e-10));
  for (int m = 0; m < 3; ++m) {
    const auto f = grain::test::to_host(Mf.factors[m]);
    const auto s = grain::test::to_host(Ms.factors[m]);
    for (index_type i = 0; i < C.tensor.dim(m); ++i)
      for (int r = 0; r < R; ++r) EXPECT_TRUE(grain::test::near(s(i, r), f(C.original[m][i], r), 1e-9));
  }
}
GRAIN_BACKEND_TEST(Compact, RunMatchesTheFullRunOnUsedRows) { check_compact_run_matches_full<TypeParam>(); }

TEST(Compact, FactorFilesCarryTheOriginalIndices) {
  const auto X = gappy_tensor({50, 60, 5000000}, 30, 3);
  const auto C = grain::compact(X);
  auto K = grain::cp::random_ktensor<double, grain::HostSpace>(C.tensor.dims(), 2, 4);
  const std::string prefix = ::testing::TempDir() + "grain_compact_factors";
  grain::cp::write_ktensor(prefix, K, C.original);
  std::ifstream f(prefix + "_mode3.txt");
  std::string line;
  index_type rows = 0;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    index_type id = 0;
    double a = 0, b = 0;
    ASSERT_TRUE(in >> id >> a >> b) << line;
    EXPECT_EQ(id, C.original[2][rows] + 1);
    EXPECT_EQ(a, K.factors[2](rows, 0));
    EXPECT_EQ(b, K.factors[2](rows, 1));
    ++rows;
  }
  EXPECT_EQ(rows, C.tensor.dim(2));
  EXPECT_NE(grain::test::error_of([&] { grain::cp::write_ktensor(prefix, K, {C.original[0]}); }).find("index maps"),
            std::string::npos);
}

}  // namespace
