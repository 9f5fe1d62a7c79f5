#include "validate/victim_flow.h"

#include "config/scenario.h"
#include "config/shipped_path.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

// Runs a shipped scenario as `rdmasim run <file> --set ...` would.
template <typename PerFlow>
ShippedRun run_shipped(const std::string& file, const std::vector<std::string>& overrides, PerFlow per_flow) {
  Experiment e(load_scenario_file(find_shipped(file), overrides));
  e.run();
  ShippedRun r;
  r.flows = e.flows().size();
  for (const FlowRecord& f : e.flows()) {
    if (!f.finished()) continue;
    ++r.done;
    per_flow(f);
  }
  for (const Switch* sw : e.fabric().switches()) {
    r.drops += sw->counters().buffer_drops;
    r.xoff += sw->counters().pfc_xoff_sent;
  }
  r.invariants = e.invariant_error();
  return r;
}

}  // namespace

ShippedRun run_shipped_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  return run_shipped(file, overrides, [](const FlowRecord&) {});
}

VictimRun run_victim_flow(bool pfc, const std::string& cc) {
  std::vector<std::string> overrides;
  if (cc == "hpcc") overrides.emplace_back("fabric.profile=rocev2-hpcc");
  if (cc == "none") overrides.insert(overrides.end(), {"fabric.cc=none", "fabric.ecn.enabled=false"});
  if (!pfc) overrides.emplace_back("fabric.pfc.enabled=false");
  VictimRun v;
  const ShippedRun r = run_shipped("scenarios/victim-flow.yaml", overrides, [&](const FlowRecord& f) {
    // The victim is the only flow from host 0; its throughput counts from time 0.
    if (f.spec.src == 0)
      v.victim_gbps = static_cast<double>(f.spec.size_bytes) * 8.0 / (f.spec.start + f.fct()).sec() / 1e9;
  });
  v.drops = r.drops;
  v.xoff = r.xoff;
  v.done = r.done;
  v.invariants = r.invariants;
  return v;
}

}  // namespace rdmasim
