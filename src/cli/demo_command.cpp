#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/output_paths.h"
#include "config/error.h"
#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/thread_pool.h"

namespace rdmasim::cli {

// The default evaluation: the same incast and permutation on lossy Ethernet,
// on RoCEv2 with PFC and DCQCN or HPCC, and on an ideal (never-dropping)
// network, side by side.
int demo_command(const std::string& out_root, int jobs, const Context& ctx) {
  if (const std::string why = check_output_dir(out_root, !ctx.check_only); !why.empty()) {
    std::fprintf(stderr, "error: demo: -o/--out: %s\n", why.c_str());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  const std::vector<std::string> workloads = {"scenarios/demo/incast.yaml",
                                              "scenarios/demo/permutation.yaml"};
  const std::vector<std::string> profiles = {"ethernet-lossy", "rocev2-dcqcn", "rocev2-hpcc", "ideal"};
  struct Cell {
    std::string file, profile;
    nlohmann::ordered_json result;
    std::string error;
    int code = kExitOk;
  };
  std::vector<Cell> cells;
  for (const auto& w : workloads)
    for (const auto& p : profiles) cells.push_back(Cell{find_shipped(w), p, {}, {}, kExitOk});
  ThreadPool(jobs).for_each(cells.size(), [&](size_t i) {
    Cell& c = cells[i];
    try {
      std::vector<std::string> sets{"fabric.profile=" + c.profile};
      // The ideal network's switches never drop for space: the scenario's buffer size means nothing there.
      if (c.profile == "ideal") sets.emplace_back("topology.switch.buffer=unlimited");
      Scenario s = load_scenario_file(c.file, sets);
      const std::string dir = (std::filesystem::path(out_root) / (s.name + "-" + c.profile)).string();
      Experiment e(std::move(s));
      e.run({}, ctx.interrupt);
      write_outputs(e, dir);
      c.result = results_json(e);
      if (!e.invariant_error().empty()) {
        c.code = kExitInvariant;
        c.error = e.invariant_error();
      }
    } catch (const InputError& err) {
      c.code = kExitBadInput;
      c.error = err.what();
    } catch (const std::exception& err) {
      c.code = kExitFailure;
      c.error = err.what();
    }
  });

  std::printf(
      "rdmasim demo: the same workloads on lossy Ethernet, RoCEv2 (PFC + ECN + DCQCN; PFC + HPCC) and an "
      "ideal network\n\n");
  std::printf("%-26s %-15s %9s %10s %10s %9s %9s %8s %8s %8s\n", "workload", "fabric", "flows", "FCT p50",
              "FCT p99", "slowdn p99", "goodput", "drops", "retx", "timeouts");
  std::printf("%-26s %-15s %9s %10s %10s %9s %9s %8s %8s %8s\n", "", "", "done/all", "[us]", "[us]", "",
              "[Gb/s]", "[pkts]", "[pkts]", "");
  int code = kExitOk;
  for (const auto& c : cells) {
    if (c.code != kExitOk) {
      std::fprintf(stderr, "error: %s (%s): %s\n", c.file.c_str(), c.profile.c_str(), c.error.c_str());
      code = std::max(code, c.code);
      if (c.result.is_null()) continue;
    }
    const auto& r = c.result;
    const auto& fl = r["flows"];
    std::printf("%-26s %-15s %4zu/%-4zu %10.1f %10.1f %9.2f %9.1f %8llu %8llu %8llu\n",
                r["scenario"]["name"].get<std::string>().c_str(), c.profile.c_str(),
                fl["completed"].get<size_t>(), fl["total"].get<size_t>(),
                fl["fct_ns"]["p50"].get<double>() / 1e3, fl["fct_ns"]["p99"].get<double>() / 1e3,
                fl["slowdown"]["p99"].get<double>(), r["throughput"]["goodput_gbps"].get<double>(),
                static_cast<unsigned long long>(r["network"]["switch_buffer_drops"].get<uint64_t>()),
                static_cast<unsigned long long>(r["network"]["retransmitted_packets"].get<uint64_t>()),
                static_cast<unsigned long long>(r["network"]["timeouts"].get<uint64_t>()));
  }
  std::printf(
      "\nslowdown = FCT / FCT of the same flow alone on its path. Per-run outputs: %s/<scenario>-<fabric>/\n",
      out_root.c_str());
  std::printf(
      "Reading: an incast overflows the lossy switch buffer; go-back-N then resends whole windows\n"
      "and waits out timeouts, so tail FCT grows far beyond the ideal network's. PFC makes the same\n"
      "incast lossless and DCQCN paces the senders, bringing it much closer to the ideal network;\n"
      "HPCC, reading each hop's queue and load from INT, gets closer still.\n");
  if (ctx.interrupt != nullptr && ctx.interrupt->load()) {
    std::fputs("interrupted: partial results written, marked interrupted\n", stderr);
    code = std::max(code, kExitInterrupted);
  }
  return code;
}

}  // namespace rdmasim::cli
