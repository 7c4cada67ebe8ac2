// The watch every engine keeps over its collectives (private to src/dist): each collective is
// timed into the Comm's seconds, and one that waits past the timeout means another rank stopped or
// is stuck, so this process says so and ends; the launcher (or the process's end) stops the rest.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace grain::dist::impl {

class CollectiveWatch {
 public:
  using clock = std::chrono::steady_clock;
  CollectiveWatch(int rank, int size, double timeout) : rank_(rank), size_(size), timeout_(timeout) {
    if (timeout_ > 0) thread_ = std::thread([this] { watch(); });
  }
  ~CollectiveWatch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  CollectiveWatch(const CollectiveWatch&) = delete;
  CollectiveWatch& operator=(const CollectiveWatch&) = delete;

  // One collective under way: its seconds are added to `seconds` when it ends.
  class Scope {
   public:
    Scope(CollectiveWatch& w, const char* what, double& seconds) : w_(w), seconds_(seconds) {
      w_.what_.store(what);
      w_.since_.store(t0_.time_since_epoch().count());
    }
    ~Scope() {
      w_.since_.store(0);
      seconds_ += std::chrono::duration<double>(clock::now() - t0_).count();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CollectiveWatch& w_;
    double& seconds_;
    clock::time_point t0_ = clock::now();
  };

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
      const auto since = since_.load();
      if (since == 0) continue;
      const double waited =
          std::chrono::duration<double>(clock::now().time_since_epoch() - clock::duration(since)).count();
      if (waited > timeout_) {
        std::fprintf(stderr,
                     "grain: rank %d of %d: %s has waited %.0f s for the other ranks (one of them stopped or is "
                     "stuck; --comm-timeout sets the wait); stopping every rank\n",
                     rank_, size_, what_.load(), waited);
        std::fflush(stderr);
        std::_Exit(1);
      }
    }
  }
  int rank_, size_;
  double timeout_;
  std::atomic<const char*> what_{""};
  std::atomic<clock::rep> since_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace grain::dist::impl
