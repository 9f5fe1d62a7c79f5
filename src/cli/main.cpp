// rdmasim's entry point: the process around the command line (src/cli/app.h).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/app.h"

namespace {

// The one process-wide flag: set by SIGINT or SIGTERM (what batch schedulers
// send), polled by running simulations so they stop, write what they have
// marked interrupted, and exit with kExitInterrupted. Caught from the start of
// main(), so a stop sent before the command is known is kept, not lost.
std::atomic<bool> g_interrupt{false};
std::atomic<int> g_signal{0};
extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_interrupt.store(true);
}

void set_stop_signal_action(void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// For commands that do not stop gracefully: the default action again, and a
// signal that came while the command line was parsed is delivered now.
void release_stop_signals() {
  set_stop_signal_action(SIG_DFL);
  if (const int sig = g_signal.load(); sig != 0) std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  set_stop_signal_action(on_stop_signal);
  rdmasim::cli::Process process;
  process.version = std::string("rdmasim ") + RDMASIM_VERSION + " (commit " + RDMASIM_COMMIT + ")";
  process.release_stop_signals = release_stop_signals;
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
