// Mathis et al. 1997 (validate/mathis.h): a long-lived NewReno flow over
// iWARP under random loss p moves (MSS / RTT) x sqrt(3/2) / sqrt(p), within
// 25% for p = 1e-4, 1e-3 and 1e-2, on a path that does not queue, with the
// retransmission timeouts the model leaves out kept rare.
#include <gtest/gtest.h>

#include <cmath>
#include <future>
#include <vector>

#include "validate/mathis.h"

namespace rdmasim {
namespace {

TEST(ValidationMathis, NewRenoGoodputUnderRandomLossFollowsTheSquareRootLaw) {
  std::vector<std::future<MathisRun>> jobs;
  for (const double p : {1e-4, 1e-3, 1e-2})
    jobs.push_back(std::async(std::launch::async, [p] {
      MathisSetup s;
      s.loss = p;
      return run_mathis(s);
    }));
  for (auto& j : jobs) {
    const MathisRun r = j.get();
    SCOPED_TRACE(r.loss);
    EXPECT_EQ(r.invariants, "");
    EXPECT_NEAR(r.constant, 1.2247, 1e-4);
    // 100G, 4 x 50 us of cable: the base RTT is the cables plus a few
    // serialisations and the RNICs' latency.
    EXPECT_GT(r.rtt, Time::from_us(200));
    EXPECT_LT(r.rtt, Time::from_us(203));
    EXPECT_NEAR(r.measured_gbps / r.formula_gbps, 1.0, 0.25)
        << r.measured_gbps << " Gb/s measured, " << r.formula_gbps << " by the formula";
    // Loss-limited, far below the link: at most a frame ever waits.
    EXPECT_LT(r.measured_gbps, 10.0);
    EXPECT_TRUE(mathis_no_queueing(r)) << r.max_queue_bytes << " B queued";
    // Hundreds of loss episodes measured, each seen and repaired.
    EXPECT_GT(static_cast<double>(r.segments) * r.loss, 300.0);
    EXPECT_GT(r.retransmitted, 300u);
    // The model assumes no timeouts: a handful at most, at the highest loss.
    EXPECT_LE(r.timeouts, 10u);
  }
}

// The same seed gives the same run; the windows are long enough that another
// seed lands within a few percent.
TEST(ValidationMathis, SeedMovesTheResultOnlyByItsNoise) {
  MathisSetup s;
  s.loss = 1e-3;
  const MathisRun a = run_mathis(s);
  const MathisRun b = run_mathis(s);
  s.seed = 2;
  const MathisRun c = run_mathis(s);
  EXPECT_EQ(a.segments, b.segments);
  EXPECT_EQ(a.wire_losses, b.wire_losses);
  EXPECT_NE(a.segments, c.segments);
  EXPECT_NEAR(c.measured_gbps / a.measured_gbps, 1.0, 0.08);
}

}  // namespace
}  // namespace rdmasim
