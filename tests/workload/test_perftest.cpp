// perftest equivalents against hand-computed values (VALIDATION.md §A.1, §C.9).
#include <gtest/gtest.h>

#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "workload/perftest.h"

namespace rdmasim {
namespace {

TEST(Perftest, WriteLatencyIsHalfTheExactRoundTrip) {
  PerftestOptions o;
  o.test = "write_lat";
  o.iters = 50;
  o.link = {Rate::from_gbps(100), Time::from_ns(1000)};
  o.fabric.sw.latency = Time::from_ns(600);
  const PerftestResult r = run_perftest(o);
  ASSERT_EQ(r.latency_us.size(), 50u);
  // 2-byte WRITE: 62 + 16 + 2 = 80 B frame (padded to 64 min? no: 80 > 64) + 20 = 100 B;
  // one way = 2 x (100 B x 80 ps + 1 us) + 600 ns switch; ping-pong / 2 = one way.
  const double one_way_us = (2 * (100 * 80 + 1'000'000) + 600'000) / 1e6;
  for (double v : r.latency_us) EXPECT_DOUBLE_EQ(v, one_way_us);
  EXPECT_EQ(r.invariant_error, "");
}

// ib-ndr through one switch, by hand: NIC tx 300 ns; 2-byte WRITE = LRH 8 +
// BTH 12 + RETH 16 + 2 + ICRC 4 + VCRC 2 = 44 B; the switch forwards once
// the 8-byte LRH is in (8 B x 20 ps) and after 330 ns; the NIC takes the
// whole packet (44 x 20 ps) and 300 ns rx; two 25 ns cables. VALIDATION.md
// §C.9: ~1 us, under the 2.5 us acceptance bound.
TEST(Perftest, InfinibandNdrWriteLatencyIsExact) {
  const Profile prof = find_profile("ib-ndr");
  PerftestOptions o;
  o.test = "write_lat";
  o.iters = 20;
  o.fabric = prof.config;
  o.fabric.nic.jitter.enabled = false;  // the exact figure: fixed NIC latencies
  o.link = prof.config.link;
  const PerftestResult r = run_perftest(o);
  ASSERT_EQ(r.latency_us.size(), 20u);
  const int64_t one_way_ps = 300'000 + 8 * 20 + 25'000 + 330'000 + 44 * 20 + 25'000 + 300'000;
  for (double v : r.latency_us) EXPECT_DOUBLE_EQ(v, static_cast<double>(one_way_ps) / 1e6);
  EXPECT_LT(r.latency_us[0], 2.5);
  EXPECT_EQ(r.invariant_error, "");
}

// 64 KiB WRITEs at 4096-byte MTU: 16 packets of 4096 + 26 header bytes and
// one RETH per message, i.e. 65536 / 65968 of 400 Gb/s = 397.4 Gb/s, less
// one 6-byte FCP per ACK (16 per message) sharing the sender's link.
TEST(Perftest, InfinibandNdrWriteBandwidthIsLineRateTimesPayloadShare) {
  const Profile prof = find_profile("ib-ndr");
  PerftestOptions o;
  o.test = "write_bw";
  o.iters = 2000;
  o.fabric = prof.config;
  o.fabric.nic.jitter.enabled = false;  // the exact figure: fixed NIC latencies
  o.link = prof.config.link;
  const PerftestResult r = run_perftest(o);
  const double expect = 400.0 * 65536 / (65968 + 16 * 6);
  EXPECT_NEAR(r.gbps, expect, 0.005 * expect);
  EXPECT_GE(r.gbps, 360.0);
  EXPECT_EQ(r.invariant_error, "");
}

// BW peak as perftest computes it (print_report_bw): the least time per
// message from posting message i to completing message j. No window of
// messages can beat the wire, so with the NIC jitter that bunches
// completions on (the profile's realistic setting) the peak stays under
// the line rate, where a window between completions alone read 55,617
// MB/s on ib-ndr, 17% over its 47,684. On a steady stream it is the average's.
TEST(Perftest, BandwidthPeakNeverExceedsTheLineRate) {
  for (const char* fabric : {"ib-ndr", "rocev2-dcqcn-400g", "uet-nscc"}) {
    const Profile prof = find_profile(fabric);
    PerftestOptions o;
    o.test = "write_bw";
    o.iters = 2000;
    o.tx_depth = 4;
    o.fabric = prof.config;
    ASSERT_TRUE(o.fabric.nic.jitter.enabled) << fabric;
    o.link = prof.config.link;
    const PerftestResult r = run_perftest(o);
    const double line_mib_s = static_cast<double>(o.link.rate.bps()) / 8 / 1048576;
    EXPECT_LE(r.bw_peak_mb_s, line_mib_s) << fabric;
    EXPECT_GE(r.bw_peak_mb_s, r.bw_avg_mb_s) << fabric;
    EXPECT_LT(r.bw_peak_mb_s, 1.01 * r.bw_avg_mb_s) << fabric;
    EXPECT_EQ(r.invariant_error, "") << fabric;
  }
}

TEST(Perftest, ReadLatencyIsTheFullRequestResponseTime) {
  PerftestOptions o;
  o.test = "read_lat";
  o.iters = 10;
  o.switches = 0;  // back-to-back hosts
  const PerftestResult r = run_perftest(o);
  // Request 98 B + response (62 + 4 AETH + 2 = 68 B frame) + 20 = 88 B, over one 100G 1us link each way.
  const double us = ((98 * 80 + 1'000'000) + (88 * 80 + 1'000'000)) / 1e6;
  for (double v : r.latency_us) EXPECT_DOUBLE_EQ(v, us);
}

TEST(Perftest, WriteBandwidthMatchesLineRateTimesPayloadShare) {
  PerftestOptions o;
  o.test = "write_bw";
  o.size = 65536;
  o.iters = 2000;
  o.link = {Rate::from_gbps(400), Time::from_ns(500)};
  o.fabric.rc.mtu = 4096;
  const PerftestResult r = run_perftest(o);
  // 16 packets per 64 KiB message; RETH on the first: (16 x (4096 + 82) + 16) wire bytes per 65536 payload.
  const double expect_gbps = 400.0 * 65536 / (16 * (4096 + 82) + 16);
  EXPECT_NEAR(r.gbps / expect_gbps, 1.0, 0.002) << r.gbps;
  // perftest acceptance (VALIDATION.md §C.9): >= 90% of port rate.
  EXPECT_GT(r.gbps, 0.9 * 400);
  EXPECT_NEAR(r.bw_avg_mb_s, r.gbps * 1e9 / 8 / 1048576, 1e-6 * r.bw_avg_mb_s);
}

TEST(Perftest, RoceDcqcnProfileUnloadedLatencyAndBandwidthMatchTheAnalyticalValues) {
  // PFC, ECN and DCQCN change nothing for a lone flow: the same exact numbers.
  PerftestOptions o;
  o.test = "write_lat";
  o.iters = 20;
  o.fabric = find_profile("rocev2-dcqcn").config;
  o.fabric.sw.latency = Time::from_ns(600);
  const PerftestResult lat = run_perftest(o);
  for (double v : lat.latency_us) EXPECT_DOUBLE_EQ(v, (2 * (100 * 80 + 1'000'000) + 600'000) / 1e6);
  o.test = "write_bw";
  o.iters = 1000;
  const PerftestResult bw = run_perftest(o);
  // 64 KiB messages of 66 x 1000 B packets (last 536 B): 65536 B of payload per 66 x 82 + 16 + 65536 B.
  EXPECT_NEAR(bw.gbps / (100.0 * 65536 / (66 * 82 + 16 + 65536)), 1.0, 0.002);
  EXPECT_EQ(bw.invariant_error, "");
}

TEST(Perftest, UnknownTestIsRejected) {
  PerftestOptions o;
  o.test = "atomic_lat";
  EXPECT_THROW((void)run_perftest(o), std::invalid_argument);
}

TEST(Perftest, OutputHasPerftestColumns) {
  PerftestOptions o;
  o.test = "send_lat";
  o.iters = 5;
  const PerftestResult r = run_perftest(o);
  const std::string s = format_perftest(r, o);
  EXPECT_NE(s.find("Send Latency Test"), std::string::npos);
  EXPECT_NE(s.find("t_typical[usec]"), std::string::npos);
  EXPECT_NE(s.find("99.9% percentile[usec]"), std::string::npos);
}

}  // namespace
}  // namespace rdmasim
