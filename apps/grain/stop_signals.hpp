// SIGINT and SIGTERM during a long command (cp-als, gcp): the signal's number, read by the command
// between its iterations, which then stops with its work saved.
#pragma once

#include <csignal>

namespace grain::cli {

inline volatile sig_atomic_t g_stop_signal = 0;
inline void on_stop_signal(int sig) { g_stop_signal = sig; }

// Installs the SIGINT and SIGTERM handlers for its lifetime. SA_RESETHAND puts the default back
// after the first signal, so that a second one ends the process at once.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int received() const { return g_stop_signal; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace grain::cli
