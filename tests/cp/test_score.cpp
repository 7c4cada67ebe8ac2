// The factor match score against a brute-force reference written here: the congruences in long
// double from the raw factors, and the best of every pairing of the smaller rank's components.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "grain_test.hpp"

namespace {

using grain::index_type;
using K = grain::cp::Ktensor<double, grain::HostSpace>;

K random_model(const std::vector<index_type>& dims, int R, std::uint64_t seed) {
  K M(dims, R);
  grain::test::fill_random(M.lambda, seed);
  for (int r = 0; r < R; ++r) M.lambda(r) = std::abs(M.lambda(r));
  for (int m = 0; m < M.ndims(); ++m) grain::test::fill_random(M.factors[m], seed + 1 + m);
  return M;
}

// C(a, b) from the definition, in long double.
long double congruence(const K& A, const K& B, int a, int b, bool weights) {
  long double prod = 1, wa = std::abs(static_cast<long double>(A.lambda(a))),
              wb = std::abs(static_cast<long double>(B.lambda(b)));
  for (int m = 0; m < A.ndims(); ++m) {
    long double d = 0, na = 0, nb = 0;
    for (index_type i = 0; i < A.dim(m); ++i) {
      d += static_cast<long double>(A.factors[m](i, a)) * B.factors[m](i, b);
      na += static_cast<long double>(A.factors[m](i, a)) * A.factors[m](i, a);
      nb += static_cast<long double>(B.factors[m](i, b)) * B.factors[m](i, b);
    }
    prod *= std::abs(d) / std::sqrt(na * nb);
    wa *= std::sqrt(na);
    wb *= std::sqrt(nb);
  }
  return weights ? prod * (1 - std::abs(wa - wb) / std::max(wa, wb)) : prod;
}

// The best mean congruence over every injective pairing of the smaller rank into the larger.
double brute_force(const K& A, const K& B, bool weights) {
  const bool swap = A.rank() > B.rank();
  const K& S = swap ? B : A;
  const K& L = swap ? A : B;
  std::vector<int> idx(L.rank());
  std::iota(idx.begin(), idx.end(), 0);
  long double best = -1;
  do {
    long double s = 0;
    for (int k = 0; k < S.rank(); ++k) s += swap ? congruence(L, S, idx[k], k, weights) : congruence(S, L, k, idx[k], weights);
    best = std::max(best, s / S.rank());
  } while (std::next_permutation(idx.begin(), idx.end()));
  return static_cast<double>(best);
}

// B's components are A's, in the order `perm`, each factor column scaled by a signed factor and
// the weight by the inverse of their product: the same model.
K permuted_rescaled(const K& A, const std::vector<int>& perm, std::uint64_t seed) {
  K B(A.dims(), A.rank());
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.3, 3.0);
  for (int r = 0; r < A.rank(); ++r) {
    double prod = 1;
    for (int m = 0; m < A.ndims(); ++m) {
      const double s = (g() & 1 ? 1 : -1) * u(g);
      prod *= s;
      for (index_type i = 0; i < A.dim(m); ++i) B.factors[m](i, r) = A.factors[m](i, perm[r]) * s;
    }
    B.lambda(r) = A.lambda(perm[r]) / prod;
  }
  return B;
}

TEST(FactorMatchScore, OneForAPermutedRescaledCopy) {
  const K A = random_model({5, 7, 6}, 4, 11);
  const std::vector<int> perm = {2, 0, 3, 1};
  const K B = permuted_rescaled(A, perm, 3);
  for (bool weights : {true, false}) {
    grain::cp::FactorMatchOptions o;
    o.weight_penalty = weights;
    const auto fm = grain::cp::factor_match_score(A, B, o);
    EXPECT_TRUE(grain::test::near(fm.score, 1.0, 1e-12)) << fm.score;
    ASSERT_EQ(fm.pairs.size(), 4u);
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(fm.pairs[r].a, r);
      EXPECT_EQ(perm[fm.pairs[r].b], r) << "A's component " << r << " paired with B's " << fm.pairs[r].b;
      EXPECT_TRUE(grain::test::near(fm.pairs[r].score, 1.0, 1e-12));
    }
  }
}

TEST(FactorMatchScore, BelowOneForAPerturbedCopyAndEqualToBruteForce) {
  const K A = random_model({6, 5, 8}, 4, 21);
  K B = permuted_rescaled(A, {1, 3, 0, 2}, 5);
  std::mt19937_64 g(9);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (int m = 0; m < B.ndims(); ++m)
    for (std::size_t e = 0; e < B.factors[m].size(); ++e) B.factors[m].data()[e] *= 1 + u(g);
  B.lambda(2) *= 1.3;
  for (bool weights : {true, false}) {
    grain::cp::FactorMatchOptions o;
    o.weight_penalty = weights;
    const auto fm = grain::cp::factor_match_score(A, B, o);
    EXPECT_TRUE(fm.score > 0.5 && fm.score < 0.999) << fm.score;
    // Every component matches one clearly, so the greedy pairing is the best one.
    EXPECT_TRUE(grain::test::near(fm.score, brute_force(A, B, weights), 1e-12)) << weights;
    for (const auto& p : fm.pairs)
      EXPECT_TRUE(grain::test::near(p.score, static_cast<double>(congruence(A, B, p.a, p.b, weights)), 1e-12));
  }
}

TEST(FactorMatchScore, UnrelatedModelsOfDifferentRanks) {
  // Greedy never beats the best pairing; each pair's score is its congruence; the pairs cover the
  // smaller rank's components once each, whichever side it is on.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const K A = random_model({4, 5, 3}, 3, 100 + seed), B = random_model({4, 5, 3}, 5, 200 + seed);
    for (const bool a_first : {true, false}) {
      const K& X = a_first ? A : B;
      const K& Y = a_first ? B : A;
      const auto fm = grain::cp::factor_match_score(X, Y);
      const double best = brute_force(X, Y, true);
      EXPECT_TRUE(fm.score >= 0 && fm.score <= best + 1e-12) << fm.score << " vs best " << best;
      ASSERT_EQ(fm.pairs.size(), 3u);
      std::vector<int> seen;
      for (const auto& p : fm.pairs) {
        seen.push_back(a_first ? p.a : p.b);
        EXPECT_TRUE(grain::test::near(p.score, static_cast<double>(congruence(X, Y, p.a, p.b, true)), 1e-12));
      }
      EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
    }
  }
}

TEST(FactorMatchScore, ASubsetOfTheComponentsScoresOne) {
  const K B = random_model({6, 4, 5}, 5, 31);
  K A({6, 4, 5}, 2);  // B's components 4 and 2
  const int pick[2] = {3, 1};
  for (int r = 0; r < 2; ++r) {
    A.lambda(r) = B.lambda(pick[r]);
    for (int m = 0; m < 3; ++m)
      for (index_type i = 0; i < A.dim(m); ++i) A.factors[m](i, r) = B.factors[m](i, pick[r]);
  }
  for (const auto& fm : {grain::cp::factor_match_score(A, B), grain::cp::factor_match_score(B, A)}) {
    EXPECT_TRUE(grain::test::near(fm.score, 1.0, 1e-12)) << fm.score;
    ASSERT_EQ(fm.pairs.size(), 2u);
  }
  const auto fm = grain::cp::factor_match_score(A, B);
  EXPECT_EQ(fm.pairs[0].b, 3);
  EXPECT_EQ(fm.pairs[1].b, 1);
}

TEST(FactorMatchScore, ErrorsNameTheProblem) {
  const K A = random_model({4, 5, 3}, 2, 1);
  const std::string e1 = grain::test::error_of([&] { (void)grain::cp::factor_match_score(A, random_model({4, 5, 4}, 2, 2)); });
  EXPECT_TRUE(e1.find("4x5x3") != std::string::npos && e1.find("4x5x4") != std::string::npos) << e1;
  const std::string e2 = grain::test::error_of([&] { (void)grain::cp::factor_match_score(A, random_model({4, 5}, 2, 2)); });
  EXPECT_TRUE(e2.find("same mode sizes") != std::string::npos) << e2;
  K B = random_model({4, 5, 3}, 2, 3);
  B.factors[1](2, 1) = std::numeric_limits<double>::quiet_NaN();
  const std::string e3 = grain::test::error_of([&] { (void)grain::cp::factor_match_score(A, B); });
  EXPECT_TRUE(e3.find("B's mode 2 factor") != std::string::npos && e3.find("row 3, column 2") != std::string::npos) << e3;
}

TEST(Ktensor, ReadsTheShapeFromTheFiles) {
  const std::string prefix = ::testing::TempDir() + "grain_score_" + std::to_string(::getpid());
  const K A = random_model({4, 6, 3, 2}, 3, 41);
  grain::cp::write_ktensor(prefix, A);
  const K B = grain::cp::read_ktensor<double>(prefix);
  ASSERT_EQ(B.dims(), A.dims());
  ASSERT_EQ(B.rank(), 3);
  for (int m = 0; m < 4; ++m)
    for (std::size_t e = 0; e < A.factors[m].size(); ++e) ASSERT_EQ(A.factors[m].data()[e], B.factors[m].data()[e]);
  // Without the weights the rank is the first factor's width and the weights are ones.
  std::remove((prefix + "_lambda.txt").c_str());
  const K C = grain::cp::read_ktensor<double>(prefix);
  EXPECT_EQ(C.rank(), 3);
  EXPECT_EQ(C.lambda(2), 1.0);
  // A factor file of another width, a compacted run's files, no files: named.
  std::ofstream(prefix + "_mode3.txt") << "1 2\n3 4\n5 6\n";
  std::string e = grain::test::error_of([&] { (void)grain::cp::read_ktensor<double>(prefix); });
  EXPECT_TRUE(e.find(prefix + "_mode3.txt: 2 values on its first row, expected the rank 3") != std::string::npos) << e;
  grain::cp::write_ktensor(prefix, A, {{1, 3, 5, 7}, {0, 1, 2, 3, 4, 5}, {2, 4, 6}, {0, 9}});
  e = grain::test::error_of([&] { (void)grain::cp::read_ktensor<double>(prefix); });
  EXPECT_TRUE(e.find("_mode1.txt") != std::string::npos && e.find("--compact") != std::string::npos) << e;
  e = grain::test::error_of([&] { (void)grain::cp::read_ktensor<double>(prefix + "_none"); });
  EXPECT_TRUE(e.find(prefix + "_none_mode1.txt: cannot open") != std::string::npos) << e;
}

}  // namespace
