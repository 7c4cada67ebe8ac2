// Inputs the fuzz targets (fuzz/) found mishandled, each read through the ordinary reader and
// expected to give the clear error (file, line, column) that every malformed input gets.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grain/contract/tuning.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain_test.hpp"

namespace {

using grain::index_type;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "grain_fuzzreg_" + std::to_string(::getpid()) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// Expects `read` to raise grain::Error whose message holds every fragment.
template <class F>
void expect_error(F&& read, const std::vector<std::string>& fragments) {
  try {
    read();
    ADD_FAILURE() << "no error";
  } catch (const grain::Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message '" << e.what() << "' lacks '" << f << "'";
  }
}

// fuzz_ktensor: a factor entry finite in double but beyond float's range was read into a float
// Ktensor as infinity.
TEST(FuzzRegressions, KtensorValueBeyondFloatIsAnError) {
  const std::string prefix = temp_path("float_range");
  write_text(prefix + "_lambda.txt", "1\n");
  write_text(prefix + "_mode1.txt", "0.5\n");
  write_text(prefix + "_mode2.txt", "2 \n1e300\n");
  expect_error([&] { (void)grain::cp::read_ktensor<float>(prefix, {1, 2}, 1); },
               {prefix + "_mode2.txt:2:1:", "'1e300'", "not a finite number in float"});
  // The same file is fine in double.
  const auto K = grain::cp::read_ktensor<double>(prefix, {1, 2}, 1);
  EXPECT_EQ(K.factors[1](1, 0), 1e300);
  for (const char* f : {"_lambda.txt", "_mode1.txt", "_mode2.txt"}) std::remove((prefix + f).c_str());
}

// A NUL byte inside a number of the tuning file ended the number there (strtol stops at it), so
// "3<NUL>junk" read as 3 and a damaged file passed as a valid one.
TEST(FuzzRegressions, TuningNumberWithNulByteIsAnError) {
  using namespace std::string_literals;
  const std::string head = "grain-contract-tuning 2\n"s;
  const std::string good = "CPU\tserial\tFieldFieldScalar\tdouble\tright\t3\t3\t3\t3\tflat\t0.4\n"s;
  const auto parse = [](const std::string& text) {
    std::istringstream in(text);
    return grain::ContractTuningTable::parse(in, "tuning.txt");
  };
  EXPECT_EQ(parse(head + good).size(), 1u);
  expect_error([&] { (void)parse(head + "CPU\tserial\tFieldFieldScalar\tdouble\tright\t3\0junk\t3\t3\t3\tflat\t0.4\n"s); },
               {"tuning.txt:2:", "shape class L must be an integer"});
  expect_error([&] { (void)parse(head + "CPU\tserial\tFieldFieldScalar\tdouble\tright\t3\t3\t3\t3\tflat\t0.4\0\n"s); },
               {"tuning.txt:2:", "the time must be a number"});
}

}  // namespace
