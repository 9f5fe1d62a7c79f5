// The incident report of a run with faults: what an operator reconstructs
// after an outage from counters polled at a fixed rate and the fabric's own
// log of what it did (link down, detected, ECMP repaired, routes
// reconverged, SM sweep, LFTs written). Per fault: time to detect, time to
// reroute, throughput before and at the bottom of the dip, time until
// traffic is back to 90% of its pre-fault rate, bytes retransmitted, packets
// lost on dead links, lossless-class drops and PFC-paused ports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "fabric/fabric.h"

namespace rdmasim {

// Cumulative counters at the end of one bin (rates come from differences).
struct IncidentSample {
  Time t;
  uint64_t delivered_bytes = 0;  // RDMA payload handed to the hosts' NICs
  uint64_t retransmitted_bytes = 0;
  uint64_t fault_drops = 0;     // packets lost on failed links
  uint64_t lossless_drops = 0;  // lossless-class packets switches dropped
  uint32_t ports_paused = 0;    // ports with a PFC-paused priority, or credit-starved, now
  uint32_t links_down = 0;
  uint32_t busy_qps = 0;  // connections with data their receivers have yet to get: the demand
};

class IncidentMonitor final : public EventHandler {
 public:
  static constexpr double kRecovered = 0.9;  // of the pre-fault rate
  // Samples every `bin`; with `double_every` > 0 the bin doubles after each
  // `double_every` samples (bins of unequal width: rates use each bin's own).
  IncidentMonitor(Simulation& sim, const Fabric& fabric, Time bin, int double_every = 0);
  void on_event(uint32_t, uint64_t) override;
  // Closes the last, partial bin at the end of the run.
  void finish();

  [[nodiscard]] Time first_bin() const { return first_bin_; }
  // 0: every bin is first_bin().
  [[nodiscard]] int doubles_every() const { return double_every_; }
  [[nodiscard]] const std::vector<IncidentSample>& samples() const { return samples_; }
  // time_us,delivered_gbps,ports_paused,links_down,retransmitted_bytes,fault_drops,lossless_drops
  [[nodiscard]] std::string csv() const;

 private:
  [[nodiscard]] IncidentSample sample() const;
  Simulation& sim_;
  const Fabric& fabric_;
  Time first_bin_;
  Time bin_;
  int double_every_;
  int in_width_ = 0;                     // samples taken at this bin
  std::vector<const Port*> into_hosts_;  // the port that hands each host NIC its packets
  std::vector<IncidentSample> samples_;
  mutable std::vector<Time> xmit_wait_;  // per port, credit links: XmitWait at the last sample
};

// One fault's impact, read from the samples and the fabric's recovery log.
struct FaultImpact {
  Time at;
  std::string what;                    // e.g. "down agg0_0:2"
  std::optional<Time> detected_after;  // the fabric noticed (port down seen, BFD, SM sweep)
  std::optional<Time> repaired_after;  // the first switch routed around it (local repair)
  std::optional<Time> rerouted_after;  // every switch routes around it (BGP converged, LFTs written)
  // Mean over the (up to 10) bins before the fault; none when it came before
  // the first bin closed, and then no dip or recovery is measured either (nor
  // when it is 0: no traffic before the fault).
  std::optional<double> pre_fault_gbps;
  // Connections with work outstanding at the fault. A bin that ends with
  // fewer busy may deliver less because the workload has less left to send
  // (its connections finishing, the last bin after the final delivery),
  // which is not the fault's: only a stall (work outstanding, nothing
  // delivered) counts as a dip there, and delivering again as the
  // recovery. None busy at the fault: nothing to dip, so none is measured.
  uint32_t busy_at_fault = 0;
  double min_gbps = 0;                  // the bottom of the dip
  bool dipped = false;                  // fell below 90% of pre_fault_gbps
  std::optional<Time> recovered_after;  // back to >= 90% (zero when it never dipped)
  uint64_t retransmitted_bytes = 0;     // from the fault to the next fault or the end
  uint64_t fault_drops = 0;
  uint64_t lossless_drops = 0;
  uint32_t peak_ports_paused = 0;
};

// The fault's window runs from `at` to `end`: the next fault, the end of
// the run, or the moment all work was done (an idle fabric is no dip).
[[nodiscard]] FaultImpact fault_impact(const std::vector<IncidentSample>& samples, Time at, Time end,
                                       const std::vector<RecoveryEvent>& log, std::string what);

}  // namespace rdmasim
