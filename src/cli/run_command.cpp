#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "cli/commands.h"
#include "config/error.h"
#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/thread_pool.h"

namespace rdmasim::cli {

namespace {

struct Outcome {
  int code = kExitOk;
  std::string text;  // summary or error message
};

// Loads, runs and writes one scenario. Never throws.
Outcome run_one(const std::string& path, const RunOptions& o, const std::atomic<bool>& interrupt,
                std::mutex& err_mu) {
  Outcome out;
  try {
    std::vector<std::string> sets = o.sets;
    if (o.seed >= 0) sets.push_back("seed=" + std::to_string(o.seed));
    Scenario s = load_scenario_file(path, sets);
    std::string dir = s.output.dir;
    if (!o.out_dir.empty())
      dir = o.scenarios.size() > 1 ? (std::filesystem::path(o.out_dir) / s.name).string() : o.out_dir;
    Experiment e(std::move(s));
    const auto t0 = std::chrono::steady_clock::now();
    auto last = t0;
    auto progress = [&](const Experiment& x) {
      if (o.quiet) return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(2)) return;
      last = now;
      const double wall = std::chrono::duration<double>(now - t0).count();
      std::lock_guard<std::mutex> lock(err_mu);
      std::fprintf(stderr, "[%s] simulated %.3f of %.3f ms, flows %zu/%zu done, %.1fM events (%.2fM/s)\n",
                   x.scenario().name.c_str(), x.sim().now().us() / 1e3, x.scenario().duration.us() / 1e3,
                   x.completed(), x.flows().size(), x.sim().events_processed() / 1e6,
                   x.sim().events_processed() / 1e6 / wall);
    };
    e.run(progress, &interrupt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    write_outputs(e, dir);
    out.text = summary_text(e);
    out.text += fmt::format("wall       {:.2f} s  ({:.2f}M events/s, {:.2f}M data packet-hops/s)\n", wall,
                            e.sim().events_processed() / 1e6 / std::max(wall, 1e-9),
                            e.data_packet_hops() / 1e6 / std::max(wall, 1e-9));
    out.text += "outputs    " + dir + "/{results.json,flows.csv,ports.csv" +
                (e.fabric().config().ib.enabled ? ",ib_ports.csv" : "") + "}\n";
    if (!e.invariant_error().empty()) {
      out.code = kExitInvariant;
      out.text += "error: simulation invariant violated: " + e.invariant_error() + "\n";
    }
  } catch (const InputError& err) {
    out.code = kExitBadInput;
    out.text = std::string("error: ") + err.what() + "\n";
  } catch (const std::exception& err) {
    out.code = kExitFailure;
    out.text = std::string("error: ") + path + ": " + err.what() + "\n";
  }
  return out;
}

}  // namespace

int run_command(const RunOptions& o, const std::atomic<bool>& interrupt) {
  std::vector<Outcome> outs(o.scenarios.size());
  std::mutex err_mu;
  ThreadPool(o.jobs).for_each(o.scenarios.size(),
                              [&](size_t i) { outs[i] = run_one(o.scenarios[i], o, interrupt, err_mu); });
  int code = kExitOk;
  for (const auto& r : outs) {
    std::fputs(r.text.c_str(), r.code == kExitOk ? stdout : stderr);
    if (r.code == kExitOk && outs.size() > 1) std::fputs("\n", stdout);
    code = std::max(code, r.code);
  }
  if (interrupt.load()) {
    std::fputs("interrupted: partial results written, marked interrupted\n", stderr);
    code = std::max(code, kExitInterrupted);
  }
  return code;
}

}  // namespace rdmasim::cli
