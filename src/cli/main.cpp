// rdmasim command line. Parsing only: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "validate/validate.h"
#include "workload/perftest.h"

namespace {

// perftest takes sizes as plain byte counts; accept those as well as units.
rdmasim::Bytes bytes_arg(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
    return rdmasim::Bytes(std::stoll(v));
  return rdmasim::parse_bytes(v);
}

// The one process-wide flag: set by SIGINT or SIGTERM (what batch schedulers
// send), polled by running simulations so they stop, write what they have
// marked interrupted, and exit with kExitInterrupted.
std::atomic<bool> g_interrupt{false};
extern "C" void on_stop_signal(int) { g_interrupt.store(true); }

// Commands that write results stop gracefully; the others keep the default
// action, so Ctrl-C ends them at once.
void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int perftest_main(const std::string& test, const std::string& size, int iters, int depth,
                  const std::string& profile, const std::string& rate, const std::string& delay,
                  const std::string& sw_latency, bool cut_through, int switches, const std::string& mtu) {
  using namespace rdmasim;
  PerftestOptions o;
  o.test = test;
  try {
    o.fabric = find_profile(profile).config;
    o.link = o.fabric.link;
    if (!size.empty()) o.size = bytes_arg(size).count();
    if (!rate.empty()) o.link.rate = parse_rate(rate);
    if (!delay.empty()) o.link.delay = parse_time(delay);
    if (!sw_latency.empty()) o.fabric.sw.latency = parse_time(sw_latency);
    if (!mtu.empty()) {
      const int64_t m = bytes_arg(mtu).count();
      if (m < 64 || m > 9000) throw std::invalid_argument("mtu must be between 64 and 9000 bytes");
      o.fabric.rc.mtu = static_cast<uint32_t>(m);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return cli::kExitBadInput;
  }
  if (cut_through) o.fabric.sw.cut_through = true;
  o.iters = iters;
  o.tx_depth = depth;
  o.switches = switches;
  try {
    const PerftestResult r = run_perftest(o);
    std::fputs(format_perftest(r, o).c_str(), stdout);
    if (!r.invariant_error.empty()) {
      std::fprintf(stderr, "error: simulation invariant violated: %s\n", r.invariant_error.c_str());
      return cli::kExitInvariant;
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return cli::kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: perftest: %s\n", e.what());
    return cli::kExitFailure;
  }
  return cli::kExitOk;
}

}  // namespace

int main_impl(int argc, char** argv) {
  using namespace rdmasim;
  CLI::App app{"rdmasim: packet-level simulator for RDMA fabrics (InfiniBand, RoCEv2, iWARP, UET)"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("rdmasim ") + RDMASIM_VERSION + " (commit " + RDMASIM_COMMIT + ")");

  cli::RunOptions ro;
  auto* run = app.add_subcommand("run", "run scenario files and write results.json, flows.csv, ports.csv");
  run->add_option("scenario", ro.scenarios, "scenario YAML file(s)")->required()->check(CLI::ExistingFile);
  run->add_option("-o,--out", ro.out_dir, "output directory (default: the scenario's output.dir)");
  run->add_option("--seed", ro.seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  run->add_option("--set", ro.sets, "override a scenario key, e.g. --set topology.k=8 (repeatable)");
  run->add_option("-j,--jobs", ro.jobs, "scenarios run in parallel threads")->check(CLI::Range(1, 256));
  run->add_flag("-q,--quiet", ro.quiet, "no progress on stderr");
  run->add_option(
      "--max-memory", ro.max_memory,
      "refuse a network whose estimated build needs more, e.g. 8GiB (default: the memory available)");
  run->add_flag("--strict", ro.strict,
                "refuse a scenario the run cannot carry out as written (e.g. flows starting after its end)");

  std::string test, size, profile = "ethernet-lossy", rate, delay, sw_latency, mtu;
  int iters = -1, depth = 128, switches = 1;
  bool cut_through = false;
  auto* pt =
      app.add_subcommand("perftest", "perftest equivalents: write_lat, send_lat, read_lat, write_bw, ...");
  pt->add_option("test", test, "write_lat | send_lat | read_lat | write_bw | send_bw | read_bw")->required();
  pt->add_option("-s,--size", size, "message size (default 2B for latency, 64KiB for bandwidth)");
  pt->add_option("-n,--iters", iters, "iterations (default 1000 latency, 5000 bandwidth)")
      ->check(CLI::Range(1, 100'000'000));
  pt->add_option("-t,--tx-depth", depth, "outstanding messages in bandwidth tests")
      ->check(CLI::Range(1, 1 << 16));
  pt->add_option("--fabric", profile, "fabric profile");
  pt->add_option("--rate", rate, "link rate, e.g. 400Gbps (default: the profile's, 100Gbps for Ethernet)");
  pt->add_option("--delay", delay, "propagation delay per link (default: the profile's, 1us for Ethernet)");
  pt->add_option("--switch-latency", sw_latency, "switch pipeline latency");
  pt->add_option("--mtu", mtu, "payload bytes per packet");
  pt->add_option("--switches", switches, "switches between the two hosts")->check(CLI::Range(0, 16));
  pt->add_flag("--cut-through", cut_through, "cut-through switching");

  std::string demo_out = "out/demo";
  int demo_jobs = 2;
  auto* demo = app.add_subcommand("demo", "the default evaluation: incast and permutation, lossy vs ideal");
  demo->add_option("-o,--out", demo_out, "output directory");
  demo->add_option("-j,--jobs", demo_jobs, "parallel threads")->check(CLI::Range(1, 256));

  std::vector<std::string> only;
  bool list = false;
  auto* bench = app.add_subcommand("bench", "speed benchmark: events/s, data packet-hops/s, peak RSS");
  bench->add_option("--only", only, "run only these bench scenarios (by name)");
  bench->add_flag("--list", list, "list the bench scenarios");

  cli::NcclTestsCli nccl;
  cli::add_nccl_tests_subcommand(app, nccl);
  cli::TrainCli train;
  cli::add_train_subcommand(app, train);

  auto* profiles =
      app.add_subcommand("profiles", "list built-in fabric profiles and the sources of their defaults");
  auto* schema = app.add_subcommand(
      "schema", "print the reference of every scenario key (type, unit, default per profile, what it does)");
  auto* validate = app.add_subcommand("validate", "run the VALIDATION.md cases: measured vs expected");
  bool full = false;
  validate->add_flag("--full", full, "paper-sized topologies where the default is scaled down (slow)");

  // CLI11 would only say "a subcommand is required" for a misspelt one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::fprintf(stderr, "error: unknown command '%s' (commands: %s)\n", argv[1], known.c_str());
      return cli::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : cli::kExitBadInput;
  }
  if (*run) {
    catch_stop_signals();
    return cli::run_command(ro, g_interrupt);
  }
  if (*pt)
    return perftest_main(test, size, iters, depth, profile, rate, delay, sw_latency, cut_through, switches,
                         mtu);
  if (*app.get_subcommand("nccl-tests")) return cli::nccl_tests_command(nccl);
  if (*app.get_subcommand("train")) return cli::train_command(train);
  if (*demo) {
    catch_stop_signals();
    return cli::demo_command(demo_out, demo_jobs, g_interrupt);
  }
  if (*bench) return cli::bench_command(only, list);
  if (*validate) {
    const auto results = run_validation(full);
    int failed = 0;
    std::printf("%-5s %-58s %-22s %-24s %s\n", "case", "what", "measured", "expected", "verdict");
    for (const auto& r : results) {
      std::printf("%-5s %-58s %-22s %-24s %s\n", r.id.c_str(), r.name.c_str(), r.measured.c_str(),
                  r.expected.c_str(), r.pass ? "ok" : "FAIL");
      failed += r.pass ? 0 : 1;
    }
    std::printf("\n%zu passed, %d failed\n", results.size() - failed, failed);
    return failed == 0 ? cli::kExitOk : cli::kExitFailure;
  }
  if (*schema) return cli::schema_command();
  if (*profiles) {
    for (const auto& n : profile_names()) {
      const Profile p = find_profile(n);
      std::printf("%s: %s\n", p.name.c_str(), p.summary.c_str());
      const std::vector<ProfileDefault> defaults = profile_defaults(p);
      int key_w = 0, value_w = 0;
      for (const auto& d : defaults) {
        key_w = std::max(key_w, static_cast<int>(d.key.size()));
        value_w = std::max(value_w, static_cast<int>(d.value.size()));
      }
      for (const auto& d : defaults)
        std::printf("  %-*s %-*s %s\n", key_w, d.key.c_str(), value_w, d.value.c_str(), d.source.c_str());
    }
    return cli::kExitOk;
  }
  return cli::kExitOk;
}

int main(int argc, char** argv) {
  try {
    return main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "error: unexpected failure\n");
    return 1;
  }
}
