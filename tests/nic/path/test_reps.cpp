// REPS (nic/path/reps): the recycling rules against hand sequences, and on
// a fat-tree with a degraded or failed core link the per-flow outcome of
// ECMP (one path per PDC), oblivious spraying and REPS under uet-nscc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "config/scenario.h"
#include "nic/path/reps/reps_paths.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

RepsPaths reps(uint32_t buffer, uint32_t explore) {
  RepsConfig c;
  c.buffer = buffer;
  c.explore = explore;
  return RepsPaths(c, 1);
}

// The first `explore` packets take fresh EVs; then clean EVs come back in
// the order their ACKs arrived, a marked one never does, and with nothing
// cached the sender explores again.
TEST(RepsPaths, RecyclesCleanEvsOldestFirstAndDropsMarkedOnes) {
  RepsPaths r = reps(4, 2);
  r.connect(0, 0x1234);
  const uint32_t a = r.pick(0, 0x1234, 0), b = r.pick(0, 0x1234, 1);
  EXPECT_NE(a, b);
  EXPECT_EQ(r.explored(), 2u);
  r.on_ev(0, b, false);
  r.on_ev(0, a, true);  // marked: not recycled
  r.on_ev(0, 0xbeef, false);
  EXPECT_EQ(r.entropy(0, 0x1234, 2), b) << "entropy() peeks at what pick() takes";
  EXPECT_EQ(r.pick(0, 0x1234, 2), b);
  EXPECT_EQ(r.pick(0, 0x1234, 3), 0xbeefu);
  EXPECT_EQ(r.recycled(), 2u);
  EXPECT_EQ(r.discarded(), 1u);
  const uint32_t c = r.pick(0, 0x1234, 4);  // nothing cached: a fresh one
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  EXPECT_EQ(r.explored(), 3u);
}

// A full buffer drops its oldest EV for a newer clean one.
TEST(RepsPaths, AFullBufferKeepsTheNewestEvs) {
  RepsPaths r = reps(2, 0);
  r.connect(0, 7);
  r.on_ev(0, 11, false);
  r.on_ev(0, 22, false);
  r.on_ev(0, 33, false);
  EXPECT_EQ(r.pick(0, 7, 0), 22u);
  EXPECT_EQ(r.pick(0, 7, 1), 33u);
}

// After a timeout the sender stops exploring (a fresh EV may hit the
// failure) and reuses the EV that last worked, until the cumulative ACK moves.
TEST(RepsPaths, FreezesOnATimeoutUntilTheCumulativeAckMoves) {
  RepsPaths r = reps(4, 0);
  r.connect(0, 7);
  r.on_ack(0, PathAck{10, 20, false, true});
  r.on_ev(0, 44, false);
  EXPECT_EQ(r.pick(0, 7, 0), 44u);
  r.on_rto(0);
  EXPECT_TRUE(r.frozen(0));
  EXPECT_EQ(r.pick(0, 7, 1), 44u) << "frozen: the last good EV, not a fresh one";
  EXPECT_EQ(r.pick(0, 7, 2), 44u);
  r.on_ack(0, PathAck{10, 20, false, true});
  EXPECT_TRUE(r.frozen(0)) << "no cumulative progress yet";
  r.on_ack(0, PathAck{11, 20, false, true});
  EXPECT_FALSE(r.frozen(0));
  EXPECT_NE(r.pick(0, 7, 3), 44u) << "exploring again";
}

struct Outcome {
  size_t finished = 0;
  double max_fct_us = 0;
  double min_gbps = 0;   // the slowest finished flow's goodput
  double mean_gbps = 0;  // over finished flows
  std::string invariants;
};

// A permutation of 8 MiB flows on a k=4 fat-tree of 100G links, uet-nscc,
// with core0's first link degraded to 10G or down from 1 us.
Outcome run(const std::string& selector, const std::string& fault) {
  const std::string yaml =
      "name: reps\nseed: 1\nduration: 20ms\n"
      "topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"
      "fabric: {profile: uet-nscc, path_selection: " +
      selector +
      "}\n"
      "workload: [{type: permutation, size: 8MiB, qps: 1}]\n"
      "faults: [{at: 1us, link: \"core0:0\", action: " +
      fault + "}]\n";
  Experiment e(load_scenario_text(yaml, "<reps>"));
  e.run();
  Outcome o;
  double sum = 0;
  o.min_gbps = 1e18;
  for (const auto& f : e.flows()) {
    if (!f.finished()) continue;
    ++o.finished;
    const double gbps = 8.0 * 8 * 1024 * 1024 / (f.fct().us() * 1e3);
    sum += gbps;
    o.min_gbps = std::min(o.min_gbps, gbps);
    o.max_fct_us = std::max(o.max_fct_us, f.fct().us());
  }
  o.mean_gbps = o.finished > 0 ? sum / static_cast<double>(o.finished) : 0;
  if (o.finished == 0) o.min_gbps = 0;
  o.invariants = e.invariant_error();
  return o;
}

void print(const char* what, const char* name, const Outcome& o) {
  std::printf("%-9s %-15s finished %2zu/16  slowest %6.1f Gb/s  mean %6.1f Gb/s  last FCT %8.1f us\n", what,
              name, o.finished, o.min_gbps, o.mean_gbps, o.max_fct_us);
}

// A degraded core link (100G -> 10G): the PDCs whose one ECMP path crosses
// it crawl at its rate; oblivious spraying keeps sending 1 packet in N over
// it; REPS stops recycling the EVs that come back marked or trimmed and
// steers around it within a few round trips.
TEST(RepsFailure, SteersAroundADegradedCoreLinkWhereSprayAndEcmpDoNot) {
  const Outcome ecmp = run("per-connection", "degrade, rate: 10Gbps");
  const Outcome spray = run("spray", "degrade, rate: 10Gbps");
  const Outcome rp = run("reps", "degrade, rate: 10Gbps");
  print("degraded", "ECMP", ecmp);
  print("degraded", "spray 256 EVs", spray);
  print("degraded", "REPS", rp);
  for (const Outcome* o : {&ecmp, &spray, &rp}) {
    EXPECT_EQ(o->finished, 16u);
    EXPECT_EQ(o->invariants, "");
  }
  EXPECT_LT(rp.max_fct_us, 0.5 * spray.max_fct_us);
  EXPECT_LT(spray.max_fct_us, ecmp.max_fct_us);
  EXPECT_GT(rp.min_gbps, 2 * ecmp.min_gbps);
}

// A failed core link, which the switches at its ends repair locally after
// 1.1 ms but the rest of the fabric routes into until BGP converges (50 ms,
// after this run): ECMP's PDCs hashed onto it stall; oblivious spraying
// keeps losing 1 packet in N into it and crawls from timeout to timeout;
// REPS recycles only EVs that came back and finishes every flow at speed.
TEST(RepsFailure, FinishesEveryFlowPastAFailedCoreLinkWhereEcmpStallsAndSprayCrawls) {
  const Outcome ecmp = run("per-connection", "down");
  const Outcome spray = run("spray", "down");
  const Outcome rp = run("reps", "down");
  print("failed", "ECMP", ecmp);
  print("failed", "spray 256 EVs", spray);
  print("failed", "REPS", rp);
  EXPECT_LT(ecmp.finished, 16u);
  EXPECT_EQ(rp.finished, 16u);
  EXPECT_LT(rp.max_fct_us, 0.5 * spray.max_fct_us);
  EXPECT_GT(rp.min_gbps, 3 * spray.min_gbps);
  for (const Outcome* o : {&ecmp, &spray, &rp}) EXPECT_EQ(o->invariants, "");
}

}  // namespace
}  // namespace rdmasim
