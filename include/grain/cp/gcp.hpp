// GCP (generalized CP) of a sparse tensor by stochastic gradients: Kolda and Hong, "Stochastic
// gradients for large-scale tensor decomposition" (SIMODS 2020), the algorithm of Genten's GCP-SGD.
//
// The model M = [[A_1, ..., A_N]] (weights kept at 1) minimizes F(M) = sum over every index i of
// f(x_i, m_i), the zeros included, for a loss f suited to the data: Gaussian for real values,
// Poisson for counts, Bernoulli for 0/1 data, Gamma and Rayleigh for positive ones.
//
// F and its gradient are estimated from semi-stratified samples (Kolda and Hong, section 4.2):
// s_nz nonzeros drawn uniformly, each weighted nnz / s_nz and contributing f(x, m) - f(0, m), and
// s_all indices drawn uniformly from the whole tensor, each weighted prod(dims) / s_all and
// contributing f(0, m). The estimate is unbiased without looking up whether an index is a nonzero:
// the uniform samples count every entry as a zero and the nonzero samples correct that.
//
// The gradient with respect to A_n is the MTTKRP of the sampled tensor Y (y = weight times
// df/dm) with the other factors: grain's MTTKRP (atomic, since the samples change every step),
// so the GPU and the CPU share one source. Steps are Adam's; an epoch is `iters` steps, after which
// F is estimated from a fixed sample set. An epoch that raised it is undone and the step size
// divided by 10 (`decay`), up to `max_fails` times. Samples come from a counter-based hash of
// (seed, step, sample), so every back end draws the same ones.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/cp/mttkrp.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cp {

// Poisson and Bernoulli come with the identity link and non-negative factors (the model is the
// mean, or the odds) and with the log and logit links (unconstrained factors); Gamma and Rayleigh
// need positive means (non-negative factors).
enum class GcpLoss { Gaussian, Poisson, PoissonLog, Bernoulli, BernoulliLogit, Gamma, Rayleigh };

inline constexpr GcpLoss kAllGcpLosses[] = {GcpLoss::Gaussian,       GcpLoss::Poisson, GcpLoss::PoissonLog,
                                            GcpLoss::Bernoulli,      GcpLoss::BernoulliLogit,
                                            GcpLoss::Gamma,          GcpLoss::Rayleigh};

inline const char* gcp_loss_name(GcpLoss l) {
  switch (l) {
    case GcpLoss::Gaussian: return "gaussian";
    case GcpLoss::Poisson: return "poisson";
    case GcpLoss::PoissonLog: return "poisson-log";
    case GcpLoss::Bernoulli: return "bernoulli";
    case GcpLoss::BernoulliLogit: return "bernoulli-logit";
    case GcpLoss::Gamma: return "gamma";
    case GcpLoss::Rayleigh: return "rayleigh";
  }
  return "?";
}

inline GcpLoss parse_gcp_loss(const std::string& s) {
  for (GcpLoss l : kAllGcpLosses)
    if (s == gcp_loss_name(l)) return l;
  grain::impl::throw_error("grain::cp::gcp: unknown loss '", s,
                           "' (gaussian, poisson, poisson-log, bernoulli, bernoulli-logit, gamma, rayleigh)");
}

// The losses whose factors stay non-negative (the model is a mean or odds).
inline bool gcp_loss_nonnegative(GcpLoss l) {
  return l == GcpLoss::Poisson || l == GcpLoss::Bernoulli || l == GcpLoss::Gamma || l == GcpLoss::Rayleigh;
}

namespace impl {

// The identity-link losses take log(m + eps) and 1 / (m + eps): a zero mean stays finite.
inline constexpr double kGcpEps = 1e-10;

// f(x, m)
GRAIN_INLINE_FUNCTION double gcp_value(GcpLoss l, double x, double m) {
  switch (l) {
    case GcpLoss::Gaussian: return (x - m) * (x - m);
    case GcpLoss::Poisson: return m - x * std::log(m + kGcpEps);
    case GcpLoss::PoissonLog: return std::exp(m) - x * m;
    case GcpLoss::Bernoulli: return std::log(m + 1) - x * std::log(m + kGcpEps);
    case GcpLoss::BernoulliLogit: return std::log1p(std::exp(m)) - x * m;
    case GcpLoss::Gamma: return x / (m + kGcpEps) + std::log(m + kGcpEps);
    case GcpLoss::Rayleigh: {
      const double q = x / (m + kGcpEps);
      return 2 * std::log(m + kGcpEps) + 0.7853981633974483 * q * q;  // pi / 4
    }
  }
  return 0;
}

// df/dm (x, m)
GRAIN_INLINE_FUNCTION double gcp_derivative(GcpLoss l, double x, double m) {
  switch (l) {
    case GcpLoss::Gaussian: return 2 * (m - x);
    case GcpLoss::Poisson: return 1 - x / (m + kGcpEps);
    case GcpLoss::PoissonLog: return std::exp(m) - x;
    case GcpLoss::Bernoulli: return 1 / (m + 1) - x / (m + kGcpEps);
    case GcpLoss::BernoulliLogit: return 1 / (1 + std::exp(-m)) - x;
    case GcpLoss::Gamma: {
      const double d = m + kGcpEps;
      return -x / (d * d) + 1 / d;
    }
    case GcpLoss::Rayleigh: {
      const double d = m + kGcpEps;
      return 2 / d - 1.5707963267948966 * x * x / (d * d * d);  // pi / 2
    }
  }
  return 0;
}

// SplitMix64's finalizer over a counter: a uniform 64-bit word per (seed, stream, counter).
GRAIN_INLINE_FUNCTION std::uint64_t gcp_hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  std::uint64_t z = seed ^ (stream * 0x9E3779B97F4A7C15ull) ^ (counter * 0xD1B54A32D192ED03ull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// An index uniform in [0, n) from a hash word (53 bits of it: below 2^53 entries the bias is nil).
GRAIN_INLINE_FUNCTION index_type gcp_uniform_index(std::uint64_t h, index_type n) {
  const index_type i = static_cast<index_type>(static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) * n);
  return i < n ? i : n - 1;
}

// m = sum_r prod_n A_n(i_n, r) at the index tuple sub.
template <class T>
GRAIN_INLINE_FUNCTION double gcp_model(const T* const* fac, const subscript_type* sub, int N, index_type R) {
  double m = 0;
  for (index_type r = 0; r < R; ++r) {
    double p = 1;
    for (int n = 0; n < N; ++n) p *= static_cast<double>(fac[n][static_cast<index_type>(sub[n]) * R + r]);
    m += p;
  }
  return m;
}

// A sample's share of the gradient's y and of the loss: weight * (f'(x, m) - f'(0, m)) and
// weight * (f(x, m) - f(0, m)) in the nonzero stratum, weight * f'(0, m) and weight * f(0, m) in
// the uniform one.
GRAIN_INLINE_FUNCTION double gcp_sample_gradient(GcpLoss l, bool nonzero, double x, double m, double w_nz,
                                                 double w_all) {
  return nonzero ? w_nz * (gcp_derivative(l, x, m) - gcp_derivative(l, 0, m)) : w_all * gcp_derivative(l, 0, m);
}
GRAIN_INLINE_FUNCTION double gcp_sample_loss(GcpLoss l, bool nonzero, double x, double m, double w_nz,
                                             double w_all) {
  return nonzero ? w_nz * (gcp_value(l, x, m) - gcp_value(l, 0, m)) : w_all * gcp_value(l, 0, m);
}

// Fills sample s: in the nonzero stratum (s < s_nz) a nonzero, in the uniform one an index of the
// whole tensor; drawn from the hash of (seed, stream, s), or, when `enumerate`, nonzero s and the
// (s - s_nz)-th index in row-major order. When y is given, also its gradient value for the model
// in fac (drawing and differentiating in one pass over the samples).
template <class T>
struct GcpSampleFunctor {
  const subscript_type* xsubs;
  const T* xvals;
  index_type nnz;
  int N;
  index_type dims[kMaxSparseModes];
  std::uint64_t seed, stream;
  bool enumerate;
  index_type s_nz;
  double w_nz, w_all;
  GcpLoss loss;
  const T* fac[kMaxSparseModes];
  index_type R;
  subscript_type* subs;
  T* x;
  T* y;  // null: draw only
  GRAIN_INLINE_FUNCTION void operator()(index_type s) const {
    subscript_type* sub = subs + s * N;
    double xv = 0;
    if (s < s_nz) {
      const index_type j =
          enumerate ? s : gcp_uniform_index(gcp_hash(seed, stream, static_cast<std::uint64_t>(s) * 9), nnz);
      for (int n = 0; n < N; ++n) sub[n] = xsubs[j * N + n];
      xv = static_cast<double>(xvals[j]);
    } else if (enumerate) {
      index_type e = s - s_nz;
      for (int n = N - 1; n >= 0; --n) sub[n] = static_cast<subscript_type>(e % dims[n]), e /= dims[n];
    } else {
      for (int n = 0; n < N; ++n)
        sub[n] = static_cast<subscript_type>(
            gcp_uniform_index(gcp_hash(seed, stream, static_cast<std::uint64_t>(s) * 9 + 1 + n), dims[n]));
    }
    x[s] = static_cast<T>(xv);
    if (y) y[s] = static_cast<T>(gcp_sample_gradient(loss, s < s_nz, xv, gcp_model(fac, sub, N, R), w_nz, w_all));
  }
};

// Over drawn samples and the model in fac: each sample's y (parallel_for), or the loss estimate
// (parallel_reduce).
template <class T>
struct GcpSampleValuesFunctor {
  const subscript_type* subs;
  const T* x;
  int N;
  index_type s_nz;
  double w_nz, w_all;
  GcpLoss loss;
  const T* fac[kMaxSparseModes];
  index_type R;
  T* y;
  GRAIN_INLINE_FUNCTION double model(index_type s) const { return gcp_model(fac, subs + s * N, N, R); }
  GRAIN_INLINE_FUNCTION void operator()(index_type s) const {
    y[s] = static_cast<T>(gcp_sample_gradient(loss, s < s_nz, static_cast<double>(x[s]), model(s), w_nz, w_all));
  }
  GRAIN_INLINE_FUNCTION void operator()(index_type s, double& sum) const {
    sum += gcp_sample_loss(loss, s < s_nz, static_cast<double>(x[s]), model(s), w_nz, w_all);
  }
};

// One Adam step on every element of a factor, then the lower bound.
template <class T>
struct GcpAdamFunctor {
  T* a;
  const T* g;
  T* m1;
  T* m2;
  double rate, beta1, beta2, eps, correction1, correction2, lower;
  GRAIN_INLINE_FUNCTION void operator()(index_type e) const {
    const double gv = static_cast<double>(g[e]);
    const double u = beta1 * static_cast<double>(m1[e]) + (1 - beta1) * gv;
    const double v = beta2 * static_cast<double>(m2[e]) + (1 - beta2) * gv * gv;
    m1[e] = static_cast<T>(u);
    m2[e] = static_cast<T>(v);
    double next = static_cast<double>(a[e]) - rate * (u / correction1) / (std::sqrt(v / correction2) + eps);
    if (next < lower) next = lower;
    a[e] = static_cast<T>(next);
  }
};

template <class T>
struct GcpAbsFunctor {
  T* a;
  GRAIN_INLINE_FUNCTION void operator()(index_type e) const { a[e] = a[e] < T(0) ? -a[e] : a[e]; }
};

}  // namespace impl

struct GcpSgdOptions {
  GcpLoss loss = GcpLoss::Gaussian;
  int epochs = 50;                  // at most
  int iters = 1000;                 // steps an epoch
  index_type gradient_samples = 0;  // per stratum and step; 0: max(1000, nnz / 1000)
  index_type loss_samples = 0;      // per stratum, drawn once; 0: max(100000, nnz / 10), at most 10^7
  double rate = 1e-3;               // Adam's step size
  double decay = 0.1;               // the step size's factor after a failed epoch
  int max_fails = 10;               // failed epochs before the run stops
  double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-8;
  std::uint64_t seed = 1;           // the samples' stream (the start is the caller's)
};

struct GcpSgdEpoch {
  int epoch = 0;
  double loss = 0;     // the estimate after the epoch (of the model kept)
  double seconds = 0;  // the epoch's steps and its estimate
  double rate = 0;     // the step size the epoch ran with
  bool failed = false; // the epoch raised the estimate and was undone
};

struct GcpSgdResult {
  std::vector<GcpSgdEpoch> epochs;
  double initial_loss = 0;
  double loss = 0;
  double seconds = 0;
  index_type gradient_samples = 0, loss_samples = 0;  // per stratum
  double sampled_entries = 0;                          // gradient samples drawn over the run
};

namespace impl {

template <class T>
void check_gcp_data(const SparseTensor<T, HostSpace>& X, GcpLoss loss) {
  const bool counts = loss == GcpLoss::Poisson || loss == GcpLoss::PoissonLog;
  const bool binary = loss == GcpLoss::Bernoulli || loss == GcpLoss::BernoulliLogit;
  const bool positive = loss == GcpLoss::Gamma || loss == GcpLoss::Rayleigh;
  for (index_type j = 0; j < X.nnz(); ++j) {
    const double v = static_cast<double>(X.values()(j));
    const char* need = counts && v < 0       ? "non-negative (counts)"
                       : binary && v != 1    ? "1 (binary data: the nonzeros are the ones)"
                       : positive && !(v > 0) ? "positive"
                                              : nullptr;
    if (need)
      grain::impl::throw_error("grain::cp::gcp: the ", gcp_loss_name(loss), " loss needs every nonzero to be ", need,
                               "; nonzero ", j, " is ", v);
  }
}

}  // namespace impl

// Checks that the loss suits the values (counts non-negative, binary data 0/1, Gamma and Rayleigh
// data positive): a grain::Error naming the first nonzero that does not.
template <class T, class Space>
void check_gcp_data(const SparseTensor<T, Space>& X, GcpLoss loss) {
  if constexpr (Space::host_accessible) {
    impl::check_gcp_data(X, loss);
  } else {
    impl::check_gcp_data(X.template to_space<HostSpace>(), loss);
  }
}

// The start GCP-SGD expects from a random one: weights moved into the factors (kept at 1 after),
// factors scaled so that ||M|| = ||X||, and for the non-negative losses entries made non-negative.
template <class Exec, class T, class Space>
void gcp_prepare_start(const SparseTensor<T, Space>& X, Ktensor<T, Space>& M, GcpLoss loss) {
  const int N = M.ndims();
  const std::vector<double> lambda = host_lambda<Exec>(M);
  scale_columns<Exec>(M.factors[0], lambda);
  deep_copy(M.lambda, T(1));
  if (gcp_loss_nonnegative(loss)) {
    for (int n = 0; n < N; ++n)
      parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(M.factors[n].size())),
                   impl::GcpAbsFunctor<T>{M.factors[n].data()});
  }
  const double nm = norm<Exec>(M), nx = std::sqrt(norm_squared<Exec>(X));
  if (nm > 0 && nx > 0) {
    const double s = std::pow(nx / nm, 1.0 / N);
    for (int n = 0; n < N; ++n) scale_columns<Exec>(M.factors[n], std::vector<double>(M.rank(), s));
  }
}

// A sample set: index tuples (the nonzero stratum's samples first), values, the gradient's y, and
// the strata's weights. A sampled tensor Y over subs and y feeds grain's MTTKRP.
template <class T, class Space>
struct GcpSamples {
  typename SparseTensor<T, Space>::subscripts_view subs;
  typename SparseTensor<T, Space>::values_view x, y;
  index_type s_nz = 0, s_all = 0;
  double w_nz = 0, w_all = 0;
  SparseTensor<T, Space> Y;
  index_type size() const { return s_nz + s_all; }
};

namespace impl {
template <class T, class Space>
GcpSamples<T, Space> gcp_allocate(const SparseTensor<T, Space>& X, index_type s_nz, index_type s_all) {
  GcpSamples<T, Space> S;
  S.s_nz = s_nz, S.s_all = s_all;
  S.subs = typename SparseTensor<T, Space>::subscripts_view(WithoutInitializing, "gcp_subscripts", s_nz + s_all,
                                                            X.ndims());
  S.x = typename SparseTensor<T, Space>::values_view(WithoutInitializing, "gcp_x", s_nz + s_all);
  S.y = typename SparseTensor<T, Space>::values_view(WithoutInitializing, "gcp_y", s_nz + s_all);
  S.Y = SparseTensor<T, Space>(X.dims(), S.subs, S.y);
  return S;
}

template <class T, class Space>
double gcp_entries(const SparseTensor<T, Space>& X) {
  double e = 1;
  for (int n = 0; n < X.ndims(); ++n) e *= static_cast<double>(X.dim(n));
  return e;
}

template <class T, class Space>
GcpSampleFunctor<T> gcp_sampler(const SparseTensor<T, Space>& X, const GcpSamples<T, Space>& S, std::uint64_t seed,
                                std::uint64_t stream, bool enumerate) {
  GcpSampleFunctor<T> f{X.subscripts().data(), X.values().data(), X.nnz(), X.ndims(), {}, seed, stream, enumerate,
                        S.s_nz, S.w_nz, S.w_all, GcpLoss::Gaussian, {}, 0, S.subs.data(), S.x.data(), nullptr};
  for (int n = 0; n < X.ndims(); ++n) f.dims[n] = X.dim(n);
  return f;
}

template <class F, class T, class Space>
void gcp_set_model(F& f, const Ktensor<T, Space>& M) {
  for (int n = 0; n < M.ndims(); ++n) f.fac[n] = M.factors[n].data();
  f.R = M.rank();
}
}  // namespace impl

// s_nz nonzeros and s_all indices of the whole tensor drawn uniformly (with replacement) from
// (seed, stream), weighted nnz / s_nz and prod(dims) / s_all: an unbiased estimate of F.
template <class Exec, class T, class Space>
GcpSamples<T, Space> gcp_draw(const SparseTensor<T, Space>& X, index_type s_nz, index_type s_all, std::uint64_t seed,
                              std::uint64_t stream) {
  if (X.nnz() < 1 || s_nz < 1 || s_all < 1)
    grain::impl::throw_error("grain::cp::gcp_draw: ", s_nz, " nonzero and ", s_all, " uniform samples of a tensor with ",
                             X.nnz(), " nonzeros; each needs at least 1");
  GcpSamples<T, Space> S = impl::gcp_allocate(X, s_nz, s_all);
  S.w_nz = double(X.nnz()) / double(s_nz), S.w_all = impl::gcp_entries(X) / double(s_all);
  parallel_for(RangePolicy<Exec>(0, S.size()), impl::gcp_sampler(X, S, seed, stream, false));
  return S;
}

// Every nonzero once and every index of the tensor once, weights 1: F and its gradient exactly
// (small tensors: at most 10^8 entries).
template <class Exec, class T, class Space>
GcpSamples<T, Space> gcp_enumerate(const SparseTensor<T, Space>& X) {
  const double entries = impl::gcp_entries(X);
  if (entries > 1e8)
    grain::impl::throw_error("grain::cp::gcp_enumerate: ", dims_string(X.dims()), " has ", entries,
                             " entries; enumerating is for tensors of at most 10^8");
  GcpSamples<T, Space> S = impl::gcp_allocate(X, X.nnz(), static_cast<index_type>(entries));
  S.w_nz = 1, S.w_all = 1;
  parallel_for(RangePolicy<Exec>(0, S.size()), impl::gcp_sampler(X, S, 0, 0, true));
  return S;
}

// The loss F of M (weights 1) estimated from the samples.
template <class Exec, class T, class Space>
double gcp_loss(const GcpSamples<T, Space>& S, const Ktensor<T, Space>& M, GcpLoss loss) {
  impl::GcpSampleValuesFunctor<T> f{S.subs.data(), S.x.data(), M.ndims(), S.s_nz, S.w_nz, S.w_all, loss, {}, 0,
                                    nullptr};
  impl::gcp_set_model(f, M);
  double sum = 0;
  parallel_reduce(RangePolicy<Exec>(0, S.size()), f, sum);
  return sum;
}

// G[n] = the gradient of F with respect to A_n (weights 1) estimated from the samples: y from the
// model, then the MTTKRP of the sampled tensor for every mode. Asynchronous on the GPU.
template <class Exec, class T, class Space>
void gcp_gradient(GcpSamples<T, Space>& S, const Ktensor<T, Space>& M, GcpLoss loss,
                  const std::vector<View<T**, LayoutRight, Space>>& G) {
  impl::GcpSampleValuesFunctor<T> f{S.subs.data(), S.x.data(), M.ndims(), S.s_nz, S.w_nz, S.w_all, loss, {}, 0,
                                    S.y.data()};
  impl::gcp_set_model(f, M);
  parallel_for(RangePolicy<Exec>(0, S.size()), f);
  for (int n = 0; n < M.ndims(); ++n) mttkrp_launch<Exec>(S.Y, M, n, G[n], MttkrpAlgorithm::Atomic);
}

// GCP by stochastic gradients from the start M (overwritten by the result, weights 1, not
// normalized: arrange<Exec>(M) normalizes it). `after_epoch` sees each epoch; returning false
// stops the run after it.
template <class Exec, class T, class Space>
GcpSgdResult gcp_sgd(const SparseTensor<T, Space>& X, Ktensor<T, Space>& M, const GcpSgdOptions& opts,
                     const std::function<bool(const GcpSgdEpoch&)>& after_epoch = {}) {
  using clock = std::chrono::steady_clock;
  const int N = X.ndims();
  const index_type R = M.rank();
  if (M.ndims() != N || M.dims() != X.dims())
    grain::impl::throw_error("grain::cp::gcp_sgd: the start ", dims_string(M.dims()), " does not match the tensor ",
                             dims_string(X.dims()));
  if (X.nnz() < 1) grain::impl::throw_error("grain::cp::gcp_sgd: the tensor has no nonzeros");
  if (opts.epochs < 1 || opts.iters < 1)
    grain::impl::throw_error("grain::cp::gcp_sgd: epochs ", opts.epochs, " and iters ", opts.iters,
                             " must be at least 1");
  if (!(opts.rate > 0) || !(opts.decay > 0 && opts.decay < 1) || opts.max_fails < 0 || opts.gradient_samples < 0 ||
      opts.loss_samples < 0)
    grain::impl::throw_error("grain::cp::gcp_sgd: rate ", opts.rate, " must be positive, decay ", opts.decay,
                             " in (0, 1), max_fails ", opts.max_fails, " and the sample counts non-negative");
  GcpSgdResult res;
  const index_type nnz = X.nnz();
  const index_type sg = opts.gradient_samples > 0 ? opts.gradient_samples : std::max<index_type>(1000, nnz / 1000);
  const index_type sf = opts.loss_samples > 0 ? opts.loss_samples
                                              : std::min<index_type>(10000000, std::max<index_type>(100000, nnz / 10));
  res.gradient_samples = sg;
  res.loss_samples = sf;
  const double lower = gcp_loss_nonnegative(opts.loss) ? 0.0 : -std::numeric_limits<double>::infinity();

  // The estimates' fixed set is stream 0; step k's gradient samples are stream k, drawn and
  // differentiated in one pass.
  const GcpSamples<T, Space> F = gcp_draw<Exec>(X, sf, sf, opts.seed, 0);
  GcpSamples<T, Space> S = impl::gcp_allocate(X, sg, sg);
  S.w_nz = double(nnz) / double(sg), S.w_all = impl::gcp_entries(X) / double(sg);
  impl::GcpSampleFunctor<T> draw = impl::gcp_sampler(X, S, opts.seed, 0, false);
  draw.loss = opts.loss;
  draw.y = S.y.data();
  impl::gcp_set_model(draw, M);

  // Gradients, Adam's moments, and the copies an epoch restores when it fails.
  std::vector<View<T**, LayoutRight, Space>> G, m1, m2, keepA, keep1, keep2;
  for (int n = 0; n < N; ++n) {
    const index_type I = X.dim(n);
    G.emplace_back(WithoutInitializing, "gcp_gradient", I, R);
    m1.emplace_back("gcp_adam_m", I, R);
    m2.emplace_back("gcp_adam_v", I, R);
    keepA.emplace_back(WithoutInitializing, "gcp_keep_factor", I, R);
    keep1.emplace_back(WithoutInitializing, "gcp_keep_m", I, R);
    keep2.emplace_back(WithoutInitializing, "gcp_keep_v", I, R);
  }
  auto save = [&] {
    for (int n = 0; n < N; ++n) deep_copy(keepA[n], M.factors[n]), deep_copy(keep1[n], m1[n]), deep_copy(keep2[n], m2[n]);
  };
  auto restore = [&] {
    for (int n = 0; n < N; ++n) deep_copy(M.factors[n], keepA[n]), deep_copy(m1[n], keep1[n]), deep_copy(m2[n], keep2[n]);
  };

  const auto t_start = clock::now();
  double best = gcp_loss<Exec>(F, M, opts.loss);
  if (!std::isfinite(best))
    grain::impl::throw_error("grain::cp::gcp_sgd: the start's ", gcp_loss_name(opts.loss), " loss is not finite (",
                             best, "); the loss does not suit the start or the data");
  res.initial_loss = best;
  save();
  double rate = opts.rate;
  int fails = 0;
  std::uint64_t step = 0, kept_step = 0;  // Adam's step count, and the gradient samples' stream
  for (int epoch = 1; epoch <= opts.epochs; ++epoch) {
    const auto t0 = clock::now();
    for (int it = 0; it < opts.iters; ++it) {
      ++step;
      draw.stream = step;
      parallel_for(RangePolicy<Exec>(0, S.size()), draw);
      for (int n = 0; n < N; ++n) mttkrp_launch<Exec>(S.Y, M, n, G[n], MttkrpAlgorithm::Atomic);
      const double c1 = 1 - std::pow(opts.beta1, double(step)), c2 = 1 - std::pow(opts.beta2, double(step));
      for (int n = 0; n < N; ++n)
        parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(M.factors[n].size())),
                     impl::GcpAdamFunctor<T>{M.factors[n].data(), G[n].data(), m1[n].data(), m2[n].data(), rate,
                                             opts.beta1, opts.beta2, opts.adam_eps, c1, c2, lower});
    }
    const double now = gcp_loss<Exec>(F, M, opts.loss);
    GcpSgdEpoch e;
    e.epoch = epoch;
    e.rate = rate;
    res.sampled_entries += double(opts.iters) * double(S.size());
    if (!(now <= best)) {  // a raise, or NaN: the epoch undone, smaller steps
      e.failed = true;
      restore();
      step = kept_step;
      rate *= opts.decay;
      ++fails;
    } else {
      best = now;
      save();
      kept_step = step;
    }
    e.loss = best;
    e.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    res.epochs.push_back(e);
    if (after_epoch && !after_epoch(e)) break;
    if (fails > opts.max_fails) break;
  }
  Exec().fence();
  res.loss = best;
  res.seconds = std::chrono::duration<double>(clock::now() - t_start).count();
  return res;
}

}  // namespace grain::cp
