// The benchmark report's ceilings (bench/common/report.hpp): each row's roofline against the
// run's copy bandwidth and GEMM peak, and raise_ceilings, which keeps the highest measurement of
// each ceiling and derives every roofline again (the contraction suite re-measures the copy after
// every shape and both ceilings at the end of the run), and the local roofline of a row that
// carries the copy measured around its shape.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/ceilings.hpp"
#include "common/gemm.hpp"
#include "common/report.hpp"

namespace {

grain::bench::Row row(const char* dtype, double ms, double bytes, double flops) {
  grain::bench::Row r;
  r.kernel = "FieldFieldScalar", r.case_name = "Q1", r.dtype = dtype, r.algorithm = "block";
  r.ms = r.ms_min = ms, r.bytes = bytes, r.flops = flops;
  return r;
}

}  // namespace

TEST(BenchReport, RooflinesFollowTheHighestCeilings) {
  grain::bench::Report rep;
  rep.device = "test", rep.backend = "openmp";
  rep.copy_GBps = 10, rep.peak_GFLOPs_float = 100, rep.peak_GFLOPs_double = 50;
  rep.add(row("float", 200, 1e9, 1e9));   // floor: 1e9 B at 10 GB/s = 0.1 s of 0.2 s
  rep.add(row("double", 400, 1e8, 1e10));  // floor: 1e10 flop at 50 GFLOP/s = 0.2 s of 0.4 s
  EXPECT_DOUBLE_EQ(rep.rows[0].roofline, 0.5);
  EXPECT_DOUBLE_EQ(rep.rows[0].GBps, 5.0);
  EXPECT_DOUBLE_EQ(rep.rows[1].roofline, 0.5);

  rep.raise_ceilings(20);  // a faster copy later in the run
  EXPECT_DOUBLE_EQ(rep.copy_GBps, 20);
  EXPECT_DOUBLE_EQ(rep.copy_GBps_lowest, 10);
  EXPECT_EQ(rep.copy_samples, 2);
  EXPECT_DOUBLE_EQ(rep.rows[0].roofline, 0.25);
  EXPECT_DOUBLE_EQ(rep.rows[1].roofline, 0.5);  // still set by the GEMM peak
  EXPECT_DOUBLE_EQ(rep.rows[0].GBps, 5.0);      // the measured rate does not move

  rep.raise_ceilings(5);  // a slower one changes nothing but the lowest
  EXPECT_DOUBLE_EQ(rep.copy_GBps, 20);
  EXPECT_DOUBLE_EQ(rep.copy_GBps_lowest, 5);
  EXPECT_EQ(rep.copy_samples, 3);
  EXPECT_DOUBLE_EQ(rep.rows[0].roofline, 0.25);

  rep.raise_ceilings(0, 0, 100);  // the double GEMM peak alone
  EXPECT_DOUBLE_EQ(rep.peak_GFLOPs_float, 100);
  EXPECT_DOUBLE_EQ(rep.peak_GFLOPs_double, 100);
  EXPECT_EQ(rep.copy_samples, 3);
  EXPECT_DOUBLE_EQ(rep.rows[1].roofline, 0.25);

  // A row judged also against the copy measured around its shape (5 GB/s): roofline_local.
  grain::bench::Row local = row("float", 400, 1e9, 1e9);
  local.extra.push_back({"copy_GBps_local", 5.0});
  rep.add(local);
  auto extra = [&](const grain::bench::Row& r, const char* key) {
    for (const auto& [k, v] : r.extra)
      if (k == key) return v;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(rep.rows[2].roofline, 0.125);           // 1e9 B at 20 GB/s = 0.05 s of 0.4 s
  EXPECT_DOUBLE_EQ(extra(rep.rows[2], "roofline_local"), 0.5);  // at 5 GB/s: 0.2 s of 0.4 s
  rep.raise_ceilings(40);  // derived again, not added twice
  EXPECT_DOUBLE_EQ(extra(rep.rows[2], "roofline_local"), 0.5);
  EXPECT_EQ(rep.rows[2].extra.size(), 2u);
  EXPECT_DOUBLE_EQ(rep.rows[2].roofline, 0.0625);
  EXPECT_EQ(extra(rep.rows[0], "roofline_local"), -1.0);  // no local copy, no local roofline

  const std::string path = ::testing::TempDir() + "grain_bench_report_test.json";
  auto read = [&] {
    std::ifstream f(path);
    return nlohmann::json::parse(f);  // throws on malformed JSON, failing the test
  };
  rep.write_json(path);
  nlohmann::json j = read();
  EXPECT_EQ(j["copy_GBps"], 40);
  EXPECT_EQ(j["copy_samples"], 4);
  EXPECT_EQ(j["copy_GBps_lowest"], 5);
  EXPECT_FALSE(j.contains("peak_library"));  // none named, none written
  ASSERT_EQ(j["rows"].size(), rep.rows.size());
  EXPECT_EQ(j["rows"][2]["roofline_local"], 0.5);
  EXPECT_EQ(j["rows"][2]["roofline"], 0.0625);
  EXPECT_FALSE(j["rows"][0].contains("roofline_local"));

  // Names with quotes, backslashes and control characters survive; a non-finite time is null;
  // byte counts past 2^32 are exact.
  rep.peak_library = "OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX";
  rep.device = "GPU \"A\"\\1\t\x01";
  grain::bench::Row odd = row("double", std::nan(""), 6442450944.0, 0);
  odd.kernel = "K\nL";
  rep.add(odd);
  rep.write_json(path);
  j = read();
  EXPECT_EQ(j["peak_library"], "OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX");
  EXPECT_EQ(j["device"], rep.device);
  EXPECT_EQ(j["rows"].back()["kernel"], "K\nL");
  EXPECT_TRUE(j["rows"].back()["ms"].is_null());
  EXPECT_EQ(j["rows"].back()["bytes"].get<std::int64_t>(), 6442450944LL);
  std::remove(path.c_str());
}

// OPENBLAS_CORETYPE where OpenBLAS's kernels are narrower than the CPU's vectors (Debian 12's
// 0.3.21 runs its SSE3 "Prescott" kernels on AVX-512 Xeons it does not know, a quarter of the
// GEMM rate): replaced only by what the CPU runs, unknown names left alone.
TEST(BenchReport, OpenBlasCoreUpgrade) {
  using grain::bench::openblas_core_upgrade;
  EXPECT_EQ(openblas_core_upgrade("Prescott", true, true), "SkylakeX");
  EXPECT_EQ(openblas_core_upgrade("Prescott", true, false), "Haswell");
  EXPECT_EQ(openblas_core_upgrade("Sandybridge", true, false), "Haswell");
  EXPECT_EQ(openblas_core_upgrade("Nehalem", true, true), "SkylakeX");
  EXPECT_EQ(openblas_core_upgrade("Zen", true, true), "SkylakeX");    // Zen 4: AVX-512
  EXPECT_EQ(openblas_core_upgrade("Haswell", true, true), "SkylakeX");
  EXPECT_EQ(openblas_core_upgrade("Prescott", false, false), "");    // an SSE-only CPU: its choice stands
  EXPECT_EQ(openblas_core_upgrade("Haswell", true, false), "");      // AVX2 on an AVX2 CPU
  EXPECT_EQ(openblas_core_upgrade("Zen", true, false), "");
  EXPECT_EQ(openblas_core_upgrade("SkylakeX", true, true), "");      // AVX-512 already
  EXPECT_EQ(openblas_core_upgrade("Cooperlake", true, true), "");
  EXPECT_EQ(openblas_core_upgrade("NeoverseN1", true, true), "");    // a name not listed
  EXPECT_EQ(openblas_core_upgrade("", true, true), "");              // no name
}

// A row bracketed by copies (the CPU suite): the higher is its local ceiling, and the spread says
// how far the memory moved; with one copy missing, no spread. The probe reuses its buffers and
// measures a real, finite bandwidth each time.
TEST(BenchReport, RowCopyBracket) {
  grain::bench::Report rep;
  rep.copy_GBps = 100, rep.peak_GFLOPs_float = 100, rep.peak_GFLOPs_double = 50;
  grain::bench::Row r = row("float", 200, 1e9, 1e9);
  grain::bench::note_row_copy(r, 40, 60);
  const grain::bench::Row& added = rep.add(r);
  EXPECT_DOUBLE_EQ(added.extra_value("copy_GBps_local"), 60);
  EXPECT_DOUBLE_EQ(added.extra_value("copy_row_spread"), 1.5);
  EXPECT_NEAR(added.extra_value("roofline_local"), 1e9 / 60e9 / 0.2, 1e-12);
  grain::bench::Row one = row("float", 200, 1e9, 1e9);
  grain::bench::note_row_copy(one, 0, 30);
  EXPECT_DOUBLE_EQ(one.extra_value("copy_GBps_local"), 30);
  EXPECT_EQ(one.extra_value("copy_row_spread"), 0.0);  // none: extra_value gives 0

  grain::bench::HostCopyProbe probe(std::size_t(8) << 20);
  for (int i = 0; i < 2; ++i) {
    const double g = probe.GBps(2);
    EXPECT_GT(g, 0.1);
    EXPECT_LT(g, 1e5);
  }
}

// "-" names standard output: the JSON goes there whole (the human-readable lines of a suite then
// go to standard error); a file that cannot be opened raises.
TEST(BenchReport, JsonToStandardOutput) {
  testing::internal::CaptureStdout();
  grain::bench::write_output_file("-", "text\n", "a test");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "text\n");

  grain::bench::Report rep;
  rep.device = "test", rep.backend = "serial";
  rep.copy_GBps = 10, rep.peak_GFLOPs_float = 100, rep.peak_GFLOPs_double = 50;
  rep.add(row("double", 2, 1e6, 1e6));
  testing::internal::CaptureStdout();
  rep.write_json("-");
  const nlohmann::json j = nlohmann::json::parse(testing::internal::GetCapturedStdout());
  EXPECT_EQ(j["device"], "test");
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["algorithm"], "block");

  EXPECT_THROW(grain::bench::write_output_file("/nonexistent-dir/x.json", "text", "a test"), grain::Error);
}
