#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/commands.h"
#include "config/error.h"
#include "config/scenario.h"
#include "run/experiment.h"

namespace rdmasim::cli {
namespace {

struct BenchLine {
  double wall_s = 0;
  double sim_ms = 0;
  unsigned long long events = 0;
  unsigned long long hops = 0;
  unsigned long long flows_done = 0;
  unsigned long long flows = 0;
  int ok = 0;
};

// Runs one scenario in this (child) process and reports through `fd`.
void child_run(const std::string& file, int fd) {
  BenchLine b;
  try {
    Scenario s = load_scenario_file(file);
    Experiment e(std::move(s));
    const auto t0 = std::chrono::steady_clock::now();
    e.run();
    b.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    b.sim_ms = e.sim().now().us() / 1e3;
    b.events = e.sim().events_processed();
    b.hops = e.data_packet_hops();
    b.flows_done = e.completed();
    b.flows = e.flows().size();
    b.ok = e.invariant_error().empty() ? 1 : 0;
  } catch (const std::exception& err) {
    std::fprintf(stderr, "error: %s\n", err.what());
  }
  [[maybe_unused]] auto n = write(fd, &b, sizeof b);
}

}  // namespace

int bench_command(const std::vector<std::string>& only, bool list, bool scale, const Context& ctx) {
  namespace fs = std::filesystem;
  // The standard inputs, then the scale runs (8,192 hosts, minutes each),
  // which run only with --scale or when --only names them.
  const auto yaml_in = [](const fs::path& dir) {
    std::vector<fs::path> found;
    if (fs::is_directory(dir))
      for (const auto& ent : fs::directory_iterator(dir))
        if (ent.path().extension() == ".yaml") found.push_back(ent.path());
    std::sort(found.begin(), found.end());
    return found;
  };
  const fs::path dir = find_shipped("scenarios/bench");
  std::vector<fs::path> files = yaml_in(dir);
  const std::vector<fs::path> scale_files = yaml_in(dir / "scale");
  const auto is_scale = [&](const fs::path& f) {
    return std::find(scale_files.begin(), scale_files.end(), f) != scale_files.end();
  };
  files.insert(files.end(), scale_files.begin(), scale_files.end());
  for (const std::string& name : only) {
    if (std::any_of(files.begin(), files.end(), [&](const fs::path& f) { return f.stem() == name; }))
      continue;
    std::string known;
    for (const auto& f : files) known += (known.empty() ? "" : ", ") + f.stem().string();
    std::fprintf(stderr, "error: bench: --only: no bench scenario '%s' (bench scenarios: %s)\n", name.c_str(),
                 known.c_str());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  if (list) {
    for (const auto& f : files)
      std::printf("%s%s\n", f.stem().c_str(), is_scale(f) ? "  (scale: run with --scale or --only)" : "");
    return kExitOk;
  }
  // events/hop: events per data packet-hop, what a change to the datapath's
  // event structure moves (a frame needs one or two; ACKs and timers add).
  std::printf("%-32s %9s %8s %11s %9s %13s %12s %10s %9s %10s\n", "scenario", "simulated", "wall", "events",
              "events/s", "pkt-hops", "pkt-hops/s", "events/hop", "peak RSS", "flows");
  std::printf("%-32s %9s %8s %11s %9s %13s %12s %10s %9s %10s\n", "", "[ms]", "[s]", "", "[M/s]", "(data)",
              "[M/s]", "", "[MiB]", "done/all");
  int code = kExitOk;
  for (const auto& f : files) {
    if (only.empty() ? is_scale(f) && !scale
                     : std::find(only.begin(), only.end(), f.stem().string()) == only.end())
      continue;
    std::fflush(stdout);
    int fds[2];
    if (pipe(fds) != 0) return kExitFailure;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      child_run(f.string(), fds[1]);
      _exit(0);
    }
    close(fds[1]);
    BenchLine b;
    const bool got = read(fds[0], &b, sizeof b) == static_cast<ssize_t>(sizeof b);
    close(fds[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    if (!got || !b.ok) {
      std::printf("%-32s FAILED\n", f.stem().c_str());
      code = kExitFailure;
      continue;
    }
    const double per_hop = b.hops > 0 ? static_cast<double>(b.events) / static_cast<double>(b.hops) : 0.0;
    std::printf("%-32s %9.3f %8.2f %11llu %9.2f %13llu %12.3f %10.2f %9.1f %5llu/%-5llu\n", f.stem().c_str(),
                b.sim_ms, b.wall_s, b.events, b.events / 1e6 / b.wall_s, b.hops, b.hops / 1e6 / b.wall_s,
                per_hop, ru.ru_maxrss / 1024.0, b.flows_done, b.flows);
  }
  return code;
}

}  // namespace rdmasim::cli
