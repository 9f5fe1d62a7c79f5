// What the hosts do, as one interface. A scenario's `workload:` list names
// types (incast, collective, training, ...); each type is one class, found by
// name in a registry (run/workload_types.cpp), that reads its own keys and is
// given the run's one Simulation and Fabric. Every workload of a scenario
// therefore shares the fabric, its faults and its overrides.
//
// Life of a workload, all on the runner's thread:
//   1. parse: the type reads its keys from the YAML item into a WorkloadSpec
//      (strictly: a key the type does not use is refused); check: semantic
//      checks against the topology. Both throw InputError. A type declares
//      its keys once (workload/workload_keys.h): parse, the results.json echo
//      and the key reference all come from that declaration.
//   2. make + setup(ctx): in list order, before any event runs. Flow-style
//      types append FlowRecords to ctx.flows (the runner starts every flow of
//      every workload in start-time order, so they interleave the same way
//      whatever the list order); other types build their state and may
//      schedule events.
//   3. start(ctx): in list order, when the run begins (simulated time 0).
//   4. the runner runs the simulation until every workload is finished() and
//      every flow completed, or the scenario's duration.
//   5. report(): what it measured, read after the run.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "config/params.h"
#include "engine/simulation.h"
#include "engine/units.h"
#include "verbs/verbs.h"
#include "workload/flow_spec.h"

namespace rdmasim {

class CfgNode;
class Fabric;
struct Scenario;
struct Topology;
struct TopologySpec;

// Parameters of a workload type that has more than the flow keys below
// (collective, training). Written only while the scenario is read; the
// workloads read them through a const spec.
class WorkloadParams {
 public:
  virtual ~WorkloadParams() = default;
};

// One item of the `workload:` list. The flat fields are the flow-style keys
// (the results.json echo of those types is built from them); other types keep
// theirs in `params`.
struct WorkloadSpec {
  std::string type;  // a registered name (workload_type_names())
  Bytes size;
  Time start;
  int senders = 0;
  int receiver = 0;
  int src = 0;  // flow: one flow between two host indices
  int dst = 0;
  std::string placement = "random";  // incast senders: random | sequential
  std::string file;                  // cdf: distribution; flows-file: flow list
  double load = 0.0;
  Time window;               // cdf: arrival window
  Time time_offset;          // flows-file: subtracted from the file's start times
  std::string op = "write";  // write | read | send
  int qps = 1;               // QPs per flow: the message is striped over them
  int line = 0;
  std::shared_ptr<WorkloadParams> params;
};

// A flow the runner starts and tracks (flows.csv is one line per record).
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

// What a workload is given. References stay valid for the whole run.
struct WorkloadContext {
  Simulation& sim;
  Fabric& fabric;  // post work through fabric.verbs(); the topology is fabric.topology()
  const Scenario& scenario;
  const WorkloadSpec& spec;
  int index;                       // position in the workload list
  std::vector<FlowRecord>& flows;  // flow-style workloads append here in setup()
};

class Workload {
 public:
  virtual ~Workload() = default;

  // Step 2 above. Throws InputError for input that is only found bad now
  // (e.g. a flow file naming a node that is not a host).
  virtual void setup(WorkloadContext& ctx) = 0;
  // Step 3 above.
  virtual void start(WorkloadContext& /*ctx*/) {}
  // Whether it has done all it set out to do. Flow-style workloads say true:
  // their flows are tracked by the runner.
  [[nodiscard]] virtual bool finished() const { return true; }
  // How much of its own work is done, in [0, 1], for progress lines.
  [[nodiscard]] virtual double done_fraction() const { return finished() ? 1.0 : 0.0; }
  // Non-zero: the runner asks finished() after every event and ends the run
  // after the event that finishes the last workload; it watches for deadlock
  // in slices of the shortest length asked for. Zero: the workload needs no
  // polling (flows, whose completions the runner counts).
  [[nodiscard]] virtual Time poll_interval() const { return Time::zero(); }
  // Whether it keeps traffic arriving without end (background load). Then
  // only packet conservation, which holds at any instant, is checked at the
  // end; the rest of the invariants need a quiet fabric.
  [[nodiscard]] virtual bool open_ended() const { return false; }
  // What it measured, as results.json's workload_results[i] (types that
  // report through flows leave it empty).
  virtual void report(nlohmann::ordered_json& /*out*/) const {}
  // Lines for the run's stdout summary (empty for flow-style types).
  [[nodiscard]] virtual std::string summary() const { return {}; }
};

// A registered workload type: how its keys are read, checked and echoed and
// how an instance is made.
struct WorkloadType {
  std::string_view name;
  // Reads every key of the item except `type` into `spec` (spec.type and
  // spec.line are already set); the scenario loader calls finish() after it,
  // so a key this type did not read is refused as unknown.
  void (*parse)(const CfgNode& item, const Scenario& s, WorkloadSpec& spec);
  // Checks that need the built topology; throws InputError located in `item`.
  void (*check)(const CfgNode& item, const WorkloadSpec& spec, const Topology& t, const Scenario& s);
  // Adds the type's keys to `out` (which already holds `type`).
  void (*echo)(const WorkloadSpec& spec, nlohmann::ordered_json& out);
  // The type's keys as the reference lists them, with the values a spec
  // that gives only the required keys gets (an echo of the defaults).
  std::vector<KeyInfo> (*keys)();
  nlohmann::ordered_json (*defaults)();
  std::unique_ptr<Workload> (*make)(const WorkloadSpec& spec);
  // The QPs the workload's flows will open on a topology of `hosts` hosts,
  // known from the spec alone; 0 when only generating the flows tells. Lets a
  // run too large for memory be refused before millions of flows are made.
  uint64_t (*qps_before_setup)(const WorkloadSpec& spec, int hosts);
};

// nullptr for an unknown name.
[[nodiscard]] const WorkloadType* find_workload_type(std::string_view name);
// Registered names, in the order error messages list them.
[[nodiscard]] std::vector<std::string_view> workload_type_names();

}  // namespace rdmasim
