// Progress lines on stderr for the commands that can run for minutes (run,
// perftest, nccl-tests, train).
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace rdmasim::cli {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  // `quiet`: never print. `stderr_mu`: held while printing, shared with
  // whatever else writes stderr meanwhile (other threads' runs, warnings) so
  // lines do not interleave. The first interval starts now.
  Progress(Clock::duration every, bool quiet, std::mutex& stderr_mu)
      : every_(every), quiet_(quiet), start_(Clock::now()), last_(start_), mu_(stderr_mu) {}
  Progress(Clock::duration every, bool quiet) : Progress(every, quiet, own_mu_) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Prints the line `make_line()` returns when one is due: the first once an
  // interval of wall time has passed, then at most one per interval. A run
  // shorter than the interval prints nothing, so tests and short scripted
  // runs stay quiet. `make_line` is called only when a line is printed.
  template <class MakeLine>
  void tick(MakeLine&& make_line) {
    if (quiet_) return;
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    if (now - last_ < every_) return;
    last_ = now;
    const std::string line = make_line();
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  // Wall seconds since construction.
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  Clock::duration every_;
  bool quiet_;
  Clock::time_point start_;
  Clock::time_point last_;
  std::mutex own_mu_;
  std::mutex& mu_;
};

}  // namespace rdmasim::cli
