// The grain tool as a user meets it: the built binary run through the shell, its exit status,
// standard output and standard error checked. Exit status: 0 success, 1 a failed run, 2 a usage
// error (apps/grain/main.cpp).
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <set>
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
    for (const char* cmd : {"info", "generate", "cp-als", "score", "bench", "tune", "contract", "help"})
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
                  "--output", "--json", "--dims", "--solve", "--quiet", "--checkpoint",
                  "--checkpoint-every", "--resume", "--starts", "--nonnegative", "nvecs"}},
      {"score", {"A", "B", "--ignore-weights", "--json"}},
      {"tune", {"--backend", "--output", "--quick", "--budget-mib", "--reps", "--kernel", "--dtype", "--layout",
                "--fields", "--points", "--quiet"}},
      {"bench", {"core", "paper", "contract", "mttkrp"}},
      {"bench core", {"--backend", "--n", "--gpu-n", "--reps", "--json"}},
      {"bench paper", {"--backend", "--kernel", "--min-n", "--max-n", "--reps", "--json"}},
      {"bench contract", {"--kernel", "--case", "--dtype", "--backend", "--algorithm", "--layout", "--budget-mib",
                          "--reps", "--json", "--no-verify", "--quiet", "--sweep", "--sweep-p", "--sweep-budgets",
                          "--sweep-fields", "--sweep-kernels", "--shapes", "--count", "--seed"}},
      {"contract explain", {"--kernel", "--shape", "--layout", "--dtype", "--backend"}},
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
      {"cp-als " + t + " --rank 4 --checkpoint-every 2", "--checkpoint"},
      {"cp-als " + t + " --rank 4 --checkpoint x.ckpt --checkpoint-every 0", "--checkpoint-every"},
      {"cp-als " + t + " --resume " + scratch() + "/absent.ckpt", "absent.ckpt"},
      {"cp-als " + t + " --rank 4 --resume " + t + " --init prefix", "--init"},
      {"cp-als " + t + " --rank 4 --starts 0", "--starts"},
      {"cp-als " + t + " --rank 4 --init nvec", "'nvec' is not random, nvecs, or the PREFIX"},
      {"cp-als " + t + " --rank 4 --starts 2 --init prefix", "--starts"},
      {"cp-als " + t + " --rank 4 --starts 2 --checkpoint x.ckpt", "--checkpoint"},
      {"cp-als " + t + " --rank 4 --nonnegative --checkpoint x.ckpt", "--nonnegative"},
      {"score only-one", "B"},
      {"score a b --ignore-weight", "did you mean '--ignore-weights'"},
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

TEST(Cli, GcpJsonAndFactors) {
  const std::string prefix = scratch() + "/gcp";
  const Result r = grain("gcp " + tensor() + " --rank 3 --loss poisson --epochs 3 --iters 50 --samples 500 "
                         "--backend serial --json - --output " + prefix);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << "stdout is not only JSON:\n" << r.out;
  EXPECT_EQ(j.at("loss"), "poisson");
  EXPECT_EQ(j.at("gradient_samples"), 500);
  EXPECT_EQ(j.at("epochs").size(), 3u);
  const double start = j.at("initial_loss_estimate"), end = j.at("loss_estimate");
  EXPECT_TRUE(end < start) << end << " from " << start;  // NaN fails too
  EXPECT_TRUE(has(r.err, "gcp: rank 3, poisson loss, serial")) << r.err;
  // The factors: weights sorted, every entry non-negative (the identity-link Poisson loss).
  std::ifstream lambda(prefix + "_lambda.txt");
  std::vector<double> w;
  for (double v; lambda >> v;) w.push_back(v);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_TRUE(w[0] >= w[1] && w[1] >= w[2] && w[2] > 0) << w[0] << " " << w[1] << " " << w[2];
  std::ifstream mode(prefix + "_mode2.txt");
  int entries = 0;
  for (double v; mode >> v; ++entries) EXPECT_TRUE(v >= 0) << v;
  EXPECT_EQ(entries, 40 * 3);
}

TEST(Cli, GcpBadInput) {
  Result r = grain("gcp " + tensor() + " --rank 3 --loss poison");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--loss")) << r.err;
  r = grain("gcp " + tensor() + " --rank 3 --loss bernoulli --backend serial");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "the bernoulli loss needs every nonzero to be 1")) << r.err;
  r = grain("gcp " + tensor() + " --loss gaussian");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--rank")) << r.err;
  r = grain("gcp " + tensor() + " --rank 3 --rate 0");
  EXPECT_EQ(r.status, 2) << r.err;
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

// ---- checkpoints and signals -----------------------------------------------------------------------

// Starts `grain ARGS` in the background, standard output and error to scratch()/TAG.out and .err;
// returns the process id of grain itself (the shell execs it).
pid_t grain_start(const std::string& args, const std::string& tag) {
  const std::string cmd = "exec " + binary() + " " + args + " >" + scratch() + "/" + tag + ".out 2>" + scratch() +
                          "/" + tag + ".err </dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// The exit status of a started process; -1 if a signal ended it.
int wait_status(pid_t pid) {
  int st = 0;
  if (::waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// The last iteration line ("%5d fit change seconds mttkrp_s") of cp-als's output, 0 before any.
int last_iteration(const std::string& text) {
  std::istringstream in(text);
  int last = 0;
  for (std::string line; std::getline(in, line);) {
    int it = 0;
    double fit = 0, change = 0;
    if (std::sscanf(line.c_str(), "%d %lf %lf", &it, &fit, &change) == 3) last = it;
  }
  return last;
}

// Waits (at most 30 s) until the started run has printed iteration `k` and `file` exists, then
// sends `sig`; false if the run ended first.
bool signal_after(pid_t pid, const std::string& tag, int k, const std::string& file, int sig) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, nullptr, WNOHANG) != 0) return false;
    if (last_iteration(slurp(scratch() + "/" + tag + ".out")) >= k && std::ifstream(file).good())
      return ::kill(pid, sig) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Every number of the factor files PREFIX_lambda.txt, PREFIX_mode1..3.txt, in order.
std::vector<double> factor_values(const std::string& prefix) {
  std::vector<double> v;
  for (const char* part : {"lambda", "mode1", "mode2", "mode3"}) {
    std::ifstream f(prefix + "_" + part + ".txt");
    for (double x; f >> x;) v.push_back(x);
  }
  return v;
}

// A tensor whose run takes long enough to be interrupted part way (a few ms an iteration).
const std::string& long_tensor() {
  static const std::string path = [] {
    const std::string p = scratch() + "/long.tns";
    const Result r = grain("generate --kind random-ktensor --dims 100x150x200 --nnz 20000 --gen-rank 4 --seed 5 "
                           "--output " + p);
    EXPECT_EQ(r.status, 0) << r.err;
    return p;
  }();
  return path;
}

// SIGTERM after iteration k: exit 143, a message naming the checkpoint; --resume then reaches the
// factors of a run never interrupted (same seed); a contradicting rank or another tensor is refused.
TEST(Cli, SigtermSavesACheckpointAndResumeMatchesAnUninterruptedRun) {
  const std::string t = long_tensor(), ck = scratch() + "/run.ckpt";
  const std::string run = "cp-als " + t + " --rank 4 --tol 0 --seed 7 --backend serial";
  const pid_t pid = grain_start(run + " --maxiters 100000 --checkpoint " + ck + " --checkpoint-every 1", "term");
  ASSERT_GT(pid, 0);
  const bool sent = signal_after(pid, "term", 3, ck, SIGTERM);
  const int status = wait_status(pid);
  const std::string out = slurp(scratch() + "/term.out"), err = slurp(scratch() + "/term.err");
  ASSERT_TRUE(sent) << "the run ended before the signal:\n" << out << err;
  EXPECT_EQ(status, 143) << err;
  EXPECT_TRUE(has(err, "interrupted by SIGTERM after iteration")) << err;
  EXPECT_TRUE(has(err, "--resume " + ck)) << err;
  const int k = last_iteration(out);
  ASSERT_TRUE(k >= 3 && k < 40) << out;
  DIR* d = ::opendir(scratch().c_str());
  ASSERT_NE(d, nullptr);
  while (const dirent* e = ::readdir(d))
    EXPECT_FALSE(has(e->d_name, "run.ckpt.")) << "a temporary checkpoint left behind: " << e->d_name;
  ::closedir(d);

  const Result resumed = grain("cp-als " + t + " --resume " + ck + " --maxiters 40 --backend serial --output " +
                               scratch() + "/resumed --json " + scratch() + "/resumed.json");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(has(resumed.out, "resumed after iteration " + std::to_string(k))) << resumed.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(scratch() + "/resumed.json"));
  EXPECT_EQ(j.at("resumed_from_iteration"), k);
  EXPECT_EQ(j.at("interrupted"), false);
  EXPECT_EQ(j.at("rank"), 4);
  ASSERT_EQ(j.at("iterations").size(), static_cast<std::size_t>(40 - k));
  EXPECT_EQ(j.at("iterations")[0].at("iteration"), k + 1);

  const Result full = grain(run + " --maxiters 40 --output " + scratch() + "/full");
  ASSERT_EQ(full.status, 0) << full.err;
  const std::vector<double> a = factor_values(scratch() + "/resumed"), b = factor_values(scratch() + "/full");
  ASSERT_EQ(a.size(), 4u + 4u * (100 + 150 + 200));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(std::abs(a[i] - b[i]) <= 1e-9 * std::max(1.0, std::abs(b[i]))) << i << ": " << a[i] << " vs " << b[i];

  const Result rank = grain("cp-als " + t + " --resume " + ck + " --rank 5");
  EXPECT_EQ(rank.status, 2) << rank.err;
  EXPECT_TRUE(has(rank.err, "--rank") && has(rank.err, "contradicts the checkpoint")) << rank.err;
  const Result other = grain("cp-als " + tensor() + " --resume " + ck);
  EXPECT_EQ(other.status, 1) << other.err;
  EXPECT_TRUE(has(other.err, ck) && has(other.err, "30x40x50")) << other.err;
}

// SIGINT without a checkpoint: exit 130, the factors so far in --output and the JSON says so.
TEST(Cli, SigintWritesTheFactorsSoFar) {
  const std::string prefix = scratch() + "/partial", json = scratch() + "/partial.json";
  const pid_t pid = grain_start("cp-als " + long_tensor() + " --rank 4 --tol 0 --maxiters 100000 --backend serial "
                                "--output " + prefix + " --json " + json, "int");
  ASSERT_GT(pid, 0);
  const bool sent = signal_after(pid, "int", 2, long_tensor(), SIGINT);
  const int status = wait_status(pid);
  const std::string err = slurp(scratch() + "/int.err");
  ASSERT_TRUE(sent) << "the run ended before the signal:\n" << err;
  EXPECT_EQ(status, 130) << err;
  EXPECT_TRUE(has(err, "interrupted by SIGINT")) << err;
  EXPECT_TRUE(has(err, prefix + "_lambda.txt")) << err;
  EXPECT_EQ(factor_values(prefix).size(), 4u + 4u * (100 + 150 + 200));
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j.at("interrupted"), true);
  EXPECT_EQ(j.at("signal"), "SIGINT");
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

// The held-out sweep: random shapes from a seed, every row with its seed and both of Auto's picks,
// and the distribution in the summary; the same seed draws the same shapes.
TEST(Cli, BenchContractRandomShapes) {
  const std::string args = "bench contract --backend serial --shapes random --count 3 --dtype double "
                           "--kernel DataFieldScalar,DataDataVector --algorithm flat,block,team-small-k --budget-mib 1 --reps 1 "
                           "--json - --seed ";
  const Result r = grain(args + "7");
  const nlohmann::json rows = bench_rows(r);
  ASSERT_FALSE(rows.empty());
  std::set<std::string> shapes;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("shape_seed"), 7) << row.dump();
    EXPECT_EQ(row.at("verified"), true) << row.dump();
    EXPECT_TRUE(row.contains("model_pick") && row.contains("measure_pick") && row.contains("planning_ms")) << row.dump();
    shapes.insert(row.at("kernel").get<std::string>() + " " + row.at("case").get<std::string>() + " " +
                  std::to_string(row.at("L").get<long>()) + "x" + std::to_string(row.at("R").get<long>()) + "x" +
                  std::to_string(row.at("P").get<long>()));
  }
  EXPECT_EQ(shapes.size(), 3u);
  const nlohmann::json summary = nlohmann::json::parse(r.out).at("summary");
  EXPECT_EQ(summary.at("shape_seed"), 7);
  const double median = summary.at("double_model_median");
  EXPECT_TRUE(median >= 1.0) << summary.dump();
  // The same seed, the same shapes.
  std::set<std::string> again;
  for (const auto& row : bench_rows(grain(args + "7")))
    again.insert(row.at("kernel").get<std::string>() + " " + row.at("case").get<std::string>() + " " +
                 std::to_string(row.at("L").get<long>()) + "x" + std::to_string(row.at("R").get<long>()) + "x" +
                 std::to_string(row.at("P").get<long>()));
  EXPECT_EQ(again, shapes);
  const Result bad = grain("bench contract --shapes random --sweep --backend serial");
  EXPECT_EQ(bad.status, 1) << bad.err;
  EXPECT_TRUE(has(bad.err, "choose one")) << bad.err;
}

// explain prints the facts, the rules, the candidates and the pick; bad shapes are clear errors.
TEST(Cli, ContractExplain) {
  const Result r = grain("contract explain --kernel FieldFieldScalar --shape 1000,8,8,27 --backend serial");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"what the model reads", "rules that hold", "candidates", "model's pick: ", "pick: "})
    EXPECT_TRUE(has(r.out, part)) << part << "\n" << r.out;
  // The CUDA model is explained without a GPU too.
  const Result gpu = grain("contract explain --kernel DataFieldTensor --shape 500,1,9,8,2,2 --backend cuda --dtype float");
  ASSERT_EQ(gpu.status, 0) << gpu.err;
  EXPECT_TRUE(has(gpu.out, "layout left")) << gpu.out;
  const Result bad = grain("contract explain --kernel DataDataScalar --shape 10,2,1,8 --backend serial");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(has(bad.err, "L must be 1")) << bad.err;
  const Result missing = grain("contract explain --kernel DataDataScalar");
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(has(missing.err, "--shape")) << missing.err;
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


// ---- memory before allocation, --compact --------------------------------------------------------

// Two nonzeros whose indices reach 10^9: rank 64 would need terabytes of factor matrices.
const std::string& huge_range_tensor() {
  static const std::string path = [] {
    const std::string p = scratch() + "/huge-range.tns";
    std::ofstream(p) << "1000000000 1000000000 1000000000 1.5\n2 3 4 -2.5\n";
    return p;
  }();
  return path;
}

TEST(Cli, CpAlsThatCannotFitSaysSoBeforeAllocating) {
  const Result r = grain("cp-als " + huge_range_tensor() + " --rank 64");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "not enough memory on the ")) << r.err;
  EXPECT_TRUE(has(r.err, "the factor matrices (3000000000 rows x 64 x 8 B)")) << r.err;
  EXPECT_TRUE(has(r.err, "--compact (mode 1 uses 2 of 1000000000 indices")) << r.err;
  EXPECT_TRUE(has(r.err, "--compact would shrink the factor matrices")) << r.err;
}

TEST(Cli, CompactDecomposesTheUsedIndicesAndWritesTheOriginalOnes) {
  const std::string prefix = scratch() + "/compact";
  const Result r = grain("cp-als " + huge_range_tensor() + " --rank 2 --compact --maxiters 5 --output " + prefix);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "compact: 1000000000x1000000000x1000000000 -> 2x2x2")) << r.out;
  for (int m = 1; m <= 3; ++m) {
    std::ifstream f(prefix + "_mode" + std::to_string(m) + ".txt");
    std::vector<long long> ids;
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream in(line);
      long long id = 0;
      double a = 0, b = 0;
      EXPECT_TRUE(in >> id >> a >> b) << line;
      ids.push_back(id);
    }
    EXPECT_EQ(ids, (std::vector<long long>{m + 1, 1000000000})) << "mode " << m;
  }
}

TEST(Cli, BenchMttkrpThatCannotFitSaysSo) {
  const Result r = grain("bench mttkrp " + huge_range_tensor() + " --rank 64");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "not enough memory on the ")) << r.err;
  EXPECT_TRUE(has(r.err, "the MTTKRP benchmark at rank 64")) << r.err;
}

// ---- grain score ------------------------------------------------------------------------------------

// A model of the small tensor written by cp-als (rank, seed) under the scratch folder.
std::string model(int rank, int seed) {
  const std::string prefix = scratch() + "/model_r" + std::to_string(rank) + "_s" + std::to_string(seed);
  const Result r = grain("cp-als " + tensor() + " --rank " + std::to_string(rank) + " --seed " + std::to_string(seed) +
                         " --maxiters 20 --backend serial --output " + prefix);
  EXPECT_EQ(r.status, 0) << r.err;
  return prefix;
}

TEST(Cli, ScoreOfAModelWithItselfIsOneAndJsonToStandardOutput) {
  const std::string a = model(3, 1), b = model(2, 2);
  const Result self = grain("score " + a + " " + a);
  ASSERT_EQ(self.status, 0) << self.err;
  EXPECT_TRUE(has(self.out, "score 1.00000000: 30x40x50, rank 3 against rank 3")) << self.out;
  const Result r = grain("score " + a + " " + b + " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << "stdout is not only JSON:\n" << r.out;
  EXPECT_EQ(j.at("rank_a"), 3);
  EXPECT_EQ(j.at("rank_b"), 2);
  EXPECT_EQ(j.at("pairs").size(), 2u);  // the smaller rank's components
  const double score = j.at("score");
  EXPECT_TRUE(score > 0.0 && score <= 1.0) << score;  // NaN fails too
  EXPECT_TRUE(has(r.err, "score ")) << "the human-readable lines go to stderr:\n" << r.err;
}

TEST(Cli, ScoreOfMismatchedModelsFailsNamingThem) {
  const std::string a = model(3, 1);
  const std::string other = scratch() + "/other";
  const Result gen = grain("generate --dims 30x40x51 --nnz 3000 --seed 2 --output " + other + ".tns");
  ASSERT_EQ(gen.status, 0) << gen.err;
  ASSERT_EQ(grain("cp-als " + other + ".tns --rank 3 --maxiters 2 --output " + other).status, 0);
  Result r = grain("score " + a + " " + other);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "grain score: error: ") && has(r.err, "30x40x50") && has(r.err, "30x40x51") &&
              has(r.err, other))
      << r.err;
  r = grain("score " + a + " " + scratch() + "/absent");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "absent_mode1.txt: cannot open")) << r.err;
}

// ---- cp-als --init, --starts, --nonnegative -----------------------------------------------------

// Every factor entry of the model PREFIX (the files cp-als writes).
std::vector<double> factor_entries(const std::string& prefix, int modes) {
  std::vector<double> v;
  for (int m = 1; m <= modes; ++m) {
    std::ifstream f(prefix + "_mode" + std::to_string(m) + ".txt");
    double x = 0;
    while (f >> x) v.push_back(x);
  }
  return v;
}

TEST(Cli, StartsKeepTheBestFitAndEqualTheRunOfItsSeed) {
  const std::string prefix = scratch() + "/starts";
  const Result r = grain("cp-als " + tensor() + " --rank 4 --maxiters 15 --seed 3 --starts 3 --backend serial --output " +
                         prefix + " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_EQ(j.at("starts").size(), 3u);
  double best = -1;
  unsigned long long best_seed = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(j["starts"][k].at("seed"), 3 + k);
    const double fit = j["starts"][k].at("fit");
    EXPECT_TRUE(fit > 0 && fit < 1) << fit;
    if (fit > best) best = fit, best_seed = 3 + k;
  }
  EXPECT_EQ(j.at("fit"), best);
  EXPECT_EQ(j.at("best_seed"), best_seed);
  EXPECT_TRUE(has(r.err, "start 3 of 3: seed 5, fit ")) << r.err;
  // The single run from the winning seed: the same fit and factors.
  const std::string one = scratch() + "/one_start";
  const Result s = grain("cp-als " + tensor() + " --rank 4 --maxiters 15 --seed " + std::to_string(best_seed) +
                         " --backend serial --output " + one + " --json -");
  ASSERT_EQ(s.status, 0) << s.err;
  const nlohmann::json k = nlohmann::json::parse(s.out);
  EXPECT_EQ(k.at("fit"), j.at("fit"));
  EXPECT_EQ(k.at("starts").size(), 1u);
  const std::vector<double> a = factor_entries(prefix, 3), b = factor_entries(one, 3);
  ASSERT_EQ(a.size(), 4u * (30 + 40 + 50));
  EXPECT_EQ(a, b);
}

TEST(Cli, NvecsAndNonnegativeStarts) {
  const std::string prefix = scratch() + "/nonneg";
  Result r = grain("cp-als " + tensor() + " --rank 3 --maxiters 30 --init nvecs --nonnegative --output " + prefix +
                   " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("init"), "nvecs");
  EXPECT_EQ(j.at("nonnegative"), true);
  const double fit = j.at("fit");
  EXPECT_TRUE(fit > 0 && fit < 1) << fit;
  EXPECT_TRUE(has(r.err, "nvecs start, seed 1, non-negative")) << r.err;
  for (double x : factor_entries(prefix, 3)) ASSERT_TRUE(x >= 0) << x;
  // --init random is the default start; a file start still reads --output's files.
  r = grain("cp-als " + tensor() + " --rank 3 --maxiters 3 --init random --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("init"), "random");
  r = grain("cp-als " + tensor() + " --rank 3 --maxiters 3 --init " + prefix);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "start from " + prefix)) << r.out;
}

TEST(Cli, BadStartsFailNamingTheProblem) {
  // nvecs needs a rank no larger than every mode; a factor file start of another rank.
  const std::string tiny = scratch() + "/tiny.tns";
  std::ofstream(tiny) << "1 1 1 1.5\n2 3 1 2.5\n3 2 2 0.5\n";
  Result r = grain("cp-als " + tiny + " --rank 3 --init nvecs");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "grain cp-als: error: ") && has(r.err, "rank 3 exceeds mode 3's size 2")) << r.err;
  r = grain("cp-als " + tensor() + " --rank 5 --init " + model(3, 1));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "_lambda.txt")) << r.err;
}

}  // namespace
