// rdmasim osu <benchmark>: the OSU Micro-Benchmarks' flags and tables over
// the MPI engine (mpi/osu.h). -m, -i, -x, -W and -f mean what they mean to
// OSU; --np is mpirun's; the MPI library is the fabric's usual one unless
// --eager-threshold / --rendezvous set it as UCX_RNDV_THRESH /
// UCX_RNDV_SCHEME would.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/progress.h"
#include "config/error.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "run/front_ends.h"

namespace rdmasim::cli {
namespace {

// OSU's sizes are plain byte counts; K/M/G (binary, as nccl-tests) and
// units are accepted too.
int64_t osu_bytes(const std::string& v) { return parse_nccl_size("size", v); }

// -m [MIN:]MAX, as OSU reads it.
void apply_sizes(const std::string& m, OsuParams& p) {
  const size_t colon = m.find(':');
  if (colon == std::string::npos) {
    p.max_size = osu_bytes(m);
    return;
  }
  if (colon > 0) p.min_size = osu_bytes(m.substr(0, colon));
  if (colon + 1 < m.size()) p.max_size = osu_bytes(m.substr(colon + 1));
}

}  // namespace

void add_osu_subcommand(CLI::App& app, OsuCli& o) {
  auto* c = app.add_subcommand("osu",
                               "OSU Micro-Benchmarks: osu_latency, osu_bw, osu_bibw, osu_mbw_mr, "
                               "osu_allreduce, osu_alltoall, osu_barrier over MPI on a fabric");
  c->add_option("benchmark", o.bench,
                "osu_latency | osu_bw | osu_bibw | osu_mbw_mr | osu_allreduce | "
                "osu_alltoall | osu_barrier (the osu_ prefix may be left out)")
      ->required();
  c->add_option("-m,--message-size", o.sizes,
                "[MIN:]MAX message sizes in bytes (OSU's default per benchmark)");
  c->add_option("-i,--iterations", o.iterations, "timed iterations per size (default: OSU's)")
      ->check(CLI::Range(1, 100'000'000));
  c->add_option("-x,--warmup", o.warmup, "untimed iterations first (default: OSU's)")
      ->check(CLI::Range(0, 100'000'000));
  c->add_option("-W,--window-size", o.window, "messages in flight (osu_bw, osu_bibw, osu_mbw_mr)")
      ->check(CLI::Range(1, 1 << 16));
  c->add_flag("-f,--full", o.full, "collectives: min, max and iterations columns");
  c->add_option("--np", o.np, "MPI ranks, one per host (mpirun -np)")->check(CLI::Range(2, 65536));
  c->add_option("--hosts-per-leaf", o.hosts_per_leaf,
                "hosts under each leaf switch; more ranks make a non-blocking leaf-spine")
      ->check(CLI::Range(1, 1024));
  c->add_option("--fabric", o.profile, "fabric profile");
  c->add_option("--rate", o.rate, "link rate (default: the profile's)");
  c->add_option("--mtu", o.mtu, "payload bytes per packet (default: the profile's)");
  c->add_option("--eager-threshold", o.eager_threshold,
                "largest eager message (default: the fabric's MPI library's, e.g. UCX's)");
  c->add_option("--rendezvous", o.rendezvous, "get (RDMA READ) | put (RTS/CTS, RDMA WRITE)");
  c->add_option("--seed", o.seed, "random seed")->check(seed_range());
}

int osu_command(const OsuCli& c, const Context& ctx) {
  OsuOptions o;
  try {
    o.params.benchmark = c.bench.starts_with("osu_") ? c.bench : "osu_" + c.bench;
    const OsuBench b = osu_bench(o.params.benchmark);
    o.fabric = flag_value("--fabric", c.profile, [](const std::string& v) { return find_profile(v).config; });
    o.link = o.fabric.link;
    if (!c.rate.empty()) o.link.rate = flag_value("--rate", c.rate, parse_rate);
    if (!c.mtu.empty()) o.fabric.set_mtu(flag_value("--mtu", c.mtu, osu_bytes));
    o.params.mpi = mpi_defaults(o.fabric);
    if (!c.eager_threshold.empty())
      o.params.mpi.eager_threshold = Bytes(flag_value("--eager-threshold", c.eager_threshold, osu_bytes));
    if (!c.rendezvous.empty()) {
      if (c.rendezvous != "get" && c.rendezvous != "put")
        throw std::invalid_argument("--rendezvous: expected get or put (got " + c.rendezvous + ")");
      o.params.mpi.rendezvous = c.rendezvous == "get" ? Rendezvous::kGet : Rendezvous::kPut;
    }
    if (!c.sizes.empty()) {
      if (b == OsuBench::kBarrier) throw std::invalid_argument("-m: osu_barrier has no message size");
      o.params.min_size = osu_sizes(o.params).front();
      o.params.max_size = osu_sizes(o.params).back();
      flag_value("-m", c.sizes, [&](const std::string& v) {
        apply_sizes(v, o.params);
        return 0;
      });
    }
    if (c.window != 64 && !osu_windowed(b))
      throw std::invalid_argument("-W: only osu_bw, osu_bibw and osu_mbw_mr keep a window in flight");
    if (c.full && osu_point_to_point(b))
      throw std::invalid_argument("-f: only the collective benchmarks print the full columns");
    o.params.iterations = c.iterations;
    o.params.warmup = c.warmup;
    o.params.window = c.window;
    o.np = c.np;
    o.hosts_per_leaf = c.hosts_per_leaf;
    o.seed = static_cast<uint64_t>(c.seed);
    (void)osu_scenario(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: osu: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  try {
    Progress progress(ctx.progress_every, false);
    const OsuRun r = run_osu(o, [&](const Experiment& e) {
      progress.tick([&] {
        return fmt::format("[{}] {:.0f}% done, simulated {:.3f} ms, {:.1f}M events", o.params.benchmark,
                           100 * e.workloads().back()->done_fraction(), e.sim().now().us() / 1e3,
                           e.sim().events_processed() / 1e6);
      });
    });
    std::string table = format_osu(r.result, c.full);
    // Where it ran, as a comment line under OSU's title (parsers skip '#').
    const size_t eol = table.find('\n', table.find("# OSU")) + 1;
    const MpiConfig& m = o.params.mpi;
    table.insert(eol, fmt::format("# rdmasim: fabric {}, {} ranks, {}, eager up to {}, rendezvous {}\n",
                                  o.fabric.name, o.np, m.library, format_bytes(m.eager_threshold),
                                  m.rendezvous == Rendezvous::kGet ? "get" : "put"));
    std::fputs(table.c_str(), stdout);
    if (!r.invariant_error.empty()) {
      std::fprintf(stderr, "error: simulation invariant violated: %s\n", r.invariant_error.c_str());
      return kExitInvariant;
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: osu: %s\n", e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: osu: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: osu: %s\n", e.what());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace rdmasim::cli
