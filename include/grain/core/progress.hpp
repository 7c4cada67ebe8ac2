// grain::Progress: a one-line counter on standard error, with the time left, for long work
// (reading a large file, generating a tensor, tuning, a benchmark suite).
//
// A library prints nothing unasked: progress is off until set_progress_enabled(true). The grain
// tool turns it on when standard error is a terminal and --quiet is absent, so pipes, logs and CI
// see none of it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace grain {

void set_progress_enabled(bool on);
bool progress_enabled();

class Progress {
 public:
  // `total` in `unit`s (bytes print as MB/GB); 0 when unknown (a counter without the time left).
  Progress(std::string what, double total, std::string unit = "");
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Work done so far, or more work done; any thread may call either (parallel loops do). The
  // line is redrawn at most ten times a second, by one thread at a time.
  void update(std::uint64_t done);
  void add(std::uint64_t n);

 private:
  void maybe_draw();
  std::string what_, unit_;
  double total_;
  std::atomic<std::uint64_t> done_{0};
  bool active_, drawn_ = false;
  std::mutex draw_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace grain
