// Auto's model as a table (model.hpp), `explain` (explain.hpp) and plans (plan.hpp), on randomized
// shapes. No test here names a threshold: they check properties that hold whatever the table's
// constants are (Auto picks an applicable algorithm, every rule can decide, explain agrees with
// the call, plans are cached, checked and correct).
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <unistd.h>

#include "contract_test_util.hpp"
#include "grain/contract/explain.hpp"
#include "grain/contract/measure.hpp"
#include "grain/contract/plan.hpp"
#include "grain_test.hpp"

using grain::ContractAlgorithm;
using grain::ContractExec;
using grain::ContractKernel;
using grain::index_type;

namespace {

// Log-uniform integers in [lo, hi].
index_type log_uniform(std::mt19937_64& g, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi + 1));
  return std::min<index_type>(index_type(hi), std::max<index_type>(index_type(lo), index_type(std::exp(u(g)))));
}

// A random finite-element-like shape of `kernel`: fields 1-300 (L = R half the time), points 1-400,
// D 1-3, cells 1 to a few million (the operands stay far below explain's limit).
grain::ContractShapeSpec random_shape(std::mt19937_64& g, ContractKernel kernel, index_type max_c = 3000000) {
  grain::ContractShapeSpec s;
  s.kernel = kernel;
  const grain::ContractFamily fam = grain::contract_kernel_family(kernel);
  const int nk = grain::contract_kernel_contracted(kernel);
  s.R = fam == grain::ContractFamily::DataData ? 1 : log_uniform(g, 1, 300);
  s.L = fam != grain::ContractFamily::FieldField ? 1 : (g() % 2 ? s.R : log_uniform(g, 1, 300));
  s.P = log_uniform(g, 1, 400);
  s.D1 = nk >= 2 ? index_type(1 + g() % 3) : 1;
  s.D2 = nk >= 3 ? index_type(1 + g() % 3) : 1;
  s.C = log_uniform(g, 1, double(max_c));
  s.layout_left = g() % 2;
  s.dbl = g() % 2;
  return s;
}

struct TuningOff {
  TuningOff() {
    ::setenv("GRAIN_TUNING_FILE", "off", 1);
    grain::impl::contract_tuning_reset();
    grain::impl::contract_plan_cache_clear();
  }
  ~TuningOff() {
    ::unsetenv("GRAIN_TUNING_FILE");
    grain::impl::contract_tuning_reset();
    grain::impl::contract_plan_cache_clear();
  }
};

}  // namespace

// Over random shapes of every kernel, layout and element type, on each back end's table: the
// pick applies, is the first candidate, and every candidate applies.
TEST(ContractModel, AutoPicksOnlyApplicableAlgorithms) {
  TuningOff off;
  std::mt19937_64 g(20261129);
  for (int i = 0; i < 3000; ++i) {
    const grain::ContractShapeSpec s = random_shape(g, grain::kAllContractKernels[i % 9]);
    for (const char* backend : {"serial", "cuda"}) {
      const grain::ContractExplanation x = grain::contract_explain(s, backend);
      ASSERT_FALSE(x.candidates.empty());
      EXPECT_EQ(x.candidates.front().algorithm, x.model_pick);
      for (const auto& [alg, why] : x.not_applicable) {
        EXPECT_NE(alg, grain::contract_algorithm_name(x.model_pick)) << why;
        for (const grain::ContractCandidate& c : x.candidates) EXPECT_NE(alg, grain::contract_algorithm_name(c.algorithm));
      }
      EXPECT_NE(x.model_pick, ContractAlgorithm::Serial) << "the oracle is never a contender";
    }
  }
}

// Every (kernel, layout, element type, back end) combination is decided by a rule of its table,
// never by falling off its end.
TEST(ContractModel, TableCoversEveryCombination) {
  TuningOff off;
  std::mt19937_64 g(7);
  for (ContractKernel k : grain::kAllContractKernels)
    for (bool left : {false, true})
      for (bool dbl : {false, true})
        for (const char* backend : {"serial", "openmp", "cuda"})
          for (int i = 0; i < 20; ++i) {
            grain::ContractShapeSpec s = random_shape(g, k);
            s.layout_left = left;
            s.dbl = dbl;
            const grain::ContractExplanation x = grain::contract_explain(s, backend);
            ASSERT_FALSE(x.holding.empty()) << grain::contract_kernel_name(k) << " " << backend;
            EXPECT_NE(x.candidates.front().rule, "fallback order")
                << grain::contract_kernel_name(k) << " " << backend << " decided by no rule";
          }
}

// No rule is dead: over random facts, each rule of both tables is the deciding rule at least
// once. (A rule shadowed by the ones above it would never decide: a defect of the table.)
TEST(ContractModel, EveryRuleDecidesSomewhere) {
  std::mt19937_64 g(11);
  for (bool gpu : {false, true}) {
    const grain::impl::ContractRuleTable t = grain::impl::contract_model_rules(gpu);
    std::set<std::string> decided;
    unsigned all = 0;
    for (ContractAlgorithm a : grain::kAllContractAlgorithms) all |= 1u << static_cast<unsigned>(a);
    for (int i = 0; i < 400000 && decided.size() < t.size; ++i) {
      grain::impl::ContractFacts f;
      f.kernel = grain::kAllContractKernels[g() % 9];
      f.family = grain::contract_kernel_family(f.kernel);
      f.gpu = gpu;
      f.dbl = g() % 2;
      f.C = log_uniform(g, 1, 4e6);
      f.L = f.family == grain::ContractFamily::FieldField ? log_uniform(g, 1, 300) : 1;
      f.R = f.family == grain::ContractFamily::DataData ? 1 : log_uniform(g, 1, 300);
      f.K = log_uniform(g, 1, 4000);
      bool* flags[] = {&f.cells_fastest, &f.flat_cell_pack, &f.k_rows,       &f.k_packed,   &f.k_cells,
                       &f.k_cell_tiles,  &f.lanes_busy,     &f.blas_applies, &f.mma_applies, &f.mma_k_rows,
                       &f.mma_rows,      &f.host_cell_vectors, &f.host_block_kernel};
      for (bool* b : flags) *b = g() % 2;
      const grain::impl::ContractModelDecision d = grain::impl::contract_model_decide(f, all);
      ASSERT_NE(d.rule, nullptr);
      EXPECT_EQ(d.rule->pick, d.pick);
      decided.insert(d.rule->name);
    }
    for (std::size_t i = 0; i < t.size; ++i)
      EXPECT_TRUE(decided.count(t.rules[i].name)) << (gpu ? "cuda" : "cpu") << " rule " << t.rules[i].name
                                                  << " never decides";
  }
}

// Rules have distinct names and a reason.
TEST(ContractModel, RulesAreNamedAndReasoned) {
  for (bool gpu : {false, true}) {
    const grain::impl::ContractRuleTable t = grain::impl::contract_model_rules(gpu);
    std::set<std::string> names;
    for (std::size_t i = 0; i < t.size; ++i) {
      EXPECT_TRUE(names.insert(t.rules[i].name).second) << t.rules[i].name;
      EXPECT_GT(std::string(t.rules[i].reason).size(), 10u) << t.rules[i].name;
    }
  }
}

// The explanation's pick is the pick of a call on real Views of that shape (host back ends), and
// its text names it.
template <class Exec>
void explain_matches_the_call() {
  TuningOff off;
  std::mt19937_64 g(5);
  const char* backend = std::is_same_v<Exec, grain::Serial> ? "serial" : "openmp";
  for (int i = 0; i < 90; ++i) {
    grain::ContractShapeSpec s = random_shape(g, grain::kAllContractKernels[i % 9], 40);
    s.L = std::min<index_type>(s.L, 40);
    s.R = std::min<index_type>(s.R, 40);
    s.P = std::min<index_type>(s.P, 60);
    grain::impl::ContractShape shape;
    shape.kernel = s.kernel;
    shape.C = s.C, shape.L = s.L, shape.R = s.R, shape.P = s.P, shape.D1 = s.D1, shape.D2 = s.D2;
    const ContractAlgorithm call = grain::impl::contract_dispatch(s.kernel, s.dbl, s.layout_left, [&](auto types) {
      const grain::impl::ContractOperands<Exec, decltype(types)> ops(shape);
      return grain::impl::contract_auto_algorithm(ops.problem(), ops.exec());
    });
    const grain::ContractExplanation x = grain::contract_explain(s, backend);
    EXPECT_EQ(x.pick, call) << grain::contract_kernel_name(s.kernel) << " C=" << s.C << " L=" << s.L << " R=" << s.R
                            << " P=" << s.P;
    const std::string text = grain::contract_explain_text(x);
    EXPECT_NE(text.find(std::string("pick: ") + grain::contract_algorithm_name(call)), std::string::npos) << text;
  }
}
TEST(ContractModel, ExplainMatchesTheCallSerial) { explain_matches_the_call<grain::Serial>(); }
#if defined(GRAIN_ENABLE_OPENMP)
TEST(ContractModel, ExplainMatchesTheCallOpenMP) { explain_matches_the_call<grain::OpenMP>(); }
#endif

TEST(ContractModel, ExplainRejectsBadShapes) {
  auto expect_error = [](const std::string& text, ContractKernel k, const std::string& part) {
    try {
      grain::parse_contract_shape(k, text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const grain::Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error("10,8,8", ContractKernel::FieldFieldScalar, "expected C,L,R,P");
  expect_error("10,8,8,8,3", ContractKernel::FieldFieldScalar, "expected C,L,R,P");
  expect_error("10,8,8,x", ContractKernel::FieldFieldScalar, "P must be a whole number");
  expect_error("0,8,8,8", ContractKernel::FieldFieldScalar, "C must be a whole number >= 1");
  expect_error("10,2,8,8", ContractKernel::DataFieldScalar, "L must be 1");
  expect_error("10,1,8,8", ContractKernel::DataDataScalar, "R must be 1");
  const grain::ContractShapeSpec s = grain::parse_contract_shape(ContractKernel::FieldFieldTensor, "10,4,5,6");
  EXPECT_EQ(s.D1, 3);
  EXPECT_EQ(s.D2, 3);
  EXPECT_EQ(grain::parse_contract_shape(ContractKernel::FieldFieldTensor, "10,4,5,6,2,1").D1, 2);
  EXPECT_THROW(grain::contract_explain(s, "metal"), grain::Error);
}

// ---- plans ----------------------------------------------------------------------------------------

namespace {

template <class V>
auto host_copy(const V& v) {
  auto h = grain::create_mirror_view(v);
  grain::deep_copy(h, v);
  return h;
}

// FieldFieldScalar Views on Exec filled by logical index, and the naive reference on the host.
template <class Exec, class T, class Layout = grain::LayoutRight>
struct FieldField {
  using Space = typename Exec::memory_space;
  grain::View<T***, Layout, Space> out, left, right;
  std::vector<double> ref, mag;
  contract_test::Shape shape;
  FieldField(std::size_t C, std::size_t L, std::size_t R, std::size_t P)
      : out("out", C, L, R), left("left", C, L, P), right("right", C, R, P), shape{C, L, R, P, 1, 1} {
    grain::impl::contract_fill_logical<Exec>(left, 11);
    grain::impl::contract_fill_logical<Exec>(right, 23);
    const auto hl = host_copy(left);
    const auto hr = host_copy(right);
    contract_test::naive<2, 1>(shape, hl, hr, ref, mag);
  }
  void poison() const { grain::deep_copy(out, std::numeric_limits<T>::quiet_NaN()); }
  // Every output within 2 (K + 8) eps sum |a b| of the reference; NaN fails.
  void expect_correct(const std::string& what) const {
    const auto h = host_copy(out);
    const double tol = 2.0 * double(shape.P + 8) * double(std::numeric_limits<T>::epsilon());
    for (std::size_t c = 0; c < shape.C; ++c)
      for (std::size_t l = 0; l < shape.L; ++l)
        for (std::size_t r = 0; r < shape.R; ++r) {
          const std::size_t at = (c * shape.L + l) * shape.R + r;
          const double got = contract_test::out_at<2>(h, c, l, r);
          ASSERT_TRUE(std::abs(got - ref[at]) <= tol * mag[at] + 1e-30)
              << what << ": out(" << c << "," << l << "," << r << ") = " << got << ", expected " << ref[at];
        }
  }
};

}  // namespace

// A measured plan is correct, comes back from the cache for the same shape class without timing,
// is measured anew for another element type, and is what plain calls of that shape use.
template <class Exec>
void plan_cache_and_results() {
  TuningOff off;
  FieldField<Exec, double> d(300, 9, 7, 12);
  grain::PlanOptions opt;
  opt.tuning = grain::Tuning::Measure;
  opt.exec = grain::impl::contract_exec_of<Exec>();  // host Views would run on OpenMP by default
  const auto first = grain::plan_field_field_scalar(d.out, d.left, d.right, opt);
  EXPECT_EQ(first.source(), "measured");
  EXPECT_FALSE(first.timings().empty());
  EXPECT_GT(first.planning_ms(), 0.0);
  for (const auto& t : first.timings()) EXPECT_GT(t.ms, 0.0) << grain::contract_algorithm_name(t.algorithm);
  bool timed = false;  // the winner is among the timed
  for (const auto& t : first.timings()) timed = timed || t.algorithm == first.algorithm();
  EXPECT_TRUE(timed);
  d.poison();
  first(d.out, d.left, d.right);
  d.expect_correct("measured plan");

  // The same shape class (other C in the same power of two): from the cache, nothing timed.
  FieldField<Exec, double> d2(290, 9, 7, 12);
  const auto again = grain::plan_field_field_scalar(d2.out, d2.left, d2.right, opt);
  EXPECT_EQ(again.source(), "plan cache");
  EXPECT_TRUE(again.timings().empty());
  EXPECT_EQ(again.algorithm(), first.algorithm());
  // Plain calls of that class use it.
  const auto p = grain::contract_problem(ContractKernel::FieldFieldScalar, d2.out, d2.left, d2.right);
  EXPECT_EQ(first.exec(), grain::impl::contract_exec_of<Exec>());
  EXPECT_EQ(grain::impl::contract_auto_algorithm(p, first.exec()), first.algorithm());

  // Another element type: measured anew.
  FieldField<Exec, float> f(300, 9, 7, 12);
  const auto other = grain::plan_field_field_scalar(f.out, f.left, f.right, opt);
  EXPECT_EQ(other.source(), "measured");
  EXPECT_FALSE(other.timings().empty());
  f.poison();
  other(f.out, f.left, f.right);
  f.expect_correct("float plan");

  // A model plan never times, and is correct too.
  grain::impl::contract_plan_cache_clear();
  grain::PlanOptions model_opt;
  model_opt.exec = opt.exec;
  const auto model = grain::plan_field_field_scalar(d.out, d.left, d.right, model_opt);
  EXPECT_EQ(model.source(), "model");
  EXPECT_TRUE(model.timings().empty());
  EXPECT_EQ(model.algorithm(), model.ranking().front());
  d.poison();
  model(d.out, d.left, d.right);
  d.expect_correct("model plan");
}
GRAIN_BACKEND_TEST(ContractPlan, CacheAndResults) { plan_cache_and_results<TypeParam>(); }

// A plan called with other Views: a clear grain::Error, nothing run.
template <class Exec>
void plan_checks_views() {
  TuningOff off;
  FieldField<Exec, double> d(50, 4, 5, 6);
  const auto plan = grain::plan_field_field_scalar(d.out, d.left, d.right);
  FieldField<Exec, double> other(50, 4, 5, 7);
  other.poison();
  try {
    plan(other.out, other.left, other.right);
    ADD_FAILURE() << "no error for other extents";
  } catch (const grain::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("made for out (50,4,5)"), std::string::npos) << m;
    EXPECT_NE(m.find("right (50,5,7)"), std::string::npos) << m;
  }
  const auto h = host_copy(other.out);
  EXPECT_TRUE(std::isnan(h.data()[0])) << "the failed call wrote out";
  // Same extents, other layout (cells fastest): the strides differ.
  FieldField<Exec, double, grain::LayoutLeft> left_layout(50, 4, 5, 6);
  EXPECT_THROW(plan(left_layout.out, left_layout.left, left_layout.right), grain::Error);
  // A plan's sum_into is kept: out += result.
  grain::PlanOptions acc;
  acc.sum_into = true;
  const auto add = grain::plan_field_field_scalar(d.out, d.left, d.right, acc);
  grain::deep_copy(d.out, 0.0);
  add(d.out, d.left, d.right);
  add(d.out, d.left, d.right);
  const auto twice = host_copy(d.out);
  for (std::size_t i = 0; i < 10; ++i) {
    const std::size_t c = i, l = i % 4, r = i % 5, at = (c * 4 + l) * 5 + r;
    EXPECT_NEAR(contract_test::out_at<2>(twice, c, l, r), 2 * d.ref[at], 1e-12 * (1 + d.mag[at]));
  }
  grain::PlanOptions bad;
  bad.candidates = -1;
  EXPECT_THROW(grain::plan_field_field_scalar(d.out, d.left, d.right, bad), grain::Error);
}
GRAIN_BACKEND_TEST(ContractPlan, ChecksTheViewsAtCallTime) { plan_checks_views<TypeParam>(); }

// Another back end is another device: its own measurement. And a plan made for host Views run on
// Serial refuses the same Views on the default back end when that differs.
#if defined(GRAIN_ENABLE_OPENMP)
TEST(ContractPlan, AnotherBackEndIsMeasuredAnew) {
  TuningOff off;
  FieldField<grain::Serial, double> d(200, 6, 6, 10);
  grain::PlanOptions opt;
  opt.tuning = grain::Tuning::Measure;
  opt.exec = ContractExec::Serial;
  const auto serial = grain::plan_field_field_scalar(d.out, d.left, d.right, opt);
  EXPECT_EQ(serial.source(), "measured");
  EXPECT_EQ(serial.exec(), ContractExec::Serial);
  opt.exec = ContractExec::OpenMP;
  const auto openmp = grain::plan_field_field_scalar(d.out, d.left, d.right, opt);
  EXPECT_EQ(openmp.source(), "measured");
  EXPECT_EQ(openmp.exec(), ContractExec::OpenMP);
  opt.exec = ContractExec::Serial;
  EXPECT_EQ(grain::plan_field_field_scalar(d.out, d.left, d.right, opt).source(), "plan cache");
  EXPECT_EQ(grain::impl::contract_plan_cache_size(), 2u);
}
#endif

// With save, the measured winner goes to the tuning file, which a fresh process (here: a reset
// of the loaded state and the cache) reads; a corrupted file gives one warning and the model.
TEST(ContractPlan, SaveWritesTheTuningFileAndACorruptedFileFallsBack) {
  TuningOff off;
  const std::string path = "/tmp/grain_plan_test_" + std::to_string(::getpid()) + ".txt";
  std::remove(path.c_str());
  FieldField<grain::Serial, double> d(100, 5, 5, 8);
  grain::PlanOptions opt;
  opt.tuning = grain::Tuning::Measure;
  opt.exec = ContractExec::Serial;
  opt.save = true;
  opt.tuning_file = path;
  const auto plan = grain::plan_field_field_scalar(d.out, d.left, d.right, opt);
  ::setenv("GRAIN_TUNING_FILE", path.c_str(), 1);
  grain::impl::contract_tuning_reset();
  grain::impl::contract_plan_cache_clear();
  grain::PlanOptions model;
  model.exec = ContractExec::Serial;
  const auto read = grain::plan_field_field_scalar(d.out, d.left, d.right, model);
  EXPECT_EQ(read.source(), path);
  EXPECT_EQ(read.algorithm(), plan.algorithm());

  {
    std::ofstream f(path);
    f << "grain-contract-tuning 2\nthis line is not an entry\n";
  }
  grain::impl::contract_tuning_reset();
  testing::internal::CaptureStderr();
  const auto fallback = grain::plan_field_field_scalar(d.out, d.left, d.right, model);
  const auto again = grain::plan_field_field_scalar(d.out, d.left, d.right, model);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(fallback.source(), "model");
  EXPECT_EQ(again.source(), "model");
  std::size_t warnings = 0;
  for (std::size_t at = err.find("grain: warning"); at != std::string::npos; at = err.find("grain: warning", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << err;
  std::remove(path.c_str());
}
