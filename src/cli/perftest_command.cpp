// rdmasim perftest <test>: perftest's flags and table between two hosts
// (see workload/perftest.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "cli/commands.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "workload/perftest.h"

namespace rdmasim::cli {
namespace {

// perftest takes sizes as plain byte counts; accept those as well as units.
Bytes bytes_arg(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) return Bytes(std::stoll(v));
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
  pt->add_option("--mtu", o.mtu, "payload bytes per packet");
  pt->add_option("--switches", o.switches, "switches between the two hosts")->check(CLI::Range(0, 16));
  pt->add_flag("--cut-through", o.cut_through, "cut-through switching");
}

int perftest_command(const PerftestCli& c) {
  PerftestOptions o;
  o.test = c.test;
  try {
    o.fabric = find_profile(c.profile).config;
    o.link = o.fabric.link;
    if (!c.size.empty()) o.size = bytes_arg(c.size).count();
    if (!c.rate.empty()) o.link.rate = parse_rate(c.rate);
    if (!c.delay.empty()) o.link.delay = parse_time(c.delay);
    if (!c.sw_latency.empty()) o.fabric.sw.latency = parse_time(c.sw_latency);
    if (!c.mtu.empty()) {
      const int64_t m = bytes_arg(c.mtu).count();
      if (m < 64 || m > 9000) throw std::invalid_argument("mtu must be between 64 and 9000 bytes");
      o.fabric.rc.mtu = static_cast<uint32_t>(m);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return kExitBadInput;
  }
  if (c.cut_through) o.fabric.sw.cut_through = true;
  o.iters = c.iters;
  o.tx_depth = c.depth;
  o.switches = c.switches;
  try {
    const PerftestResult r = run_perftest(o);
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
