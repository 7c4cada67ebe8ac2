// grain::contract_tune (tune.hpp) on a tiny case: the benchmark cases of one kernel in one element
// type on the serial back end at a small budget, written to a temporary file; the entries it
// writes are read back and checked, the other devices' entries kept, the environment restored.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "grain/contract/select.hpp"
#include "grain/contract/tune.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/grain.hpp"

namespace {

using grain::ContractAlgorithm;
using grain::ContractKernel;

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/grain_tune_test_" + std::to_string(::getpid()) + "_" + name;
}

grain::ContractTuneOptions tiny(const std::string& path) {
  grain::ContractTuneOptions o;
  o.backend = "serial";
  o.path = path;
  o.quick = true;
  o.kernels = {ContractKernel::DataFieldScalar};
  o.dtypes = {"double"};
  o.budget_mib = 0.25;
  o.reps = 1;
  return o;
}

}  // namespace

TEST(ContractTune, QuickSerialRunWritesApplicableWinners) {
  const std::string path = temp_path("quick.txt");
  {
    std::ofstream f(path);
    f << "grain-contract-tuning 2\nanother-device\tserial\tFieldFieldScalar\tdouble\tright\t3\t3\t3\t3\ttile\t0.5\n";
  }
  ::setenv("GRAIN_TUNING_FILE", "/nonexistent/grain-tuning.txt", 1);

  std::vector<std::string> lines;
  const grain::ContractTuneResult r =
      grain::contract_tune(tiny(path), [&](const std::string& line) { lines.push_back(line); });

  // The caller's environment is back.
  ASSERT_NE(std::getenv("GRAIN_TUNING_FILE"), nullptr);
  EXPECT_STREQ(std::getenv("GRAIN_TUNING_FILE"), "/nonexistent/grain-tuning.txt");
  ::unsetenv("GRAIN_TUNING_FILE");
  grain::impl::contract_tuning_reset();

  EXPECT_EQ(r.backend, "serial");
  EXPECT_EQ(r.path, path);
  EXPECT_EQ(r.device, grain::contract_tuning_device(grain::ContractExec::Serial));
  EXPECT_EQ(r.auto_path, "/nonexistent/grain-tuning.txt");
  EXPECT_FALSE(r.auto_reads_it);
  // Q1..Q4 of DataFieldScalar: R = 8, 27, 64, 125 and K = 8, 27, 64, 216 are four shape classes.
  EXPECT_EQ(r.entries, 4);
  EXPECT_LE(r.changed, r.entries);
  ASSERT_EQ(lines.size(), std::size_t(1 + r.entries));  // the plan, then a line a shape
  EXPECT_NE(lines[0].find(path), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("DataFieldScalar"), std::string::npos) << lines[1];
  const std::string summary = grain::contract_tune_summary(r);
  EXPECT_NE(summary.find("wrote 4 entries"), std::string::npos) << summary;
  EXPECT_NE(summary.find("GRAIN_TUNING_FILE=" + path), std::string::npos) << summary;

  const grain::ContractTuningTable t = grain::ContractTuningTable::load(path);
  EXPECT_EQ(t.size(), std::size_t(1 + r.entries));
  EXPECT_TRUE(t.has("another-device", "serial"));
  // A DataFieldScalar problem, to ask which algorithms apply to the kernel.
  grain::View<double**> out("out", 2, 8), data("data", 2, 8);
  grain::View<double***> fields("fields", 2, 8, 8);
  const auto p = grain::contract_problem(ContractKernel::DataFieldScalar, out, data, fields);
  int mine = 0;
  for (const grain::ContractTuningEntry& e : t.entries()) {
    if (e.key.device != r.device) continue;
    ++mine;
    EXPECT_EQ(e.key.backend, "serial");
    EXPECT_EQ(e.key.kernel, "DataFieldScalar");
    EXPECT_EQ(e.key.dtype, "double");
    EXPECT_EQ(e.key.layout, "right");
    EXPECT_EQ(e.key.l_class, 0);
    EXPECT_NE(e.algorithm, ContractAlgorithm::Auto);
    EXPECT_NE(e.algorithm, ContractAlgorithm::Serial);
    EXPECT_EQ(grain::impl::contract_not_applicable(p, e.algorithm, grain::ContractExec::Serial), "")
        << grain::contract_algorithm_name(e.algorithm);
    EXPECT_GT(e.ms, 0);
  }
  EXPECT_EQ(mine, r.entries);

  // Tuning again replaces this device's entries and keeps the other device's.
  const grain::ContractTuneResult again = grain::contract_tune(tiny(path));
  EXPECT_EQ(again.entries, 4);
  EXPECT_EQ(grain::ContractTuningTable::load(path).size(), std::size_t(5));
  EXPECT_EQ(std::getenv("GRAIN_TUNING_FILE"), nullptr);
  std::remove(path.c_str());
}

TEST(ContractTune, RejectsOptionValuesOutOfRange) {
  const std::string path = temp_path("bad.txt");
  auto with = [&](auto change) {
    grain::ContractTuneOptions o = tiny(path);
    change(o);
    return o;
  };
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.budget_mib = -1; })), grain::Error);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.reps = -2; })), grain::Error);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.dtypes = {"half"}; })), grain::Error);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.layout = "diagonal"; })), grain::Error);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.backend = "abacus"; })), grain::Error);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) {
                 o.quick = false;
                 o.points = {8, 0};
               })),
               grain::Error);
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  EXPECT_THROW(grain::contract_tune(with([](auto& o) { o.path = ""; })), grain::Error);
  ::unsetenv("GRAIN_TUNING_FILE");
  // Nothing was written.
  EXPECT_FALSE(std::ifstream(path).good());
}
