// The runner: one run of one scenario. Builds the one Simulation and Fabric,
// schedules the faults, makes every workload of the list through the registry
// (workload/workload.h) on that fabric, runs until all are done or the
// scenario's duration, checks the invariants once, and keeps what the reports
// need. Independent Experiments share nothing, so they may run on any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "metrics/incident.h"
#include "metrics/pcap.h"
#include "metrics/timeseries.h"
#include "run/transport_series.h"
#include "workload/workload.h"

namespace rdmasim {

// Thrown when a stop was asked for while the run was still being set up.
struct SetupInterrupted : std::runtime_error {
  SetupInterrupted() : std::runtime_error("interrupted while setting up: nothing ran") {}
};

// The estimated memory of building the scenario's network (topology `t`),
// in bytes. Throws InputError when it, or it plus the QPs of the flows the
// workloads will make (where their specs say how many), exceeds `max_memory` (0: the memory
// the machine has available). Experiment checks it before building.
[[nodiscard]] uint64_t check_build_memory(const Scenario& s, const Topology& t, uint64_t max_memory);

class Experiment final : public EventHandler, public CompletionSink {
 public:
  // `max_memory`: refuse (InputError) a network whose estimated build exceeds
  // it; 0 = the machine's available memory.
  // `interrupt`, if given, is polled between the phases of the build (the
  // network, each workload's setup); when it becomes true the constructor
  // throws SetupInterrupted and nothing has run.
  explicit Experiment(Scenario s, uint64_t max_memory = 0, const std::atomic<bool>* interrupt = nullptr);
  ~Experiment();
  Experiment(const Experiment&) = delete;
  Experiment& operator=(const Experiment&) = delete;

  // Runs the scenario. `progress` (may be empty) is called now and then with
  // the fraction of simulated time done. `interrupt`, if given, is polled; when
  // it becomes true the run stops early and results are marked interrupted.
  void run(const std::function<void(const Experiment&)>& progress = {},
           const std::atomic<bool>* interrupt = nullptr);

  [[nodiscard]] const Scenario& scenario() const { return s_; }
  [[nodiscard]] const Simulation& sim() const { return sim_; }
  [[nodiscard]] const Fabric& fabric() const { return *fabric_; }
  [[nodiscard]] const std::vector<FlowRecord>& flows() const { return flows_; }
  // One per item of the scenario's workload list, in order.
  [[nodiscard]] const std::vector<std::unique_ptr<Workload>>& workloads() const { return workloads_; }
  // Every flow completed and every workload finished.
  [[nodiscard]] bool all_done() const;
  [[nodiscard]] size_t completed() const { return completed_; }
  [[nodiscard]] bool interrupted() const { return interrupted_; }
  [[nodiscard]] const std::string& invariant_error() const { return invariant_error_; }
  // The cyclic buffer dependency that ended the run, or nullptr.
  [[nodiscard]] const DeadlockReport* deadlock() const {
    const PfcWatch* w = fabric_->pfc_watch();
    return w != nullptr && w->deadlock() ? &*w->deadlock() : nullptr;
  }
  // What the run will not do as asked (e.g. flows starting after the end),
  // found before it starts; results.json lists them, `run --strict` refuses them.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  // Σ over completed flows of packets × links on the path (data only).
  [[nodiscard]] uint64_t data_packet_hops() const;
  [[nodiscard]] const QueueTimeseries* timeseries() const { return timeseries_.get(); }
  // Runs with faults: the counters polled for the incident report (else nullptr).
  [[nodiscard]] const IncidentMonitor* incident() const { return incident_.get(); }
  // One per scheduled fault, in the scenario's order (empty without faults).
  [[nodiscard]] std::vector<FaultImpact> fault_impacts() const;
  // output.pcap's capture; nullptr when the scenario asks for none.
  [[nodiscard]] const PcapCapture* capture() const { return capture_.get(); }
  // The transport's series on the same clock (TCP's cwnd and RTT); nullptr
  // without a time series or when the transport keeps none.
  [[nodiscard]] const TransportSeries* transport_series() const { return transport_series_.get(); }
  // The build's estimated memory (fabric/memory_estimate.h), in bytes.
  [[nodiscard]] uint64_t memory_estimate() const { return memory_estimate_; }

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_complete(const Completion& c) override;

 private:
  void apply_link_settings();
  void schedule_faults();
  void check_workload_fits();
  void start_flow(size_t i);
  [[nodiscard]] WorkloadContext context(size_t i);

  Scenario s_;
  Simulation sim_;
  std::unique_ptr<Fabric> fabric_;
  std::unique_ptr<QueueTimeseries> timeseries_;
  std::unique_ptr<IncidentMonitor> incident_;
  std::unique_ptr<PcapCapture> capture_;
  std::unique_ptr<TransportSeries> transport_series_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::vector<FlowRecord> flows_;  // of every flow-style workload, sorted by start time
  Time poll_interval_;             // the shortest a workload asked for; zero: none
  size_t completed_ = 0;
  bool interrupted_ = false;
  std::string invariant_error_;
  std::vector<std::string> warnings_;
  uint64_t memory_estimate_ = 0;  // the build, then plus the flows' QPs
  uint64_t budget_ = 0;           // what the run may use (0: unknown)
};

}  // namespace rdmasim
