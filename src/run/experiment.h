// One run of one scenario: builds the simulation, the fabric and the
// workloads, runs to completion or to the scenario's duration, and keeps what
// the reports need. Independent Experiments share nothing.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "metrics/timeseries.h"
#include "workload/flow_spec.h"

namespace rdmasim {

struct FlowRecord {
  FlowSpec spec;
  Opcode op = Opcode::kWrite;
  uint16_t workload = 0;
  QpId conn = 0;     // the first of its QPs (they are consecutive ids)
  uint16_t qps = 1;  // QPs the flow is striped over (as NCCL does)
  uint16_t parts_left = 0;
  bool started = false;
  Time end = Time::never();  // never: unfinished
  Time ideal;
  int links = 0;
  [[nodiscard]] bool finished() const { return end != Time::never(); }
  [[nodiscard]] Time fct() const { return end - spec.start; }
};

class Experiment final : public EventHandler, public CompletionSink {
 public:
  explicit Experiment(Scenario s);
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
  [[nodiscard]] size_t completed() const { return completed_; }
  [[nodiscard]] bool interrupted() const { return interrupted_; }
  [[nodiscard]] const std::string& invariant_error() const { return invariant_error_; }
  // Σ over completed flows of packets × links on the path (data only).
  [[nodiscard]] uint64_t data_packet_hops() const;
  [[nodiscard]] const QueueTimeseries* timeseries() const { return timeseries_.get(); }

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_complete(const Completion& c) override;

 private:
  void start_flow(size_t i);

  Scenario s_;
  Simulation sim_;
  std::unique_ptr<Fabric> fabric_;
  std::unique_ptr<QueueTimeseries> timeseries_;
  std::vector<FlowRecord> flows_;  // sorted by start time
  size_t completed_ = 0;
  bool interrupted_ = false;
  std::string invariant_error_;
};

}  // namespace rdmasim
