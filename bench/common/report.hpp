// Benchmark results in the docs/benchmarks.md format: rows of measurements divided by the ceilings
// measured in the same run, written as JSON and printed as a table.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace grain::bench {

struct Row {
  std::string kernel;     // "FieldFieldScalar", "MTTKRP", "Triad", ...
  std::string case_name;  // "Q1", a tensor's name, a size
  std::string dtype;      // "float" | "double"
  std::string algorithm;  // "tile", "cublas-strided-batched", "hand-cuda", ...
  bool selected = false;  // the algorithm Auto picks for this shape
  bool verified = false;  // compared with the reference on this run
  std::int64_t C = 0, L = 0, R = 0, P = 0, D1 = 0, D2 = 0;
  double ms = 0, ms_min = 0;  // median and minimum of the timed repetitions
  double bytes = 0, flops = 0;
  // Filled by Report::add from the ceilings: GBps, GFLOPs, roofline = time_floor / time.
  double GBps = 0, GFLOPs = 0, roofline = 0;
  // Further numeric fields (e.g. "N", "eff_GBps", "mode"), written after the standard ones.
  std::vector<std::pair<std::string, double>> extra;
  // The extra field `key`, or 0 where the row has none; set_extra adds or replaces it.
  double extra_value(const std::string& key) const;
  void set_extra(const std::string& key, double value);
};

// The row of one double-precision kernel timed at size n (the core and paper benchmarks): case
// and the extra field "N" are n; the caller adds what else it knows.
Row size_row(const char* kernel, long long n, const std::string& algorithm, double ms, double ms_min,
             double bytes, double flops, bool verified);

struct Report {
  std::string device;
  std::string backend;  // "cuda" | "openmp" | "serial" | "mixed"
  int threads = 1;
  int cpus = 0;  // the distinct CPUs the host threads may run on (host_team_cpus); 0: not known
  double copy_GBps = 0;
  double peak_GFLOPs_float = 0, peak_GFLOPs_double = 0;  // 0: not measured
  std::string peak_library;  // what measured the GEMM peak where worth saying (OpenBLAS's build and kernels)
  // Where the ceilings were measured more than once in the run (raise_ceilings): how many copy
  // measurements, and the lowest; copy_GBps and the peaks are then the highest seen.
  int copy_samples = 1;
  double copy_GBps_lowest = 0;
  double copy_last = 0;  // the latest copy measurement (the contraction suite's local ceilings)
  std::vector<Row> rows;
  // Figures of the whole run (the held-out sweep's distribution), written as the JSON's "summary".
  std::vector<std::pair<std::string, double>> summary;

  // Takes a further measurement of the ceilings (0: none of that kind): each ceiling becomes the
  // highest measured so far, and where one rose every row's roofline is derived again from it, so
  // a ceiling taken in a slow moment of a shared machine does not flatter the kernels timed in a
  // fast one.
  void raise_ceilings(double copy, double peak_float = 0, double peak_double = 0);

  // Derives GBps, GFLOPs and roofline from the row's time and this report's ceilings. A row that
  // carries the extra field "copy_GBps_local" (the copy measured around its shape) also gets
  // "roofline_local": the same floor with that copy bandwidth and this report's peaks.
  Row& add(Row r);
  // One JSON object in the docs/benchmarks.md format, to the file `path` or, for "-", to standard
  // output. Raises grain::Error if it can't be written.
  void write_json(const std::string& path) const;
  // A readable table: kernel, case, dtype, algorithm, ms, GB/s, GFLOP/s, roofline, Auto's pick.
  void print_table(std::FILE* out = stdout) const;
};

// The copy bandwidth measured just before and just after one row (GB/s; 0: not measured): the
// row's "copy_GBps_local" is the higher, and "copy_row_spread" (higher / lower, where both were
// measured) says how far the host's memory moved while the row ran.
void note_row_copy(Row& r, double before, double after);

// Writes `text` to the file `path` (replacing it), or to standard output where `path` is "-";
// raises grain::Error naming the file and `what` where it cannot be created or written.
void write_output_file(const std::string& path, const std::string& text, const char* what);

// "H100 80GB HBM3" on a GPU build with a device, else the CPU model from /proc/cpuinfo.
std::string host_cpu_name();

}  // namespace grain::bench
