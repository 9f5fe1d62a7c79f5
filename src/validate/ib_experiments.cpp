#include "validate/ib_experiments.h"

#include <algorithm>

#include "engine/rng.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "workload/generators.h"

namespace rdmasim {
namespace {

struct Sink : CompletionSink {
  std::vector<Completion> done;
  void on_complete(const Completion& c) override { done.push_back(c); }
};

}  // namespace

IbPermutationRun run_ib_permutation(int k, RoutingEngine engine, bool adaptive, int64_t bytes,
                                    uint64_t seed) {
  const Profile prof = find_profile("ib-ndr");
  FabricConfig cfg = prof.config;
  cfg.ib.sm.engine = engine;
  cfg.ib.sm.adaptive = adaptive;
  Simulation sim(seed);
  Fabric f(sim, make_fat_tree(k, prof.link, prof.link), cfg);
  Rng rng(seed, "ib-permutation");
  const auto flows = make_permutation(f.num_hosts(), Bytes(bytes), Time::zero(), rng);
  Sink sink;
  for (const auto& fl : flows)
    f.rc().post(f.rc().connect(fl.src, fl.dst, &sink, cfg.rc.data_tc), Opcode::kWrite, bytes, 0);
  sim.run(Time::from_s(1));
  IbPermutationRun r;
  r.completed = sink.done.size();
  for (const auto& c : sink.done)
    r.gbps.push_back(static_cast<double>(bytes) * 8 / (c.completed - c.posted).sec() / 1e9);
  if (!r.gbps.empty()) {
    for (double g : r.gbps) r.mean_gbps += g / static_cast<double>(r.gbps.size());
    r.min_gbps = *std::min_element(r.gbps.begin(), r.gbps.end());
  }
  for (uint64_t d : f.net().ledger().dropped) r.dropped += d;
  for (size_t i = 0; i < f.rc().num_connections(); ++i)
    r.out_of_order_placed += f.rc().connection(static_cast<uint32_t>(i)).ctr.out_of_order_placed;
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
