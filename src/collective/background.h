// Background traffic sharing the fabric with a collective or training job:
// storage-style flows from a flow-size CDF arriving as a Poisson process at a
// given load per NIC (the HPCC/DCQCN workload model, workload/poisson_flows.h),
// sent as RDMA WRITEs between the cluster's NICs on their own QPs.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "collective/cluster.h"
#include "verbs/verbs.h"
#include "workload/flow_size_cdf.h"
#include "workload/flow_spec.h"
#include "workload/poisson_flows.h"

namespace rdmasim {

struct BackgroundConfig {
  double load = 0;                    // fraction of each NIC's rate; 0: none
  Time horizon = Time::from_ms(100);  // arrivals are generated over [start, start + horizon)
};

class BackgroundTraffic final : public EventHandler, public CompletionSink {
 public:
  // Flows between endpoints [0, hosts) of `fabric`, each NIC loaded to
  // cfg.load of `nic_rate` (deterministic for the simulation's seed),
  // arriving from now; each is drawn when the one before it starts, so a
  // long horizon costs nothing past the run's end. Throws std::invalid_argument
  // for a bad load. `sim` and `fabric` must outlive it.
  BackgroundTraffic(Simulation& sim, Fabric& fabric, int hosts, Rate nic_rate, const FlowSizeCdf& sizes,
                    const BackgroundConfig& cfg);
  // Over a cluster's NICs.
  BackgroundTraffic(GpuCluster& cl, const FlowSizeCdf& sizes, const BackgroundConfig& cfg)
      : BackgroundTraffic(cl.sim(), cl.fabric(), cl.ranks(), cl.config().nic_link.rate, sizes, cfg) {}

  // Flows generated so far: arrivals are drawn as the run reaches them.
  [[nodiscard]] size_t flows() const { return flows_.size(); }
  [[nodiscard]] size_t started() const { return started_; }
  [[nodiscard]] size_t completed() const { return completed_; }
  [[nodiscard]] int64_t bytes_completed() const { return bytes_done_; }
  // Mean flow completion time of the flows that completed.
  [[nodiscard]] Time mean_fct() const;

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_complete(const Completion& c) override;

 private:
  // Schedules the next arrival, if the window has one.
  void schedule_next();

  Simulation& sim_;
  Fabric& fabric_;
  Rng rng_;
  std::unique_ptr<PoissonArrivals> arrivals_;
  std::vector<FlowSpec> flows_;
  std::unordered_map<uint64_t, QueuePair> qps_;
  size_t started_ = 0, completed_ = 0;
  int64_t bytes_done_ = 0;
  Time fct_sum_;
};

}  // namespace rdmasim
