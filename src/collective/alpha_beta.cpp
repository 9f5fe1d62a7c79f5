#include "collective/alpha_beta.h"

#include <stdexcept>

namespace rdmasim {
namespace {

struct FirstReceive final : CompletionSink {
  Time at = Time::never();
  Time posted;
  void on_complete(const Completion&) override {}
  void on_receive(const Completion& c) override {
    at = c.completed;
    posted = c.posted;
  }
};

}  // namespace

AlphaBetaCheck check_alpha_beta(const ClusterConfig& cc, const FabricConfig& fab, const CommConfig& comm,
                                CollType type, int64_t bytes, bool pipelined) {
  if (cc.servers != 1 && cc.gpus_per_server != 1)
    throw std::invalid_argument("alpha-beta check: use one server (NVLink) or one GPU per server (fabric)");
  if (type != CollType::kAllReduce && type != CollType::kAllGather && type != CollType::kReduceScatter)
    throw std::invalid_argument("alpha-beta check: AllReduce, AllGather or ReduceScatter");
  const int n = cc.ranks();
  const int64_t block = bytes / n;
  AlphaBetaCheck r;
  double hop_s = 0;
  if (cc.servers == 1) {
    hop_s = cc.nvlink.latency.sec();
    r.bandwidth_Bps = cc.nvlink.rate.bps() / 8.0;
  } else {
    GpuCluster probe(cc, fab, 1);
    FirstReceive rec;
    QueuePair qp = probe.fabric().verbs().create_qp(0, 1, &rec);
    const int64_t probe_bytes = std::max<int64_t>(1, std::min<int64_t>(block, fab.rc.mtu));
    qp.post_write(probe_bytes, 1);
    probe.sim().run(Time::from_ms(10));
    const Framing& fr = fab.framing;
    const double wire = fr.data_wire(fab.rc.mtu, false), ack = fr.ack_wire();
    r.bandwidth_Bps = cc.nic_link.rate.bps() / 8.0 * fab.rc.mtu / (wire + ack / fab.rc.ack_interval);
    hop_s = (rec.at - rec.posted).sec() - probe_bytes / r.bandwidth_Bps;
  }
  // The plan below runs ring/Simple (PlanRequest's default, no tuner).
  const StepCosts costs = step_costs(comm, Algo::kRing, Proto::kSimple,
                                     CommShape{cc.servers, cc.gpus_per_server}, cc.nvlink.latency);
  r.alpha_s = (cc.servers > 1 ? costs.net : costs.step).sec() + hop_s;
  const double steps = type == CollType::kAllReduce ? 2.0 * (n - 1) : (n - 1);
  r.expected_s = costs.launch.sec() + steps * r.alpha_s + steps / n * bytes / r.bandwidth_Bps;
  GpuCluster cl(cc, fab, 1);
  Communicator c(cl, comm);
  PlanRequest req;
  req.type = type;
  req.algo = Algo::kRing;
  req.bytes = bytes;
  req.channels = 1;
  req.chunk = pipelined ? 512 * 1024 : block + 1;
  r.measured_s = c.run_one(req).sec();
  return r;
}

}  // namespace rdmasim
