// The rdmasim subcommands. Each returns the process exit code: 0 success,
// 1 runtime failure, 2 bad input, 3 a violated simulation invariant.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "config/shipped_path.h"

namespace rdmasim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInvariant = 3;

struct RunOptions {
  std::vector<std::string> scenarios;
  std::string out_dir;  // empty: the scenario's output.dir
  long long seed = -1;  // -1: the scenario's seed
  std::vector<std::string> sets;
  int jobs = 1;
  bool quiet = false;
};

int run_command(const RunOptions& o, const std::atomic<bool>& interrupt);
int demo_command(const std::string& out_root, int jobs, const std::atomic<bool>& interrupt);
int bench_command(const std::vector<std::string>& only, bool list);

}  // namespace rdmasim::cli
