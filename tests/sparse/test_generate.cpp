// The synthetic tensor generators: reproducible, in bounds, counts summing to the samples.
#include "grain_test.hpp"

namespace {

using grain::index_type;

TEST(Generate, RandomKtensorIsReproducibleAndCountsSumToSamples) {
  grain::GenerateOptions o;
  o.dims = {31, 47, 59};
  o.samples = 20000;
  o.rank = 5;
  o.seed = 42;
  auto A = grain::generate_sparse<double>(o);
  auto B = grain::generate_sparse<double>(o);
  ASSERT_EQ(A.nnz(), B.nnz());
  double total = 0;
  for (index_type j = 0; j < A.nnz(); ++j) {
    ASSERT_EQ(A.values()(j), B.values()(j));
    total += A.values()(j);
    for (int m = 0; m < 3; ++m) {
      ASSERT_EQ(A.subscripts()(j, m), B.subscripts()(j, m));
      ASSERT_LT(A.subscripts()(j, m), static_cast<grain::subscript_type>(o.dims[m]));
    }
  }
  EXPECT_EQ(total, 20000.0);
  EXPECT_LT(A.nnz(), 20000);  // repeats were merged
  o.seed = 43;
  auto C = grain::generate_sparse<double>(o);
  EXPECT_FALSE(C.nnz() == A.nnz() && C.values()(0) == A.values()(0) &&
               C.subscripts()(0, 0) == A.subscripts()(0, 0) &&
               C.subscripts()(1, 1) == A.subscripts()(1, 1));
}

TEST(Generate, SkewedConcentratesOnFewIndices) {
  grain::GenerateOptions o;
  o.kind = grain::GeneratorKind::Skewed;
  o.dims = {1000, 1000, 1000};
  o.samples = 50000;
  o.rank = 4;
  o.skew = 1.5;
  auto X = grain::generate_sparse<float>(o);
  std::vector<double> mass(1000, 0);
  double total = 0;
  for (index_type j = 0; j < X.nnz(); ++j) {
    mass[X.subscripts()(j, 0)] += X.values()(j);
    total += X.values()(j);
  }
  std::sort(mass.rbegin(), mass.rend());
  double top = 0;
  for (int i = 0; i < 10; ++i) top += mass[i];
  EXPECT_GT(top / total, 0.3);  // 1% of the indices carry a large share of the mass
}

TEST(Generate, LowRankMatchesItsPlantedModel) {
  grain::GenerateOptions o;
  o.kind = grain::GeneratorKind::LowRank;
  o.dims = {13, 17, 11, 7};
  o.rank = 3;
  o.support = 3;
  grain::PlantedModel pm;
  auto X = grain::generate_sparse<double>(o, &pm);
  ASSERT_GT(X.nnz(), 0);
  for (index_type j = 0; j < X.nnz(); ++j) {
    double v = 0;
    for (int r = 0; r < 3; ++r) {
      double p = pm.lambda[r];
      for (int m = 0; m < 4; ++m) p *= pm.factors[m][X.subscripts()(j, m) * 3 + r];
      v += p;
    }
    ASSERT_TRUE(grain::test::near(X.values()(j), v, 1e-12));
  }
}

TEST(Generate, BadOptionsAreErrors) {
  grain::GenerateOptions o;
  o.dims = {10, 10};
  o.samples = 0;
  EXPECT_THROW((void)grain::generate_sparse<double>(o), grain::Error);
  o.samples = 10;
  o.rank = 0;
  EXPECT_THROW((void)grain::generate_sparse<double>(o), grain::Error);
  o.rank = 2;
  o.dims = {1ll << 30, 1ll << 30, 1ll << 30};
  EXPECT_THROW((void)grain::generate_sparse<double>(o), grain::Error);
  EXPECT_THROW((void)grain::parse_generator_kind("nope"), grain::Error);
}

}  // namespace
