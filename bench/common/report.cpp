#include "report.hpp"

#include "ceilings.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "grain/core/error.hpp"

namespace grain::bench {

namespace {
// A number as the report writes it: integral values (bytes, flops, counts) exactly, others to 9
// significant digits (the timers' resolution); a non-finite value is null.
nlohmann::ordered_json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::abs(v) < 9.0e15) return static_cast<std::int64_t>(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return std::strtod(buf, nullptr);
}
}  // namespace

void write_output_file(const std::string& path, const std::string& text, const char* what) {
  if (path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      grain::impl::throw_error("writing ", what, " to standard output failed");
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) grain::impl::throw_error("cannot open '", path, "' for writing ", what);
  f << text;
  f.flush();
  if (!f) grain::impl::throw_error("writing ", what, " to '", path, "' failed (disk full?)");
}

Row size_row(const char* kernel, long long n, const std::string& algorithm, double ms, double ms_min,
             double bytes, double flops, bool verified) {
  Row r;
  r.kernel = kernel;
  r.case_name = std::to_string(n);
  r.dtype = "double";
  r.algorithm = algorithm;
  r.verified = verified;
  r.ms = ms;
  r.ms_min = ms_min;
  r.bytes = bytes;
  r.flops = flops;
  r.extra.push_back({"N", static_cast<double>(n)});
  return r;
}

double Row::extra_value(const std::string& key) const {
  for (const auto& [k, v] : extra)
    if (k == key) return v;
  return 0;
}

void Row::set_extra(const std::string& key, double value) {
  for (auto& [k, v] : extra)
    if (k == key) {
      v = value;
      return;
    }
  extra.push_back({key, value});
}

void Report::raise_ceilings(double copy, double peak_float, double peak_double) {
  const bool rose = copy > copy_GBps || peak_float > peak_GFLOPs_float || peak_double > peak_GFLOPs_double;
  if (copy > 0) {
    if (copy_GBps_lowest <= 0) copy_GBps_lowest = copy_GBps;
    copy_GBps_lowest = std::min(copy_GBps_lowest, copy);
    copy_GBps = std::max(copy_GBps, copy);
    ++copy_samples;
  }
  peak_GFLOPs_float = std::max(peak_GFLOPs_float, peak_float);
  peak_GFLOPs_double = std::max(peak_GFLOPs_double, peak_double);
  if (!rose) return;
  std::vector<Row> old;
  old.swap(rows);
  for (Row& r : old) add(std::move(r));
}

Row& Report::add(Row r) {
  const double s = r.ms / 1e3;
  if (s > 0) {
    r.GBps = r.bytes / s / 1e9;
    r.GFLOPs = r.flops / s / 1e9;
    const double peak = r.dtype == "float" ? peak_GFLOPs_float : peak_GFLOPs_double;
    double floor_s = 0;
    if (copy_GBps > 0) floor_s = std::max(floor_s, r.bytes / (copy_GBps * 1e9));
    if (peak > 0) floor_s = std::max(floor_s, r.flops / (peak * 1e9));
    r.roofline = floor_s / s;
    if (const double local = r.extra_value("copy_GBps_local"); local > 0) {
      double local_s = r.bytes / (local * 1e9);
      if (peak > 0) local_s = std::max(local_s, r.flops / (peak * 1e9));
      r.set_extra("roofline_local", local_s / s);
    }
  }
  rows.push_back(std::move(r));
  return rows.back();
}

void Report::write_json(const std::string& path) const {
  using json = nlohmann::ordered_json;
  json head = {{"device", device}, {"backend", backend}, {"threads", threads}};
  if (cpus > 0) head["cpus"] = cpus;
  head["copy_GBps"] = json_number(copy_GBps);
  head["peak_GFLOPs"] = {{"float", json_number(peak_GFLOPs_float)}, {"double", json_number(peak_GFLOPs_double)}};
  if (!peak_library.empty()) head["peak_library"] = peak_library;
  if (copy_samples > 1) {
    head["copy_samples"] = copy_samples;
    head["copy_GBps_lowest"] = json_number(copy_GBps_lowest);
  }
  if (!summary.empty()) {
    json sum = json::object();
    for (const auto& [k, v] : summary) sum[k] = json_number(v);
    head["summary"] = sum;
  }
  // One row a line, so that files diff and grep by row.
  std::string text = head.dump();
  text.pop_back();
  text += ",\n \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    json row = {{"kernel", r.kernel}, {"case", r.case_name}, {"dtype", r.dtype}, {"algorithm", r.algorithm},
                {"selected", r.selected}, {"verified", r.verified}, {"C", r.C}, {"L", r.L}, {"R", r.R},
                {"P", r.P}, {"D1", r.D1}, {"D2", r.D2}, {"ms", json_number(r.ms)},
                {"ms_min", json_number(r.ms_min)}, {"bytes", json_number(r.bytes)},
                {"flops", json_number(r.flops)}, {"GBps", json_number(r.GBps)},
                {"GFLOPs", json_number(r.GFLOPs)}, {"roofline", json_number(r.roofline)}};
    for (const auto& [k, v] : r.extra) row[k] = json_number(v);
    text += (i ? ",\n  " : "\n  ") + row.dump();
  }
  text += "\n]}\n";
  write_output_file(path, text, "the benchmark JSON");
}

void Report::print_table(std::FILE* out) const {
  std::fprintf(out, "device: %s  backend: %s  threads: %d", device.c_str(), backend.c_str(), threads);
  if (cpus > 0) std::fprintf(out, " on %d CPU%s", cpus, cpus == 1 ? "" : "s");
  std::fprintf(out, "  copy: %.1f GB/s", copy_GBps);
  if (copy_samples > 1)
    std::fprintf(out, " (highest of %d measurements; lowest %.1f)", copy_samples, copy_GBps_lowest);
  if (peak_GFLOPs_double > 0 || peak_GFLOPs_float > 0)
    std::fprintf(out, "  GEMM peak: %.0f (float) %.0f (double) GFLOP/s", peak_GFLOPs_float,
                 peak_GFLOPs_double);
  if (!peak_library.empty()) std::fprintf(out, " (%s)", peak_library.c_str());
  std::fprintf(out, "\n%-18s %-10s %-6s %-24s %10s %10s %9s %9s %8s %s\n", "kernel", "case", "dtype",
               "algorithm", "ms", "ms_min", "GB/s", "GFLOP/s", "roofline", "");
  for (const Row& r : rows)
    std::fprintf(out, "%-18s %-10s %-6s %-24s %10.4f %10.4f %9.1f %9.1f %8.3f %s%s\n",
                 r.kernel.c_str(), r.case_name.c_str(), r.dtype.c_str(), r.algorithm.c_str(), r.ms,
                 r.ms_min, r.GBps, r.GFLOPs, r.roofline, r.selected ? "*auto" : "",
                 r.verified ? "" : " (unverified)");
}

void note_row_copy(Row& r, double before, double after) {
  r.extra.push_back({"copy_GBps_local", std::max(before, after)});
  if (before > 0 && after > 0)
    r.extra.push_back({"copy_row_spread", std::max(before, after) / std::min(before, after)});
}

HostCopyProbe::HostCopyProbe(std::size_t bytes) : a_(bytes / sizeof(double)), b_(bytes / sizeof(double)) {
  const std::size_t n = a_.size();
  double* pa = a_.data();
  double* pb = b_.data();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    pa[i] = 1.0;
    pb[i] = 2.0;
  }
}

double HostCopyProbe::GBps(int reps, int warmup) {
  const std::size_t n = a_.size();
  const double* pa = a_.data();
  double* pb = b_.data();
  const Timing t = time_region<false>(
      [&] {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) pb[i] = pa[i];
      },
      reps, warmup);
  return 2.0 * n * sizeof(double) / (t.ms * 1e-3) / 1e9;
}

double host_copy_bandwidth_GBps(std::size_t bytes, int reps) { return HostCopyProbe(bytes).GBps(reps, 2); }

std::string host_cpu_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto p = line.find(':');
      if (p != std::string::npos) return line.substr(p + 2);
    }
  }
  return "unknown CPU";
}

}  // namespace grain::bench
