// grain::Progress (include/grain/core/progress.hpp).
#include "grain/core/progress.hpp"

#include <atomic>
#include <cstdio>

namespace grain {

namespace {
std::atomic<bool> g_progress{false};

// 1234567 bytes -> "1.2 MB"; other units print as counts with k/M/G.
std::string amount(double v, const std::string& unit) {
  const char* suffix[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (v >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  char buf[64];
  if (unit == "bytes")
    std::snprintf(buf, sizeof buf, i ? "%.1f %sB" : "%.0f B", v, suffix[i]);
  else
    std::snprintf(buf, sizeof buf, i ? "%.1f%s" : "%.0f%s", v, suffix[i]);
  return buf;
}

std::string duration(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}
}  // namespace

void set_progress_enabled(bool on) { g_progress = on; }
bool progress_enabled() { return g_progress; }

Progress::Progress(std::string what, double total, std::string unit)
    : what_(std::move(what)), unit_(std::move(unit)), total_(total), active_(progress_enabled()),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() {
  if (drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void Progress::update(std::uint64_t done) {
  done_.store(done, std::memory_order_relaxed);
  if (active_) maybe_draw();
}

void Progress::add(std::uint64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  if (active_) maybe_draw();
}

void Progress::maybe_draw() {
  std::unique_lock<std::mutex> lock(draw_, std::try_to_lock);
  if (!lock) return;  // another thread is drawing
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double done = static_cast<double>(done_.load(std::memory_order_relaxed));
  const double elapsed = std::chrono::duration<double>(last_ - start_).count();
  std::string line = what_ + ": " + amount(done, unit_);
  if (total_ > 0) {
    const double f = done / total_;
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.0f%%)", 100 * f);
    line += " of " + amount(total_, unit_);
    if (!unit_.empty() && unit_ != "bytes") line += " " + unit_;
    line += pct;
    if (f > 0.01 && elapsed > 1) line += ", " + duration(elapsed * (1 - f) / f) + " left";
  } else if (!unit_.empty() && unit_ != "bytes") {
    line += " " + unit_;
  }
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace grain
