// The rdmasim command line: its flags, their checks and the dispatch to the
// subcommands. main() (src/cli/main.cpp) runs it for real; the CLI fuzz target
// (fuzz/fuzz_cli.cpp) runs it check-only on arbitrary argument lists.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace rdmasim::cli {

// What the command line needs from the process it runs in.
struct Process {
  std::string version;  // what --version prints
  // The process catches SIGINT and SIGTERM from its first instruction, setting
  // `interrupt`, so a stop sent while the command line is still being parsed
  // is not lost. Commands that write results (run, evaluate, demo) poll it and
  // stop gracefully. Every other command, and any --check, calls this first:
  // it restores the default action and delivers a signal that already came,
  // so Ctrl-C ends them at once.
  std::function<void()> release_stop_signals;
  const std::atomic<bool>* interrupt = nullptr;
  // RDMASIM_PROGRESS_INTERVAL: seconds between progress lines of long runs
  // (empty: the default).
  std::string progress_interval;
};

// Parses argv, checks it and carries the command out; returns the exit code
// (commands.h). `check_only`: every check a real invocation makes before it
// builds the network (as `run --check` does for run), then stop: no network
// is built, nothing simulated or written, and `process.release_stop_signals`
// is called.
[[nodiscard]] int command_line(int argc, const char* const* argv, const Process& process,
                               bool check_only = false);

}  // namespace rdmasim::cli
