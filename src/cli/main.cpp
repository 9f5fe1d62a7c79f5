// rdmasim's entry point: the process around the command line (src/cli/app.h).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/app.h"

namespace {

// The one process-wide flag: set by SIGINT or SIGTERM (what batch schedulers
// send), polled by running simulations so they stop, write what they have
// marked interrupted, and exit with kExitInterrupted.
std::atomic<bool> g_interrupt{false};
extern "C" void on_stop_signal(int) { g_interrupt.store(true); }

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  rdmasim::cli::Process process;
  process.version = std::string("rdmasim ") + RDMASIM_VERSION + " (commit " + RDMASIM_COMMIT + ")";
  process.catch_stop_signals = catch_stop_signals;
  process.interrupt = &g_interrupt;
  if (const char* every = std::getenv("RDMASIM_PROGRESS_INTERVAL")) process.progress_interval = every;
  try {
    return rdmasim::cli::command_line(argc, argv, process);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "error: unexpected failure\n");
    return 1;
  }
}
