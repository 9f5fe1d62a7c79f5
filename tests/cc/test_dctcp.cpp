// DCTCP-style window control (Alizadeh et al., SIGCOMM 2010) over RC.
#include <gtest/gtest.h>

#include "cc/dctcp.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "validate/steady_share.h"
#include "validate/dcqcn_experiment.h"

namespace rdmasim {
namespace {

TEST(Dctcp, LongFlowsShareFairlyWithTheQueueNearTheMarkingThreshold) {
  // N long flows into one 40G port; ECN as DCTCP's step marking at K = 65
  // packets (the DCTCP paper's K for 10G scaled x4 for 40G: ~ 65 KB).
  const int n = 4;
  Simulation sim(3);
  FabricConfig cfg;
  cfg.rc.mtu = 1000;
  cfg.sw.ecn.enabled = true;
  cfg.sw.ecn.kmin_bytes = 65'000;
  cfg.sw.ecn.kmax_bytes = 65'001;  // step: mark everything above K
  cfg.sw.ecn.pmax = 1.0;
  cfg.sw.ecn.reference_rate = Rate::from_bps(0);
  Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(40), Time::from_ns(1000)}), cfg);
  DctcpConfig d;
  d.initial_window = 16;
  install_cc(f, std::make_unique<Dctcp>(d));
  testing::Recorder rec;
  for (int s = 1; s <= n; ++s) f.verbs().create_qp(s, 0, &rec, 3).post_write(int64_t{1} << 40, 0);
  const Time half = Time::from_ms(20);
  QueueSampler q(sim, f.switches()[0]->mmu(), 0, 3, half, Time::from_us(1));
  const SteadyShare share = steady_share(sim, f, n, half);
  const double sum = share.total_gbps;
  EXPECT_GE(share.jain, 0.95);                // fair
  EXPECT_GT(sum, 0.95 * 40.0 * 1000 / 1082);  // the port stays busy
  EXPECT_GT(q.mean(), 20'000);                // the queue sits near K ...
  EXPECT_LT(q.mean(), 150'000);               // ... not at the buffer limit
  EXPECT_EQ(f.switches()[0]->counters().buffer_drops, 0u);
  EXPECT_EQ(f.check_invariants(), "");
  std::printf("DCTCP N=%d: %.2f Gb/s total, Jain %.3f, mean queue %.1f KB\n", n, sum, share.jain,
              q.mean() / 1e3);
}

}  // namespace
}  // namespace rdmasim
