#include "run/front_ends.h"

#include <fmt/format.h>

#include <exception>
#include <memory>
#include <stdexcept>

#include "collective/algorithms.h"
#include "collective/collective_workload.h"
#include "config/units_parse.h"
#include "route/subnet_manager.h"
#include "run/experiment.h"
#include "run/thread_pool.h"
#include "training/training_workload.h"

namespace rdmasim {
namespace {

// The command-line tools run until their job is done, however long.
constexpr Time kNoLimit = Time::from_ms(3'600'000);

// A scenario built in code: its name, seed and fabric, run until its work is done.
Scenario base_scenario(const std::string& name, uint64_t seed, const FabricConfig& fabric) {
  Scenario s;
  s.name = name;
  s.file = "<" + name + ">";
  s.seed = seed;
  s.duration = kNoLimit;
  s.profile = fabric.name;
  s.fabric = fabric;
  return s;
}

// The cluster's fabric as a scenario topology: the same builder calls as
// make_cluster_topology (host names aside), so the same fabric.
Scenario cluster_scenario(const ClusterConfig& c, const FabricConfig& fabric, uint64_t seed,
                          const std::string& name) {
  (void)make_cluster_topology(c);  // validates the geometry with a clear message
  Scenario s = base_scenario(name, seed, fabric);
  TopologySpec& t = s.topology;
  if (c.topology == ClusterTopology::kLeafSpine) {
    t.type = "leaf-spine";
    t.leaves = c.servers;
    t.hosts_per_leaf = c.gpus_per_server;
  } else {
    t.type = "servers";
    t.servers = c.servers;
    t.gpus_per_server = c.gpus_per_server;
    // Set only where they change the fabric (make_cluster_topology above
    // checked the radix against a leaf), so a scenario echo of a cluster
    // within one unit is the same as before they existed.
    if (c.servers_per_leaf > 0 && c.servers > c.servers_per_leaf) {
      t.servers_per_leaf = c.servers_per_leaf;
      const int units = (c.servers + c.servers_per_leaf - 1) / c.servers_per_leaf;
      if (c.switch_radix > 0 && c.gpus_per_server * units > c.switch_radix) t.switch_radix = c.switch_radix;
    }
  }
  t.spines = cluster_spines(c);
  t.link = c.nic_link;
  t.fabric_link = c.fabric_link;
  s.output.flows_csv = s.output.ports_csv = false;
  return s;
}

void add_background(Scenario& s, const std::optional<FlowSizeCdf>& cdf, const BackgroundConfig& cfg) {
  if (!cdf || cfg.load <= 0) return;
  auto p = std::make_shared<BackgroundParams>();
  p->sizes = *cdf;
  p->cfg = cfg;
  WorkloadSpec w;
  w.type = "background";
  w.params = std::move(p);
  s.workloads.push_back(std::move(w));
}

template <class W>
const W& last_of(const Experiment& e) {
  return dynamic_cast<const W&>(*e.workloads().back());
}

// A command-line tool's scenario: its name, seed and fabric, run until done,
// without the per-flow and per-port CSVs.
Scenario tool_scenario(const std::string& name, uint64_t seed, const FabricConfig& fabric) {
  Scenario s = base_scenario(name, seed, fabric);
  s.output.flows_csv = s.output.ports_csv = false;
  return s;
}

void add_workload(Scenario& s, const std::string& type, std::shared_ptr<WorkloadParams> params) {
  WorkloadSpec w;
  w.type = type;
  w.params = std::move(params);
  s.workloads.push_back(std::move(w));
}

// Runs a tool's one-workload scenario to the end: its result (read by
// `extract` from the workload) and the run's invariant check.
template <class Run, class Extract>
Run run_tool(Scenario s, const RunProgress& progress, const char* unfinished, Extract extract) {
  Experiment e(std::move(s));
  e.run(progress);
  const Workload& w = *e.workloads().back();
  if (!w.finished()) throw std::runtime_error(unfinished);
  Run r;
  r.result = extract(w);
  r.invariant_error = e.invariant_error();
  return r;
}

}  // namespace

Scenario nccl_tests_scenario(const NcclTestsOptions& o, int64_t bytes) {
  Scenario s = cluster_scenario(o.cluster, o.fabric, o.seed, "nccl-tests");
  add_background(s, o.background_cdf, o.background);
  auto p = std::make_shared<CollectiveParams>();
  p->req.type = o.type;
  p->req.algo = o.algo.value_or(default_algo(o.type));
  p->req.tune_algo = !o.algo;
  p->req.algo_set = o.algo ? 0 : o.algo_list;
  p->req.proto = o.proto.value_or(Proto::kSimple);
  p->req.tune_proto = !o.proto;
  p->req.proto_set = o.proto ? 0 : o.proto_list;
  p->req.pxn = o.pxn;
  p->req.bytes = bytes;
  p->req.channels = o.channels;
  p->req.chunk = o.chunk;
  p->req.root = o.root;
  p->gpus_per_server = o.cluster.gpus_per_server;
  p->comm = o.comm;
  p->nvlink = o.cluster.nvlink;
  p->arch = o.cluster.arch;
  p->gpu_nic_path = o.cluster.gpu_nic_path;
  WorkloadSpec w;
  w.type = "collective";
  w.params = std::move(p);
  s.workloads.push_back(std::move(w));
  return s;
}

std::vector<int64_t> check_nccl_tests(const NcclTestsOptions& o) {
  if (o.algo && !algo_applies(o.type, *o.algo))
    throw std::invalid_argument(
        std::string("--algo ") + algo_name(*o.algo) + " does not implement " + coll_name(o.type) +
        " (ring/tree/hierarchical/sharp/nvls/nvlstree: all_reduce; ring/hierarchical/nvls: "
        "all_gather, reduce_scatter; ring: broadcast, reduce; pairwise: alltoall, "
        "sendrecv)");
  const std::string proto_text = o.proto ? proto_name(*o.proto) : nccl_proto_text(o.proto_list);
  const bool simple = o.proto ? *o.proto == Proto::kSimple
                              : o.proto_list == 0 || (o.proto_list & proto_bit(Proto::kSimple)) != 0;
  if (o.algo == Algo::kSharp && !simple)
    throw std::invalid_argument(
        "--proto " + proto_text +
        " does not apply to --algo sharp: NCCL's CollNet runs the Simple protocol only");
  if (o.algo == Algo::kSharp)
    if (const std::string why = sharp_unavailable(o.fabric, "pass --sharp (fabric.sharp.enabled: true)");
        !why.empty())
      throw std::invalid_argument("--algo sharp: " + why);
  if (o.algo == Algo::kNvls || o.algo == Algo::kNvlsTree) {
    if (!simple)
      throw std::invalid_argument("--proto " + proto_text + " does not apply to --algo " +
                                  algo_name(*o.algo) + ": NVLink SHARP runs the Simple protocol only");
    TunerSystem sys;
    sys.shape = CommShape{o.cluster.servers, o.cluster.gpus_per_server};
    sys.arch = o.cluster.arch;
    if (const std::string why = nvls_unavailable(*o.algo, sys, o.type); !why.empty())
      throw std::invalid_argument(std::string("--algo ") + algo_name(*o.algo) + ": " + why);
    if (o.algo == Algo::kNvls && o.cluster.servers > 1)
      if (const std::string why = sharp_unavailable(o.fabric, "pass --sharp (fabric.sharp.enabled: true)");
          !why.empty())
        throw std::invalid_argument("--algo nvls across servers runs with IB SHARP (NCCL's CollNet): " + why +
                                    "; or use nvlstree");
  }
  if (o.algo_list != 0) {
    if (default_algo(o.type) != Algo::kRing)
      throw std::invalid_argument(std::string("--algo ") + nccl_algo_text(o.algo_list) +
                                  ": expected one algorithm " + "or auto for " + coll_name(o.type) +
                                  ": NCCL's tuner does not choose its algorithm");
    PlanRequest r;
    r.type = o.type;
    set_nccl_algo(r, o.algo_list);
    TunerSystem sys;
    sys.shape = CommShape{o.cluster.servers, o.cluster.gpus_per_server};
    sys.arch = o.cluster.arch;
    if (nccl_candidate_algos(r, sys).empty())
      throw std::invalid_argument(
          "--algo " + nccl_algo_text(o.algo_list) + " leaves no algorithm that runs " + coll_name(o.type) +
          " on " + std::to_string(o.cluster.servers) + " servers of " +
          std::to_string(o.cluster.gpus_per_server) + " " + gpu_arch_name(o.cluster.arch) + " GPUs");
  }
  const int nranks = o.cluster.ranks();
  if (o.root < 0 || o.root >= nranks)
    throw std::invalid_argument("--root must be a rank between 0 and " + std::to_string(nranks - 1));
  std::vector<int64_t> sizes = nccl_tests_sizes(o.min_bytes, o.max_bytes, o.step_factor);
  // The largest size splits into the most transfers: refuse the sweep before
  // the smaller sizes have run.
  PlanRequest r;
  r.type = o.type;
  r.algo = o.algo.value_or(default_algo(o.type));
  r.proto = o.proto.value_or(Proto::kSimple);
  r.bytes = sizes.back();
  r.channels = o.channels;
  r.channels = resolved_channels(r, o.cluster.gpus_per_server);
  r.chunk = o.chunk;
  r.root = o.root;
  check_plan_request(r, CommShape{o.cluster.servers, o.cluster.gpus_per_server});
  return sizes;
}

NcclTestsResult run_nccl_tests(const NcclTestsOptions& o, int jobs, const SizeProgress& progress) {
  const std::vector<int64_t> sizes = check_nccl_tests(o);
  NcclTestsResult res;
  res.nranks = o.cluster.ranks();
  res.channels = o.channels > 0 ? o.channels : std::max(2, o.cluster.gpus_per_server);
  res.rows.resize(sizes.size());
  std::vector<std::exception_ptr> failed(sizes.size());
  ThreadPool(jobs).for_each(sizes.size(), [&](size_t i) {
    try {
      NcclTestsRow& row = res.rows[i];
      row.bytes = nccl_tests_bytes(o.type, sizes[i], res.nranks);
      row.count = nccl_tests_count(o.type, sizes[i], res.nranks);
      if (row.bytes == 0) {
        // A zero count: NCCL returns at once and nothing reaches the fabric.
        row.algo = o.algo.value_or(default_algo(o.type));
        row.proto = o.proto.value_or(Proto::kSimple);
        return;
      }
      Experiment e(nccl_tests_scenario(o, row.bytes));
      e.run([&](const Experiment& x) {
        if (progress) progress(i, x);
      });
      const auto& c = last_of<CollectiveWorkload>(e);
      if (!c.finished()) throw std::logic_error("collective did not complete (simulation drained)");
      row.time_us = c.time_per_call().us();
      row.algbw = c.algbw_gbps();
      row.busbw = c.busbw_gbps();
      row.fabric_bytes = c.fabric_bytes();
      row.sharp_fallback = c.sharp_fallback();
      row.algo = c.algo_run();
      row.proto = c.proto_run();
      row.channels = c.channels_run();
      row.nccl_model_us = c.nccl_predicted_us();
      row.invariant_error = e.invariant_error();
    } catch (...) {
      failed[i] = std::current_exception();
    }
  });
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
  double sum = 0;
  for (const auto& row : res.rows) sum += row.busbw;
  res.avg_busbw = res.rows.empty() ? 0 : sum / static_cast<double>(res.rows.size());
  return res;
}

Scenario training_scenario(const TrainingRunOptions& o) {
  validate_training(o.train, o.cluster.gpus_per_server);
  if (o.dp_algo == Algo::kSharp)
    if (const std::string why = sharp_unavailable(o.fabric, "pass --sharp (fabric.sharp.enabled: true)");
        !why.empty())
      throw std::invalid_argument("--dp-algo sharp: " + why);
  ClusterConfig cc = o.cluster;
  const int G = cc.gpus_per_server;
  cc.servers = (o.train.par.gpus() + G - 1) / G;
  Scenario s = cluster_scenario(cc, o.fabric, o.seed, "train");
  add_background(s, o.background_cdf, o.background);
  auto p = std::make_shared<TrainingParams>();
  p->run = o;
  WorkloadSpec w;
  w.type = "training";
  w.params = std::move(p);
  s.workloads.push_back(std::move(w));
  return s;
}

TrainingResult run_training_iteration(const TrainingRunOptions& o, const RunProgress& progress) {
  Experiment e(training_scenario(o));
  e.run(progress);
  const auto& t = last_of<TrainingWorkload>(e);
  if (!t.finished()) throw std::logic_error("training iteration stalled (simulation drained)");
  TrainingResult r = t.result();
  if (e.workloads().size() > 1) {
    const BackgroundTraffic& bg = dynamic_cast<const BackgroundWorkload&>(*e.workloads().front()).traffic();
    r.background_flows = bg.started();
    r.background_completed = bg.completed();
    r.background_mean_fct = bg.mean_fct();
  }
  r.invariant_error = e.invariant_error();
  return r;
}

Scenario perftest_scenario(const PerftestOptions& o) {
  check_perftest_name(o.test);
  const bool lat = is_latency_test(o.test);
  auto p = std::make_shared<PerftestParams>();
  p->test = o.test;
  p->size = o.size >= 0 ? o.size : (lat ? 2 : 65536);
  p->iters = o.iters > 0 ? o.iters : (lat ? 1000 : 5000);
  p->tx_depth = o.tx_depth;
  if (p->size < 1 || p->size > (int64_t{1} << 32))
    throw std::invalid_argument("size must be between 1 and 4GiB");
  if (o.switches < 0 || o.switches > 16) throw std::invalid_argument("switches must be between 0 and 16");
  if (o.tx_depth < 1) throw std::invalid_argument("tx-depth must be at least 1");
  // What the iterations need at the very least, known before simulating:
  // each latency iteration is a round trip over every hop's propagation
  // delay; a bandwidth test serializes all its bytes at the link rate.
  const Time limit = Time::from_s(100);
  const int64_t hops = o.switches + 1;
  const __int128 at_least_ps = lat ? static_cast<__int128>(2 * hops * o.link.delay.ps()) * p->iters
                                   : o.link.rate.tx_time(Bytes(p->size * p->iters)).ps();
  if (at_least_ps > limit.ps())
    throw std::invalid_argument(std::to_string(p->iters) + " iterations need at least " +
                                fmt::format("{:.3f}", static_cast<double>(at_least_ps) / 1e12) +
                                " s of simulated time, more than the " + format_time(limit) +
                                " a perftest runs: ask for fewer (-n)");
  Scenario s;
  s.name = "perftest";
  s.file = "<perftest>";
  s.seed = o.seed;
  s.duration = limit;
  s.profile = o.fabric.name;
  s.fabric = o.fabric;
  s.topology.type = "chain";
  s.topology.switches = o.switches;
  s.topology.link = o.link;
  s.output.flows_csv = s.output.ports_csv = false;
  WorkloadSpec w;
  w.type = "perftest";
  w.params = std::move(p);
  s.workloads.push_back(std::move(w));
  return s;
}

PerftestResult run_perftest(const PerftestOptions& o, const RunProgress& progress) {
  Experiment e(perftest_scenario(o));
  e.run(progress);
  const PerftestWorkload& w = last_of<PerftestWorkload>(e);
  // A figure over fewer iterations than asked for would be printed as if complete.
  if (!w.finished())
    throw std::runtime_error("the iterations did not complete within the " +
                             format_time(e.scenario().duration) + " simulated limit; ask for fewer (-n)");
  PerftestResult r = w.result();
  r.invariant_error = e.invariant_error();
  return r;
}

Scenario osu_scenario(const OsuOptions& o) {
  if (o.np < 2 || o.np > 65536) throw std::invalid_argument("--np must be between 2 and 65536");
  if (o.hosts_per_leaf < 1 || o.hosts_per_leaf > 1024)
    throw std::invalid_argument("--hosts-per-leaf must be between 1 and 1024");
  const OsuBench b = osu_bench(o.params.benchmark);
  const bool two = b == OsuBench::kLatency || b == OsuBench::kBw || b == OsuBench::kBibw;
  if (two && o.np != 2)
    throw std::invalid_argument(o.params.benchmark + " runs on exactly two ranks (--np 2)");
  if (b == OsuBench::kMbwMr && o.np % 2 != 0)
    throw std::invalid_argument("osu_mbw_mr pairs rank i with rank i + np/2: --np must be even");
  if (o.params.min_size > o.params.max_size) throw std::invalid_argument("-m: MIN above MAX");
  check_mpi_config(o.params.mpi);
  Scenario s = tool_scenario("osu", o.seed, o.fabric);
  TopologySpec& t = s.topology;
  if (o.np <= o.hosts_per_leaf) {
    t.type = "star";
    t.hosts = o.np;
  } else {
    t.type = "leaf-spine";
    t.hosts_per_leaf = o.hosts_per_leaf;
    t.leaves = (o.np + o.hosts_per_leaf - 1) / o.hosts_per_leaf;
    t.spines = o.hosts_per_leaf;  // one uplink per host: non-blocking
  }
  t.link = t.fabric_link = o.link;
  if (o.fabric.ib.enabled) {
    const int64_t switches = t.type == "star" ? 1 : int64_t{t.leaves} + t.spines;
    if (o.np + switches > kMaxUnicastLids)
      throw std::invalid_argument(fmt::format(
          "--np {}: an InfiniBand subnet has at most {} unicast LIDs (IBTA Vol.1 4.1.3), one per rank's HCA "
          "and one per switch, and this job's {} switches leave room for {} ranks",
          o.np, kMaxUnicastLids, switches, kMaxUnicastLids - switches));
  }
  auto p = std::make_shared<OsuParams>(o.params);
  p->ranks = o.np;
  add_workload(s, "osu", std::move(p));
  return s;
}

OsuRun run_osu(const OsuOptions& o, const RunProgress& progress) {
  return run_tool<OsuRun>(osu_scenario(o), progress,
                          "the benchmark did not finish; ask for fewer iterations (-i)", osu_workload_result);
}

Scenario fio_scenario(const FioOptions& o) {
  if (o.initiators < 1 || o.targets < 1 || o.initiators + o.targets > 4096)
    throw std::invalid_argument(
        "--initiators and --targets must be at least 1 (and 4096 hosts in all at most)");
  if (o.params.bs < 512 || o.params.bs % 512 != 0)
    throw std::invalid_argument("--bs must be a multiple of the 512 B logical block");
  if (o.params.iodepth < 1 || o.params.iodepth > 65535)
    throw std::invalid_argument("--iodepth must be 1..65535");
  if (o.params.numjobs < 1 || o.params.numjobs > 4096)
    throw std::invalid_argument("--numjobs must be 1..4096");
  if (o.params.runtime <= Time::zero()) throw std::invalid_argument("--runtime must be positive");
  if (o.params.runtime + o.params.ramp_time > Time::from_s(10))
    throw std::invalid_argument("--runtime plus --ramp_time above 10 s of simulated time: ask for less");
  Scenario s = tool_scenario("fio", o.seed, o.fabric);
  s.topology.type = "star";
  s.topology.hosts = o.initiators + o.targets;
  s.topology.link = s.topology.fabric_link = o.link;
  auto p = std::make_shared<NvmeofParams>(o.params);
  p->initiators.clear();
  p->targets.clear();
  for (int i = 0; i < o.initiators; ++i) p->initiators.push_back(i);
  for (int t = 0; t < o.targets; ++t) p->targets.push_back(o.initiators + t);
  add_workload(s, "nvmeof", std::move(p));
  return s;
}

FioRun run_fio(const FioOptions& o, const RunProgress& progress) {
  return run_tool<FioRun>(fio_scenario(o), progress, "the jobs did not finish", nvmeof_result);
}

}  // namespace rdmasim
