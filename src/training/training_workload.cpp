#include "training/training_workload.h"

#include <fmt/format.h>

#include <stdexcept>

#include "collective/collective_workload.h"
#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/fabric.h"
#include "sharp/sharp_data_path.h"
#include "training/presets.h"
#include "workload/workload_keys.h"

namespace rdmasim {
namespace {

int servers_needed(const TrainingRunOptions& o) {
  const int G = o.cluster.gpus_per_server;
  return (o.train.par.gpus() + G - 1) / G;
}

struct TrainingKeys {
  static constexpr std::string_view kName = "training";
  // The same defaults as `rdmasim train`.
  static void prepare(const Scenario* s, WorkloadSpec& ws) {
    auto p = std::make_shared<TrainingParams>();
    TrainingRunOptions& o = p->run;
    o.train.model.micro_batch = 1;
    o.train.model.micro_batches = 8;
    o.train.par.tp = 2;
    o.train.par.pp = 2;
    o.train.par.dp = 4;
    o.train.par.ep = 1;
    o.cluster.gpus_per_server =
        s != nullptr && s->topology.type == "servers" ? s->topology.gpus_per_server : 8;
    o.dp_algo.reset();
    o.comm.qps_per_conn = 1;
    ws.params = std::move(p);
  }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    TrainingRunOptions& o = params_of<TrainingParams>(ws).run;
    ModelConfig& m = o.train.model;
    v.choice(Key{"model", "model preset: its parameters, layers, hidden size and sequence length", kRequired},
             m.name, model_preset_names());
    if constexpr (V::kReads) {
      // The preset, with the batch defaults of `rdmasim train` rather than its own.
      ModelConfig preset = model_preset(m.name);
      preset.micro_batch = m.micro_batch;
      preset.micro_batches = m.micro_batches;
      m = preset;
    }
    v.real({"params", "parameter count (overrides the preset's)"}, m.params, 1.0, 1e15);
    v.count({"layers", "transformer layers"}, m.layers, 1, 100000);
    v.count({"hidden", "hidden size (d_model)"}, m.hidden, 1, 1 << 20);
    v.count({"seq", "sequence length in tokens"}, m.seq_len, 1, 1 << 22);
    v.count({"micro_batch", "sequences per micro-batch"}, m.micro_batch, 1, 1 << 16);
    v.count({"micro_batches", "micro-batches per iteration (pipeline depth of work)"}, m.micro_batches, 1,
            4096);
    v.count({"tp", "tensor-parallel degree (inside a server, over NVLink)"}, o.train.par.tp, 1, 64);
    v.count({"pp", "pipeline-parallel stages"}, o.train.par.pp, 1, 1024);
    v.count({"dp", "data-parallel replicas (AllReduce of gradients over the fabric)"}, o.train.par.dp, 1,
            4096);
    v.count({"ep", "expert-parallel degree (alltoall per MoE layer); 1: dense"}, o.train.par.ep, 1, 4096);
    // A dense model has no expert layers to spread: ep would be read and do nothing.
    v.check(o.train.par.ep == 1 || m.moe_every > 0, "ep",
            "has no effect: model '" + m.name + "' is dense (no mixture-of-experts layers): expected 1");
    v.real({"peak_tflops", "GPU peak dense TFLOPS"}, o.train.gpu.peak_tflops, 1e-3, 1e9);
    v.real({"mfu", "model FLOPs utilisation the compute phases achieve"}, o.train.gpu.mfu, 1e-6, 1.0);
    v.size({"bucket", "gradient bucket: bytes per data-parallel AllReduce"}, o.train.bucket_bytes);
    v.count({"gpus_per_server", "GPUs per server (default: the topology's, else 8)"},
            o.cluster.gpus_per_server, 1, 64);
    v.choice({"dp_algo", "AllReduce algorithm of the gradient buckets; auto: NCCL's tuner picks per bucket"},
             o.dp_algo,
             {{"auto", std::optional<Algo>()},
              {"ring", std::optional<Algo>(Algo::kRing)},
              {"tree", std::optional<Algo>(Algo::kTree)},
              {"hierarchical", std::optional<Algo>(Algo::kHierarchical)},
              {"sharp", std::optional<Algo>(Algo::kSharp)}});
    v.count({"qps", "QPs per connection (NCCL_IB_QPS_PER_CONNECTION)"}, o.comm.qps_per_conn, 1, 64);
    v.custom({"nccl_proto",
              "NCCL_PROTO for the iteration's collectives (its point-to-point sends keep NCCL's own choice); "
              "auto: NCCL's tuner and its rules"},
             o.nccl_proto, NcclProtoSetCodec{});
    v.choice({"gpu_nic_path", kGpuNicPathDoc}, o.cluster.gpu_nic_path, kPciPathNames);
    v.choice({"host_cpu", kHostCpuDoc}, o.comm.host_cpu, kHostCpuNames);
    v.custom({"nccl_version", kNcclVersionDoc}, o.comm.nccl_minor, NcclVersionCodec{});
  }
  static void after_read(const CfgNode& item, WorkloadSpec& ws) {
    const TrainingRunOptions& o = params_of<TrainingParams>(ws).run;
    try {
      validate_training(o.train, o.cluster.gpus_per_server);
    } catch (const std::invalid_argument& e) {
      throw item.error("", e.what());
    }
  }
};

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
  if (item.has("host_cpu") && servers_needed(o) == 1) throw item.error("host_cpu", kHostCpuOneServer);
  if (o.dp_algo == Algo::kSharp) {
    if (const std::string why = sharp_unavailable(s.fabric, "set fabric.sharp.enabled: true"); !why.empty())
      throw item.error("dp_algo", why);
    if (o.nccl_proto != 0 && (o.nccl_proto & proto_bit(Proto::kSimple)) == 0)
      throw item.error("nccl_proto",
                       "expected a setting with Simple, or auto, with dp_algo sharp: NCCL's "
                       "CollNet runs the Simple protocol only");
  }
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

ClusterConfig TrainingWorkload::cluster_config(Rate nic_rate) const {
  ClusterConfig cc = p_.run.cluster;
  cc.servers = servers_needed(p_.run);
  cc.nic_link.rate = nic_rate;
  return cc;
}

void TrainingWorkload::setup(WorkloadContext& ctx) {
  cluster_ =
      std::make_unique<GpuCluster>(cluster_config(ctx.fabric.nic(0).port(0).rate()), ctx.sim, ctx.fabric);
  iteration_ = std::make_unique<TrainingIteration>(*cluster_, p_.run);
}

void TrainingWorkload::setup_on(Simulation& sim, CollectiveNetwork& net, Rate nic_rate) {
  cluster_ = std::make_unique<GpuCluster>(cluster_config(nic_rate), sim, net);
  iteration_ = std::make_unique<TrainingIteration>(*cluster_, p_.run);
}

void TrainingWorkload::start(WorkloadContext&) { iteration_->start(); }

void TrainingWorkload::start_on(Simulation&) { iteration_->start(); }

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
  if (!finished()) {
    // A stopped SHARP job (sharp_data_path.h) is the one cause the run can name.
    const SharpDataPath* dp = cluster_->net().sharp();
    const std::string why =
        dp == nullptr || dp->stops().empty()
            ? ""
            : fmt::format(": its SHARP job was stopped at {:.1f} us (link {} of its tree went down)",
                          dp->stops().front().at.us(), dp->stops().front().link);
    return fmt::format("training {} tp {} pp {} dp {} ep {}: the iteration did not finish{}\n",
                       p_.run.train.model.name, par.tp, par.pp, par.dp, par.ep, why);
  }
  const TrainingResult& r = result();
  return fmt::format(
      "training {} tp {} pp {} dp {} ep {}: iteration {:.3f} ms, exposed communication {:.3f} ms "
      "({:.1f}%)\n",
      p_.run.train.model.name, par.tp, par.pp, par.dp, par.ep, r.iteration.us() / 1e3,
      r.exposed_comm.us() / 1e3, 100 * r.exposed_share);
}

const WorkloadType& training_workload_type() {
  static const WorkloadType t = keyed_type<TrainingKeys>(check_training, make_training);
  return t;
}

}  // namespace rdmasim
