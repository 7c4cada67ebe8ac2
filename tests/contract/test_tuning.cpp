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

const char* kHeader = "grain-contract-tuning 1\n";

std::string entry(const std::string& device, const std::string& backend, const std::string& kernel,
                  const std::string& alg, int l = 3, int r = 3, int k = 3,
                  const std::string& dtype = "double", const std::string& layout = "right") {
  return device + "\t" + backend + "\t" + kernel + "\t" + dtype + "\t" + layout + "\t" +
         std::to_string(l) + "\t" + std::to_string(r) + "\t" + std::to_string(k) + "\t" + alg +
         "\t0.5\n";
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
  return grain::impl::contract_tuned_algorithm(kernel, true, false, 8, 8, 8, e);
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
  expect_parse_error("grain-contract-tuning 2\n", "version 2");
  expect_parse_error(std::string(kHeader) + "a\tb\tc\n", "test.txt:2: expected 10 TAB-separated fields");
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
  expect_parse_error(std::string(kHeader) + "cpu\topenmp\tDataDataScalar\tdouble\tright\t3\t3\tx\tflat\t1\n",
                     "shape class K");
  expect_parse_error(std::string(kHeader) + "cpu\topenmp\tDataDataScalar\tdouble\tright\t3\t3\t3\tflat\tfast\n",
                     "time must be a number");
  expect_parse_error(std::string(kHeader) + "\topenmp\tDataDataScalar\tdouble\tright\t3\t3\t3\tflat\t1\n",
                     "expected 10");
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
                                                  64, 64, ContractExec::Serial),
            ContractAlgorithm::Auto);
  EXPECT_EQ(grain::impl::contract_tuned_algorithm(ContractKernel::FieldFieldScalar, false, false,
                                                  8, 8, 8, ContractExec::Serial),
            ContractAlgorithm::Auto);
  EXPECT_EQ(grain::impl::contract_tuned_algorithm(ContractKernel::FieldFieldScalar, true, true, 8,
                                                  8, 8, ContractExec::Serial),
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
  EXPECT_NE(err.find(":3: expected 10"), std::string::npos) << err;
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

namespace {
template <class T>
grain::impl::ContractProblem<T> field_field_left(grain::index_type C, grain::index_type F, grain::index_type P) {
  return field_field<T>(C, F, P, true);
}
template <class T>
grain::impl::ContractProblem<T> field_field_right(grain::index_type C, grain::index_type F, grain::index_type P) {
  return field_field<T>(C, F, P, false);
}
}  // namespace

// The GPU model for LayoutLeft FieldField (no tuning file): mma for cells of 16 or more fields
// when they give it 16 blocks (DMMA in double, 3xTF32 in float); for small cells the K-split team
// (long K, few outputs), block, or flat when block would have too few threads.
TEST(ContractTuning, GpuModelForLayoutLeftFieldField) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  using grain::impl::contract_auto_algorithm;
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(40000, 64, 64), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(40000, 27, 27), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(40000, 64, 64), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(40000, 8, 8), ContractExec::Cuda), ContractAlgorithm::Block);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(40000, 8, 8), ContractExec::Cuda), ContractAlgorithm::Block);
  // Few cells with a long K: still mma when it gets 16 blocks, flat below that.
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(170, 64, 1536), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(64, 64, 4096), ContractExec::Cuda), ContractAlgorithm::Mma);  // 32 blocks
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(134, 27, 4608), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(404, 27, 1536), ContractExec::Cuda), ContractAlgorithm::Mma);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(120, 27, 4608), ContractExec::Cuda), ContractAlgorithm::Flat);  // 15 blocks
  // Small cells: the K-split team for K >= 1536, flat for 4 x 4 cells with K >= 192.
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(910, 4, 4608), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(910, 8, 4608), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(8192, 4, 512), ContractExec::Cuda), ContractAlgorithm::Flat);
  // The K-split team only up to 60000 outputs; in float, block from 4096 threads and for 4 x 4
  // cells below K = 512.
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(2157, 8, 1944), ContractExec::Cuda), ContractAlgorithm::Flat);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(1365, 8, 1536), ContractExec::Cuda), ContractAlgorithm::Flat);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(2730, 4, 1536), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(43690, 4, 192), ContractExec::Cuda), ContractAlgorithm::Block);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(12945, 4, 648), ContractExec::Cuda), ContractAlgorithm::Flat);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(7281, 8, 576), ContractExec::Cuda), ContractAlgorithm::Block);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(3640, 8, 576), ContractExec::Cuda), ContractAlgorithm::Flat);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(174762, 4, 24), ContractExec::Cuda), ContractAlgorithm::Block);
  // K = 8: block, except double cells of up to 64 x 64.
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(100000, 64, 8), ContractExec::Cuda), ContractAlgorithm::Block);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(20000, 125, 8), ContractExec::Cuda), ContractAlgorithm::Block);
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(20000, 64, 8), ContractExec::Cuda), ContractAlgorithm::Mma);
  // On the CPU: block above 8 x 8 outputs per cell; up to 8 x 8, block's cells-as-vectors kernel
  // where at least 16 cells make a vector (with GCC's vector extensions), else flat.
  EXPECT_EQ(contract_auto_algorithm(field_field_left<double>(40000, 64, 64), ContractExec::OpenMP), ContractAlgorithm::Block);
#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(40000, 8, 8), ContractExec::OpenMP), ContractAlgorithm::Block);
#else
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(40000, 8, 8), ContractExec::OpenMP), ContractAlgorithm::Flat);
#endif
  EXPECT_EQ(contract_auto_algorithm(field_field_left<float>(12, 8, 8), ContractExec::OpenMP), ContractAlgorithm::Flat);
}


// The CPU model for FieldField (no tuning file): block's per-cell GEMM, except flat's
// rows for cells of at most 8 x 8 outputs with K >= 32 (packing the right operand then costs more
// than its 8 rows of FMAs), but in double only where block does not prefetch the next cell
// (rows of more than 2048 bytes).
TEST(ContractTuning, CpuModelForFieldField) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  using grain::impl::contract_auto_algorithm;
  for (ContractExec e : {ContractExec::Serial, ContractExec::OpenMP}) {
    EXPECT_EQ(contract_auto_algorithm(field_field_right<float>(524288, 8, 8), e), ContractAlgorithm::Block);   // Q1 scalar
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(87381, 8, 24), e), ContractAlgorithm::Block);  // Q1 vector
    // Q1 tensor in float: block's dot kernel where this build has it, else flat.
    EXPECT_EQ(contract_auto_algorithm(field_field_right<float>(58254, 8, 72), e),
              grain::impl::host_dot_cells(4, true, 8, 8, 72) ? ContractAlgorithm::Block : ContractAlgorithm::Flat);
    EXPECT_EQ(contract_auto_algorithm(field_field_right<float>(58254, 8, 40), e), ContractAlgorithm::Flat);  // K < 8 W
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(29127, 8, 72), e), ContractAlgorithm::Block);  // prefetched rows
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(29127, 8, 256), e), ContractAlgorithm::Block); // 2048-byte rows
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(8192, 8, 257), e), ContractAlgorithm::Flat);   // not prefetched
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(29127, 8, 24), e), ContractAlgorithm::Block);  // K < 32
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(23014, 27, 27), e), ContractAlgorithm::Block);
    EXPECT_EQ(contract_auto_algorithm(field_field_right<float>(138, 125, 1944), e), ContractAlgorithm::Block);
    EXPECT_EQ(contract_auto_algorithm(field_field_right<double>(1, 9, 4096), e), ContractAlgorithm::Block);
  }
}

// The GPU model for LayoutLeft DataField (no tuning file).
TEST(ContractTuning, GpuModelForLayoutLeftDataField) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  using grain::impl::contract_auto_algorithm;
  auto df = [](grain::index_type C, grain::index_type R, grain::index_type P, bool dbl) {
    auto p = field_field_left<double>(C, R, P);  // then made a DataField: L = 1
    p.kernel = ContractKernel::DataFieldScalar;
    p.L = 1;
    if (!dbl) {
      grain::impl::ContractProblem<float> f;
      f.kernel = p.kernel;
      f.C = p.C, f.L = 1, f.R = p.R, f.x[2] = P, f.ax[2] = C, f.bx[2] = C * R;
      f.a_c = f.b_c = f.o_c = 1, f.b_r = C, f.o_r = C;
      f.canonicalize();
      return contract_auto_algorithm(f, ContractExec::Cuda);
    }
    p.ax[2] = C, p.bx[2] = C * R, p.a_l = 0, p.o_l = 0, p.o_r = C;
    p.canonicalize();
    return contract_auto_algorithm(p, ContractExec::Cuda);
  };
  EXPECT_EQ(df(2000000, 8, 8, false), ContractAlgorithm::Flat);     // Q1 float: packed cells
  EXPECT_EQ(df(2000001, 8, 8, false), ContractAlgorithm::Block);    // the same, C odd: short rows, many cells
  EXPECT_EQ(df(1048576, 4, 8, false), ContractAlgorithm::Flat);     // 4 fields: half a 1 x 8 block
  EXPECT_EQ(df(1000000, 8, 8, true), ContractAlgorithm::Flat);      // Q1 double
  EXPECT_EQ(df(180000, 27, 27, false), ContractAlgorithm::Flat);    // Q2 float
  EXPECT_EQ(df(180000, 27, 27, true), ContractAlgorithm::Flat);     // Q2 double
  EXPECT_EQ(df(4096, 8, 512, true), ContractAlgorithm::TeamSmallK); // long rows, 32768 outputs
  EXPECT_EQ(df(455, 8, 4608, true), ContractAlgorithm::TeamSmallK); // long K, few outputs
  EXPECT_EQ(df(276, 125, 1944, true), ContractAlgorithm::TeamSmallK); // DataFieldTensor Q4 double
  EXPECT_EQ(df(3640, 64, 576, true), ContractAlgorithm::Flat);        // DataFieldTensor Q3 double
  // Float: team-small-k's K slices (8 loads in flight) up to 35000 outputs with
  // K >= 512 and up to 70000 with K >= 1536; flat's 8 partial sums beyond.
  EXPECT_EQ(df(552, 125, 1944, false), ContractAlgorithm::TeamSmallK); // DataFieldTensor Q4 float
  EXPECT_EQ(df(690, 125, 1944, false), ContractAlgorithm::Flat);       // 86250 outputs
  EXPECT_EQ(df(414, 125, 648, false), ContractAlgorithm::Flat);        // 51750 outputs, K = 648
  EXPECT_EQ(df(455, 8, 4608, false), ContractAlgorithm::TeamSmallK);   // 3640 outputs
  EXPECT_EQ(df(138, 125, 1944, false), ContractAlgorithm::TeamSmallK); // 17250 outputs
  EXPECT_EQ(df(1657, 125, 648, false), ContractAlgorithm::Flat);       // DataFieldVector Q4 float
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

// The GPU model for LayoutRight Data kernels (no tuning file). The problems have no data (null
// pointers count as aligned), so k_packed() follows K.
TEST(ContractTuning, GpuModelForLayoutRightDataKernels) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  auto df = [](grain::index_type C, grain::index_type R, grain::index_type K, auto zero, bool data_data = false) {
    const auto p = data_rows_problem<decltype(zero)>(C, data_data ? 1 : R, K);
    EXPECT_EQ(p.k_packed(), K % static_cast<grain::index_type>(16 / sizeof(zero)) == 0) << "K = " << K;
    return grain::impl::contract_auto_algorithm(p, ContractExec::Cuda);
  };
  // Rows back to back of at most 4 KiB with K > 16: team-small-k, staged or lanes.
  EXPECT_EQ(df(3640, 64, 576, 0.0f), ContractAlgorithm::TeamSmallK);   // DataFieldTensor Q3 float
  EXPECT_EQ(df(1657, 125, 648, 0.0f), ContractAlgorithm::TeamSmallK);  // DataFieldVector Q4 float
  EXPECT_EQ(df(32768, 64, 64, 0.0f), ContractAlgorithm::TeamSmallK);   // DataFieldScalar Q3 float
  EXPECT_EQ(df(16384, 64, 64, 0.0), ContractAlgorithm::TeamSmallK);    // DataFieldScalar Q3 double
  EXPECT_EQ(df(2485, 125, 216, 0.0), ContractAlgorithm::TeamSmallK);   // DataFieldScalar Q4 double
  EXPECT_EQ(df(233016, 8, 72, 0.0f), ContractAlgorithm::TeamSmallK);   // DataFieldTensor Q1 float
  EXPECT_EQ(df(699050, 8, 24, 0.0), ContractAlgorithm::TeamSmallK);    // DataFieldVector Q1 double
  EXPECT_EQ(df(10228, 27, 243, 0.0), ContractAlgorithm::TeamSmallK);   // DataFieldTensor Q2 double
  EXPECT_EQ(df(20456, 27, 243, 0.0f), ContractAlgorithm::TeamSmallK);  // DataFieldTensor Q2 float
  EXPECT_EQ(df(92056, 27, 27, 0.0), ContractAlgorithm::TeamSmallK);    // DataFieldScalar Q2 double
  EXPECT_EQ(df(30685, 27, 81, 0.0), ContractAlgorithm::TeamSmallK);    // DataFieldVector Q2 double
  EXPECT_EQ(df(184112, 27, 27, 0.0f), ContractAlgorithm::TeamSmallK);  // DataFieldScalar Q2 float
  EXPECT_EQ(df(4971026, 1, 27, 0.0f, true), ContractAlgorithm::TeamSmallK);  // DataDataScalar Q2 float
  EXPECT_EQ(df(2485513, 1, 27, 0.0, true), ContractAlgorithm::TeamSmallK);   // DataDataScalar Q2 double
  EXPECT_EQ(df(552336, 1, 243, 0.0f, true), ContractAlgorithm::TeamSmallK);  // DataDataTensor Q2 float
  EXPECT_EQ(df(5592405, 1, 24, 0.0f, true), ContractAlgorithm::TeamSmallK);  // DataDataVector Q1 float
  EXPECT_EQ(df(1000, 64, 577, 0.0f), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(df(1000, 125, 577, 0.0f), ContractAlgorithm::TeamSmallK);
  // Float DataField rows of at most 24 elements over 8 fields or more: flat.
  EXPECT_EQ(df(699050, 8, 24, 0.0f), ContractAlgorithm::Flat);         // DataFieldVector Q1 float
  EXPECT_EQ(df(466033, 16, 18, 0.0f), ContractAlgorithm::Flat);
  EXPECT_EQ(df(1864135, 4, 18, 0.0f), ContractAlgorithm::TeamSmallK);  // 4 fields
  EXPECT_EQ(df(466033, 8, 36, 0.0f), ContractAlgorithm::TeamSmallK);   // K = 36
  EXPECT_EQ(df(5592405, 1, 24, 0.0f, true), ContractAlgorithm::TeamSmallK);  // DataData: no fields
  // K <= 16: flat.
  EXPECT_EQ(df(2097152, 1, 8, 0.0f, true), ContractAlgorithm::Flat);   // DataDataScalar Q1 float
  EXPECT_EQ(df(100000, 1, 15, 0.0f, true), ContractAlgorithm::Flat);  // short odd rows
  EXPECT_EQ(df(2097152, 8, 8, 0.0), ContractAlgorithm::Flat);         // DataFieldScalar Q1 double
  // Rows longer than 4 KiB (DataFieldTensor Q4: 1944 points x components) are not staged: packed
  // lanes from K = 128 in double, from K = 64 in float when 3/4 busy.
  EXPECT_EQ(df(276, 125, 1944, 0.0), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(df(552, 125, 1944, 0.0f), ContractAlgorithm::TeamSmallK);
}

// The GPU model for small LayoutRight FieldField cells: team-small-k's staged cells where the
// cells lie back to back (k_cells), flat otherwise; cuBLAS from 16 x 16.
TEST(ContractTuning, GpuModelForLayoutRightSmallCells) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  auto ff = [](grain::index_type C, grain::index_type F, grain::index_type K, auto zero, grain::index_type gap = 0) {
    grain::impl::ContractProblem<decltype(zero)> p;  // left(c, l, k), right(c, r, k), out(c, l, r)
    p.kernel = ContractKernel::FieldFieldScalar;
    p.C = C, p.L = F, p.R = F, p.x[2] = K;
    p.ax[2] = p.bx[2] = 1;
    p.a_l = p.b_r = K, p.a_c = p.b_c = F * K + gap;
    p.o_c = F * F, p.o_l = F, p.o_r = 1;
    p.canonicalize();
    return p;
  };
  using grain::impl::contract_auto_algorithm;
  EXPECT_TRUE(ff(2097152, 8, 8, 0.0f).k_cells());
  EXPECT_EQ(contract_auto_algorithm(ff(2097152, 8, 8, 0.0f), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);  // Q1 float
  EXPECT_EQ(contract_auto_algorithm(ff(116508, 8, 72, 0.0), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);   // Tensor Q1 double
  EXPECT_FALSE(ff(1000, 8, 8, 0.0f, 4).k_cells());                                  // cells not back to back
  EXPECT_EQ(contract_auto_algorithm(ff(1000, 8, 8, 0.0f, 4), ContractExec::Cuda), ContractAlgorithm::Flat);
  EXPECT_FALSE(ff(1000, 17, 8, 0.0f).k_cells());                                    // 289 outputs per cell
  EXPECT_FALSE(ff(1000, 8, 1024, 0.0).k_cells());                                   // 128 KiB per cell
  // cuBLAS for double 12 x 12 cells from K = 64 and for cells too large to stage from 8 x 8;
  // long rows of 4 x 4 cells: team-small-k's lanes.
  EXPECT_EQ(contract_auto_algorithm(ff(21845, 12, 64, 0.0), ContractExec::Cuda), ContractAlgorithm::Blas);
  EXPECT_EQ(contract_auto_algorithm(ff(174762, 12, 8, 0.0), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(ff(43690, 12, 64, 0.0f), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(ff(7281, 8, 576, 0.0f), ContractExec::Cuda), ContractAlgorithm::Blas);
  EXPECT_EQ(contract_auto_algorithm(ff(7281, 4, 576, 0.0), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(ff(100000, 4, 100, 0.0, 4), ContractExec::Cuda), ContractAlgorithm::Flat);
  // 27 x 27 float cells over K = 27: team-small-k's cell tiles; K = 81 and double:
  // cuBLAS.
  EXPECT_EQ(contract_auto_algorithm(ff(10000, 27, 27, 0.0f), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(ff(10000, 27, 81, 0.0f), ContractExec::Cuda), ContractAlgorithm::Blas);
  EXPECT_EQ(contract_auto_algorithm(ff(10000, 27, 27, 0.0), ContractExec::Cuda), ContractAlgorithm::Blas);

  // The tiles' shape on the GPU (cell_tiles_shape): 2 cells a team where one pass of 7 cells covers
  // K (27 x 27 float cells over K = 27), 7 where K takes several passes (K = 81, and
  // K = 27 in double, whose rows are twice as long) or the units of 2 cells fill no warp.
  auto shape = [&](grain::index_type F, grain::index_type K, auto zero) {
    return grain::impl::cell_tiles_shape(ff(10000, F, K, zero), false);
  };
  EXPECT_EQ(shape(27, 27, 0.0f).cells, 2);
  EXPECT_EQ(shape(27, 27, 0.0f).threads, 64);
  EXPECT_EQ(shape(27, 27, 0.0f).kc, 27);
  EXPECT_EQ(shape(27, 81, 0.0f).cells, 7);
  EXPECT_EQ(shape(27, 81, 0.0f).kc, 27);
  EXPECT_EQ(shape(27, 27, 0.0).cells, 7);
  EXPECT_EQ(shape(12, 8, 0.0f).cells, 8);  // 8 units a cell: 2 cells would fill half a warp
  EXPECT_EQ(grain::impl::cell_tiles_shape(ff(10000, 27, 27, 0.0f), true).cells, 1);  // a host team: one cell
}

// The GPU model for LayoutRight FieldField Q2-Q4 (no tuning file): cuBLAS, except in float for
// L, R > 32 with K >= 64 on compute capability 9.0, where mma's warpgroup kernel takes the rows
// through TMA copies.
TEST(ContractTuning, GpuModelForLayoutRightFieldField) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  // The operands' base: a tensor map is encoded (never read), which needs a 16-byte aligned device
  // address where there is a device.
  alignas(16) static float host_rows[4] = {};
  const float* rows = host_rows;
#if defined(GRAIN_ENABLE_CUDA)
  std::unique_ptr<grain::View<float*, grain::CudaSpace>> device_rows;
  if (grain::impl::cuda_device_count() > 0) {
    device_rows = std::make_unique<grain::View<float*, grain::CudaSpace>>("rows", 4);
    rows = device_rows->data();
  }
#endif
  auto ffr = [rows](grain::index_type C, grain::index_type F, grain::index_type P) {
    auto p = field_field_right<float>(C, F, P);
    p.a = p.b = rows;
    return p;
  };
  using grain::impl::contract_auto_algorithm;
  // L, R <= 32: team-small-k's cell tiles for K <= 32, else cuBLAS.
  EXPECT_EQ(contract_auto_algorithm(ffr(184112, 27, 27), ContractExec::Cuda), ContractAlgorithm::TeamSmallK);
  EXPECT_EQ(contract_auto_algorithm(ffr(61370, 27, 81), ContractExec::Cuda), ContractAlgorithm::Blas);
  EXPECT_EQ(contract_auto_algorithm(ffr(200000, 64, 32), ContractExec::Cuda), ContractAlgorithm::Blas);   // K < 64
  EXPECT_EQ(contract_auto_algorithm(ffr(500, 125, 1943), ContractExec::Cuda), ContractAlgorithm::Blas);  // K % 4 != 0
  const auto long_k = ffr(552, 125, 1944);
  [[maybe_unused]] const auto q3 = ffr(32768, 64, 64), q4 = ffr(4971, 125, 216);
#if defined(GRAIN_ENABLE_CUDA)
  const bool hopper = grain::impl::cuda_device_count() > 0 && grain::impl::cuda_device().cc_major == 9 &&
                      grain::impl::cuda_device().cc_minor == 0;
  EXPECT_EQ(grain::impl::contract_mma_k_rows(long_k), hopper);
  EXPECT_FALSE(grain::impl::contract_mma_k_rows(ffr(500, 125, 1943)));
  auto left = field_field_left<float>(552, 125, 1944);
  left.a = left.b = rows;
  EXPECT_FALSE(grain::impl::contract_mma_k_rows(left));  // cells unit-stride: not rows
  const ContractAlgorithm on_rows = hopper ? ContractAlgorithm::Mma : ContractAlgorithm::Blas;
  EXPECT_EQ(contract_auto_algorithm(long_k, ContractExec::Cuda), on_rows);
  EXPECT_EQ(contract_auto_algorithm(q3, ContractExec::Cuda), on_rows);
  EXPECT_EQ(contract_auto_algorithm(q4, ContractExec::Cuda), on_rows);
#else
  EXPECT_EQ(contract_auto_algorithm(long_k, ContractExec::Cuda), ContractAlgorithm::Blas);
  EXPECT_EQ(contract_auto_algorithm(q3, ContractExec::Cuda), ContractAlgorithm::Blas);
#endif
}

// The same in double: mma's rows kernel on compute capability 9.0 and newer for
// L, R > 32 where the output is under a quarter of the bytes (3 L R < (L + R) K), else cuBLAS.
TEST(ContractTuning, GpuModelForLayoutRightFieldFieldDouble) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  using grain::impl::contract_auto_algorithm;
  auto pick = [](grain::index_type C, grain::index_type F, grain::index_type P) {
    return contract_auto_algorithm(field_field_right<double>(C, F, P), ContractExec::Cuda);
  };
  bool rows = false;  // a device that runs the rows kernel
#if defined(GRAIN_ENABLE_CUDA)
  rows = grain::impl::cuda_device_count() > 0 && grain::impl::cuda_device().cc_major >= 9;
  EXPECT_EQ(grain::impl::contract_mma_rows(field_field_right<double>(2485, 125, 216)), rows);
  EXPECT_FALSE(grain::impl::contract_mma_rows(field_field_right<double>(92056, 27, 27)));  // L, R <= 32
  EXPECT_FALSE(grain::impl::contract_mma_rows(field_field_left<double>(2485, 125, 216)));  // cells unit-stride
#endif
  const ContractAlgorithm on_rows = rows ? ContractAlgorithm::Mma : ContractAlgorithm::Blas;
  EXPECT_EQ(pick(2485, 125, 216), on_rows);    // FieldFieldScalar Q4: the output 22% of the bytes
  EXPECT_EQ(pick(276, 125, 1944), on_rows);    // FieldFieldTensor Q4
  EXPECT_EQ(pick(5461, 64, 192), on_rows);     // FieldFieldVector Q3: 14%
  EXPECT_EQ(pick(16384, 64, 64), ContractAlgorithm::Blas);  // FieldFieldScalar Q3: 33%
  EXPECT_EQ(pick(4000, 125, 187), ContractAlgorithm::Blas);  // 3 L R = 46875 >= (L + R) K = 46750
  EXPECT_EQ(pick(4000, 125, 188), on_rows);                  // 47000
  EXPECT_EQ(pick(30685, 27, 81), ContractAlgorithm::Blas);  // Q2 cells: cuBLAS
}

// Rows whose cells are not back to back (a gap after each cell) are not staged: the rules for
// packed lanes and one element per lane.
TEST(ContractTuning, GpuModelForLayoutRightRowsWithGaps) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  auto df = [](grain::index_type C, grain::index_type R, grain::index_type K, auto zero, bool data_data = false) {
    const auto p = data_rows_problem<decltype(zero)>(C, data_data ? 1 : R, K, 8);
    EXPECT_FALSE(p.k_rows());
    return grain::impl::contract_auto_algorithm(p, ContractExec::Cuda);
  };
  EXPECT_EQ(df(16384, 64, 64, 0.0), ContractAlgorithm::Flat);          // packed double below K = 128
  EXPECT_EQ(df(2485, 125, 216, 0.0), ContractAlgorithm::TeamSmallK);   // packed double from K = 128
  EXPECT_EQ(df(233016, 8, 72, 0.0f), ContractAlgorithm::Flat);         // 18 packs / 32 lanes
  EXPECT_EQ(df(200000, 8, 64, 0.0f), ContractAlgorithm::TeamSmallK);   // 16 packs / 16 lanes
  EXPECT_EQ(df(100000, 8, 80, 0.0f), ContractAlgorithm::Flat);         // 20 packs / 32 lanes
  EXPECT_EQ(df(10228, 27, 243, 0.0), ContractAlgorithm::Flat);         // odd K, double, K <= 256
  EXPECT_EQ(df(1000, 27, 299, 0.0), ContractAlgorithm::TeamSmallK);    // odd K, double, K > 256
  EXPECT_EQ(df(1000, 64, 577, 0.0f), ContractAlgorithm::TeamSmallK);   // odd K, float, R <= 64
  EXPECT_EQ(df(1000, 125, 577, 0.0f), ContractAlgorithm::Flat);
  EXPECT_EQ(df(552336, 1, 243, 0.0f, true), ContractAlgorithm::TeamSmallK);  // DataData past K = 32
  EXPECT_EQ(df(100000, 1, 27, 0.0f, true), ContractAlgorithm::Flat);
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

// The GPU model for LayoutLeft DataData (no tuning file): flat, except long rows over few cells
// or, in float, over a few hundred thousand cells.
TEST(ContractTuning, GpuModelForLayoutLeftDataData) {
  EnvGuard guard;
  ::setenv("GRAIN_TUNING_FILE", "off", 1);
  grain::impl::contract_tuning_reset("test-device");
  using grain::impl::contract_auto_algorithm;
  auto dd = [](grain::index_type C, grain::index_type K, auto zero) {
    grain::impl::ContractProblem<decltype(zero)> p;
    p.kernel = ContractKernel::DataDataScalar;
    p.C = C;
    p.x[2] = K;
    p.ax[2] = p.bx[2] = C;
    p.a_c = p.b_c = p.o_c = 1;
    p.canonicalize();
    return contract_auto_algorithm(p, ContractExec::Cuda);
  };
  EXPECT_EQ(dd(207126, 648, 0.0f), ContractAlgorithm::Flat);        // DataDataVector Q4 float: pairs of cells
  EXPECT_EQ(dd(207127, 648, 0.0f), ContractAlgorithm::TeamSmallK);  // the same, C odd
  EXPECT_EQ(dd(103563, 648, 0.0), ContractAlgorithm::Flat);         // the same in double
  EXPECT_EQ(dd(69042, 1944, 0.0f), ContractAlgorithm::Flat);        // DataDataTensor Q4 float
  EXPECT_EQ(dd(34521, 1944, 0.0), ContractAlgorithm::TeamSmallK);   // DataDataTensor Q4 double
  EXPECT_EQ(dd(3640, 4608, 0.0), ContractAlgorithm::TeamSmallK);    // long rows over few cells
  EXPECT_EQ(dd(4971026, 27, 0.0f), ContractAlgorithm::Flat);        // short rows
  // flat's packed cells: V per thread, only with enough threads, never FieldField.
  auto pack = [](grain::index_type C, grain::index_type R, auto zero) {
    grain::impl::ContractProblem<decltype(zero)> p;
    p.kernel = R == 1 ? ContractKernel::DataDataScalar : ContractKernel::DataFieldScalar;
    p.C = C, p.R = R, p.x[2] = 9, p.ax[2] = C, p.bx[2] = C * R;
    p.a_c = p.b_c = p.o_c = 1, p.b_r = R == 1 ? 0 : C, p.o_r = R == 1 ? 0 : C;
    p.canonicalize();
    return p;
  };
  EXPECT_EQ(pack(200000, 1, 0.0f).flat_cell_pack(), 4);
  EXPECT_EQ(pack(200002, 1, 0.0f).flat_cell_pack(), 2);
  EXPECT_EQ(pack(200001, 1, 0.0f).flat_cell_pack(), 0);
  EXPECT_EQ(pack(199996, 1, 0.0).flat_cell_pack(), 0);    // 99998 double threads: too few
  EXPECT_EQ(pack(200000, 1, 0.0).flat_cell_pack(), 2);
  EXPECT_EQ(pack(4000, 100, 0.0f).flat_cell_pack(), 4);   // 100000 threads of 4 cells x a field
  // DataField with fewer threads of 4 cells: 2-cell packs while there are 50000 of those.
  EXPECT_EQ(pack(3996, 100, 0.0f).flat_cell_pack(), 2);   // 99900 of 4
  EXPECT_EQ(pack(3640, 64, 0.0f).flat_cell_pack(), 2);    // DataFieldTensor Q3 float's cells and fields
  EXPECT_EQ(pack(2000, 100, 0.0f).flat_cell_pack(), 2);   // 50000 of 4, 100000 of 2
  EXPECT_EQ(pack(996, 100, 0.0f).flat_cell_pack(), 0);    // 49800 of 2: too few
  EXPECT_EQ(pack(3996, 100, 0.0).flat_cell_pack(), 2);    // double: its 16-byte packs are 2 cells
  EXPECT_EQ(pack(233016, 1, 0.0f).flat_cell_pack(), 4);   // DataData keeps 4 (58254 threads)
  EXPECT_EQ(pack(1996, 100, 0.0f).flat_cell_pack(), 2);   // 49900 of 4, 99800 of 2
  auto ff = pack(200000, 1, 0.0f);
  ff.kernel = ContractKernel::FieldFieldScalar;
  EXPECT_EQ(ff.flat_cell_pack(), 0);
  // The CPU keeps flat.
  grain::impl::ContractProblem<float> h;
  h.kernel = ContractKernel::DataDataScalar;
  h.C = 207126, h.x[2] = 648, h.ax[2] = h.bx[2] = 207126, h.a_c = h.b_c = h.o_c = 1;
  h.canonicalize();
  EXPECT_EQ(contract_auto_algorithm(h, ContractExec::OpenMP), ContractAlgorithm::Flat);
}
