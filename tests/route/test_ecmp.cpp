// ECMP hashing: per-switch seeds spread flows over every core of a fat-tree;
// identical seeds on every switch correlate the choices at successive tiers
// (hash polarization) and leave most cores idle.
#include <gtest/gtest.h>

#include <set>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "support/rc_of.h"
#include "support/recorder.h"

namespace rdmasim {
namespace {

size_t cores_used(bool same_seed) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.sw.same_ecmp_seed = same_seed;
  const LinkSpec l{Rate::from_gbps(100), Time::from_ns(1000)};
  Fabric f(sim, make_fat_tree(8, l, l), cfg);
  testing::Recorder rec;
  std::set<std::string> cores;
  // Many QPs from pod 0 to pod 4: every path crosses one core switch.
  for (int q = 0; q < 512; ++q) {
    const int src = q % 16, dst = 64 + (q * 7) % 16;
    const uint32_t c = rc_of(f).create_qp(src, dst, &rec, 3);
    const auto& conn = rc_of(f).connection(c);
    for (const Port* p : f.path(src, dst, conn.flow_hash, conn.src_nic_port))
      if (p->peer()->name().rfind("core", 0) == 0) cores.insert(p->peer()->name());
  }
  return cores.size();
}

TEST(Ecmp, PerSwitchSeedsUseEveryCoreAndIdenticalSeedsPolarize) {
  EXPECT_EQ(cores_used(false), 16u);  // (k/2)^2 cores in a k=8 fat-tree
  // Same seed: an edge switch and the aggregation switch above it pick the
  // same port index, so only 4 of the 16 cores carry traffic.
  EXPECT_EQ(cores_used(true), 4u);
}

}  // namespace
}  // namespace rdmasim
