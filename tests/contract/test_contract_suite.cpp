// The contraction suite as a library call (bench/contract_bench.hpp): a tiny run on the serial
// back end whose JSON is read back (to a file, and to standard output with the readable lines on
// standard error), and the option values it refuses.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "contract_bench.hpp"
#include "grain/core/error.hpp"

namespace {

grain::bench::ContractSuiteOptions tiny() {
  grain::bench::ContractSuiteOptions o;
  o.backend = "serial";
  o.kernels = {"FieldFieldScalar"};
  o.cases = {"Q1"};
  o.dtypes = {"double"};
  o.algorithms = {"auto", "flat", "block", "openblas-gemm"};
  o.budget_mib = 0.25;
  o.reps = 1;
  return o;
}

void expect_rows(const nlohmann::json& j) {
  EXPECT_EQ(j["backend"], "serial");
  ASSERT_TRUE(j["rows"].is_array());
  int selected = 0;
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["kernel"], "FieldFieldScalar");
    EXPECT_EQ(r["case"], "Q1");
    EXPECT_EQ(r["dtype"], "double");
    EXPECT_TRUE(r["verified"].get<bool>()) << r["algorithm"];
    EXPECT_GT(r["ms"].get<double>(), 0);
    selected += r["selected"].get<bool>() ? 1 : 0;
  }
  // auto, flat, block and, where OpenBLAS is built in, the peer; Auto's pick is one of flat and
  // block (auto itself is marked where it is the pick of no forced row).
  EXPECT_GE(j["rows"].size(), 3u);
  EXPECT_LE(selected, 1);
}

}  // namespace

TEST(BenchContractSuite, TinySerialRunToAFile) {
  const char* dir = std::getenv("TMPDIR");
  const std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/grain_suite_test_" + std::to_string(::getpid()) + ".json";
  grain::bench::ContractSuiteOptions o = tiny();
  o.json = path;
  testing::internal::CaptureStdout();
  grain::bench::run_contract_suite(o);
  const std::string text = testing::internal::GetCapturedStdout();
  EXPECT_NE(text.find("Auto's pick per shape"), std::string::npos) << text;
  EXPECT_NE(text.find("wrote " + path), std::string::npos) << text;
  std::ifstream f(path);
  expect_rows(nlohmann::json::parse(f));
  std::remove(path.c_str());
}

TEST(BenchContractSuite, JsonToStandardOutputAndLinesToStandardError) {
  grain::bench::ContractSuiteOptions o = tiny();
  o.json = "-";
  o.quiet = true;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  grain::bench::run_contract_suite(o);
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(err.find("grain bench contract: "), std::string::npos) << err;
  EXPECT_NE(err.find("Auto's pick per shape"), std::string::npos) << err;
  expect_rows(nlohmann::json::parse(out));
}

TEST(BenchContractSuite, RefusesInconsistentValues) {
  auto with = [](auto change) {
    grain::bench::ContractSuiteOptions o = tiny();
    change(o);
    return o;
  };
  using grain::bench::run_contract_suite;
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.kernels = {"FieldFieldMatrix"}; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.cases = {"Q9"}; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.dtypes = {"half"}; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.algorithms = {"fastest"}; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.budget_mib = -1; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.reps = -1; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.layout = "diagonal"; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) { o.backend = "abacus"; })), grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) {
                 o.backend = "all";
                 o.json = "-";
               })),
               grain::Error);
  EXPECT_THROW(run_contract_suite(with([](auto& o) {
                 o.sweep = true;
                 o.sweep_p = {8, -1};
               })),
               grain::Error);
}

TEST(BenchContractSuite, NameListsMatchTheLibrary) {
  EXPECT_EQ(grain::bench::contract_suite_kernels().size(), 9u);
  EXPECT_EQ(grain::bench::contract_suite_cases(), (std::vector<std::string>{"Q1", "Q2", "Q3", "Q4"}));
  const std::vector<std::string> a = grain::bench::contract_suite_algorithms();
  EXPECT_EQ(a.front(), "auto");
  EXPECT_EQ(a[a.size() - 2], "openblas-gemm");
  EXPECT_EQ(a.back(), "cublas-strided-batched");
}
