// The contraction tuning file: parsing, writing, and Auto's fallbacks (missing, stale, malformed
// files never fail; they warn once and leave Auto on its model). Host-only, no timing.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <unistd.h>

#include "grain/core/backend/cuda_runtime.hpp"  // cuda_device (CUDA builds)
#include "grain/contract/select.hpp"
#include "grain/contract/tuning.hpp"
#include "grain/grain.hpp"

namespace {

using grain::ContractAlgorithm;
using grain::ContractExec;
using grain::ContractKernel;
using grain::ContractTuningTable;

const char* kHeader = "grain-contract-tuning 2\n";

std::string entry(const std::string& device, const std::string& backend, const std::string& kernel,
                  const std::string& alg, int l = 3, int r = 3, int k = 3,
                  const std::string& dtype = "double", const std::string& layout = "right", int c = 3) {
  return device + "\t" + backend + "\t" + kernel + "\t" + dtype + "\t" + layout + "\t" +
         std::to_string(l) + "\t" + std::to_string(r) + "\t" + std::to_string(k) + "\t" + std::to_string(c) +
         "\t" + alg + "\t0.5\n";
}

ContractTuningTable parse(const std::string& text) {
  std::istringstream in(text);
  return ContractTuningTable::parse(in, "test.txt");
}

// Expects parse(text) to throw a grain::Error whose message contains `part`.
void expect_parse_error(const std::string& text, const std::string& part) {
  try {
    parse(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const grain::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message '" << e.what() << "' lacks '" << part << "'";
  }
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/grain_tuning_test_" + std::to_string(::getpid()) +
         "_" + name;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// Counts "grain: warning" lines in captured stderr.
int warnings(const std::string& err) {
  int n = 0;
  for (std::size_t at = err.find("grain: warning"); at != std::string::npos;
       at = err.find("grain: warning", at + 1))
    ++n;
  return n;
}

// Looks up a FieldField double LayoutRight shape with L = R = K = 8 (classes 3, 3, 3) on Serial.
ContractAlgorithm lookup(ContractKernel kernel = ContractKernel::FieldFieldScalar,
                         ContractExec e = ContractExec::Serial) {
  return grain::impl::contract_tuned_algorithm(kernel, true, false, 8, 8, 8, 8, e);
}

// Points GRAIN_TUNING_FILE at `path` and forgets the cached file; the device is "test-device".
void use_file(const std::string& path) {
  ::setenv("GRAIN_TUNING_FILE", path.c_str(), 1);
  grain::impl::contract_tuning_reset("test-device");
}

struct EnvGuard {
  ~EnvGuard() {
    ::unsetenv("GRAIN_TUNING_FILE");
    grain::impl::contract_tuning_reset();
  }
};

}  // namespace

TEST(ContractTuning, ShapeClassIsCeilLog2) {
  EXPECT_EQ(grain::contract_shape_class(0), 0);
  EXPECT_EQ(grain::contract_shape_class(1), 0);
  EXPECT_EQ(grain::contract_shape_class(2), 1);
  EXPECT_EQ(grain::contract_shape_class(3), 2);
  EXPECT_EQ(grain::contract_shape_class(8), 3);
  EXPECT_EQ(grain::contract_shape_class(27), 5);
  EXPECT_EQ(grain::contract_shape_class(64), 6);
  EXPECT_EQ(grain::contract_shape_class(125), 7);
  EXPECT_EQ(grain::contract_shape_class(1944), 11);
}

TEST(ContractTuning, WriteThenParseRoundTrips) {
  ContractTuningTable t;
  grain::ContractTuningEntry e;
  e.key = grain::ContractTuningKey{"NVIDIA H100 80GB HBM3", "cuda", "FieldFieldTensor", "float",
                                   "left", 7, 7, 11};
  e.algorithm = ContractAlgorithm::Tile;
  e.ms = 1.25;
  t.set(e);
  e.key.dtype = "double";
  e.algorithm = ContractAlgorithm::AdaptiveSlice;
  t.set(e);
  std::ostringstream out;
  t.write(out);
  const ContractTuningTable back = parse(out.str());
  ASSERT_EQ(back.size(), 2u);
  const grain::ContractTuningEntry* hit = back.find(e.key);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->algorithm, ContractAlgorithm::AdaptiveSlice);
  EXPECT_DOUBLE_EQ(hit->ms, 1.25);
  EXPECT_TRUE(back.has("NVIDIA H100 80GB HBM3", "cuda"));
  EXPECT_FALSE(back.has("NVIDIA H100 80GB HBM3", "openmp"));

  ContractTuningTable copy = back;
  copy.erase("NVIDIA H100 80GB HBM3", "cuda");
  EXPECT_EQ(copy.size(), 0u);
}

TEST(ContractTuning, CommentsAndBlankLinesAreSkipped) {
  const ContractTuningTable t =
      parse(std::string("# a comment\n\n") + kHeader + "# another\n" +
            entry("cpu", "openmp", "DataDataScalar", "flat") + "\n");
  EXPECT_EQ(t.size(), 1u);
}

TEST(ContractTuning, MalformedFilesRaiseErrorsNamingTheLine) {
  expect_parse_error("", "empty tuning file");
  expect_parse_error("something else 1\n", "not a grain contraction tuning file");
  expect_parse_error("grain-contract-tuning 3\n", "version 3");
  expect_parse_error(std::string(kHeader) + "a\tb\tc\n", "test.txt:2: expected 11 TAB-separated fields");
  expect_parse_error(std::string(kHeader) + entry("cpu", "metal", "DataDataScalar", "flat"),
                     "unknown back end 'metal'");
  expect_parse_error(std::string(kHeader) + entry("cpu", "openmp", "DataDataMatrix", "flat"),
                     "unknown kernel 'DataDataMatrix'");
  expect_parse_error(std::string(kHeader) + entry("cpu", "openmp", "DataDataScalar", "fastest"),
                     "unknown algorithm 'fastest'");
  expect_parse_error(std::string(kHeader) + entry("cpu", "openmp", "DataDataScalar", "auto"),
                     "concrete one");
  expect_parse_error(std::string(kHeader) +
                         entry("cpu", "openmp", "DataDataScalar", "flat", 3, 3, 3, "half"),
                     "unknown dtype 'half'");
  expect_parse_error(std::string(kHeader) +
                         entry("cpu", "openmp", "DataDataScalar", "flat", 3, 3, 3, "float", "diag"),
                     "unknown layout 'diag'");
  expect_parse_error(std::string(kHeader) + entry("cpu", "openmp", "DataDataScalar", "flat", -1),
                     "shape class L");
  expect_parse_error(std::string(kHeader) + "cpu\topenmp\tDataDataScalar\tdouble\tright\t3\t3\tx\t3\tflat\t1\n",
                     "shape class K");
  expect_parse_error(std::string(kHeader) + "cpu\topenmp\tDataDataScalar\tdouble\tright\t3\t3\t3\t3\tflat\tfast\n",
                     "time must be a number");
  expect_parse_error(std::string(kHeader) + "\topenmp\tDataDataScalar\tdouble\tright\t3\t3\t3\t3\tflat\t1\n",
                     "expected 11");
  expect_parse_error(std::string(kHeader) + "cpu\topenmp\tDataDataScalar\tdouble\tright\t3\t3\t3\t99\tflat\t1\n",
                     "shape class C");
  const std::string dup = entry("cpu", "openmp", "DataDataScalar", "flat");
  expect_parse_error(std::string(kHeader) + dup + dup, "test.txt:3: duplicate entry");
}

TEST(ContractTuning, LoadOfAMissingFileRaises) {
  EXPECT_THROW(ContractTuningTable::load(temp_path("does-not-exist.txt")), grain::Error);
}

TEST(ContractTuning, AutoUsesAMatchingEntry) {
  EnvGuard guard;
  const std::string path = temp_path("good.txt");
  write_file(path, std::string(kHeader) + entry("test-device", "serial", "FieldFieldScalar", "tile") +
                       entry("test-device", "serial", "DataFieldScalar", "slice"));
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Tile);
  EXPECT_EQ(lookup(ContractKernel::DataFieldScalar), ContractAlgorithm::Slice);
  // Another shape class, dtype or layout: no entry, the model decides (silently).
  EXPECT_EQ(grain::impl::contract_tuned_algorithm(ContractKernel::FieldFieldScalar, true, false, 64,
                                                  64, 64, 8, ContractExec::Serial),
            ContractAlgorithm::Auto);
  EXPECT_EQ(grain::impl::contract_tuned_algorithm(ContractKernel::FieldFieldScalar, false, false,
                                                  8, 8, 8, 8, ContractExec::Serial),
            ContractAlgorithm::Auto);
  EXPECT_EQ(grain::impl::contract_tuned_algorithm(ContractKernel::FieldFieldScalar, true, true, 8,
                                                  8, 8, 8, ContractExec::Serial),
            ContractAlgorithm::Auto);
  EXPECT_EQ(warnings(testing::internal::GetCapturedStderr()), 0);
  std::remove(path.c_str());
}

TEST(ContractTuning, StaleFileWarnsOnceAndFallsBack) {
  EnvGuard guard;
  const std::string path = temp_path("stale.txt");
  write_file(path, std::string(kHeader) + entry("another-gpu", "serial", "FieldFieldScalar", "tile"));
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1) << err;
  EXPECT_NE(err.find("no entries for device 'test-device'"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(ContractTuning, OldVersionWarnsOnceAndFallsBack) {
  EnvGuard guard;
  const std::string path = temp_path("old.txt");
  write_file(path, "grain-contract-tuning 0\n" + entry("test-device", "serial", "FieldFieldScalar", "tile"));
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1) << err;
  EXPECT_NE(err.find("version 0"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(ContractTuning, MalformedFileWarnsOnceAndFallsBack) {
  EnvGuard guard;
  const std::string path = temp_path("bad.txt");
  write_file(path, std::string(kHeader) + entry("test-device", "serial", "FieldFieldScalar", "tile") +
                       "garbage line\n");
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1) << err;
  EXPECT_NE(err.find(":3: expected 11"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(ContractTuning, MissingFileNamedByTheEnvironmentWarnsOnce) {
  EnvGuard guard;
  use_file(temp_path("missing.txt"));
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
}

TEST(ContractTuning, MissingDefaultFileAndOffAreSilent) {
  EnvGuard guard;
  const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  ::unsetenv("GRAIN_TUNING_FILE");
  ::setenv("XDG_CONFIG_HOME", temp_path("no-such-dir").c_str(), 1);
  EXPECT_EQ(grain::contract_tuning_path(), temp_path("no-such-dir") + "/grain/contract-tuning.txt");
  grain::impl::contract_tuning_reset("test-device");
  testing::internal::CaptureStderr();
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  EXPECT_EQ(grain::contract_tuning_path(), "");
  grain::impl::contract_tuning_reset("test-device");
  EXPECT_EQ(lookup(), ContractAlgorithm::Auto);
  EXPECT_EQ(warnings(testing::internal::GetCapturedStderr()), 0);
  if (old_xdg)
    ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    ::unsetenv("XDG_CONFIG_HOME");
}

TEST(ContractTuning, SaveCreatesTheDirectory) {
  ContractTuningTable t;
  grain::ContractTuningEntry e;
  e.key = grain::ContractTuningKey{"cpu", "openmp", "DataDataVector", "float", "right", 0, 0, 5};
  e.algorithm = ContractAlgorithm::Flat;
  t.set(e);
  const std::string dir = temp_path("dir");
  const std::string path = dir + "/sub/tuning.txt";
  t.save(path);
  const ContractTuningTable back = ContractTuningTable::load(path);
  ASSERT_NE(back.find(e.key), nullptr);
  EXPECT_EQ(back.find(e.key)->algorithm, ContractAlgorithm::Flat);
  std::remove(path.c_str());
  ::rmdir((dir + "/sub").c_str());
  ::rmdir(dir.c_str());
}

// ---- Auto (select.hpp) consults the tuning file first ---------------------------------------------

namespace {

// A FieldFieldScalar problem of C cells, L = R = F fields and P points, in LayoutLeft (cells the
// unit-stride index) or LayoutRight (points).
template <class T>
grain::impl::ContractProblem<T> field_field(grain::index_type C, grain::index_type F, grain::index_type P, bool left) {
  grain::impl::ContractProblem<T> p;
  p.kernel = ContractKernel::FieldFieldScalar;
  p.C = C;
  p.L = p.R = F;
  p.x[2] = P;
  p.ax[2] = p.bx[2] = left ? C * F : 1;
  p.a_c = p.b_c = left ? 1 : F * P;
  p.a_l = p.b_r = left ? C : P;
  p.o_c = left ? 1 : F * F;
  p.o_l = left ? C : F;
  p.o_r = left ? C * F : 1;
  p.canonicalize();
  return p;
}
// A LayoutRight FieldFieldScalar problem with C = 5, L = R = P = 8 (shape classes 3, 3, 3).
grain::impl::ContractProblem<double> field_field_problem() { return field_field<double>(5, 8, 8, false); }

// A LayoutRight DataDataScalar problem with C = 5, P = 8.
grain::impl::ContractProblem<double> data_data_problem() {
  grain::impl::ContractProblem<double> p;
  p.kernel = ContractKernel::DataDataScalar;
  p.C = 5;
  p.x[2] = 8;
  p.ax[2] = p.bx[2] = 1;
  p.a_c = p.b_c = 8;
  p.o_c = 1;
  p.canonicalize();
  return p;
}

}  // namespace

TEST(ContractTuning, AutoPrefersAnApplicableTunedAlgorithm) {
  EnvGuard guard;
  const auto ff = field_field_problem();
  const auto dd = data_data_problem();
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  const ContractAlgorithm ff_model = grain::impl::contract_auto_algorithm(ff, ContractExec::Serial);
  const ContractAlgorithm dd_model = grain::impl::contract_auto_algorithm(dd, ContractExec::Serial);

  // A tuned winner that differs from the model is used; one that does not apply (tile on a
  // DataData kernel) is ignored.
  const ContractAlgorithm tuned =
      ff_model == ContractAlgorithm::Tile ? ContractAlgorithm::Slice : ContractAlgorithm::Tile;
  const std::string path = temp_path("auto.txt");
  write_file(path, std::string(kHeader) +
                       entry("test-device", "serial", "FieldFieldScalar",
                             grain::contract_algorithm_name(tuned)) +
                       entry("test-device", "serial", "DataDataScalar", "tile", 0, 0, 3));
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(grain::impl::contract_auto_algorithm(ff, ContractExec::Serial), tuned);
  EXPECT_EQ(grain::impl::contract_auto_algorithm(dd, ContractExec::Serial), dd_model);
  EXPECT_EQ(warnings(testing::internal::GetCapturedStderr()), 0);

  // A stale file: the model, with one warning.
  write_file(path, std::string(kHeader) + entry("another-device", "serial", "FieldFieldScalar", "tile"));
  use_file(path);
  testing::internal::CaptureStderr();
  EXPECT_EQ(grain::impl::contract_auto_algorithm(ff, ContractExec::Serial), ff_model);
  EXPECT_EQ(grain::impl::contract_auto_algorithm(ff, ContractExec::Serial), ff_model);
  EXPECT_EQ(warnings(testing::internal::GetCapturedStderr()), 1);
  std::remove(path.c_str());
}


// A LayoutRight Data problem: data(c, k), fields(c, r, k) (DataField) or right(c, k) (DataData,
// R = 1), out(c, r); each cell's rows followed by `gap` unused elements (0: back to back). No
// data is attached (null pointers count as 16-byte aligned), so k_packed() follows K.
template <class T>
grain::impl::ContractProblem<T> data_rows_problem(grain::index_type C, grain::index_type R, grain::index_type K,
                                                  grain::index_type gap = 0) {
  grain::impl::ContractProblem<T> p;
  p.kernel = R == 1 ? ContractKernel::DataDataScalar : ContractKernel::DataFieldScalar;
  p.C = C, p.L = 1, p.R = R, p.x[2] = K;
  p.ax[2] = p.bx[2] = 1;
  p.a_c = K + gap, p.b_c = R * K + gap, p.b_r = R == 1 ? 0 : K, p.o_c = R, p.o_r = R == 1 ? 0 : 1;
  p.canonicalize();
  return p;
}

// Where team-small-k stages rows rather than run its packed lanes (ContractProblem::stage_rows):
// every unpackable row; packable rows unless the lanes are 3/4 busy on rows from K = 64
// (DataData) or K = 512 (DataField).
TEST(ContractTuning, StagedRowsOrPackedLanes) {
  auto prob = [](grain::index_type R, grain::index_type K, auto zero) {
    return data_rows_problem<decltype(zero)>(100, R, K);
  };
  EXPECT_TRUE(prob(1, 27, 0.0f).stage_rows());     // odd K
  EXPECT_TRUE(prob(27, 243, 0.0).stage_rows());
  EXPECT_TRUE(prob(1, 72, 0.0f).stage_rows());     // 18 packs on 32 lanes
  EXPECT_TRUE(prob(1, 24, 0.0).stage_rows());      // DataData below K = 64
  EXPECT_FALSE(prob(1, 64, 0.0f).stage_rows());    // DataData, 16 packs on 16 lanes
  EXPECT_FALSE(prob(1, 192, 0.0f).stage_rows());   // 48 packs on 64 slots
  EXPECT_TRUE(prob(64, 64, 0.0f).stage_rows());    // DataField below K = 512
  EXPECT_TRUE(prob(64, 192, 0.0).stage_rows());
  EXPECT_FALSE(prob(64, 576, 0.0f).stage_rows());  // 144 packs on 160 slots
  EXPECT_FALSE(prob(125, 648, 0.0f).stage_rows());
  EXPECT_FALSE(prob(8, 1025, 0.0f).stage_rows());  // over 4 KiB: not k_rows
}

// Which rows team-small-k may stage: one left row, back to back, at most 4 KiB, never a
// broadcast data row or a strided K.
TEST(ContractTuning, StagedRowsApplyToShortContiguousRows) {
  auto prob = [](grain::index_type R, grain::index_type K, auto zero) {
    return data_rows_problem<decltype(zero)>(100, R, K);
  };
  EXPECT_TRUE(prob(1, 27, 0.0f).k_rows());
  EXPECT_TRUE(prob(27, 1024, 0.0f).k_rows());   // 4096 bytes
  EXPECT_FALSE(prob(27, 1025, 0.0f).k_rows());  // 4100 bytes
  EXPECT_TRUE(prob(8, 512, 0.0).k_rows());
  EXPECT_FALSE(prob(8, 513, 0.0).k_rows());
  EXPECT_FALSE(prob(8, 1, 0.0).k_rows());      // nothing to stage
  auto broadcast = prob(8, 27, 0.0f);
  broadcast.a_c = 0;                           // one data row for every cell
  EXPECT_FALSE(broadcast.k_rows());
  auto gapped = prob(8, 27, 0.0f);
  gapped.b_c = 8 * 27 + 5;                     // cells not back to back
  EXPECT_FALSE(gapped.k_rows());
  auto left = prob(8, 27, 0.0f);
  left.L = 2;                                  // FieldField rows
  EXPECT_FALSE(left.k_rows());
}
