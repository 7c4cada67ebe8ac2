// The grain tool as a user meets it: the built binary run through the shell, its exit status,
// standard output and standard error checked. Exit status: 0 success, 1 a failed run, 2 a usage
// error (apps/grain/main.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A scratch folder of this process: the tests write tensors and results there.
const std::string& scratch() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/grain-cli-test-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (!d) std::abort();
    return std::string(d);
  }();
  return dir;
}

// The binary under test: $GRAIN_CLI where set (a copy of the build on another machine), else the
// one this build made.
std::string binary() {
  const char* env = std::getenv("GRAIN_CLI");
  return env && *env ? env : GRAIN_CLI_PATH;
}

// Runs `grain ARGS` with standard output and error captured apart; standard error is a file, not
// a terminal, so no progress line may appear.
Result grain(const std::string& args) {
  const std::string out = scratch() + "/stdout", err = scratch() + "/stderr";
  const std::string cmd = binary() + " " + args + " >" + out + " 2>" + err + " </dev/null";
  const int rc = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A small planted tensor for the commands that read one.
const std::string& tensor() {
  static const std::string path = [] {
    const std::string p = scratch() + "/small.tns";
    const Result r = grain("generate --kind random-ktensor --dims 30x40x50 --nnz 4000 --gen-rank 3 --seed 5 --output " + p);
    EXPECT_EQ(r.status, 0) << r.err;
    return p;
  }();
  return path;
}

// ---- --help and --version -------------------------------------------------------------------------

TEST(Cli, TopLevelHelpListsEveryCommand) {
  for (const char* args : {"--help", "-h", "help"}) {
    const Result r = grain(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    for (const char* cmd : {"info", "generate", "cp-als", "bench", "tune", "help"})
      EXPECT_TRUE(has(r.out, cmd)) << args << " does not list " << cmd << ":\n" << r.out;
  }
}

TEST(Cli, VersionPrintsTheVersion) {
  const Result r = grain("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "grain 0.")) << r.out;
}

TEST(Cli, EveryCommandHelpListsItsOptionsAndDefaults) {
  struct Case {
    std::string command;
    std::vector<std::string> options;  // each must appear in the help
  };
  const std::vector<Case> cases = {
      {"info", {"--no-bandwidth"}},
      {"generate", {"--kind", "--dims", "--nnz", "--gen-rank", "--skew", "--support", "--seed", "--output", "--dtype", "--quiet"}},
      {"cp-als", {"FILE", "--rank", "--maxiters", "--tol", "--seed", "--mttkrp", "--backend", "--dtype", "--init",
                  "--output", "--json", "--dims", "--solve", "--quiet"}},
      {"tune", {"--backend", "--output", "--quick", "--budget-mib", "--reps", "--kernel", "--dtype", "--layout",
                "--fields", "--points", "--quiet"}},
      {"bench", {"core", "paper", "contract", "mttkrp"}},
      {"bench core", {"--backend", "--n", "--gpu-n", "--reps", "--json"}},
      {"bench paper", {"--backend", "--kernel", "--min-n", "--max-n", "--reps", "--json"}},
      {"bench contract", {"--kernel", "--case", "--dtype", "--backend", "--algorithm", "--layout", "--budget-mib",
                          "--reps", "--json", "--no-verify", "--quiet", "--sweep", "--sweep-p", "--sweep-budgets",
                          "--sweep-fields", "--sweep-kernels"}},
      {"bench mttkrp", {"FILE", "--kind", "--dims", "--nnz", "--rank", "--reps", "--cp-als-iters", "--tiled-rows",
                        "--lanes", "--name", "--no-verify", "--all", "--backend", "--dtype", "--json"}},
  };
  for (const Case& c : cases) {
    for (const std::string& form : {c.command + " --help", "help " + c.command}) {
      const Result r = grain(form);
      EXPECT_EQ(r.status, 0) << form << "\n" << r.err;
      for (const std::string& o : c.options) EXPECT_TRUE(has(r.out, o)) << form << " lacks " << o << ":\n" << r.out;
    }
  }
  // Defaults and allowed ranges are part of the help.
  const Result cp = grain("cp-als --help");
  EXPECT_TRUE(has(cp.out, "50")) << cp.out;       // --maxiters' default
  EXPECT_TRUE(has(cp.out, "1024")) << cp.out;     // --rank's upper bound
  EXPECT_TRUE(has(cp.out, "atomic")) << cp.out;   // --mttkrp's choices
  const Result gen = grain("generate --help");
  EXPECT_TRUE(has(gen.out, "random-ktensor")) << gen.out;
  EXPECT_TRUE(has(gen.out, "4096")) << gen.out;   // --gen-rank's upper bound
}

// ---- usage errors: exit 2, a message naming the problem ----------------------------------------

TEST(Cli, UsageErrorsExitWithTwoAndSayWhatIsWrong) {
  const std::string t = tensor();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"", "subcommand"},
      {"cp-al", "did you mean 'cp-als'"},
      {"bench contrat", "did you mean 'contract'"},
      {"bench", "subcommand"},
      {"cp-als " + t + " --rnak 4", "did you mean '--rank'"},
      {"cp-als " + t + " --rank 4 --maxiter 5", "did you mean '--maxiters'"},
      {"cp-als " + t, "--rank"},
      {"cp-als --rank 4", "FILE"},
      {"cp-als " + t + " --rank 0", "--rank"},
      {"cp-als " + t + " --rank 4096", "--rank"},
      {"cp-als " + t + " --rank four", "--rank"},
      {"cp-als " + t + " --rank 4 --tol -1", "--tol"},
      {"cp-als " + t + " --rank 4 --mttkrp fastest", "--mttkrp"},
      {"cp-als " + t + " --rank 4 --dtype half", "--dtype"},
      {"cp-als " + t + " --rank 4 --solve gpu", "--solve"},
      {"cp-als " + t + " --rank 4 --backend gpu", "--backend"},
      {"cp-als " + scratch() + "/absent.tns --rank 4", "absent.tns"},
      {"cp-als " + t + " --rank 4 extra.tns", "extra.tns"},
      {"generate --dims 10x10x10 --nnz 5", "--output"},
      {"generate --kind skewed --dims 10x10x10 --output x.tns", "--nnz"},
      {"generate --kind planted --dims 10x10x10 --nnz 5 --output x.tns", "--kind"},
      {"generate --dims 10x0x10 --nnz 5 --output x.tns", "--dims"},
      {"generate --dims 10xAx10 --nnz 5 --output x.tns", "--dims"},
      {"generate --dims 10 --nnz 5 --output x.tns", "--dims"},
      {"bench contract --kernel DataDataScalr", "--kernel"},
      {"bench contract --case Q9", "--case"},
      {"bench contract --reps 0", "--reps"},
      {"bench mttkrp", "--dims"},
      {"bench mttkrp " + t + " --dims 10x10x10 --nnz 5", "not both"},
      {"bench mttkrp --dims 10x10x10 --nnz 50 --rank 0", "--rank"},
      {"tune --dtype half", "--dtype"},
      {"tune --kernel Foo", "--kernel"},
      {"info --bandwidth", "did you mean '--no-bandwidth'"},
      {"help nothing", "nothing"},
  };
  for (const Case& c : cases) {
    const Result r = grain(c.args);
    EXPECT_EQ(r.status, 2) << "grain " << c.args << "\nstdout: " << r.out << "\nstderr: " << r.err;
    EXPECT_TRUE(has(r.err, c.message)) << "grain " << c.args << ": expected '" << c.message << "' in\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << "grain " << c.args << " printed to stdout: " << r.out;
  }
}

TEST(Cli, CudaWithoutAGpuIsAUsageError) {
  // On a machine with a visible GPU this case does not apply; the check itself runs everywhere.
  const Result info = grain("info --no-bandwidth");
  ASSERT_EQ(info.status, 0) << info.err;
  if (!has(info.out, "compute capability")) {  // no GPU visible, or no CUDA back end
    const Result r = grain("cp-als " + tensor() + " --rank 2 --backend cuda");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(has(r.err, "cuda")) << r.err;
  }
}

// ---- runtime errors: exit 1 ------------------------------------------------------------------------

TEST(Cli, AMalformedTensorFileFailsWithItsLine) {
  const std::string bad = scratch() + "/bad.tns";
  std::ofstream(bad) << "1 2 3 1.5\n2 2 x 2.5\n";
  const Result r = grain("cp-als " + bad + " --rank 2");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "bad.tns:2")) << r.err;
}

TEST(Cli, AnUnwritableJsonFileFailsBeforeTheWork) {
  const Result r = grain("cp-als " + tensor() + " --rank 2 --maxiters 2 --json /nonexistent-dir/out.json");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "/nonexistent-dir/out.json")) << r.err;
  EXPECT_FALSE(has(r.out, "iter")) << "the work ran before the error:\n" << r.out;
}

// ---- success: JSON on standard output, no progress line off a terminal -------------------------

TEST(Cli, CpAlsJsonToStandardOutput) {
  const Result r = grain("cp-als " + tensor() + " --rank 3 --maxiters 4 --tol 0 --backend serial --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << "stdout is not only JSON:\n" << r.out;
  EXPECT_EQ(j.at("rank"), 3);
  EXPECT_EQ(j.at("backend"), "serial");
  EXPECT_EQ(j.at("iterations").size(), 4u);
  const double fit = j.at("fit");
  EXPECT_TRUE(fit > 0.0 && fit < 1.0) << fit;  // NaN fails too
  EXPECT_TRUE(has(r.err, "cp-als: rank 3")) << "the human-readable lines go to stderr:\n" << r.err;
  EXPECT_FALSE(has(r.err, "\r")) << "a progress line off a terminal";
}

TEST(Cli, GenerateWritesTheTensorAndNoProgressOffATerminal) {
  const std::string out = scratch() + "/gen.tns";
  const Result r = grain("generate --kind skewed --dims 20x30x40 --nnz 1000 --seed 3 --output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "wrote " + out)) << r.out;
  EXPECT_FALSE(has(r.err, "\r")) << r.err;
  std::ifstream f(out);
  int lines = 0;
  for (std::string line; std::getline(f, line);) ++lines;
  EXPECT_GT(lines, 100);
}

// A benchmark's report from standard output: JSON alone there, with rows (empty when it is not).
nlohmann::json bench_rows(const Result& r) {
  EXPECT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  EXPECT_NO_THROW(j = nlohmann::json::parse(r.out)) << "stdout is not only JSON:\n" << r.out;
  EXPECT_TRUE(j.is_object() && j.contains("rows")) << r.out;
  return j.is_object() && j.contains("rows") ? j.at("rows") : nlohmann::json::array();
}

TEST(Cli, BenchMttkrpJsonToStandardOutput) {
  const nlohmann::json rows = bench_rows(grain("bench mttkrp --dims 30x40x50 --nnz 3000 --rank 4 --reps 1 "
                                               "--cp-als-iters 2 --backend serial --json -"));
  int verified = 0;
  for (const auto& row : rows)
    if (row.at("kernel") == "MTTKRP" && row.at("verified") == true) ++verified;
  EXPECT_EQ(verified, 3 * 5) << "every algorithm of every mode, checked against the serial reference";
}

TEST(Cli, BenchContractJsonToStandardOutput) {
  const nlohmann::json rows = bench_rows(grain("bench contract --backend serial --kernel DataFieldScalar --case Q1 "
                                               "--dtype double --algorithm flat,auto --budget-mib 1 --reps 1 --json -"));
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("kernel"), "DataFieldScalar");
    EXPECT_EQ(row.at("verified"), true) << row.dump();
    const double ms = row.at("ms");
    EXPECT_TRUE(ms > 0) << row.dump();
  }
}

TEST(Cli, TuneWritesATuningFile) {
  const std::string out = scratch() + "/tuning.txt";
  const Result r = grain("tune --backend serial --quick --kernel DataDataScalar --dtype float --budget-mib 1 "
                      "--reps 1 --quiet --output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(out);
  EXPECT_TRUE(has(text, "grain-contract-tuning")) << text;
  EXPECT_TRUE(has(text, "DataDataScalar")) << text;
}

}  // namespace
