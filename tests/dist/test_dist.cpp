// The collectives (grain/dist/comm.hpp) and CP-ALS across ranks against one process. Run by
// mpirun with 2 or more ranks (tests/dist/CMakeLists.txt); every rank runs every test, and a
// test's expectations hold on every rank. With --gpu (a CUDA build), each rank takes a GPU of its
// node, CP-ALS runs there, and the ranks talk through NCCL when it was built and every rank has a
// GPU of its own.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "cp/cp_test_util.hpp"
#include "grain/grain.hpp"
#include "grain/dist/comm.hpp"
#include "grain/dist/sparse.hpp"

namespace {

grain::dist::Comm* g_world = nullptr;
bool g_gpu = false;  // --gpu: CP-ALS on each rank's GPU

using Exec = grain::DefaultHostExecutionSpace;
using grain::index_type;

TEST(Comm, CollectivesOnUnevenBlocks) {
  auto& c = *g_world;
  const int P = c.size(), me = c.rank();
  ASSERT_GE(P, 2) << "run under mpirun with 2 or more ranks";
  // all-reduce: sum, max, min of rank-dependent values, in each element type.
  std::vector<double> d{1.5 + me, -2.0 * me, NAN};
  d[2] = me;  // replaces the NaN the vector starts with: an untouched element would fail below
  c.allreduce(d.data(), d.size(), grain::dist::ReduceOp::Sum);
  EXPECT_EQ(d[0], 1.5 * P + P * (P - 1) / 2.0);
  EXPECT_EQ(d[1], -1.0 * P * (P - 1));
  EXPECT_EQ(c.allreduce_value<float>(static_cast<float>(me), grain::dist::ReduceOp::Max), float(P - 1));
  EXPECT_EQ(c.allreduce_value<std::int64_t>(me + 7, grain::dist::ReduceOp::Min), 7);
  // reduce-scatter and all-gather over blocks of 0, 1, 2, ... elements.
  std::vector<std::size_t> counts(P);
  std::size_t total = 0;
  for (int p = 0; p < P; ++p) total += counts[p] = static_cast<std::size_t>(p);
  std::vector<double> send(total), recv(counts[me] + 1, NAN);
  for (std::size_t e = 0; e < total; ++e) send[e] = (me + 1) * 100.0 + e;
  c.reduce_scatter(send.data(), recv.data(), counts, grain::dist::DataType::Double);
  const std::size_t at = static_cast<std::size_t>(me) * (me - 1) / 2;
  for (std::size_t e = 0; e < counts[me]; ++e) EXPECT_EQ(recv[e], 100.0 * P * (P + 1) / 2 + P * double(at + e));
  EXPECT_TRUE(std::isnan(recv[counts[me]])) << "reduce-scatter wrote past this rank's block";
  std::vector<double> all(total, NAN);
  for (std::size_t e = 0; e < counts[me]; ++e) all[at + e] = me * 10.0 + e;
  c.allgather(all.data(), counts, grain::dist::DataType::Double);
  std::size_t k = 0;
  for (int p = 0; p < P; ++p)
    for (std::size_t e = 0; e < counts[p]; ++e) EXPECT_EQ(all[k++], p * 10.0 + e);
  std::vector<std::int64_t> b(3, me);
  c.broadcast(b.data(), b.size(), grain::dist::DataType::Int64, P - 1);
  EXPECT_EQ(b, std::vector<std::int64_t>(3, P - 1));
  // A View in host memory.
  grain::View<double*, grain::LayoutRight, grain::HostSpace> v("v", 4);
  for (int e = 0; e < 4; ++e) v(e) = me + e;
  grain::dist::allreduce(c, v, grain::dist::ReduceOp::Max, 3);
  EXPECT_EQ(v(0), P - 1);
  EXPECT_EQ(v(2), P + 1);
  EXPECT_EQ(v(3), me + 3) << "only the first 3 elements take part";
  EXPECT_GT(c.bytes(), 0);
}

#if GRAIN_CUDA_LAUNCH_AVAILABLE
TEST(Comm, DeviceViewsAndBuffers) {
  if (!g_gpu) GTEST_SKIP() << "run with --gpu";
  auto& c = *g_world;
  const int P = c.size(), me = c.rank();
  std::vector<std::size_t> counts(P);
  std::size_t total = 0;
  for (int p = 0; p < P; ++p) total += counts[p] = static_cast<std::size_t>(2 * p + 1);
  grain::View<double*, grain::LayoutRight, grain::CudaSpace> send("send", total), recv("recv", counts[me] + 1);
  auto send_h = grain::create_mirror_view(send);
  for (std::size_t e = 0; e < total; ++e) send_h(e) = (me + 1) * 100.0 + e;
  grain::deep_copy(send, send_h);
  grain::deep_copy(recv, NAN);
  // Device pointers go to the engine as they are where it reaches the device; else through the host.
  if (c.reaches_device()) {
    c.reduce_scatter(send.data(), recv.data(), counts, grain::dist::DataType::Double);
    auto recv_h = grain::create_mirror_view(recv);
    grain::deep_copy(recv_h, recv);
    std::size_t at = 0;
    for (int p = 0; p < me; ++p) at += counts[p];
    for (std::size_t e = 0; e < counts[me]; ++e) EXPECT_EQ(recv_h(e), 100.0 * P * (P + 1) / 2 + P * double(at + e));
    EXPECT_TRUE(std::isnan(recv_h(counts[me]))) << "reduce-scatter wrote past this rank's block";
    grain::deep_copy(send, NAN);
    for (std::size_t e = 0; e < total; ++e) send_h(e) = NAN;
    for (std::size_t e = 0; e < counts[me]; ++e) send_h(at + e) = me * 10.0 + e;
    grain::deep_copy(send, send_h);
    c.allgather(send.data(), counts, grain::dist::DataType::Double);
    grain::deep_copy(send_h, send);
    std::size_t k = 0;
    for (int p = 0; p < P; ++p)
      for (std::size_t e = 0; e < counts[p]; ++e) EXPECT_EQ(send_h(k++), p * 10.0 + e);
  }
  grain::View<float*, grain::LayoutRight, grain::CudaSpace> v("v", 5);
  auto v_h = grain::create_mirror_view(v);
  for (int e = 0; e < 5; ++e) v_h(e) = static_cast<float>(me + e);
  grain::deep_copy(v, v_h);
  grain::dist::allreduce(c, v, grain::dist::ReduceOp::Sum, 4);
  grain::deep_copy(v_h, v);
  for (int e = 0; e < 4; ++e) EXPECT_EQ(v_h(e), static_cast<float>(P * (P - 1) / 2 + P * e));
  EXPECT_EQ(v_h(4), static_cast<float>(me + 4)) << "only the first 4 elements take part";
}
#endif

TEST(Comm, AgreeGivesEveryRankTheLowestFailingRanksError) {
  auto& c = *g_world;
  EXPECT_NO_THROW(c.agree(""));
  const int P = c.size();
  try {
    c.agree(c.rank() >= 1 ? "cannot read part " + std::to_string(c.rank()) : "");
    ADD_FAILURE() << "agree did not throw";
  } catch (const grain::Error& e) {
    EXPECT_EQ(std::string(e.what()), "rank 1 of " + std::to_string(P) + ": cannot read part 1");
  }
}

TEST(Comm, OwnedRowsCoverEachIndexOnce) {
  for (index_type n : {0, 1, 5, 64, 1001})
    for (int P : {1, 2, 3, 8}) {
      index_type next = 0;
      for (int p = 0; p < P; ++p) {
        const auto r = grain::dist::owned_rows(n, P, p);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.count, n / P + 1);
        next += r.count;
      }
      EXPECT_EQ(next, n);
    }
}

// A file every rank reads: written by rank 0, then seen by all (one machine).
std::string shared_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "grain_dist_" + name;
  if (g_world->rank() == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  (void)g_world->allreduce_value<std::int64_t>(0);  // the file is complete before anyone reads it
  return path;
}

TEST(DistShare, TheSharesOfAFileHaveItsDimensionsAndAllItsNonzeros) {
  std::string text = "# a comment\n";
  double total = 0;
  for (int j = 0; j < 300; ++j) {  // the largest index of mode 1 is on the first line only
    const int i = j == 0 ? 97 : 1 + j % 5, k = 1 + j % 7, l = 1 + (j * 13) % 11;
    text += std::to_string(i) + " " + std::to_string(k) + " " + std::to_string(l) + " " + std::to_string(j + 0.5) + "\n";
    total += j + 0.5;
  }
  const auto path = shared_file("dims.tns", text);
  const auto whole = grain::read_sparse<double>(path);
  const auto mine = grain::dist::read_sparse_share<double>(*g_world, path);
  EXPECT_EQ(mine.dims(), whole.dims());
  EXPECT_EQ(grain::dist::total_nnz(*g_world, mine), 300);
  EXPECT_LT(mine.nnz(), 300);
  double sum = 0;
  for (index_type j = 0; j < mine.nnz(); ++j) sum += mine.values()(j);
  EXPECT_EQ(g_world->allreduce_value(sum), total);
}

TEST(DistShare, PartsThatDisagreeOnTheModesStopEveryRank) {
  // Lines of equal length, so that with 2 ranks the second part starts at the first 4-way line.
  if (g_world->size() != 2) GTEST_SKIP() << "the file splits at the change of modes for 2 ranks";
  std::string text;
  for (int j = 0; j < 400; ++j) text += j < 200 ? "1 2 3 10.00\n" : "1 2 3 4 1.0\n";
  const auto path = shared_file("modes.tns", text);
  try {
    (void)grain::dist::read_sparse_share<double>(*g_world, path);
    ADD_FAILURE() << "no error";
  } catch (const grain::dist::AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("disagree on the number of modes (3 and 4)"), std::string::npos) << e.what();
  }
}

// This rank's share of X: nonzero j goes to the rank `owner(j)` says.
template <class F>
grain::SparseTensor<double> share(const grain::SparseTensor<double>& X, F owner) {
  std::vector<index_type> mine;
  for (index_type j = 0; j < X.nnz(); ++j)
    if (owner(j) == g_world->rank()) mine.push_back(j);
  grain::SparseTensor<double> S(X.dims(), static_cast<index_type>(mine.size()));
  for (std::size_t k = 0; k < mine.size(); ++k) {
    for (int m = 0; m < X.ndims(); ++m) S.subscripts()(k, m) = X.subscripts()(mine[k], m);
    S.values()(k) = X.values()(mine[k]);
  }
  return S;
}

// CP-ALS in the space of ExecT: the tensor and the start copied there, the model copied back.
template <class ExecT>
grain::cp::CpAlsResult cp_als_in(const grain::SparseTensor<double>& X, grain::cp::Ktensor<double, grain::HostSpace>& M,
                                 const grain::cp::CpAlsOptions& o) {
  using Space = typename ExecT::memory_space;
  auto Md = M.template to_space<Space>();
  const auto res = grain::cp::cp_als<ExecT>(X.template to_space<Space>(), Md, o);
  M = Md.template to_space<grain::HostSpace>();
  return res;
}
// On this rank's GPU under --gpu, else on the host.
grain::cp::CpAlsResult run_cp_als(const grain::SparseTensor<double>& X, grain::cp::Ktensor<double, grain::HostSpace>& M,
                                  const grain::cp::CpAlsOptions& o) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if (g_gpu) return cp_als_in<grain::Cuda>(X, M, o);
#endif
  return cp_als_in<Exec>(X, M, o);
}

// CP-ALS on this rank's share across the ranks against CP-ALS on the whole tensor in one process,
// from the same start: the same number of iterations, the same fits (to 1e-10) and the same model.
template <class F>
void check_against_one_process(const grain::SparseTensor<double>& X, int R, F owner, bool nonnegative = false) {
  grain::cp::CpAlsOptions o;
  o.maxiters = 12;
  o.tol = 0;
  o.nonnegative = nonnegative;
  auto M1 = grain::cp::random_ktensor<double, grain::HostSpace>(X.dims(), R, 5);
  auto M2 = grain::cp::random_ktensor<double, grain::HostSpace>(X.dims(), R, 5);
  const auto one = run_cp_als(X, M1, o);
  o.comm = g_world;
  const auto part = share(X, owner);
  const auto many = run_cp_als(part, M2, o);
  ASSERT_EQ(one.iterations.size(), many.iterations.size());
  for (std::size_t i = 0; i < one.iterations.size(); ++i)
    EXPECT_NEAR(many.iterations[i].fit, one.iterations[i].fit, 1e-10) << "iteration " << i + 1;
  EXPECT_GT(one.fit, 0.05);
  EXPECT_EQ(many.ranks, g_world->size());
  EXPECT_GT(many.comm_bytes, 0);
  for (int r = 0; r < R; ++r) EXPECT_NEAR(M2.lambda(r), M1.lambda(r), 1e-9 * std::abs(M1.lambda(r)) + 1e-12);
  for (int m = 0; m < X.ndims(); ++m)
    for (index_type i = 0; i < X.dim(m); ++i)
      for (int r = 0; r < R; ++r) ASSERT_NEAR(M2.factors[m](i, r), M1.factors[m](i, r), 1e-9) << m << " " << i << " " << r;
}

TEST(DistCpAls, ThreeWayRoundRobinEqualsOneProcess) {
  const int P = g_world->size();
  auto X = grain::test::random_ktensor_tensor({23, 31, 17}, 4000, 4, 3);
  check_against_one_process(X, 5, [P](index_type j) { return static_cast<int>(j % P); });
}

TEST(DistCpAls, FourWayUnevenPartsEqualOneProcess) {
  const int P = g_world->size();
  auto X = grain::test::random_ktensor_tensor({9, 14, 6, 11}, 3000, 3, 8);
  const index_type nnz = X.nnz();
  // Rank 0 holds nine tenths; the rest share the remainder.
  check_against_one_process(X, 4, [P, nnz](index_type j) {
    return j < nnz * 9 / 10 ? 0 : 1 + static_cast<int>(j % (P - 1));
  });
}

TEST(DistCpAls, EmptyPartsAndModesShorterThanTheRanks) {
  // Mode 3 has one index: every rank but the first owns none of its rows; the last rank holds no
  // nonzero at all.
  const int P = g_world->size();
  auto X = grain::test::random_ktensor_tensor({12, 15, 1}, 800, 2, 4);
  check_against_one_process(X, 3, [P](index_type j) { return static_cast<int>(j % (P - 1)); });
}

TEST(DistCpAls, NonnegativeEqualsOneProcess) {
  const int P = g_world->size();
  auto X = grain::test::random_ktensor_tensor({20, 16, 18}, 3000, 3, 12);
  check_against_one_process(X, 3, [P](index_type j) { return static_cast<int>((j / 7) % P); }, true);
}

TEST(DistCpAls, AStopOnOneRankStopsEveryRankAfterTheSameIteration) {
  auto X = grain::test::random_ktensor_tensor({10, 12, 14}, 1000, 2, 6);
  const int P = g_world->size();
  grain::cp::CpAlsOptions o;
  o.maxiters = 20;
  o.tol = 0;
  o.comm = g_world;
  const int me = g_world->rank();
  o.after_iteration = [me](const grain::cp::CpAlsIteration& it) { return !(me == 1 && it.iteration == 3); };
  auto M = grain::cp::random_ktensor<double, grain::HostSpace>(X.dims(), 2, 1);
  const auto res = run_cp_als(share(X, [P](index_type j) { return static_cast<int>(j % P); }), M, o);
  EXPECT_TRUE(res.stopped);
  EXPECT_EQ(res.iterations.size(), 3u);
}

// Run alone by its own ctest entry (disabled here): rank 1 never joins the all-reduce, so rank 0's
// watchdog must end the job with a message instead of waiting for ever.
TEST(DistTimeout, DISABLED_ACollectiveWaitingPastTheTimeoutStopsTheJob) {
  auto impatient = grain::dist::mpi_world(2);
  if (impatient->rank() == 1) std::this_thread::sleep_for(std::chrono::seconds(120));
  (void)impatient->allreduce_value<std::int64_t>(1);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto world = grain::dist::mpi_world(120);
  g_world = world.get();
  if (world->size() < 2) {
    std::fprintf(stderr, "grain_dist_tests: run it under mpirun with 2 or more ranks (ctest -R dist does)\n");
    return 1;
  }
  std::unique_ptr<grain::dist::Comm> nccl;
  for (int a = 1; a < argc; ++a) g_gpu = g_gpu || std::string(argv[a]) == "--gpu";
  if (g_gpu) {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
    try {
      nccl = grain::dist::take_rank_gpu(*world, 120);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "grain_dist_tests --gpu: %s\n", e.what());
      return 1;
    }
    if (nccl) g_world = nccl.get();
    if (world->rank() == 0) std::printf("grain_dist_tests: %d ranks on GPUs, over %s\n", world->size(), g_world->engine());
#else
    std::fprintf(stderr, "grain_dist_tests --gpu: this build has no CUDA back end\n");
    return 1;
#endif
  }
  // Only rank 0 prints: the ranks' results agree or a test fails on the rank that differs, whose
  // failure still sets the exit status mpirun reports.
  if (world->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  // Every rank's status: a failure on any rank fails the run on all of them.
  const auto worst = world->allreduce_value<std::int64_t>(rc, grain::dist::ReduceOp::Max);
  return static_cast<int>(worst);
}
