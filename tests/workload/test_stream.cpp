// Real-time streams: on an idle fabric every message takes perftest's
// one-way time and the deadline splits hits from misses exactly; a burst
// queues behind itself by one serialization per message; an incast into the
// receiver makes messages late, and the report counts them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "support/workload_errors.h"
#include "workload/stream.h"

namespace rdmasim {
namespace {

StreamResult run_stream(const std::string& stream, const std::string& topo = "{type: star, hosts: 2}",
                        const std::string& extra = "", const std::string& fabric = "profile: ib-ndr") {
  Experiment e(load_scenario_text("name: t\nduration: 20ms\ntopology: " + topo + "\nfabric: {" + fabric +
                                      ", nic_jitter: {enabled: false}}\nworkload:\n  - " + stream + "\n" +
                                      extra,
                                  "t.yaml"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  return stream_result(*e.workloads().at(0));
}

double write_one_way_us(int64_t size) {
  PerftestOptions o;
  o.test = "write_lat";
  o.size = size;
  o.iters = 5;
  o.fabric = find_profile("ib-ndr").config;
  o.fabric.nic.jitter.enabled = false;
  o.link = o.fabric.link;
  return run_perftest(o).latency_us.at(0);
}

TEST(Stream, IdleLatencyIsTheOneWayTimeAndTheDeadlineSplitsExactly) {
  const double one_way = write_one_way_us(4096);
  const std::string base = "{type: stream, src: 0, dst: 1, size: 4KiB, period: 10us, count: 50, deadline: ";
  const StreamResult hit = run_stream(base + fmt::format("{}ns}}", std::llround(one_way * 1e3) + 1));
  ASSERT_EQ(hit.delivered, 50);
  for (const double x : hit.latency_us) EXPECT_NEAR(x, one_way, 1e-6);
  EXPECT_EQ(hit.missed, 0);
  const StreamResult late = run_stream(base + fmt::format("{}ns}}", std::llround(one_way * 1e3) - 1));
  EXPECT_EQ(late.missed, 50);
}

TEST(Stream, ABurstQueuesBehindItself) {
  const StreamResult r = run_stream(
      "{type: stream, src: 0, dst: 1, size: 4KiB, period: 50us, burst: 4, count: 3, "
      "deadline: 100us}");
  ASSERT_EQ(r.latency_us.size(), 12u);
  const FabricConfig f = find_profile("ib-ndr").config;
  const double frame_us = f.link.rate.tx_time(Bytes(4096 + f.framing.base_header + f.framing.reth)).us();
  for (size_t k = 1; k < 4; ++k) {
    EXPECT_GT(r.latency_us[k], r.latency_us[k - 1]);
    EXPECT_NEAR(r.latency_us[k] - r.latency_us[k - 1], frame_us, 0.05 * frame_us + 0.002);
  }
  EXPECT_NEAR(r.latency_us[4], r.latency_us[0], 1e-6);  // each period starts on an idle fabric
}

TEST(Stream, AnIncastIntoTheReceiverMakesMessagesLate) {
  const std::string topo = "{type: leaf-spine, leaves: 2, hosts_per_leaf: 4, spines: 4}";
  const std::string stream =
      "{type: stream, src: 0, dst: 7, size: 4KiB, period: 2us, count: 1000, deadline: 5us}";
  const StreamResult idle = run_stream(stream, topo);
  EXPECT_EQ(idle.missed, 0);
  const StreamResult loaded =
      run_stream(stream, topo, "  - {type: incast, senders: 6, receiver: 7, size: 2MiB, start: 100us}\n");
  EXPECT_EQ(loaded.delivered, 1000);
  EXPECT_GT(loaded.missed, 50);
  double worst = 0;
  for (const double x : loaded.latency_us) worst = std::max(worst, x);
  EXPECT_GT(worst, 2 * 5.0);
}

// On a class of its own that the links serve first, NICs and switches send
// the stream's packets ahead of the incast's: every message is on time, and
// its latency stays within a few frames of the idle one-way time.
TEST(Stream, OnAPriorityClassOfItsOwnItMeetsItsDeadlineBesideTheIncast) {
  const std::string topo = "{type: leaf-spine, leaves: 2, hosts_per_leaf: 4, spines: 4}";
  const std::string incast = "  - {type: incast, senders: 6, receiver: 7, size: 2MiB, start: 100us}\n";
  const std::string stream =
      "{type: stream, src: 0, dst: 7, size: 4KiB, period: 2us, count: 1000, deadline: 5us";
  auto worst = [](const StreamResult& r) {
    double w = 0;
    for (const double x : r.latency_us) w = std::max(w, x);
    return w;
  };
  // InfiniBand: SL1 on VL1, a high-priority VL with no high-priority limit.
  // RoCE: TC7, strict in fabric.scheduler's default.
  const std::pair<std::string, std::string> cases[] = {
      {"profile: ib-ndr, ib: {vlarb_high: [\"1:4\", \"0:4\"], vlarb_low: [\"0:4\"], high_limit: 255}",
       ", traffic_class: 1}"},
      {"profile: rocev2-dcqcn-400g", ", traffic_class: 7}"}};
  for (const auto& [fabric, tc] : cases) {
    SCOPED_TRACE(fabric);
    const StreamResult idle = run_stream(stream + tc, topo, "", fabric);
    const StreamResult loaded = run_stream(stream + tc, topo, incast, fabric);
    EXPECT_EQ(loaded.delivered, 1000);
    EXPECT_EQ(loaded.missed, 0);
    EXPECT_LT(worst(loaded), worst(idle) + 1.0);  // a few 400G frames ahead of it at most
  }
}

TEST(Stream, RefusesBadInput) {
  auto key_of = [](const std::string& item) {
    return testing::workload_error_key(item, "{type: star, hosts: 2}");
  };
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, deadline: 0us}"), "workload[0].deadline");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, period: 0us}"), "workload[0].period");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, size: 0B}"), "workload[0].size");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 0}"), "workload[0].dst");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 5}"), "workload[0].dst");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, op: read}"), "workload[0].op");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, burst: 4, period: 1us}"), "accepted");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, traffic_class: 8}"), "workload[0].traffic_class");
  EXPECT_EQ(key_of("{type: stream, src: 0, dst: 1, traffic_class: high}"), "workload[0].traffic_class");
}

// Class 0 is a class like any other, not the default (the fabric's data class).
TEST(Stream, TrafficClassZeroIsAClassAndDefaultIsTheDataClass) {
  auto class_of = [](const std::string& tc) {
    const Scenario s = load_scenario_text(
        "name: t\nduration: 1ms\ntopology: {type: star, hosts: 2}\nfabric: {profile: rocev2-dcqcn-400g}\n"
        "workload:\n  - {type: stream, src: 0, dst: 1, traffic_class: " +
            tc + "}\n",
        "t.yaml");
    return static_cast<const StreamParams&>(*s.workloads.at(0).params).traffic_class;
  };
  EXPECT_EQ(class_of("0"), 0);
  EXPECT_EQ(class_of("5"), 5);
  EXPECT_EQ(class_of("default"), -1);
}

}  // namespace
}  // namespace rdmasim
