#include "collective/collective_workload.h"

#include <fmt/format.h>

#include <stdexcept>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"

namespace rdmasim {
namespace {

bool has_root(CollType t) { return t == CollType::kBroadcast || t == CollType::kReduce; }

// Servers of a topology that has them: the natural GPUs per server.
int topology_gpus_per_server(const TopologySpec& ts) {
  if (ts.type == "servers") return ts.gpus_per_server;
  if (ts.type == "leaf-spine") return ts.hosts_per_leaf;
  return 1;
}

void parse_collective(const CfgNode& w, const Scenario& s, WorkloadSpec& ws) {
  auto p = std::make_shared<CollectiveParams>();
  ws.start = w.time("start", Time::zero());
  PlanRequest& r = p->req;
  r.type = coll_from_name(w.choice(
      "op", {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}));
  r.algo = algo_from_name(w.choice("algo", {"ring", "tree", "hierarchical", "pairwise", "sharp"},
                                   algo_name(default_algo(r.type))));
  if (!algo_applies(r.type, r.algo))
    throw w.error("algo", std::string("expected an algorithm that implements ") + coll_name(r.type) +
                              " (ring/tree/hierarchical/sharp: all_reduce; ring/hierarchical: all_gather, "
                              "reduce_scatter; ring: broadcast, reduce; pairwise: alltoall, sendrecv)");
  r.bytes = w.bytes("size").count();
  if (r.bytes < 0) throw w.error("size", "expected a size of at least 0B");
  r.channels = w.has("channels") ? static_cast<int>(w.integer("channels", 1, 64)) : 0;
  r.chunk = w.bytes("chunk", Bytes(r.chunk)).count();
  if (r.chunk < 1) throw w.error("chunk", "expected a chunk of at least 1B");
  // A root only means something to the rooted collectives: elsewhere it is refused as unknown.
  if (has_root(r.type)) r.root = static_cast<int>(w.integer("root", 0, 0, 1 << 20));
  p->comm.qps_per_conn = static_cast<int>(w.integer("qps", 1, 1, 64));
  p->gpus_per_server =
      static_cast<int>(w.integer("gpus_per_server", topology_gpus_per_server(s.topology), 1, 64));
  p->comm.step_latency = w.time("step_latency", p->comm.step_latency);
  p->comm.launch_latency = w.time("launch_latency", p->comm.launch_latency);
  if (auto n = w.opt_child("nvlink")) {
    p->nvlink.rate = n->rate("rate", p->nvlink.rate);
    if (p->nvlink.rate.bps() <= 0) throw n->error("rate", "expected a positive rate");
    p->nvlink.latency = n->time("latency", p->nvlink.latency);
    n->finish();
  }
  ws.params = std::move(p);
}

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
}

void echo_collective(const WorkloadSpec& ws, nlohmann::ordered_json& j) {
  const auto& p = static_cast<const CollectiveParams&>(*ws.params);
  j["start"] = format_time(ws.start);
  j["op"] = coll_name(p.req.type);
  j["algo"] = algo_name(p.req.algo);
  j["size"] = format_bytes(Bytes(p.req.bytes));
  if (p.req.channels > 0)
    j["channels"] = p.req.channels;
  else
    j["channels"] = "auto";
  j["chunk"] = format_bytes(Bytes(p.req.chunk));
  if (has_root(p.req.type)) j["root"] = p.req.root;
  j["qps"] = p.comm.qps_per_conn;
  j["gpus_per_server"] = p.gpus_per_server;
  j["step_latency"] = format_time(p.comm.step_latency);
  j["launch_latency"] = format_time(p.comm.launch_latency);
  j["nvlink"] = {{"rate", format_rate(p.nvlink.rate)}, {"latency", format_time(p.nvlink.latency)}};
}

std::unique_ptr<Workload> make_collective(const WorkloadSpec& ws) {
  return std::make_unique<CollectiveWorkload>(ws);
}

void parse_background(const CfgNode& w, const Scenario&, WorkloadSpec& ws) {
  auto p = std::make_shared<BackgroundParams>();
  p->file = resolve_data_path(w, "cdf", w.str("cdf"));
  p->sizes = FlowSizeCdf::load(p->file);
  p->cfg.load = w.fraction("load");
  if (!(p->cfg.load > 0.0 && p->cfg.load <= 1.0))
    throw w.error("load", "expected a load in (0, 1], e.g. 0.2 or 20%");
  p->cfg.horizon = w.time("horizon", p->cfg.horizon);
  if (p->cfg.horizon <= Time::zero()) throw w.error("horizon", "expected a positive arrival horizon");
  ws.params = std::move(p);
}

void check_background(const CfgNode& item, const WorkloadSpec&, const Topology& t, const Scenario&) {
  if (t.num_hosts() < 2) throw item.error("type", "expected a topology with at least 2 hosts for background");
}

void echo_background(const WorkloadSpec& ws, nlohmann::ordered_json& j) {
  const auto& p = static_cast<const BackgroundParams&>(*ws.params);
  j["cdf"] = p.file;
  j["load"] = p.cfg.load;
  j["horizon"] = format_time(p.cfg.horizon);
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

void CollectiveWorkload::setup(WorkloadContext& ctx) {
  sim_ = &ctx.sim;
  ClusterConfig cc;
  cc.gpus_per_server = p_.gpus_per_server;
  cc.servers = ctx.fabric.topology().num_hosts() / p_.gpus_per_server;
  cc.nvlink = p_.nvlink;
  cc.sharp = p_.sharp;
  cc.nic_link.rate = ctx.fabric.nic(0).port(0).rate();
  cluster_ = std::make_unique<GpuCluster>(cc, ctx.sim, ctx.fabric);
  comm_ = std::make_unique<Communicator>(*cluster_, p_.comm);
  req_.channels = resolved_channels(p_.req, p_.gpus_per_server);
}

void CollectiveWorkload::start(WorkloadContext& ctx) {
  // At time zero the launch happens before any event runs, as a stand-alone
  // nccl-tests run does.
  if (spec_.start <= ctx.sim.now())
    on_event(0, 0);
  else
    ctx.sim.schedule(spec_.start, this, 0, 0);
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
  const Time t = duration();
  return done_ && t.ps() > 0 ? static_cast<double>(req_.bytes) / t.sec() / 1e9 : 0;
}

double CollectiveWorkload::busbw_gbps() const { return algbw_gbps() * busbw_factor(req_.type, ranks()); }

void CollectiveWorkload::report(nlohmann::ordered_json& out) const {
  out["type"] = "collective";
  out["finished"] = done_;
  out["op"] = coll_name(req_.type);
  out["algo"] = algo_name(comm_->last_algo());
  out["sharp_fallback"] = done_ && sharp_fallback();
  out["ranks"] = ranks();
  out["channels"] = req_.channels;
  out["size_bytes"] = req_.bytes;
  out["start_ns"] = begin_.ns();
  out["time_us"] = done_ ? duration().us() : 0.0;
  out["algbw_GBps"] = algbw_gbps();
  out["busbw_GBps"] = busbw_gbps();
  out["fabric_bytes"] = done_ ? fabric_bytes() : 0;
}

std::string CollectiveWorkload::summary() const {
  if (!done_)
    return fmt::format("collective {} {}: {} B over {} ranks did not finish\n", coll_name(req_.type),
                       algo_name(req_.algo), req_.bytes, ranks());
  return fmt::format(
      "collective {} {}: {} B over {} ranks in {:.2f} us, algbw {:.2f} GB/s, busbw {:.2f} GB/s\n",
      coll_name(req_.type), algo_name(comm_->last_algo()), req_.bytes, ranks(), duration().us(), algbw_gbps(),
      busbw_gbps());
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
  static const WorkloadType t{"collective", parse_collective, check_collective, echo_collective,
                              make_collective};
  return t;
}

const WorkloadType& background_workload_type() {
  static const WorkloadType t{"background", parse_background, check_background, echo_background,
                              make_background};
  return t;
}

}  // namespace rdmasim
