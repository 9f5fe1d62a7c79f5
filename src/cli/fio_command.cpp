// rdmasim fio: NVMe over Fabrics on RDMA (storage/nvmeof.h) with fio's job
// options and its normal or terse output. fio's own spellings are accepted:
// --rw=randread --bs=4k --iodepth=32 --numjobs=4 --runtime=10ms
// (a bare runtime is seconds, as fio reads it) --output-format=terse.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/progress.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "storage/fio.h"

namespace rdmasim::cli {
namespace {

// fio's times: a bare number is seconds; units as everywhere else.
Time fio_time(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789.") == std::string::npos)
    return Time::from_ps(static_cast<int64_t>(std::stod(v) * 1e12));
  return parse_time(v);
}

}  // namespace

void add_fio_subcommand(CLI::App& app, FioCli& o) {
  auto* c = app.add_subcommand("fio",
                               "fio over NVMe-oF (RDMA): IOPS, bandwidth and completion-latency percentiles");
  c->add_option("--name", o.name, "job name");
  c->add_option("--rw,--readwrite", o.rw, "randread | randwrite | randrw");
  c->add_option("--bs,--blocksize", o.bs, "block size, e.g. 4k (a multiple of 512 B)");
  c->add_option("--iodepth", o.iodepth, "I/Os in flight per job")->check(CLI::Range(1, 65535));
  c->add_option("--numjobs", o.numjobs, "jobs per initiator, each an NVMe I/O queue")
      ->check(CLI::Range(1, 4096));
  c->add_option("--rwmixread", o.rwmixread, "randrw: percentage of reads")->check(CLI::Range(0, 100));
  c->add_option("--runtime", o.runtime, "measured time (a bare number is seconds, as fio; default 10ms)");
  c->add_option("--ramp_time", o.ramp_time, "time before measuring");
  c->add_option("--output-format", o.output_format, "normal | terse");
  c->add_option("--initiators", o.initiators, "initiator hosts")->check(CLI::Range(1, 2048));
  c->add_option("--targets", o.targets, "target hosts, one SSD each")->check(CLI::Range(1, 2048));
  c->add_option("--fabric", o.profile, "fabric profile");
  c->add_option("--seed", o.seed, "random seed")->check(seed_range());
}

int fio_command(const FioCli& c, const Context& ctx) {
  FioOptions o;
  try {
    if (c.rw != "randread" && c.rw != "randwrite" && c.rw != "randrw")
      throw std::invalid_argument(
          "--rw: expected randread, randwrite or randrw (the SSD model has no locality, "
          "so no sequential mode); got " +
          c.rw);
    if (c.output_format != "normal" && c.output_format != "terse")
      throw std::invalid_argument("--output-format: expected normal or terse; got " + c.output_format);
    if (c.rwmixread != 50 && c.rw != "randrw")
      throw std::invalid_argument("--rwmixread: only --rw=randrw mixes reads and writes");
    o.fabric = flag_value("--fabric", c.profile, [](const std::string& v) { return find_profile(v).config; });
    o.link = o.fabric.link;
    o.params.rw = c.rw;
    o.params.rwmixread = c.rwmixread / 100.0;
    o.params.bs = parse_nccl_size("--bs", c.bs);
    o.params.iodepth = c.iodepth;
    o.params.numjobs = c.numjobs;
    o.params.runtime = flag_value("--runtime", c.runtime, fio_time);
    o.params.ramp_time = flag_value("--ramp_time", c.ramp_time, fio_time);
    o.initiators = c.initiators;
    o.targets = c.targets;
    o.seed = static_cast<uint64_t>(c.seed);
    (void)fio_scenario(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: fio: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  try {
    Progress progress(ctx.progress_every, false);
    const FioRun r = run_fio(o, [&](const Experiment& e) {
      progress.tick([&] {
        return fmt::format("[fio {}] {:.0f}% done, simulated {:.3f} ms, {:.1f}M events", c.rw,
                           100 * e.workloads().back()->done_fraction(), e.sim().now().us() / 1e3,
                           e.sim().events_processed() / 1e6);
      });
    });
    const std::string out =
        c.output_format == "terse" ? format_fio_terse(r.result, c.name) : format_fio_normal(r.result, c.name);
    std::fputs(out.c_str(), stdout);
    if (!r.invariant_error.empty()) {
      std::fprintf(stderr, "error: simulation invariant violated: %s\n", r.invariant_error.c_str());
      return kExitInvariant;
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: fio: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: fio: %s\n", e.what());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace rdmasim::cli
