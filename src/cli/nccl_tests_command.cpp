// rdmasim nccl-tests <name>_perf: nccl-tests' flags and table over a
// simulated GPU cluster (see collective/nccl_tests.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/output_paths.h"
#include "cli/progress.h"
#include "collective/nccl_tests.h"
#include "config/error.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "report/atomic_file.h"
#include "run/experiment.h"
#include "run/front_ends.h"

namespace rdmasim::cli {

void add_nccl_tests_subcommand(CLI::App& app, NcclTestsCli& o) {
  auto* nt =
      app.add_subcommand("nccl-tests", "nccl-tests equivalents: all_reduce_perf, all_gather_perf, ...");
  nt->add_option("test", o.test,
                 "all_reduce_perf | all_gather_perf | reduce_scatter_perf | broadcast_perf | reduce_perf | "
                 "alltoall_perf | sendrecv_perf")
      ->required();
  nt->add_option("-b,--minbytes", o.minbytes, "smallest size (default 32M)");
  nt->add_option("-e,--maxbytes", o.maxbytes, "largest size (default 32M)");
  nt->add_option("-f,--stepfactor", o.stepfactor, "multiply the size by this each step (default 2)");
  nt->add_option("-g,--ngpus", o.gpus, "GPUs per server (default 8)")->check(CLI::Range(1, 64));
  nt->add_option("--nodes", o.nodes,
                 "servers (default 4); a run holds about 2^26 transfers, so a ring (2 (n - 1) steps per "
                 "channel on every one of n ranks) reaches about 2,048 ranks at 8 channels, a tree far more")
      ->check(CLI::Range(1, 4096));
  nt->add_option("-r,--root", o.root, "root rank of broadcast/reduce (default 0)");
  nt->add_option(
        "-n,--iters", o.iters,
        "calls queued back to back per size, timed as nccl-tests times them (each rank's mean per call, "
        "averaged over the ranks; nccl-tests' default is 20). Default 1: one call, until its last rank")
      ->check(CLI::Range(1, 1000));
  nt->add_option(
      "--algo", o.algo,
      "NCCL_ALGO: auto (NCCL's tuner picks ring, tree, nvls or nvlstree per size) | ring | tree | "
      "hierarchical "
      "| sharp (CollNet; InfiniBand fabrics, or --sharp) | nvls | nvlstree (NVLink SHARP: H100/B200; nvls "
      "on one server, or across servers with IB SHARP as NCCL's CollNet; nvlstree across servers) | pairwise "
      "| NCCL's list (ring,tree) or exclusion (^nvls,nvlstree): the tuner picks among those (default auto)");
  nt->add_option(
      "--proto", o.proto,
      "NCCL_PROTO: auto (NCCL's tuner picks per size) | LL | LL128 | Simple, or NCCL's list (LL,Simple) "
      "or exclusion (^LL128): the tuner picks among those");
  nt->add_flag("--no-pxn", o.no_pxn,
               "NCCL_PXN_DISABLE=1: alltoall/sendrecv chunks leave through the sending GPU's own NIC instead "
               "of crossing NVLink to the destination's rail");
  nt->add_option(
      "--gpu", o.gpu,
      "GPU class: v100 | a100 | h100 | b200 (generation for the tuner, NVLink rate; default h100)");
  nt->add_option(
        "--channels", o.channels,
        "channels (rings/trees) as NCCL's topology search counts them, each with its own QPs, at every "
        "size; NCCL runs each twice, so 8 here are NCCL's 16 execution channels (default: one per GPU "
        "of a server, fewer for small sizes as NCCL gives them)")
      ->check(CLI::Range(1, 64));
  nt->add_option("--chunk", o.chunk,
                 "payload per channel per pipeline step (default auto: the protocol's, Simple 512K, LL 32K, "
                 "LL128 576000)");
  nt->add_option(
      "--nvlink-bw", o.nvlink_bw,
      "NVLink rate per GPU per direction (default: the GPU class's as NCCL counts it, h100 370.8 GB/s)");
  nt->add_option("--nvlink-latency", o.nvlink_latency, "NVLink one-way latency (default 500ns)");
  nt->add_option(
      "--step-latency", o.step_latency,
      "GPU time before a chunk moves over NVLink (default: NCCL's per-hop latency for the algorithm "
      "and protocol, less the NVLink latency)");
  nt->add_option("--net-latency", o.net_latency,
                 "GPU and proxy time before a chunk crosses the fabric (default: NCCL's network hop latency "
                 "less 1us of fabric transit)");
  nt->add_option("--launch-latency", o.launch_latency,
                 "fixed cost per collective (default: NCCL's base latency for the algorithm and protocol)");
  add_cluster_flags(*nt, o.cluster);
  nt->add_option("--json", o.json, "also write the table as JSON to this file")->check(non_empty_path());
}

int nccl_tests_command(const NcclTestsCli& c, const Context& ctx) {
  NcclTestsOptions o;
  std::vector<int64_t> sizes;
  try {
    std::string name = c.test;
    if (name.ends_with("_perf")) name.resize(name.size() - 5);
    o.type = flag_value("test", name, coll_from_name);
    if (const AlgoSet set = flag_value("--algo", c.algo, parse_nccl_algo); algo_set_is_single(set))
      o.algo = algo_of_single(set);
    else
      o.algo_list = set;
    if (const ProtoSet set = flag_value("--proto", c.proto, parse_nccl_proto); proto_set_is_single(set))
      o.proto = proto_of_single(set);
    else
      o.proto_list = set;
    if (c.no_pxn && o.type != CollType::kAllToAll && o.type != CollType::kSendRecv)
      throw std::invalid_argument("--no-pxn has no effect: PXN carries alltoall and sendrecv traffic only");
    o.pxn = !c.no_pxn;
    if (c.cluster.sharp && o.algo != Algo::kSharp && !(o.algo == Algo::kNvls && c.nodes > 1))
      throw std::invalid_argument(
          "--sharp has no effect: only --algo sharp, and --algo nvls across servers, aggregate in the "
          "network");
    o.min_bytes = parse_nccl_size("-b", c.minbytes);
    o.max_bytes = parse_nccl_size("-e", c.maxbytes);
    o.step_factor = c.stepfactor;
    o.root = c.root;
    o.comm.calls = c.iters;
    o.channels = c.channels;
    if (c.chunk != "auto") {
      o.chunk = parse_nccl_size("--chunk", c.chunk);
      if (o.chunk < 1) throw std::invalid_argument("--chunk must be at least 1 byte, or auto");
    }
    o.cluster.servers = c.nodes;
    o.cluster.gpus_per_server = c.gpus;
    const GpuClass& gpu =
        flag_value("--gpu", c.gpu, [](const std::string& n) -> const GpuClass& { return gpu_class(n); });
    o.cluster.arch = gpu.arch;
    o.cluster.nvlink.rate = gpu.nvlink_rate();
    if (!c.nvlink_bw.empty()) o.cluster.nvlink.rate = flag_value("--nvlink-bw", c.nvlink_bw, parse_rate);
    if (!c.nvlink_latency.empty())
      o.cluster.nvlink.latency = flag_value("--nvlink-latency", c.nvlink_latency, parse_time);
    if (!c.step_latency.empty())
      o.comm.step_latency = flag_value("--step-latency", c.step_latency, parse_time);
    if (!c.net_latency.empty()) o.comm.net_latency = flag_value("--net-latency", c.net_latency, parse_time);
    if (!c.launch_latency.empty())
      o.comm.launch_latency = flag_value("--launch-latency", c.launch_latency, parse_time);
    apply_cluster_flags(c.cluster, o);
    if (o.comm.host_cpu != HostCpu::kIntel && o.cluster.servers == 1)
      throw std::invalid_argument(std::string("--host-cpu ") + kHostCpuOneServer);
    (void)make_cluster_topology(o.cluster);  // validates the geometry with a clear message
    sizes = check_nccl_tests(o);             // the sweep is refused before its first size runs
    if (!c.json.empty())
      if (const std::string why = check_output_file(c.json, !ctx.check_only); !why.empty())
        throw std::invalid_argument("--json: " + why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: nccl-tests: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  NcclTestsResult r;
  try {
    Progress progress(ctx.progress_every, false);
    r = run_nccl_tests(o, 1, [&](size_t i, const Experiment& e) {
      progress.tick([&] {
        return fmt::format("[nccl-tests {}] size {} of {} ({} B), simulated {:.3f} ms of it", c.test, i + 1,
                           sizes.size(), sizes[i], e.sim().now().us() / 1e3);
      });
    });
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: nccl-tests: %s\n", e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    // The fabric the flags describe cannot be built (e.g. more ports than a
    // switch buffer can give PFC headroom): bad input, not a failure.
    std::fprintf(stderr, "error: nccl-tests: %s\n", e.what());
    return kExitBadInput;
  }
  std::fputs(format_nccl_tests(r, o).c_str(), stdout);
  if (!c.json.empty()) write_file_atomic(c.json, nccl_tests_json(r, o));
  for (const auto& row : r.rows)
    if (!row.invariant_error.empty()) {
      std::fprintf(stderr, "error: simulation invariant violated at %lld B: %s\n",
                   static_cast<long long>(row.bytes), row.invariant_error.c_str());
      return kExitInvariant;
    }
  return kExitOk;
}

}  // namespace rdmasim::cli
