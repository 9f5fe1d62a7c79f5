// NVMe-oF over RDMA: a QD1 I/O's completion latency worked out from its
// parts (the host and target paths, the SSD's service time and perftest's
// one-way times for the capsules and the data on the same fabric), and IOPS
// saturating at min(SSD ceiling, link rate / block size) as the queue deepens.
#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "storage/nvmeof.h"
#include "support/workload_errors.h"

namespace rdmasim {
namespace {

NvmeofResult run_nvmeof(const std::string& keys) {
  Experiment e(
      load_scenario_text("name: t\nduration: 1s\ntopology: {type: star, hosts: 2}\nfabric: {profile: ib-ndr, "
                         "nic_jitter: {enabled: "
                         "false}}\nworkload:\n  - {type: nvmeof, " +
                             keys + "}\n",
                         "t.yaml"));
  e.run();
  EXPECT_TRUE(e.workloads().at(0)->finished());
  EXPECT_EQ(e.invariant_error(), "");
  return nvmeof_result(*e.workloads()[0]);
}

// One-way time of a message on ib-ndr without jitter (half perftest's ping-pong).
double one_way_us(const std::string& test, int64_t bytes) {
  PerftestOptions o;
  o.test = test;
  o.size = bytes;
  o.iters = 5;
  o.fabric = find_profile("ib-ndr").config;
  o.fabric.nic.jitter.enabled = false;
  o.link = o.fabric.link;
  return run_perftest(o).latency_us.at(0);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

TEST(Nvmeof, Qd1ReadIsTheSumOfItsParts) {
  const NvmeofResult r = run_nvmeof("rw: randread, bs: 4KiB, iodepth: 1, runtime: 20ms");
  const NvmeofParams d;
  // Command capsule one way; the data WRITE one way, the 16 B response riding
  // behind it on the same QP (a few ns of serialization).
  const double expected = (d.host_overhead + d.target_overhead + d.ssd.read_latency).us() +
                          one_way_us("send_lat", 64) + one_way_us("write_lat", 4096);
  ASSERT_GT(r.read.ios, 0u);
  EXPECT_EQ(r.write.ios, 0u);
  EXPECT_NEAR(mean(r.read.clat_us), expected, 0.02);
  // QD1: IOPS is the inverse of the latency (to one I/O in the 20 ms window).
  EXPECT_NEAR(r.read.iops, 1e6 / expected, 1e6 / expected * 0.02);
}

TEST(Nvmeof, Qd1WriteInCapsuleOrPulledByTheTarget) {
  const NvmeofParams d;
  const double paths = (d.host_overhead + d.target_overhead + d.ssd.write_latency).us();
  // 4 KiB rides in the command capsule (the default in-capsule data size).
  const NvmeofResult in = run_nvmeof("rw: randwrite, bs: 4KiB, runtime: 1ms");
  EXPECT_NEAR(mean(in.write.clat_us), paths + one_way_us("send_lat", 64 + 4096) + one_way_us("send_lat", 16),
              0.02);
  // 8 KiB does not: the target RDMA READs it from the host first.
  const NvmeofResult pulled = run_nvmeof("rw: randwrite, bs: 8KiB, runtime: 1ms");
  EXPECT_NEAR(mean(pulled.write.clat_us),
              paths + one_way_us("send_lat", 64) + one_way_us("read_lat", 8192) + one_way_us("send_lat", 16),
              0.02);
}

TEST(Nvmeof, IopsSaturateAtTheSsdOrTheLink) {
  const NvmeofParams d;
  // 4 KiB: the SSD's 1M IOPS bind long before 400 Gb/s.
  const NvmeofResult small =
      run_nvmeof("rw: randread, bs: 4KiB, iodepth: 256, runtime: 4ms, ramp_time: 500us");
  EXPECT_NEAR(small.read.iops, static_cast<double>(d.ssd.read_iops),
              0.02 * static_cast<double>(d.ssd.read_iops));
  // 128 KiB: the link binds (payload rate / block) below the SSD's ceiling.
  const FabricConfig f = find_profile("ib-ndr").config;
  const double mtu = static_cast<double>(f.rc.mtu);
  const double link_iops = f.link.rate.gbps() * 1e9 / 8 * mtu / (mtu + f.framing.base_header) / 131072;
  const NvmeofResult big =
      run_nvmeof("rw: randread, bs: 128KiB, iodepth: 64, runtime: 4ms, ramp_time: 500us");
  EXPECT_LT(big.read.iops, link_iops * 1.001);
  EXPECT_GT(big.read.iops, link_iops * 0.97);
  // Deeper queues never lower IOPS, and a mix splits them by rwmixread.
  const NvmeofResult mix = run_nvmeof("rw: randrw, rwmixread: 70%, bs: 4KiB, iodepth: 8, runtime: 2ms");
  const double share = static_cast<double>(mix.read.ios) / static_cast<double>(mix.read.ios + mix.write.ios);
  EXPECT_NEAR(share, 0.7, 0.03);
}

std::string key_of(const std::string& keys) {
  return testing::workload_error_key("{type: nvmeof, " + keys + "}");
}

TEST(Nvmeof, RefusesBadInput) {
  EXPECT_EQ(key_of("bs: 1000B"), "workload[0].bs");
  EXPECT_EQ(key_of("bs: 0B"), "workload[0].bs");
  EXPECT_EQ(key_of("iodepth: 0"), "workload[0].iodepth");
  EXPECT_EQ(key_of("rw: read"), "workload[0].rw");
  EXPECT_EQ(key_of("rw: randread, rwmixread: 70%"), "workload[0].rwmixread");
  EXPECT_EQ(key_of("targets: [9]"), "workload[0].targets");
  EXPECT_EQ(key_of("initiators: [0, 1], targets: [1]"), "workload[0].targets");
  EXPECT_EQ(key_of("targets: [0]"), "workload[0].targets");
  EXPECT_EQ(key_of("runtime: 0s"), "workload[0].runtime");
  EXPECT_EQ(key_of("ssd: {read_iops: 0}"), "workload[0].ssd.read_iops");
  EXPECT_EQ(key_of("initiators: [0, 1], targets: [2, 3], numjobs: 4, iodepth: 32"), "accepted");
}

}  // namespace
}  // namespace rdmasim
