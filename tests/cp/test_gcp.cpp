// GCP by stochastic gradients: every loss's derivative against finite differences, the exact loss
// and gradient against a dense reference, the sampled estimate unbiased, planted Poisson and
// Bernoulli tensors recovered, and the error paths.
#include <cmath>
#include <random>

#include "grain/cp/gcp.hpp"
#include "grain/cp/score.hpp"
#include "grain_test.hpp"

// stmt raises grain::Error whose message contains text.
#define EXPECT_THROW_MSG(stmt, text)                                                              \
  do {                                                                                            \
    try {                                                                                         \
      (void)(stmt);                                                                               \
      ADD_FAILURE() << #stmt " did not throw";                                                    \
    } catch (const grain::Error& e) {                                                             \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "message: " << e.what(); \
    }                                                                                             \
  } while (0)

namespace {

using grain::index_type;
using grain::cp::GcpLoss;

// Values a loss takes: x in its data's range, m in its model's range.
struct LossPoints {
  std::vector<double> x, m;
};
LossPoints points(GcpLoss l) {
  switch (l) {
    case GcpLoss::Gaussian: return {{-1.5, 0, 2}, {-1.2, 0.4, 2}};
    case GcpLoss::PoissonLog: return {{0, 1, 3}, {-1.2, 0.4, 2}};
    case GcpLoss::BernoulliLogit: return {{0, 1}, {-1.2, 0.4, 2}};
    case GcpLoss::Bernoulli: return {{0, 1}, {0.3, 1.7, 4}};
    case GcpLoss::Poisson: return {{0, 1, 3}, {0.3, 1.7, 4}};
    default: return {{0.5, 2}, {0.3, 1.7, 4}};  // Gamma, Rayleigh: positive data
  }
}

TEST(GcpLoss, DerivativeMatchesFiniteDifferences) {
  for (GcpLoss l : grain::cp::kAllGcpLosses)
    for (double x : points(l).x)
      for (double m : points(l).m) {
        const double h = 1e-6 * std::max(1.0, std::abs(m));
        const double fd = (grain::cp::impl::gcp_value(l, x, m + h) - grain::cp::impl::gcp_value(l, x, m - h)) / (2 * h);
        const double d = grain::cp::impl::gcp_derivative(l, x, m);
        EXPECT_TRUE(std::abs(fd - d) <= 1e-6 * std::max(1.0, std::abs(d)))
            << grain::cp::gcp_loss_name(l) << " x " << x << " m " << m << ": derivative " << d << ", differences " << fd;
      }
}

// A sparse tensor whose nonzeros suit the loss: counts, ones, positive or real values.
grain::SparseTensor<double> data_for(GcpLoss l, std::vector<index_type> dims, double density, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<index_type>> subs;
  std::vector<double> vals;
  const index_type total = dims[0] * dims[1] * dims[2];
  for (index_type e = 0; e < total; ++e) {
    if (u(g) >= density) continue;
    subs.push_back({e / (dims[1] * dims[2]), (e / dims[2]) % dims[1], e % dims[2]});
    const double v = l == GcpLoss::Bernoulli || l == GcpLoss::BernoulliLogit ? 1.0
                     : l == GcpLoss::Poisson || l == GcpLoss::PoissonLog   ? double(1 + g() % 4)
                     : l == GcpLoss::Gaussian                              ? u(g) * 4 - 2
                                                                            : 0.2 + u(g) * 3;
    vals.push_back(v);
  }
  grain::SparseTensor<double> X(dims, static_cast<index_type>(vals.size()));
  for (std::size_t j = 0; j < vals.size(); ++j) {
    for (int n = 0; n < 3; ++n) X.subscripts()(j, n) = static_cast<grain::subscript_type>(subs[j][n]);
    X.values()(j) = vals[j];
  }
  return X;
}

// The model: random factors, positive for the losses that need them, weights 1.
grain::cp::Ktensor<double> model_for(GcpLoss l, const std::vector<index_type>& dims, int R, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.2, 1.0), s(-1.0, 1.0);
  grain::cp::Ktensor<double> M(dims, R);
  for (int r = 0; r < R; ++r) M.lambda(r) = 1;
  for (auto& F : M.factors)
    for (std::size_t e = 0; e < F.size(); ++e) F.data()[e] = grain::cp::gcp_loss_nonnegative(l) ? u(g) : 0.6 * s(g);
  return M;
}

// F = sum over every entry of f(x, m), densely (the reference).
double dense_loss(GcpLoss l, const grain::SparseTensor<double>& X, const grain::cp::Ktensor<double>& M) {
  const auto d = X.dims();
  std::vector<double> full(d[0] * d[1] * d[2], 0.0);
  for (index_type j = 0; j < X.nnz(); ++j)
    full[(X.subscripts()(j, 0) * d[1] + X.subscripts()(j, 1)) * d[2] + X.subscripts()(j, 2)] = X.values()(j);
  double F = 0;
  for (index_type i = 0; i < d[0]; ++i)
    for (index_type k = 0; k < d[1]; ++k)
      for (index_type c = 0; c < d[2]; ++c) {
        double m = 0;
        for (int r = 0; r < M.rank(); ++r) m += M.factors[0](i, r) * M.factors[1](k, r) * M.factors[2](c, r);
        F += grain::cp::impl::gcp_value(l, full[(i * d[1] + k) * d[2] + c], m);
      }
  return F;
}

template <class Exec>
void check_exact_gradient() {
  using Space = typename Exec::memory_space;
  const std::vector<index_type> dims{4, 5, 3};
  const int R = 2;
  for (GcpLoss l : grain::cp::kAllGcpLosses) {
    const auto H = data_for(l, dims, 0.3, 3);
    auto Mh = model_for(l, dims, R, 4);
    const auto X = H.template to_space<Space>();
    const auto M = Mh.template to_space<Space>();
    auto S = grain::cp::gcp_enumerate<Exec>(X);
    const double F = grain::cp::gcp_loss<Exec>(S, M, l);
    const double Fd = dense_loss(l, H, Mh);
    EXPECT_TRUE(std::abs(F - Fd) <= 1e-10 * std::max(1.0, std::abs(Fd))) << grain::cp::gcp_loss_name(l) << ": " << F << " vs " << Fd;
    std::vector<grain::View<double**, grain::LayoutRight, Space>> G;
    for (int n = 0; n < 3; ++n) {
      G.emplace_back("G", dims[n], R);
      grain::deep_copy(G[n], std::nan(""));
    }
    grain::cp::gcp_gradient<Exec>(S, M, l, G);
    Exec().fence();
    for (int n = 0; n < 3; ++n) {
      auto g = grain::create_mirror(G[n]);
      grain::deep_copy(g, G[n]);
      for (index_type i = 0; i < dims[n]; ++i)
        for (int r = 0; r < R; ++r) {
          const double a = Mh.factors[n](i, r), h = 1e-6;
          Mh.factors[n](i, r) = a + h;
          const double up = dense_loss(l, H, Mh);
          Mh.factors[n](i, r) = a - h;
          const double down = dense_loss(l, H, Mh);
          Mh.factors[n](i, r) = a;
          const double fd = (up - down) / (2 * h);
          EXPECT_TRUE(std::abs(g(i, r) - fd) <= 1e-5 * std::max(1.0, std::abs(fd)))
              << grain::cp::gcp_loss_name(l) << " mode " << n << " (" << i << ", " << r << "): " << g(i, r)
              << " vs differences " << fd;
        }
    }
  }
}
GRAIN_BACKEND_TEST(Gcp, ExactLossAndGradientMatchDenseReference) { check_exact_gradient<TypeParam>(); }

// The sampled estimate's mean over many draws is the exact loss (within 4 standard errors), and
// the same seed and stream draw the same samples.
template <class Exec>
void check_unbiased() {
  using Space = typename Exec::memory_space;
  const std::vector<index_type> dims{20, 30, 25};
  for (GcpLoss l : {GcpLoss::Gaussian, GcpLoss::Poisson, GcpLoss::BernoulliLogit}) {
    const auto H = data_for(l, dims, 0.1, 5);
    const auto X = H.template to_space<Space>();
    const auto M = model_for(l, dims, 3, 6).template to_space<Space>();
    const double exact = grain::cp::gcp_loss<Exec>(grain::cp::gcp_enumerate<Exec>(X), M, l);
    const int K = 300;
    double sum = 0, sum2 = 0;
    for (int k = 0; k < K; ++k) {
      const double e = grain::cp::gcp_loss<Exec>(grain::cp::gcp_draw<Exec>(X, 150, 150, 7, k), M, l);
      sum += e, sum2 += e * e;
    }
    const double mean = sum / K, sd = std::sqrt(std::max(0.0, sum2 / K - mean * mean));
    EXPECT_TRUE(std::abs(mean - exact) <= 4 * sd / std::sqrt(double(K)))
        << grain::cp::gcp_loss_name(l) << ": mean estimate " << mean << " (sd " << sd << ") vs exact " << exact;
    const double a = grain::cp::gcp_loss<Exec>(grain::cp::gcp_draw<Exec>(X, 500, 500, 9, 3), M, l);
    const double b = grain::cp::gcp_loss<Exec>(grain::cp::gcp_draw<Exec>(X, 500, 500, 9, 3), M, l);
    EXPECT_TRUE(std::abs(a - b) <= 1e-12 * std::abs(a)) << a << " vs " << b;
  }
}
GRAIN_BACKEND_TEST(Gcp, SampledLossIsUnbiased) { check_unbiased<TypeParam>(); }

// A planted non-negative rank-3 model; data drawn from it entry by entry: Poisson counts of mean
// m, or ones with probability m / (1 + m) (Bernoulli odds).
struct Planted {
  grain::cp::Ktensor<double> truth;
  grain::SparseTensor<double> X;
};
Planted planted(GcpLoss l, const std::vector<index_type>& dims, double scale, std::uint64_t seed) {
  const int R = 3;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  grain::cp::Ktensor<double> T(dims, R);
  for (int r = 0; r < R; ++r) T.lambda(r) = 1;
  // Block-like columns: each component large on its own third of every mode.
  for (int n = 0; n < 3; ++n)
    for (index_type i = 0; i < dims[n]; ++i)
      for (int r = 0; r < R; ++r)
        T.factors[n](i, r) = (i * R / dims[n] == static_cast<index_type>(r) ? 1.0 : 0.1) * (0.5 + u(g)) * scale;
  std::vector<grain::subscript_type> subs;
  std::vector<double> vals;
  for (index_type i = 0; i < dims[0]; ++i)
    for (index_type k = 0; k < dims[1]; ++k)
      for (index_type c = 0; c < dims[2]; ++c) {
        double m = 0;
        for (int r = 0; r < R; ++r) m += T.factors[0](i, r) * T.factors[1](k, r) * T.factors[2](c, r);
        double v = 0;
        if (l == GcpLoss::Poisson) v = double(std::poisson_distribution<int>(m)(g));
        else v = u(g) < m / (1 + m) ? 1.0 : 0.0;
        if (v != 0) {
          subs.insert(subs.end(), {static_cast<grain::subscript_type>(i), static_cast<grain::subscript_type>(k),
                                   static_cast<grain::subscript_type>(c)});
          vals.push_back(v);
        }
      }
  grain::SparseTensor<double> X(dims, static_cast<index_type>(vals.size()));
  std::copy(subs.begin(), subs.end(), X.subscripts().data());
  std::copy(vals.begin(), vals.end(), X.values().data());
  return {T, X};
}

template <class Exec>
double recovered(GcpLoss l, double scale) {
  using Space = typename Exec::memory_space;
  const auto P = planted(l, {30, 40, 35}, scale, 21);
  const auto X = P.X.template to_space<Space>();
  auto M = grain::cp::random_ktensor<double, Space>(X.dims(), 3, 22);
  grain::cp::gcp_prepare_start<Exec>(X, M, l);
  grain::cp::GcpSgdOptions o;
  o.loss = l;
  o.epochs = 15;
  o.iters = 50;
  o.gradient_samples = 2000;
  o.loss_samples = 20000;
  o.rate = 1e-2;
  o.seed = 23;
  const auto res = grain::cp::gcp_sgd<Exec>(X, M, o);
  EXPECT_TRUE(res.loss < res.initial_loss) << res.loss << " from " << res.initial_loss;
  auto H = M.template to_space<grain::HostSpace>();
  for (const auto& F : H.factors)
    for (std::size_t e = 0; e < F.size(); ++e) EXPECT_TRUE(F.data()[e] >= 0) << "negative entry " << F.data()[e];
  return grain::cp::factor_match_score(H, P.truth).score;
}

GRAIN_BACKEND_TEST(Gcp, PoissonRecoversPlantedCounts) {
  const double fms = recovered<TypeParam>(GcpLoss::Poisson, 1.0);
  EXPECT_TRUE(fms >= 0.9) << "factor match score " << fms;
}

GRAIN_BACKEND_TEST(Gcp, BernoulliRecoversPlantedBinary) {
  const double fms = recovered<TypeParam>(GcpLoss::Bernoulli, 1.0);
  EXPECT_TRUE(fms >= 0.9) << "factor match score " << fms;
}

TEST(Gcp, BadArguments) {
  EXPECT_THROW_MSG(grain::cp::parse_gcp_loss("poison"), "unknown loss 'poison'");
  auto X = data_for(GcpLoss::Poisson, {4, 5, 3}, 0.3, 3);
  X.values()(1) = -2;
  EXPECT_THROW_MSG(grain::cp::check_gcp_data(X, GcpLoss::Poisson), "nonzero 1 is -2");
  X.values()(1) = 2;
  EXPECT_THROW_MSG(grain::cp::check_gcp_data(X, GcpLoss::Bernoulli), "needs every nonzero to be 1");
  grain::cp::check_gcp_data(X, GcpLoss::Gaussian);  // any real value
  auto M = model_for(GcpLoss::Poisson, {4, 5, 3}, 2, 1);
  grain::cp::GcpSgdOptions o;
  o.epochs = 0;
  EXPECT_THROW_MSG(grain::cp::gcp_sgd<grain::Serial>(X, M, o), "epochs 0");
  o.epochs = 1;
  o.rate = 0;
  EXPECT_THROW_MSG(grain::cp::gcp_sgd<grain::Serial>(X, M, o), "rate 0 must be positive");
  auto W = model_for(GcpLoss::Poisson, {4, 5, 4}, 2, 1);
  EXPECT_THROW_MSG(grain::cp::gcp_sgd<grain::Serial>(X, W, grain::cp::GcpSgdOptions{}), "does not match");
  EXPECT_THROW_MSG(grain::cp::gcp_draw<grain::Serial>(X, 0, 10, 1, 1), "each needs at least 1");
  auto big = grain::SparseTensor<double>({1000, 1000, 1000}, 1);
  EXPECT_THROW_MSG(grain::cp::gcp_enumerate<grain::Serial>(big), "enumerating is for tensors of at most");
  // Poisson's identity link from a start with a negative entry: the loss of log(m) is not finite.
  auto N = model_for(GcpLoss::Gaussian, {4, 5, 3}, 2, 1);
  o.rate = 1e-3;
  o.loss = GcpLoss::Poisson;
  EXPECT_THROW_MSG(grain::cp::gcp_sgd<grain::Serial>(X, N, o), "not finite");
}

}  // namespace
