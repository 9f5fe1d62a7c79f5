// A NIC port shares its link between traffic classes as its link layer's
// arbitration is configured (Ethernet ETS, fabric.scheduler; InfiniBand VL
// arbitration, fabric.ib.vlarb_*), not round robin over its QPs. Checked
// against the weights: two bulk transfers that start together on two
// classes finish when their configured shares say; and storage on its own
// class slows an AllReduce by no more than the share its weight grants.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "link/credit/sl_arbiter.h"
#include "net/class_arbiter.h"
#include "run/experiment.h"
#include "storage/nvmeof.h"
#include "support/recorder.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

using testing::Recorder;

// Packet sizes that vary as a NIC's do (small control-sized to full MTU).
uint32_t wire_of(int k) { return 64 + static_cast<uint32_t>((k * 2654435761u) % 4200u); }

TEST(EtsArbiter, LongRunByteSharesAreTheWeights) {
  TcSchedulerConfig cfg;
  cfg.strict.fill(false);
  cfg.weight = {1, 3, 1, 1, 1, 1, 1, 6};
  EtsArbiter a(cfg);
  std::vector<uint64_t> bytes(kNumTcs, 0);
  const uint32_t ready = 1u << 0 | 1u << 1 | 1u << 7;
  uint64_t total = 0;
  for (int k = 0; k < 200000; ++k) {
    const int tc = a.choose(ready);
    ASSERT_TRUE((ready >> tc) & 1u);
    a.charge(tc, wire_of(k));
    bytes[tc] += wire_of(k);
    total += wire_of(k);
  }
  // Within one quantum round of the weights (10 x 1500 B + one packet each).
  const double slack = 3.0 * (10 * 1500 + 4264) / static_cast<double>(total);
  EXPECT_NEAR(static_cast<double>(bytes[0]) / static_cast<double>(total), 0.1, slack);
  EXPECT_NEAR(static_cast<double>(bytes[1]) / static_cast<double>(total), 0.3, slack);
  EXPECT_NEAR(static_cast<double>(bytes[7]) / static_cast<double>(total), 0.6, slack);
}

TEST(EtsArbiter, StrictClassesGoFirstAndAnIdleClassKeepsNoCredit) {
  TcSchedulerConfig cfg;  // default: TC7 strict, the rest weight 1
  EtsArbiter a(cfg);
  for (int k = 0; k < 100; ++k) {
    ASSERT_EQ(a.choose(0b1000'0011), 7);
    a.charge(7, 1500);
  }
  // TC0 alone for a long time, then TC1 joins: they alternate from there on,
  // TC0 having banked nothing while it was alone.
  for (int k = 0; k < 100; ++k) a.charge(a.choose(0b01), 1500);
  int zero = 0;
  for (int k = 0; k < 100; ++k) {
    const int tc = a.choose(0b11);
    zero += tc == 0 ? 1 : 0;
    a.charge(tc, 1500);
  }
  EXPECT_EQ(zero, 50);
}

// The NIC's halves of VL arbitration (choose, then charge with the size of
// the packet built) serve exactly what the switch's one-step pick does.
TEST(SlArbiter, ChooseThenChargeServesWhatPickServes) {
  CreditConfig cfg;
  cfg.vlarb_high = {{0, 8}, {3, 2}};
  cfg.vlarb_low = {{1, 64}, {2, 192}, {4, 0}, {5, 3}};
  cfg.high_limit = 2;
  VlArbiter pick(&cfg);
  SlArbiter two_step(cfg);  // identity SL2VL for SLs 0..7
  for (int k = 0; k < 50000; ++k) {
    const uint32_t ready = static_cast<uint32_t>((k * 40503u) >> 3) & 0x3fu;
    const int vl = pick.pick(ready, [&](int) { return wire_of(k); });
    const int sl = ready == 0 ? -1 : two_step.choose(ready);
    ASSERT_EQ(sl, vl) << "packet " << k << " ready " << ready;
    if (sl >= 0) two_step.charge(sl, wire_of(k));
  }
}

TEST(SlArbiter, SlsSharingAVlTakeTurns) {
  CreditConfig cfg;
  cfg.sl2vl.fill(1);
  cfg.vlarb_high.clear();
  cfg.vlarb_low = {{1, 4}};
  SlArbiter a(cfg);
  std::vector<int> served(16, 0);
  for (int k = 0; k < 300; ++k) {
    const int sl = a.choose(1u << 2 | 1u << 5 | 1u << 9);
    a.charge(sl, 4096);
    served[sl] += 1;
  }
  EXPECT_EQ(served[2], 100);
  EXPECT_EQ(served[5], 100);
  EXPECT_EQ(served[9], 100);
}

// Two 8 MiB WRITEs from host 0 to host 1 posted together, on classes `a`
// and `b`: when b's finishes, and when the second finishes.
struct TwoFinishes {
  double a_us = 0, b_us = 0;
};

TwoFinishes race(FabricConfig cfg, uint8_t a, uint8_t b) {
  constexpr int64_t kBytes = 8 << 20;
  Simulation sim(1);
  cfg.nic.jitter.enabled = false;
  Fabric f(sim, make_star(2, cfg.link), cfg);
  Recorder ra, rb;
  f.verbs().create_qp(0, 1, &ra, a).post_write(kBytes, 1);
  f.verbs().create_qp(0, 1, &rb, b).post_write(kBytes, 2);
  sim.run(Time::from_ms(20));
  EXPECT_EQ(ra.done.size(), 1u);
  EXPECT_EQ(rb.done.size(), 1u);
  EXPECT_EQ(f.check_invariants(), "");
  if (ra.done.size() != 1 || rb.done.size() != 1) return {};
  return {ra.done[0].completed.us(), rb.done[0].completed.us()};
}

// While both send, the one with the larger share s of the link finishes its
// bytes B at B / (s R); the other finishes at 2B / R: first / last =
// 1 / (2 s), to within a packet round and the one-way latency.
void expect_share(const TwoFinishes& r, double share_b) {
  const double first = share_b >= 0.5 ? r.b_us : r.a_us;
  const double last = std::max(r.a_us, r.b_us);
  ASSERT_GT(last, 0);
  EXPECT_NEAR(first / last, 1.0 / (2.0 * std::max(share_b, 1 - share_b)), 0.01)
      << "a " << r.a_us << " us, b " << r.b_us << " us";
}

TEST(NicClassArbitration, EthernetEtsWeightsSplitTheNicsLink) {
  FabricConfig cfg = find_profile("rocev2-dcqcn-400g").config;
  cfg.sw.scheduler.weight = {1, 1, 1, 3, 1, 1, 1, 1};
  expect_share(race(cfg, 1, 3), 0.75);  // TC3 weight 3 against TC1 weight 1
  expect_share(race(cfg, 3, 1), 0.25);
  cfg.sw.scheduler.weight = {1, 1, 1, 1, 1, 1, 1, 1};
  expect_share(race(cfg, 1, 3), 0.5);
  cfg.sw.scheduler.strict = {false, false, false, true, false, false, false, true};
  expect_share(race(cfg, 1, 3), 1.0);  // strict TC3 takes the link while it has data
}

TEST(NicClassArbitration, InfinibandVlArbitrationTablesSplitTheNicsLink) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  // VL1 4 KiB and VL2 12 KiB per turn: one full-MTU packet against three.
  // (The ACKs ride SL0 on VL0, which must stay in a table to be sent.)
  cfg.ib.credit.vlarb_high = {{0, 4}};
  cfg.ib.credit.vlarb_low = {{1, 64}, {2, 192}};
  expect_share(race(cfg, 1, 2), 0.75);
  expect_share(race(cfg, 2, 1), 0.25);
  // A high-priority VL with high_limit 255 (unlimited) goes first.
  cfg.ib.credit.vlarb_high = {{0, 4}, {2, 4}};
  cfg.ib.credit.high_limit = 255;
  expect_share(race(cfg, 1, 2), 1.0);
  // SLs mapped to one VL share it equally.
  cfg.ib.credit.vlarb_high = {{0, 4}};
  cfg.ib.credit.sl2vl[2] = 1;
  expect_share(race(cfg, 1, 2), 0.5);
}

// Issue 19, convergence. A ring AllReduce over 8 hosts while 4 of them read
// from the other 4 over NVMe-oF (128 KiB blocks, QD32) for longer than the
// AllReduce lasts. On its own class with weights training 3 : storage 1, each
// target NIC keeps 3/4 of its link for the ring, so the AllReduce takes at
// most 4/3 of its time alone; on the training class the NICs share by QP,
// and more storage queues take more from the ring.
struct Convergence {
  double alone_us, same_class_us, same_class_4jobs_us, own_class_us, own_class_4jobs_us;
};

double allreduce_us(const std::string& fabric, const std::string& storage) {
  std::string text =
      "name: convergence\nduration: 60ms\ntopology: {type: star, hosts: 8}\nfabric: " + fabric +
      "\nworkload:\n  - {type: collective, op: all_reduce, algo: ring, size: 64MiB}\n";
  if (!storage.empty())
    text +=
        "  - {type: nvmeof, initiators: [0, 1, 2, 3], targets: [4, 5, 6, 7], rw: randread, bs: 128KiB, "
        "iodepth: 32, runtime: 20ms" +
        storage + "}\n";
  Experiment e(load_scenario_text(text, "convergence.yaml"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  nlohmann::ordered_json out;
  e.workloads().at(0)->report(out);
  EXPECT_TRUE(out["finished"].get<bool>());
  return out["time_us"].get<double>();
}

Convergence converge(const std::string& fabric) {
  return {allreduce_us(fabric, ""), allreduce_us(fabric, ", numjobs: 1"),
          allreduce_us(fabric, ", numjobs: 4"), allreduce_us(fabric, ", traffic_class: 1"),
          allreduce_us(fabric, ", traffic_class: 1, numjobs: 4")};
}

void expect_bounded_by_weights(const Convergence& c) {
  const double bound = c.alone_us * 4.0 / 3.0;
  for (const double t : {c.own_class_us, c.own_class_4jobs_us}) {
    EXPECT_LE(t, bound * 1.01) << "alone " << c.alone_us << " us";
    EXPECT_GE(t, bound * 0.9) << "storage took less than its share";  // it is busy enough to take it
  }
  EXPECT_GT(c.same_class_us, c.own_class_us);
  EXPECT_GT(c.same_class_4jobs_us, 2.0 * c.alone_us);  // four storage QPs against one ring QP per NIC
}

TEST(NicClassArbitration, StorageOnItsOwnVlSlowsAnAllReduceByNoMoreThanItsWeight) {
  expect_bounded_by_weights(
      converge("{profile: ib-ndr, nic_jitter: {enabled: false}, ib: {vlarb_high: [], vlarb_low: [\"0:192\", "
               "\"1:64\"]}}"));
}

// On RoCE the bound holds with PFC alone; end-to-end congestion control on
// top reacts to the queue ETS builds and gives away more (docs/STORAGE.md).
TEST(NicClassArbitration, StorageOnItsOwnEtsClassSlowsAnAllReduceByNoMoreThanItsWeight) {
  expect_bounded_by_weights(converge(
      "{profile: rocev2-dcqcn-400g, cc: none, nic_jitter: {enabled: false}, scheduler: {weights: [1, "
      "1, 1, 3, 1, 1, 1, 1]}}"));
}

// HPCC's INT as published reports the port's whole queue and transmit rate,
// so HPCC shares a link per flow and ignores the weights; with class INT
// (fabric.hpcc.int: class) each record is the packet's class's own queue
// and bytes, the ring's class sees the queue ETS builds for it, and HPCC
// settles at the class's share: the bound holds as with PFC alone. With one
// class in use the two reports are the same, to the picosecond.
TEST(NicClassArbitration, HpccWithClassIntKeepsEachClassToItsShare) {
  const std::string ets =
      "{profile: rocev2-hpcc-400g, nic_jitter: {enabled: false}, scheduler: {weights: [1, 1, 1, 3, 1, 1, 1, "
      "1]}";
  const Convergence by_class = converge(ets + ", hpcc: {int: class}}");
  expect_bounded_by_weights(by_class);
  const double port_alone = allreduce_us(ets + "}", "");
  const double port_same = allreduce_us(ets + "}", ", numjobs: 1");
  const double port_own_4jobs = allreduce_us(ets + "}", ", traffic_class: 1, numjobs: 4");
  EXPECT_EQ(by_class.alone_us, port_alone);
  EXPECT_EQ(by_class.same_class_us, port_same);
  EXPECT_GT(port_own_4jobs, 2.0 * port_alone);  // per-port INT: the weights do not hold
}

}  // namespace
}  // namespace rdmasim
