#include "collective/collective_workload.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "workload/workload_keys.h"

namespace rdmasim {

void NcclProtoSetCodec::read(const CfgNode& n, const char* key, ProtoSet& set) {
  try {
    set = parse_nccl_proto(n.str(key));
  } catch (const std::invalid_argument& e) {
    throw n.error(key, e.what());
  }
}

void NcclVersionCodec::read(const CfgNode& n, const char* key, int& minor) {
  try {
    minor = parse_nccl_version(n.str(key));
  } catch (const std::invalid_argument& e) {
    throw n.error(key, e.what());
  }
}

namespace {

// Servers of a topology that has them: the natural GPUs per server.
int topology_gpus_per_server(const TopologySpec& ts) {
  if (ts.type == "servers") return ts.gpus_per_server;
  if (ts.type == "leaf-spine") return ts.hosts_per_leaf;
  return 1;
}

constexpr Names<CollType> kCollNames = {{"all_reduce", CollType::kAllReduce},
                                        {"all_gather", CollType::kAllGather},
                                        {"reduce_scatter", CollType::kReduceScatter},
                                        {"broadcast", CollType::kBroadcast},
                                        {"reduce", CollType::kReduce},
                                        {"alltoall", CollType::kAllToAll},
                                        {"sendrecv", CollType::kSendRecv}};
// NCCL_ALGO in NCCL's own syntax (parse_nccl_algo).
struct NcclAlgoCodec {
  static void read(const CfgNode& n, const char* key, PlanRequest& r) {
    try {
      set_nccl_algo(r, parse_nccl_algo(n.str(key)));
    } catch (const std::invalid_argument& e) {
      throw n.error(key, e.what());
    }
  }
  static nlohmann::ordered_json echo(const PlanRequest& r) { return nccl_algo_text(nccl_algo_of(r)); }
  static std::string form() {
    return "auto, ring, tree, hierarchical, pairwise, sharp, nvls or nvlstree; or NCCL_ALGO's list "
           "(ring,tree) "
           "or exclusion (^nvls,nvlstree)";
  }
};
// NCCL_PROTO on the collective's request: unset, one protocol forced, or a list.
struct NcclProtoCodec {
  static void read(const CfgNode& n, const char* key, PlanRequest& r) {
    ProtoSet set = 0;
    NcclProtoSetCodec::read(n, key, set);
    set_nccl_proto(r, set);
  }
  static nlohmann::ordered_json echo(const PlanRequest& r) { return nccl_proto_text(nccl_proto_of(r)); }
  static std::string form() { return NcclProtoSetCodec::form(); }
};
constexpr Names<GpuArch> kGpuArchNames = {{"hopper", GpuArch::kHopper},
                                          {"ampere", GpuArch::kAmpere},
                                          {"volta", GpuArch::kVolta},
                                          {"blackwell", GpuArch::kBlackwell}};

struct CollectiveKeys {
  static constexpr std::string_view kName = "collective";
  static void prepare(const Scenario* s, WorkloadSpec& ws) {
    auto p = std::make_shared<CollectiveParams>();
    p->req.channels = 0;  // auto
    p->req.tune_algo = p->req.tune_proto = true;
    if (s != nullptr) p->gpus_per_server = topology_gpus_per_server(s->topology);
    ws.params = std::move(p);
  }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<CollectiveParams>(ws);
    PlanRequest& r = p.req;
    v.time({"start", "when the collective is launched"}, ws.start);
    v.choice(Key{"op", "the NCCL collective", kRequired}, r.type, kCollNames);
    if constexpr (V::kReads) r.algo = default_algo(r.type);
    v.custom({"algo",
              "the algorithm (NCCL_ALGO); auto: NCCL's tuner picks ring, tree, nvls or nvlstree per size "
              "(pairwise for alltoall/sendrecv); a list or an exclusion leaves the tuner those; nvls across "
              "servers runs with IB SHARP (CollNet)"},
             r, NcclAlgoCodec{});
    v.check(!r.tune_algo || r.algo_set == 0 || default_algo(r.type) == Algo::kRing, "algo",
            std::string("expected one algorithm or auto for ") + coll_name(r.type) +
                ": NCCL's tuner does not choose its algorithm");
    v.custom({"proto",
              "the protocol (NCCL_PROTO): LL, LL128 or Simple; auto: NCCL's tuner picks per size; a list or "
              "an exclusion leaves the tuner those protocols"},
             r, NcclProtoCodec{});
    const ProtoSet protos = nccl_proto_of(r);
    const bool simple = protos == 0 || (protos & proto_bit(Proto::kSimple)) != 0;
    v.check(
        r.tune_algo || r.algo != Algo::kSharp || simple, "proto",
        "expected a setting with Simple, or auto, with algo sharp: NCCL's CollNet runs the Simple protocol "
        "only");
    v.check(r.tune_algo || (r.algo != Algo::kNvls && r.algo != Algo::kNvlsTree) || simple, "proto",
            "expected a setting with Simple, or auto, with algo nvls/nvlstree: NVLink SHARP runs the Simple "
            "protocol only");
    v.check(
        r.tune_algo || algo_applies(r.type, r.algo), "algo",
        std::string("expected an algorithm that implements ") + coll_name(r.type) +
            " (ring/tree/hierarchical/sharp/nvls/nvlstree: all_reduce; ring/hierarchical/nvls: all_gather, "
            "reduce_scatter; ring: broadcast, reduce; pairwise: alltoall, sendrecv)");
    v.size(Key{"size", "bytes per rank, as nccl-tests' size", kRequired}, r.bytes);
    v.count_or({"channels",
                "NCCL channels (rings/trees in parallel) as its topology search counts them (NCCL runs "
                "each twice: 8 are its 16 execution channels); auto: one per GPU of a server, at least "
                "2, and fewer for a small size as NCCL 2.24 gives them; a number: that many at every "
                "size"},
               r.channels, "auto", 1, 64);
    v.size_or(
        {"chunk",
         "payload of one transfer, the unit a receiver forwards; auto: the protocol's (Simple: a slice, "
         "1 MiB for ring all_reduce/all_gather/reduce_scatter, else 512 KiB, halved for mid-size trees; "
         "LL 2 KiB and LL128 28,800 B, a warp's share of a step)"},
        r.chunk, "auto");
    if (has_root(r.type))
      v.count({"root", "rank that broadcast sends from or reduce collects to"}, r.root, 0, 1 << 20);
    else
      v.refuse("root", "has no effect: only broadcast and reduce have a root");
    if (r.type == CollType::kAllToAll || r.type == CollType::kSendRecv)
      v.flag({"pxn",
              "PXN (NCCL_PXN_DISABLE=0, NCCL's default): a chunk for another rail crosses NVLink to the "
              "GPU on the destination's rail and leaves through its NIC"},
             r.pxn);
    else
      v.refuse("pxn", "has no effect: PXN carries point-to-point traffic (alltoall, sendrecv) only");
    v.count({"qps", "QPs per connection (NCCL_IB_QPS_PER_CONNECTION)"}, p.comm.qps_per_conn, 1, 64);
    v.count(
        {"calls",
         "calls queued back to back on every rank, as nccl-tests -n; the time is then each rank's mean per "
         "call averaged over the ranks, as nccl-tests reports it (1: one call, until its last rank)"},
        p.comm.calls, 1, 1000);
    v.count({"gpus_per_server", "GPUs sharing one server's NVLink (default: the topology's)"},
            p.gpus_per_server, 1, 64);
    v.choice({"gpu_arch", "GPU generation, for NCCL's tuner (its bandwidth caps differ per generation)"},
             p.arch, kGpuArchNames);
    v.choice({"gpu_nic_path", kGpuNicPathDoc}, p.gpu_nic_path, kPciPathNames);
    v.choice({"host_cpu", kHostCpuDoc}, p.comm.host_cpu, kHostCpuNames);
    v.custom({"nccl_version", kNcclVersionDoc}, p.comm.nccl_minor, NcclVersionCodec{});
    v.time_auto(
        {"step_latency",
         "GPU time before a chunk moves over NVLink; auto: NCCL's per-hop latency for the algorithm and "
         "protocol less the NVLink latency (communicator.h step_costs)"},
        p.comm.step_latency);
    v.time_auto(
        {"net_latency",
         "GPU and proxy time before a chunk crosses the fabric; auto: NCCL's network hop latency less "
         "1us of fabric transit"},
        p.comm.net_latency);
    v.time_auto({"launch_latency", "fixed cost per collective call; auto: NCCL's base latency"},
                p.comm.launch_latency);
    // The NVLink of the generation asked for, unless the scenario sets it.
    p.nvlink.rate = gpu_class(p.arch).nvlink_rate();
    v.block({"nvlink", "the intra-server link"}, [&](auto& n) {
      n.rate({"rate",
              "per GPU, per direction; default: the gpu_arch's as NCCL counts it (volta 120, ampere 240, "
              "hopper 370.8, blackwell 721.8 GB/s; the data sheets' 150, 300, 450, 900)"},
             p.nvlink.rate);
      n.check(p.nvlink.rate.bps() > 0, "rate", "expected a positive rate");
      n.time({"latency", "per NVLink transfer"}, p.nvlink.latency);
    });
  }
};

void check_collective(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario& s) {
  const auto& p = static_cast<const CollectiveParams&>(*ws.params);
  const int hosts = t.num_hosts();
  if (s.topology.type == "servers" && p.gpus_per_server != s.topology.gpus_per_server)
    throw item.error("gpus_per_server", "expected the topology's " +
                                            std::to_string(s.topology.gpus_per_server) + " GPUs per server");
  if (hosts % p.gpus_per_server != 0)
    throw item.error("gpus_per_server", "expected a divisor of the topology's " + std::to_string(hosts) +
                                            " hosts (one GPU per host)");
  if (p.req.root >= hosts) throw item.error("root", "expected a rank below " + std::to_string(hosts));
  if (hosts < 2) throw item.error("type", "expected a topology with at least 2 hosts for a collective");
  if (item.has("host_cpu") && hosts / p.gpus_per_server == 1) throw item.error("host_cpu", kHostCpuOneServer);
  if (p.req.algo == Algo::kSharp)
    if (const std::string why = sharp_unavailable(s.fabric, "set fabric.sharp.enabled: true"); !why.empty())
      throw item.error("algo", why);
  if (p.req.tune_algo && p.req.algo_set != 0) {
    TunerSystem sys;
    sys.shape = CommShape{hosts / p.gpus_per_server, p.gpus_per_server};
    sys.arch = p.arch;
    if (nccl_candidate_algos(p.req, sys).empty())
      throw item.error("algo", "NCCL_ALGO " + nccl_algo_text(p.req.algo_set) +
                                   " leaves no algorithm that runs " + coll_name(p.req.type) + " on " +
                                   std::to_string(sys.shape.servers) + " servers of " +
                                   std::to_string(sys.shape.gpus) + " " + gpu_arch_name(sys.arch) + " GPUs");
  }
  if (!p.req.tune_algo && (p.req.algo == Algo::kNvls || p.req.algo == Algo::kNvlsTree)) {
    TunerSystem sys;
    sys.shape = CommShape{hosts / p.gpus_per_server, p.gpus_per_server};
    sys.arch = p.arch;
    if (const std::string why = nvls_unavailable(p.req.algo, sys, p.req.type); !why.empty())
      throw item.error("algo", why);
    if (p.req.algo == Algo::kNvls && sys.shape.servers > 1)
      if (const std::string why = sharp_unavailable(s.fabric, "set fabric.sharp.enabled: true"); !why.empty())
        throw item.error(
            "algo", "nvls across servers runs with IB SHARP (NCCL's CollNet): " + why + "; or use nvlstree");
  }
}

std::unique_ptr<Workload> make_collective(const WorkloadSpec& ws) {
  return std::make_unique<CollectiveWorkload>(ws);
}

struct BackgroundKeys {
  static constexpr std::string_view kName = "background";
  static void prepare(const Scenario*, WorkloadSpec& ws) { ws.params = std::make_shared<BackgroundParams>(); }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<BackgroundParams>(ws);
    v.path(Key{"cdf", "flow-size distribution of the background flows (HPCC traffic_gen format)", kRequired},
           p.file);
    v.fraction(Key{"load", "offered load as a share of each NIC's rate (Poisson arrivals)", kRequired},
               p.cfg.load);
    v.check(p.cfg.load > 0.0, "load", "expected a load in (0, 1], e.g. 0.2 or 20%");
    v.time({"horizon", "how long new background flows keep arriving"}, p.cfg.horizon, kPositive);
  }
  static void after_read(const CfgNode&, WorkloadSpec& ws) {
    auto& p = params_of<BackgroundParams>(ws);
    p.sizes = FlowSizeCdf::load(p.file);
  }
};

void check_background(const CfgNode& item, const WorkloadSpec&, const Topology& t, const Scenario&) {
  if (t.num_hosts() < 2) throw item.error("type", "expected a topology with at least 2 hosts for background");
}

std::unique_ptr<Workload> make_background(const WorkloadSpec& ws) {
  return std::make_unique<BackgroundWorkload>(ws);
}

}  // namespace

int resolved_channels(const PlanRequest& r, int gpus_per_server) {
  return r.channels > 0 ? r.channels : std::max(2, gpus_per_server);
}

CollectiveWorkload::CollectiveWorkload(const WorkloadSpec& spec)
    : spec_(spec), p_(static_cast<const CollectiveParams&>(*spec.params)), req_(p_.req) {}

CollectiveWorkload::~CollectiveWorkload() = default;

ClusterConfig CollectiveWorkload::cluster_config(const Topology& t, Rate nic_rate) const {
  ClusterConfig cc;
  cc.gpus_per_server = p_.gpus_per_server;
  cc.servers = t.num_hosts() / p_.gpus_per_server;
  cc.nvlink = p_.nvlink;
  cc.arch = p_.arch;
  cc.gpu_nic_path = p_.gpu_nic_path;
  cc.nic_link.rate = nic_rate;
  return cc;
}

void CollectiveWorkload::setup(WorkloadContext& ctx) {
  cluster_ = std::make_unique<GpuCluster>(
      cluster_config(ctx.fabric.topology(), ctx.fabric.nic(0).port(0).rate()), ctx.sim, ctx.fabric);
  finish_setup(ctx.sim);
}

void CollectiveWorkload::setup_on(Simulation& sim, CollectiveNetwork& net, Rate nic_rate) {
  cluster_ = std::make_unique<GpuCluster>(cluster_config(net.topology(), nic_rate), sim, net);
  finish_setup(sim);
}

void CollectiveWorkload::finish_setup(Simulation& sim) {
  sim_ = &sim;
  comm_ = std::make_unique<Communicator>(*cluster_, p_.comm);
  req_.channels = resolved_channels(p_.req, p_.gpus_per_server);
  req_.size_channels = p_.req.channels == 0;
}

void CollectiveWorkload::start(WorkloadContext& ctx) { start_on(ctx.sim); }

void CollectiveWorkload::start_on(Simulation& sim) {
  // At time zero the launch happens before any event runs, as a stand-alone
  // nccl-tests run does.
  if (spec_.start <= sim.now())
    on_event(0, 0);
  else
    sim.schedule(spec_.start, this, 0, 0);
}

void CollectiveWorkload::on_event(uint32_t, uint64_t) {
  begin_ = sim_->now();
  comm_->start(req_, 0, this);
}

void CollectiveWorkload::on_collective_done(uint32_t, uint64_t, Time start, Time end) {
  begin_ = start;
  end_ = end;
  done_ = true;
}

double CollectiveWorkload::algbw_gbps() const {
  const Time t = done_ ? time_per_call() : Time::zero();
  return done_ && t.ps() > 0 ? static_cast<double>(req_.bytes) / t.sec() / 1e9 : 0;
}

double CollectiveWorkload::busbw_gbps() const { return algbw_gbps() * busbw_factor(req_.type, ranks()); }

void CollectiveWorkload::report(nlohmann::ordered_json& out) const {
  out["type"] = "collective";
  out["finished"] = done_;
  out["op"] = coll_name(req_.type);
  out["algo"] = algo_name(comm_->last_algo());
  out["proto"] = proto_name(comm_->last_proto());
  out["tuned"] = req_.tune_algo || req_.tune_proto;
  out["nccl_model_us"] = done_ ? comm_->nccl_predicted_us() : 0.0;
  out["sharp_fallback"] = done_ && sharp_fallback();
  out["ranks"] = ranks();
  out["channels"] = done_ ? comm_->last_channels() : req_.channels;  // NCCL gives small sizes fewer
  out["size_bytes"] = req_.bytes;
  out["start_ns"] = begin_.ns();
  out["time_us"] = done_ ? time_per_call().us() : 0.0;
  out["algbw_GBps"] = algbw_gbps();
  out["busbw_GBps"] = busbw_gbps();
  out["fabric_bytes"] = done_ ? fabric_bytes() : 0;
  out["qps_per_nic_max"] = comm_->qps_per_nic_max();
  if (const std::string why = comm_->stop_reason(); !why.empty()) out["stopped"] = why;
}

std::string CollectiveWorkload::summary() const {
  if (!done_) {
    const std::string why = comm_->stop_reason();
    return fmt::format("collective {} {}: {} B over {} ranks did not finish{}{}\n", coll_name(req_.type),
                       algo_name(req_.algo), req_.bytes, ranks(), why.empty() ? "" : ": ", why);
  }
  return fmt::format(
      "collective {} {}/{}: {} B over {} ranks in {:.2f} us, algbw {:.2f} GB/s, busbw {:.2f} GB/s\n",
      coll_name(req_.type), algo_name(comm_->last_algo()), proto_name(comm_->last_proto()), req_.bytes,
      ranks(), time_per_call().us(), algbw_gbps(), busbw_gbps());
}

BackgroundWorkload::BackgroundWorkload(const WorkloadSpec& spec)
    : p_(static_cast<const BackgroundParams&>(*spec.params)) {}

void BackgroundWorkload::setup(WorkloadContext& ctx) {
  traffic_ = std::make_unique<BackgroundTraffic>(ctx.sim, ctx.fabric, ctx.fabric.topology().num_hosts(),
                                                 ctx.fabric.nic(0).port(0).rate(), *p_.sizes, p_.cfg);
}

void BackgroundWorkload::report(nlohmann::ordered_json& out) const {
  out["type"] = "background";
  out["flows"] = traffic_->flows();
  out["started"] = traffic_->started();
  out["completed"] = traffic_->completed();
  out["bytes_completed"] = traffic_->bytes_completed();
  out["mean_fct_us"] = traffic_->mean_fct().us();
}

std::string BackgroundWorkload::summary() const {
  return fmt::format("background {} flows started, {} completed, mean FCT {:.1f} us\n", traffic_->started(),
                     traffic_->completed(), traffic_->mean_fct().us());
}

const WorkloadType& collective_workload_type() {
  static const WorkloadType t = keyed_type<CollectiveKeys>(check_collective, make_collective);
  return t;
}

const WorkloadType& background_workload_type() {
  static const WorkloadType t = keyed_type<BackgroundKeys>(check_background, make_background);
  return t;
}

}  // namespace rdmasim
