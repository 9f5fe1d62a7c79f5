#include "training/training_workload.h"

#include <fmt/format.h>

#include <stdexcept>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "training/presets.h"

namespace rdmasim {
namespace {

int servers_needed(const TrainingRunOptions& o) {
  const int G = o.cluster.gpus_per_server;
  return (o.train.par.gpus() + G - 1) / G;
}

void parse_training(const CfgNode& w, const Scenario& s, WorkloadSpec& ws) {
  auto p = std::make_shared<TrainingParams>();
  TrainingRunOptions& o = p->run;
  std::vector<std::string> presets = model_preset_names();
  o.train.model =
      model_preset(w.choice("model", std::vector<std::string_view>(presets.begin(), presets.end())));
  ModelConfig& m = o.train.model;
  m.params = w.real("params", m.params, 1.0, 1e15);
  m.layers = static_cast<int>(w.integer("layers", m.layers, 1, 100000));
  m.hidden = static_cast<int>(w.integer("hidden", m.hidden, 1, 1 << 20));
  m.seq_len = static_cast<int>(w.integer("seq", m.seq_len, 1, 1 << 22));
  // The same defaults as `rdmasim train`.
  m.micro_batch = static_cast<int>(w.integer("micro_batch", 1, 1, 1 << 16));
  m.micro_batches = static_cast<int>(w.integer("micro_batches", 8, 1, 4096));
  ParallelConfig& par = o.train.par;
  par.tp = static_cast<int>(w.integer("tp", 2, 1, 64));
  par.pp = static_cast<int>(w.integer("pp", 2, 1, 1024));
  par.dp = static_cast<int>(w.integer("dp", 4, 1, 4096));
  par.ep = static_cast<int>(w.integer("ep", 1, 1, 4096));
  o.train.gpu.peak_tflops = w.real("peak_tflops", o.train.gpu.peak_tflops, 1e-3, 1e9);
  o.train.gpu.mfu = w.real("mfu", o.train.gpu.mfu, 1e-6, 1.0);
  o.train.bucket_bytes = w.bytes("bucket", Bytes(o.train.bucket_bytes)).count();
  const int natural = s.topology.type == "servers" ? s.topology.gpus_per_server : 8;
  o.cluster.gpus_per_server = static_cast<int>(w.integer("gpus_per_server", natural, 1, 64));
  o.dp_algo = algo_from_name(w.choice("dp_algo", {"ring", "tree", "hierarchical", "sharp"}, "ring"));
  o.comm.qps_per_conn = static_cast<int>(w.integer("qps", 1, 1, 64));
  try {
    validate_training(o.train, o.cluster.gpus_per_server);
  } catch (const std::invalid_argument& e) {
    throw w.error("", e.what());
  }
  ws.params = std::move(p);
}

void check_training(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario& s) {
  const TrainingRunOptions& o = static_cast<const TrainingParams&>(*ws.params).run;
  if (s.topology.type == "servers" && o.cluster.gpus_per_server != s.topology.gpus_per_server)
    throw item.error("gpus_per_server", "expected the topology's " +
                                            std::to_string(s.topology.gpus_per_server) + " GPUs per server");
  const int need = servers_needed(o) * o.cluster.gpus_per_server;
  if (t.num_hosts() < need)
    throw item.error("", "the layout needs " + std::to_string(need) + " GPUs (" +
                             std::to_string(servers_needed(o)) + " servers of " +
                             std::to_string(o.cluster.gpus_per_server) + "), the topology has " +
                             std::to_string(t.num_hosts()) + " hosts");
}

void echo_training(const WorkloadSpec& ws, nlohmann::ordered_json& j) {
  const TrainingRunOptions& o = static_cast<const TrainingParams&>(*ws.params).run;
  const ModelConfig& m = o.train.model;
  j["model"] = m.name;
  j["params"] = m.params;
  j["layers"] = m.layers;
  j["hidden"] = m.hidden;
  j["seq"] = m.seq_len;
  j["micro_batch"] = m.micro_batch;
  j["micro_batches"] = m.micro_batches;
  j["tp"] = o.train.par.tp;
  j["pp"] = o.train.par.pp;
  j["dp"] = o.train.par.dp;
  j["ep"] = o.train.par.ep;
  j["peak_tflops"] = o.train.gpu.peak_tflops;
  j["mfu"] = o.train.gpu.mfu;
  j["bucket"] = format_bytes(Bytes(o.train.bucket_bytes));
  j["gpus_per_server"] = o.cluster.gpus_per_server;
  j["dp_algo"] = algo_name(o.dp_algo);
  j["qps"] = o.comm.qps_per_conn;
}

std::unique_ptr<Workload> make_training(const WorkloadSpec& ws) {
  return std::make_unique<TrainingWorkload>(ws);
}

nlohmann::ordered_json coll_stats(const CollStats& c) {
  return {{"count", c.count}, {"total_ms", c.total.us() / 1e3}, {"mean_busbw_GBps", c.busbw}};
}

}  // namespace

TrainingWorkload::TrainingWorkload(const WorkloadSpec& spec)
    : p_(static_cast<const TrainingParams&>(*spec.params)) {}

TrainingWorkload::~TrainingWorkload() = default;

void TrainingWorkload::setup(WorkloadContext& ctx) {
  ClusterConfig cc = p_.run.cluster;
  cc.servers = servers_needed(p_.run);
  cc.nic_link.rate = ctx.fabric.nic(0).port(0).rate();
  cluster_ = std::make_unique<GpuCluster>(cc, ctx.sim, ctx.fabric);
  iteration_ = std::make_unique<TrainingIteration>(*cluster_, p_.run);
}

void TrainingWorkload::start(WorkloadContext&) { iteration_->start(); }

const TrainingResult& TrainingWorkload::result() const {
  if (!result_) result_ = iteration_->summarize();
  return *result_;
}

void TrainingWorkload::report(nlohmann::ordered_json& out) const {
  out["type"] = "training";
  out["finished"] = finished();
  if (!finished()) return;
  const TrainingResult& r = result();
  out["iteration_ms"] = r.iteration.us() / 1e3;
  out["compute_per_stage_ms"] = r.compute_per_stage.us() / 1e3;
  out["analytic_compute_ms"] = r.analytic_compute.us() / 1e3;
  out["communication_stage0_ms"] = r.comm_time.us() / 1e3;
  out["exposed_communication_ms"] = r.exposed_comm.us() / 1e3;
  out["exposed_share"] = r.exposed_share;
  out["tp_allreduce"] = coll_stats(r.tp);
  out["moe_alltoall"] = coll_stats(r.moe);
  out["dp_allreduce"] = coll_stats(r.dp);
  out["pp_sendrecv"] = coll_stats(r.pp);
}

std::string TrainingWorkload::summary() const {
  const auto& par = p_.run.train.par;
  if (!finished())
    return fmt::format("training {} tp {} pp {} dp {} ep {}: the iteration did not finish\n",
                       p_.run.train.model.name, par.tp, par.pp, par.dp, par.ep);
  const TrainingResult& r = result();
  return fmt::format(
      "training {} tp {} pp {} dp {} ep {}: iteration {:.3f} ms, exposed communication {:.3f} ms "
      "({:.1f}%)\n",
      p_.run.train.model.name, par.tp, par.pp, par.dp, par.ep, r.iteration.us() / 1e3,
      r.exposed_comm.us() / 1e3, 100 * r.exposed_share);
}

const WorkloadType& training_workload_type() {
  static const WorkloadType t{"training", parse_training, check_training, echo_training, make_training};
  return t;
}

}  // namespace rdmasim
