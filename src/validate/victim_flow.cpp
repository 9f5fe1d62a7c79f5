#include "validate/victim_flow.h"

#include <vector>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"

namespace rdmasim {

VictimRun run_victim_flow(bool pfc, const std::string& cc) {
  Simulation sim(5);
  FabricConfig cfg = find_profile(cc == "hpcc" ? "rocev2-hpcc" : "rocev2-dcqcn").config;
  cfg.sw.mmu.buffer_bytes = 4 << 20;
  if (!pfc) cfg.sw.mmu.lossless_mask = 0;
  if (cc == "none") {
    cfg.cc = "none";
    cfg.sw.ecn.enabled = false;
  }
  const Topology t = make_leaf_spine(2, 9, 1, 1.0, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)},
                                     LinkSpec{Rate::from_gbps(1000), Time::from_ns(1000)});
  Fabric f(sim, t, cfg);
  constexpr int64_t kBytes = int64_t{4} << 20;
  constexpr uint64_t kVictim = 100;
  struct Sink : CompletionSink {
    std::vector<Completion> done;
    void on_complete(const Completion& c) override { done.push_back(c); }
  } sink;
  for (int s = 1; s <= 8; ++s) f.verbs().create_qp(s, 9, &sink, 3).post_write(kBytes, s);
  f.verbs().create_qp(0, 10, &sink, 3).post_write(kBytes, kVictim);
  sim.run(Time::from_ms(100));
  VictimRun r;
  for (const auto& c : sink.done)
    if (c.wr_id == kVictim) r.victim_gbps = static_cast<double>(kBytes) * 8.0 / c.completed.sec() / 1e9;
  for (const Switch* sw : f.switches()) {
    r.drops += sw->counters().buffer_drops;
    r.xoff += sw->counters().pfc_xoff_sent;
  }
  r.done = sink.done.size();
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
