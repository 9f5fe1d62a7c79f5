// rdmasim perftest <test>: perftest's flags and table between two hosts
// (see workload/perftest.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/progress.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "workload/perftest.h"

namespace rdmasim::cli {
namespace {

// perftest takes sizes as plain byte counts; accept those as well as units.
Bytes bytes_arg(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size())
      throw std::invalid_argument("expected a size in bytes, e.g. 65536 or 64KiB (got " + v + ")");
    return Bytes(n);
  }
  return parse_bytes(v);
}

}  // namespace

void add_perftest_subcommand(CLI::App& app, PerftestCli& o) {
  auto* pt =
      app.add_subcommand("perftest", "perftest equivalents: write_lat, send_lat, read_lat, write_bw, ...");
  pt->add_option("test", o.test, "write_lat | send_lat | read_lat | write_bw | send_bw | read_bw")
      ->required();
  pt->add_option("-s,--size", o.size, "message size (default 2B for latency, 64KiB for bandwidth)");
  pt->add_option("-n,--iters", o.iters, "iterations (default 1000 latency, 5000 bandwidth)")
      ->check(CLI::Range(1, 100'000'000));
  pt->add_option("-t,--tx-depth", o.depth, "outstanding messages in bandwidth tests")
      ->check(CLI::Range(1, 1 << 16));
  pt->add_option("--fabric", o.profile, "fabric profile");
  pt->add_option("--rate", o.rate, "link rate, e.g. 400Gbps (default: the profile's, 100Gbps for Ethernet)");
  pt->add_option("--delay", o.delay, "propagation delay per link (default: the profile's, 1us for Ethernet)");
  pt->add_option("--switch-latency", o.sw_latency, "switch pipeline latency");
  pt->add_option("--mtu", o.mtu, "payload bytes per packet (on iWARP: the Ethernet MTU)");
  pt->add_option("--switches", o.switches, "switches between the two hosts")->check(CLI::Range(0, 16));
  pt->add_flag("--cut-through", o.cut_through, "cut-through switching");
}

int perftest_command(const PerftestCli& c, const Context& ctx) {
  PerftestOptions o;
  o.test = c.test;
  try {
    o.fabric = flag_value("--fabric", c.profile, [](const std::string& v) { return find_profile(v).config; });
    o.link = o.fabric.link;
    if (!c.size.empty()) o.size = flag_value("-s/--size", c.size, bytes_arg).count();
    if (!c.rate.empty()) o.link.rate = flag_value("--rate", c.rate, parse_rate);
    if (!c.delay.empty()) o.link.delay = flag_value("--delay", c.delay, parse_time);
    if (!c.sw_latency.empty()) o.fabric.sw.latency = flag_value("--switch-latency", c.sw_latency, parse_time);
    if (!c.mtu.empty()) {
      o.fabric.set_mtu(flag_value("--mtu", c.mtu, bytes_arg).count());
    }
    if (c.cut_through) o.fabric.sw.cut_through = true;
    o.iters = c.iters;
    o.tx_depth = c.depth;
    o.switches = c.switches;
    (void)perftest_scenario(o);  // the test name and the ranges the runner refuses
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  try {
    Progress progress(ctx.progress_every, false);
    const PerftestResult r = run_perftest(o, [&](const Experiment& e) {
      progress.tick([&] {
        return fmt::format(
            "[perftest {}] {:.0f}% of the iterations done, simulated {:.3f} ms, {:.1f}M events", o.test,
            100 * e.workloads().back()->done_fraction(), e.sim().now().us() / 1e3,
            e.sim().events_processed() / 1e6);
      });
    });
    std::fputs(format_perftest(r, o).c_str(), stdout);
    if (!r.invariant_error.empty()) {
      std::fprintf(stderr, "error: simulation invariant violated: %s\n", r.invariant_error.c_str());
      return kExitInvariant;
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace rdmasim::cli
