// CP-ALS checkpoints: an exact round trip, atomic writes, a clear error for every damaged or
// foreign file, and a run stopped after iteration k and resumed from its checkpoint reaching the
// factors of a run never stopped.
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "cp_test_util.hpp"
#include "grain_test.hpp"

namespace {

using grain::test::random_ktensor_tensor;

using grain::index_type;
using grain::test::error_of;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "grain_ckpt_" + std::to_string(::getpid()) + "_" + name;
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Files in path's folder whose names start with path's name and are not path itself: left-over
// temporaries.
int leftovers(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = path.substr(0, slash), base = path.substr(slash + 1);
  int n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != base && name.compare(0, base.size(), base) == 0) ++n;
    }
    ::closedir(d);
  }
  return n;
}

// A checkpoint of random non-zero values, extremes included.
grain::cp::CpAlsCheckpoint sample_checkpoint() {
  grain::cp::CpAlsCheckpoint c;
  c.dims = {5, 7, 3};
  c.nnz = 42;
  c.fingerprint = 0x0123456789ABCDEFull;
  c.rank = 4;
  c.value_bytes = 4;
  c.maxiters = 500;
  c.tol = 1e-7;
  c.seed = 123456789;
  c.mttkrp = "privatized";
  c.iteration = 6;
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int i = 0; i < c.iteration; ++i) c.fits.push_back(0.1 * i + u(g) * 1e-3);
  for (int r = 0; r < c.rank; ++r) c.lambda.push_back(u(g) * 1e3);
  for (index_type d : c.dims) {
    std::vector<double> f(static_cast<std::size_t>(d * c.rank));
    for (double& v : f) v = (g() & 1 ? -1 : 1) * u(g);
    c.factors.push_back(f);
  }
  c.factors[0][0] = 1e-300;
  c.factors[1][1] = -1e300;
  return c;
}

void expect_equal(const grain::cp::CpAlsCheckpoint& a, const grain::cp::CpAlsCheckpoint& b, bool model = true) {
  EXPECT_EQ(a.version, grain::cp::kCheckpointVersion);
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.nnz, b.nnz);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.value_bytes, b.value_bytes);
  EXPECT_EQ(a.maxiters, b.maxiters);
  EXPECT_EQ(a.tol, b.tol);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.mttkrp, b.mttkrp);
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.fits, b.fits);
  if (model) {
    EXPECT_EQ(a.lambda, b.lambda);
    EXPECT_EQ(a.factors, b.factors);
  }
}

TEST(Checkpoint, RoundTripIsExactAndLeavesNoTemporary) {
  const std::string path = temp_path("roundtrip.ckpt");
  const auto c = sample_checkpoint();
  grain::cp::write_checkpoint(path, c);
  expect_equal(grain::cp::read_checkpoint(path), c);
  const auto h = grain::cp::read_checkpoint(path, /*header_only=*/true);
  expect_equal(h, c, false);
  EXPECT_TRUE(h.factors.empty() && h.lambda.empty());
  EXPECT_EQ(leftovers(path), 0);
  // A second write replaces the first whole.
  auto c2 = c;
  c2.iteration = 7;
  c2.fits.push_back(0.75);
  c2.factors[2][5] = 42.0;
  grain::cp::write_checkpoint(path, c2);
  expect_equal(grain::cp::read_checkpoint(path), c2);
  EXPECT_EQ(leftovers(path), 0);
  std::remove(path.c_str());
}

TEST(Checkpoint, AFailedWriteKeepsThePreviousFile) {
  const std::string path = temp_path("keep.ckpt");
  const auto good = sample_checkpoint();
  grain::cp::write_checkpoint(path, good);
  auto bad = good;
  bad.factors[1][3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(has(error_of([&] { grain::cp::write_checkpoint(path, bad); }), path));
  bad.factors[1][3] = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(has(error_of([&] { grain::cp::write_checkpoint(path, bad); }), "NaN or infinity"));
  auto shape = good;
  shape.factors[2].pop_back();
  EXPECT_TRUE(has(error_of([&] { grain::cp::write_checkpoint(path, shape); }), "mode 3"));
  expect_equal(grain::cp::read_checkpoint(path), good);
  EXPECT_EQ(leftovers(path), 0);
  const std::string nowhere = ::testing::TempDir() + "grain_no_such_folder/x.ckpt";
  EXPECT_TRUE(has(error_of([&] { grain::cp::write_checkpoint(nowhere, good); }), nowhere));
  std::remove(path.c_str());
}

TEST(Checkpoint, DamagedFilesAreErrorsNamingTheFile) {
  const std::string path = temp_path("good.ckpt"), bad = temp_path("bad.ckpt");
  grain::cp::write_checkpoint(path, sample_checkpoint());
  const std::string bytes = read_bytes(path);
  const auto read_error = [&](const std::string& content) {
    write_bytes(bad, content);
    return error_of([&] { (void)grain::cp::read_checkpoint(bad); });
  };
  EXPECT_TRUE(has(error_of([&] { (void)grain::cp::read_checkpoint(temp_path("absent.ckpt")); }), "absent.ckpt"));
  // Cut anywhere: in the magic, the header, the dims, the fits, the factors, the checksum.
  for (std::size_t keep : {std::size_t(0), std::size_t(5), std::size_t(40), std::size_t(90), std::size_t(130),
                           bytes.size() / 2, bytes.size() - 1}) {
    const std::string what = read_error(bytes.substr(0, keep));
    EXPECT_TRUE(has(what, bad) && has(what, "truncated")) << keep << " bytes: " << what;
  }
  EXPECT_TRUE(has(read_error(bytes + "x"), "corrupted")) << read_error(bytes + "x");
  // A flipped bit anywhere in the model fails the checksum.
  for (std::size_t at : {bytes.size() / 3, bytes.size() - 12}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const std::string what = read_error(flipped);
    EXPECT_TRUE(has(what, bad) && has(what, "checksum")) << at << ": " << what;
  }
  std::string version = bytes;
  version[8] = 2;  // the version follows the 8 magic bytes
  EXPECT_TRUE(has(read_error(version), "version 2")) << read_error(version);
  std::string magic = bytes;
  magic[0] = 'X';
  EXPECT_TRUE(has(read_error(magic), "not a grain CP-ALS checkpoint")) << read_error(magic);
  std::string modes = bytes;
  modes[12] = 99;  // N
  EXPECT_TRUE(has(read_error(modes), "corrupted checkpoint header")) << read_error(modes);
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST(Checkpoint, AnotherTensorRankOrTypeIsAnError) {
  auto H = random_ktensor_tensor({20, 30, 25}, 2000, 3, 4);
  const std::uint64_t fp = grain::cp::tensor_fingerprint(H);
  EXPECT_EQ(fp, grain::cp::tensor_fingerprint(random_ktensor_tensor({20, 30, 25}, 2000, 3, 4)));
  grain::cp::CpAlsCheckpoint c;
  c.dims = H.dims();
  c.nnz = H.nnz();
  c.fingerprint = fp;
  c.rank = 5;
  c.value_bytes = 8;
  const std::string p = "run.ckpt";
  EXPECT_NO_THROW(grain::cp::check_checkpoint_tensor(c, p, H.dims(), H.nnz(), fp, 5, 8));
  grain::SparseTensor<double> changed(H.dims(), H.nnz());
  grain::deep_copy(changed.subscripts(), H.subscripts());
  grain::deep_copy(changed.values(), H.values());
  changed.values()(H.nnz() / 2) += 1.0;
  const std::uint64_t fp2 = grain::cp::tensor_fingerprint(changed);
  EXPECT_NE(fp, fp2);
  std::string e = error_of([&] { grain::cp::check_checkpoint_tensor(c, p, H.dims(), H.nnz(), fp2, 5, 8); });
  EXPECT_TRUE(has(e, p) && has(e, "fingerprints differ")) << e;
  e = error_of([&] { grain::cp::check_checkpoint_tensor(c, p, {20, 30, 26}, H.nnz(), fp, 5, 8); });
  EXPECT_TRUE(has(e, "20x30x25") && has(e, "20x30x26")) << e;
  e = error_of([&] { grain::cp::check_checkpoint_tensor(c, p, H.dims(), H.nnz() + 1, fp, 5, 8); });
  EXPECT_TRUE(has(e, "nonzeros")) << e;
  e = error_of([&] { grain::cp::check_checkpoint_tensor(c, p, H.dims(), H.nnz(), fp, 6, 8); });
  EXPECT_TRUE(has(e, "rank-5") && has(e, "rank 6")) << e;
  e = error_of([&] { grain::cp::check_checkpoint_tensor(c, p, H.dims(), H.nnz(), fp, 5, 4); });
  EXPECT_TRUE(has(e, "double") && has(e, "float")) << e;
}

// The factors of M, in double on the host, through NaN-poisoned buffers.
template <class T, class Space>
std::vector<std::vector<double>> host_factors(const grain::cp::Ktensor<T, Space>& M) {
  std::vector<std::vector<double>> out;
  for (int m = 0; m < M.ndims(); ++m) {
    grain::View<T**, grain::LayoutRight, grain::HostSpace> h("factor", M.dim(m), M.rank());
    grain::test::poison(h);
    grain::deep_copy(h, M.factors[m]);
    out.emplace_back(h.data(), h.data() + h.size());
  }
  auto l = grain::test::to_host(M.lambda);
  out.emplace_back(l.data(), l.data() + M.rank());
  return out;
}

// A run stopped after iteration k (by after_iteration), saved, read back and resumed reaches the
// factors, weights, fits and iteration count of the run never stopped. k = 1 crosses the switch
// from 2-norm to max-norm weights; tol > 0 checks the stopping rule across the resume.
template <class Exec>
void check_resume_matches() {
  using Space = typename Exec::memory_space;
  auto H = random_ktensor_tensor({20, 30, 25}, 3000, 4, 9);
  auto X = H.template to_space<Space>();
  const int R = 5;
  const std::string path = temp_path(std::string("resume_") + Exec::name() + ".ckpt");
  for (const double tol : {0.0, 1e-5})
    for (const int k : {1, 7}) {
      const std::string at = std::string("tol ") + std::to_string(tol) + " k " + std::to_string(k);
      grain::cp::CpAlsOptions o;
      o.maxiters = tol > 0 ? 300 : 20;
      o.tol = tol;
      auto full = grain::cp::random_ktensor<double, Space>(X.dims(), R, 77);
      const auto ref = grain::cp::cp_als<Exec>(X, full, o);
      ASSERT_GT(ref.iterations.size(), static_cast<std::size_t>(k + 2)) << at;
      if (tol > 0) {
        ASSERT_LT(static_cast<int>(ref.iterations.size()), o.maxiters) << at << ": did not converge";
      }

      auto M = grain::cp::random_ktensor<double, Space>(X.dims(), R, 77);
      grain::cp::CpAlsCheckpoint ck;
      ck.dims = H.dims();
      ck.nnz = H.nnz();
      ck.fingerprint = grain::cp::tensor_fingerprint(H);
      ck.rank = R;
      ck.maxiters = o.maxiters;
      ck.tol = tol;
      auto first = o;
      first.after_iteration = [&](const grain::cp::CpAlsIteration& it) {
        ck.fits.push_back(it.fit);
        if (it.iteration < k) return true;
        ck.iteration = it.iteration;
        grain::cp::checkpoint_set_model(ck, M);
        grain::cp::write_checkpoint(path, ck);
        return false;
      };
      const auto part1 = grain::cp::cp_als<Exec>(X, M, first);
      EXPECT_TRUE(part1.stopped) << at;
      ASSERT_EQ(part1.iterations.size(), static_cast<std::size_t>(k)) << at;

      const auto back = grain::cp::read_checkpoint(path);
      grain::cp::check_checkpoint_tensor(back, path, H.dims(), H.nnz(), grain::cp::tensor_fingerprint(H), R, 8);
      auto M2 = grain::cp::checkpoint_model<double, Space>(back);
      auto second = o;
      second.iterations_done = back.iteration;
      second.fit_done = back.fits.back();
      const auto part2 = grain::cp::cp_als<Exec>(X, M2, second);
      EXPECT_FALSE(part2.stopped) << at;
      ASSERT_FALSE(part2.iterations.empty()) << at;
      EXPECT_EQ(part2.iterations.front().iteration, k + 1) << at;
      ASSERT_EQ(k + part2.iterations.size(), ref.iterations.size()) << at;
      for (std::size_t i = 0; i < ref.iterations.size(); ++i) {
        const double fit = i < static_cast<std::size_t>(k) ? back.fits[i] : part2.iterations[i - k].fit;
        EXPECT_TRUE(grain::test::near(fit, ref.iterations[i].fit, 1e-10)) << at << " iteration " << i + 1;
      }
      EXPECT_TRUE(grain::test::near(part2.fit, ref.fit, 1e-10)) << at;
      const auto a = host_factors(M2), b = host_factors(full);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t m = 0; m < a.size(); ++m)
        for (std::size_t e = 0; e < a[m].size(); ++e)
          ASSERT_TRUE(grain::test::near(a[m][e], b[m][e], 1e-8)) << at << " mode " << m << " entry " << e;
    }
  std::remove(path.c_str());
}
GRAIN_BACKEND_TEST(CpAlsCheckpoint, ResumeReachesTheUninterruptedFactors) { check_resume_matches<TypeParam>(); }

// Resuming at or past maxiters runs no iteration and keeps the model (arranged) and the fit.
TEST(CpAlsCheckpoint, ResumeAtMaxitersRunsNothing) {
  auto H = random_ktensor_tensor({10, 12, 9}, 500, 3, 2);
  auto M = grain::cp::random_ktensor<double, grain::HostSpace>(H.dims(), 3, 5);
  grain::cp::CpAlsOptions o;
  o.maxiters = 4;
  o.iterations_done = 4;
  o.fit_done = 0.25;
  const auto res = grain::cp::cp_als<grain::Serial>(H, M, o);
  EXPECT_TRUE(res.iterations.empty());
  EXPECT_EQ(res.fit, 0.25);
  EXPECT_FALSE(res.stopped);
  o.iterations_done = -1;
  EXPECT_THROW(grain::cp::cp_als<grain::Serial>(H, M, o), grain::Error);
}

}  // namespace
