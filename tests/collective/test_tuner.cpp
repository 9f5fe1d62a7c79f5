// NCCL's protocols and tuner (collective/protocol.h, collective/tuner.h):
// the buffer layout and cost model are NCCL's own figures, checked by hand
// here; what the simulation makes of them is checked against published
// nccl-tests runs of real clusters (data/reference/nccl-tests/).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "collective/nccl_tests.h"
#include "collective/tuner.h"
#include "config/shipped_path.h"
#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "support/nccl_sweep.h"

namespace rdmasim {
namespace {

// NCCL src/include/device.h: LL lines are 16 B with 8 B of data; LL128
// lines 128 B with 120 B; buffers of 8 steps: LL 512 threads x 8 lines,
// LL128 640 threads x 120 x 8 B, Simple NCCL_BUFFSIZE 4 MiB.
TEST(Protocols, WireBytesAndStepsAreNcclsBufferLayout) {
  EXPECT_EQ(proto_wire_bytes(Proto::kSimple, 1000), 1000);
  EXPECT_EQ(proto_wire_bytes(Proto::kLL, 8), 16);
  EXPECT_EQ(proto_wire_bytes(Proto::kLL, 9), 32);
  EXPECT_EQ(proto_wire_bytes(Proto::kLL128, 120), 128);
  EXPECT_EQ(proto_wire_bytes(Proto::kLL128, 121), 256);
  EXPECT_EQ(proto_step_bytes(Proto::kSimple), 512 * 1024);
  EXPECT_EQ(proto_step_bytes(Proto::kLL), 32 * 1024);
  EXPECT_EQ(proto_step_bytes(Proto::kLL128), 576000);  // 614,400 B of lines
  EXPECT_EQ(proto_grain_bytes(Proto::kLL), 2048);
  EXPECT_EQ(proto_grain_bytes(Proto::kLL128), 28800);
  EXPECT_EQ(proto_from_name("ll128"), Proto::kLL128);
  EXPECT_THROW((void)proto_from_name("LL64"), std::invalid_argument);
}

TunerSystem h100_2x8() {
  TunerSystem s;
  s.shape = CommShape{2, 8};
  s.nic = Rate::from_gbps(400);
  s.nvlink = Rate::from_gbps(450 * 8);
  s.arch = GpuArch::kHopper;
  return s;
}

PlanRequest allreduce(int64_t bytes) {
  PlanRequest r;
  r.bytes = bytes;
  r.channels = 8;
  r.tune_algo = r.tune_proto = true;
  return r;
}

// NCCL's model (tuning.cc, v2.30.7) worked by hand for 2 x 8 H100, one 400G
// NIC per GPU, 8 channels of 50 GB/s:
//   1 KiB tree/LL: latency 6.8 + 2 (7 x 0.6 + 1 x 5.0) = 25.2 us; bus
//   bandwidth min(400 x 0.92, 8 x 41.4) = 331.2, LL min(331.2 / 3.8, 39.0)
//   = 39.0, algorithm bandwidth 0.5 x 39.0 x tree correction 0.9 = 17.55 GB/s.
//   1 GiB ring/Simple: latency (8.4 + 28 x 3.4 + 2 x 14) x 1.4 = 184.24 us;
//   algorithm bandwidth 400 x 16 / 30 GB/s.
TEST(Tuner, ReproducesNcclsCostModel) {
  const auto small = nccl_estimates(allreduce(1024), h100_2x8());
  const auto big = nccl_estimates(allreduce(int64_t{1} << 30), h100_2x8());
  ASSERT_EQ(small.size(), 7u);  // ring and tree x LL, LL128, Simple; NVLSTree x Simple
  auto find = [](const std::vector<TunerEstimate>& v, Algo a, Proto p) {
    for (const auto& e : v)
      if (e.algo == a && e.proto == p) return e;
    ADD_FAILURE() << "no estimate";
    return v.front();
  };
  const TunerEstimate t = find(small, Algo::kTree, Proto::kLL);
  EXPECT_NEAR(t.latency_us, 25.2, 1e-9);
  EXPECT_NEAR(t.algbw_GBps, 17.55, 1e-9);
  EXPECT_NEAR(t.time_us, 25.2 + 1024 / 17550.0, 1e-9);
  const TunerEstimate r = find(big, Algo::kRing, Proto::kSimple);
  EXPECT_NEAR(r.latency_us, 184.24, 1e-9);
  EXPECT_NEAR(r.algbw_GBps, 400.0 * 16 / 30, 1e-9);
  const TunerChoice c1 = nccl_tune(allreduce(1024), h100_2x8());
  EXPECT_EQ(c1.algo, Algo::kTree);
  EXPECT_EQ(c1.proto, Proto::kLL);
  // 1 GiB: NVLSTree (66.8 us + 1 GiB at 246.2 GB/s) beats the ring's 5.2 ms.
  const TunerChoice c2 = nccl_tune(allreduce(int64_t{1} << 30), h100_2x8());
  EXPECT_EQ(c2.algo, Algo::kNvlsTree);
  EXPECT_EQ(c2.proto, Proto::kSimple);
  // NCCL_PROTO=Simple keeps the tuner to Simple; NCCL_ALGO=ring to rings.
  PlanRequest forced = allreduce(1024);
  forced.tune_proto = false;
  forced.proto = Proto::kSimple;
  EXPECT_EQ(nccl_tune(forced, h100_2x8()).proto, Proto::kSimple);
  forced = allreduce(1024);
  forced.tune_algo = false;
  forced.algo = Algo::kRing;
  EXPECT_EQ(nccl_tune(forced, h100_2x8()).algo, Algo::kRing);
  EXPECT_EQ(nccl_tune(forced, h100_2x8()).proto, Proto::kLL);
  // AllGather has no tree in NCCL; one node has no tree.
  PlanRequest ag = allreduce(1024);
  ag.type = CollType::kAllGather;
  for (const auto& e : nccl_estimates(ag, h100_2x8())) EXPECT_EQ(e.algo, Algo::kRing);
  TunerSystem one = h100_2x8();
  one.shape = CommShape{1, 8};
  EXPECT_EQ(nccl_tune(allreduce(1024), one).algo, Algo::kRing);
}

// NCCL enables LL128 across servers only where the GPU-NIC path is at most
// PXB, or PXN on Hopper and later (tuning.cc); elsewhere its tuner weighs LL
// and Simple alone, and NCCL_PROTO=LL128 still forces it. One server has no
// NIC in its graphs. On 2 x 8 H100 the tuner's 1 MiB AllReduce is tree/LL128
// at PXB and turns to another protocol at PHB.
TEST(Tuner, LeavesLl128OutWhereNcclDoes) {
  auto has_ll128 = [](const TunerSystem& sys, const PlanRequest& r) {
    for (const auto& e : nccl_estimates(r, sys))
      if (e.proto == Proto::kLL128) return true;
    return false;
  };
  TunerSystem sys = h100_2x8();
  const PlanRequest r = allreduce(1 << 20);
  for (const auto& [arch, path, enabled] :
       {std::tuple{GpuArch::kHopper, PciPath::kPix, true}, std::tuple{GpuArch::kHopper, PciPath::kPxb, true},
        std::tuple{GpuArch::kHopper, PciPath::kPxn, true}, std::tuple{GpuArch::kHopper, PciPath::kPhb, false},
        std::tuple{GpuArch::kHopper, PciPath::kSys, false}, std::tuple{GpuArch::kAmpere, PciPath::kPxb, true},
        std::tuple{GpuArch::kAmpere, PciPath::kPxn, false},
        std::tuple{GpuArch::kBlackwell, PciPath::kPxn, true}}) {
    sys.arch = arch;
    sys.gpu_nic = path;
    EXPECT_EQ(nccl_ll128_enabled(sys), enabled) << gpu_arch_name(arch) << " " << pci_path_name(path);
    EXPECT_EQ(has_ll128(sys, r), enabled) << gpu_arch_name(arch) << " " << pci_path_name(path);
  }
  sys = h100_2x8();
  EXPECT_EQ(nccl_tune(r, sys).proto, Proto::kLL128);
  sys.gpu_nic = PciPath::kPhb;
  EXPECT_NE(nccl_tune(r, sys).proto, Proto::kLL128);
  PlanRequest forced = r;
  forced.tune_proto = false;
  forced.proto = Proto::kLL128;
  EXPECT_EQ(nccl_tune(forced, sys).proto, Proto::kLL128);
  TunerSystem one = sys;
  one.shape = CommShape{1, 8};
  EXPECT_TRUE(nccl_ll128_enabled(one));
  // Named as the scenario key writes it or as NCCL prints it.
  EXPECT_EQ(pci_path_from_name("phb"), PciPath::kPhb);
  EXPECT_EQ(pci_path_from_name("PXN"), PciPath::kPxn);
  EXPECT_THROW((void)pci_path_from_name("nvl"), std::invalid_argument);
}

// NCCL_PROTO as NCCL parses it (tuning.cc parseList of 2.24.3): a list sets
// the protocols it names, "^" the others; names case-insensitive; a listed
// LL128 is enabled outright, so the GPU-NIC path rule above no longer
// applies to it.
TEST(Tuner, TakesNcclProtoListsAndExclusions) {
  const ProtoSet ll = proto_bit(Proto::kLL), ll128 = proto_bit(Proto::kLL128),
                 simple = proto_bit(Proto::kSimple);
  EXPECT_EQ(parse_nccl_proto("auto"), 0);
  EXPECT_EQ(parse_nccl_proto("LL128"), ll128);
  EXPECT_EQ(parse_nccl_proto("ll,SIMPLE"), ll | simple);
  EXPECT_EQ(parse_nccl_proto("^LL128"), ll | simple);
  EXPECT_EQ(parse_nccl_proto("^ll,simple"), ll128);
  EXPECT_EQ(nccl_proto_text(ll | simple), "LL,Simple");
  EXPECT_EQ(nccl_proto_text(0), "auto");
  for (const char* bad :
       {"", "^", "LL,,Simple", "LL64", "^LL,LL128,Simple", "allreduce:LL", "LL;allreduce:^LL"})
    EXPECT_THROW((void)parse_nccl_proto(bad), std::invalid_argument) << bad;

  // Each candidate's estimate is the same with or without a list: the list
  // only decides which candidates there are, and the cheapest of them wins.
  TunerSystem sys = h100_2x8();
  sys.gpu_nic = PciPath::kPhb;  // LL128 left out by default
  for (const int64_t bytes : {int64_t{1} << 10, int64_t{1} << 20, int64_t{64} << 20}) {
    PlanRequest r = allreduce(bytes);
    const auto every = nccl_estimates(r, sys);
    for (const ProtoSet set : {ProtoSet(ll128 | simple), ProtoSet(ll | ll128), ProtoSet(ll | simple)}) {
      set_nccl_proto(r, set);
      double best = 1e300;
      Proto want = Proto::kSimple;
      PlanRequest all = r;
      all.proto_set = ll | ll128 | simple;
      for (const auto& e : nccl_estimates(all, sys))
        if ((set & proto_bit(e.proto)) != 0 && e.time_us < best) {
          best = e.time_us;
          want = e.proto;
        }
      EXPECT_EQ(nccl_tune(r, sys).proto, want) << bytes << " " << nccl_proto_text(set);
      for (const auto& e : nccl_estimates(r, sys)) EXPECT_NE(set & proto_bit(e.proto), 0);
    }
    // Unset, LL128 stays out at PHB; listed, it is weighed.
    for (const auto& e : every) EXPECT_NE(e.proto, Proto::kLL128);
  }
  PlanRequest r = allreduce(1 << 20);
  set_nccl_proto(r, ll128 | simple);
  EXPECT_EQ(nccl_tune(r, sys).proto, Proto::kLL128);  // tree/LL128, as with PXB unset
  set_nccl_proto(r, simple);
  EXPECT_FALSE(r.tune_proto);
  EXPECT_EQ(nccl_proto_of(r), simple);
}

// NCCL_ALGO likewise (the same parseList): "^nvls,nvlstree" is what
// NCCL_NVLS_ENABLE=0 leaves the tuner; the list filters the candidates and
// the cheapest of those wins, each estimate unchanged.
TEST(Tuner, TakesNcclAlgoListsAndExclusions) {
  const AlgoSet ring = algo_bit(Algo::kRing), tree = algo_bit(Algo::kTree), nvls = algo_bit(Algo::kNvls),
                nvlstree = algo_bit(Algo::kNvlsTree);
  EXPECT_EQ(parse_nccl_algo("auto"), 0);
  EXPECT_EQ(parse_nccl_algo("NVLSTree"), nvlstree);
  EXPECT_EQ(parse_nccl_algo("sharp"), algo_bit(Algo::kSharp));  // one name: forced, any algorithm
  EXPECT_EQ(parse_nccl_algo("Ring,TREE"), ring | tree);
  EXPECT_EQ(parse_nccl_algo("^nvls,nvlstree"), ring | tree);
  EXPECT_EQ(parse_nccl_algo("^ring"), tree | nvls | nvlstree);
  EXPECT_EQ(nccl_algo_text(ring | nvlstree), "ring,nvlstree");
  for (const char* bad : {"", "^", "ring,,tree", "ring,sharp", "^pairwise", "^ring,tree,nvls,nvlstree",
                          "allreduce:ring", "collnet"})
    EXPECT_THROW((void)parse_nccl_algo(bad), std::invalid_argument) << bad;

  const TunerSystem sys = h100_2x8();
  for (const int64_t bytes : {int64_t{1} << 10, int64_t{4} << 20, int64_t{256} << 20}) {
    PlanRequest r = allreduce(bytes);
    const auto every = nccl_estimates(r, sys);
    for (const AlgoSet set : {AlgoSet(ring | tree), AlgoSet(ring | nvlstree), AlgoSet(tree | nvlstree)}) {
      set_nccl_algo(r, set);
      ASSERT_TRUE(r.tune_algo);
      const TunerEstimate* best = nullptr;
      for (const auto& e : every)
        if ((set & algo_bit(e.algo)) != 0 && (best == nullptr || e.time_us < best->time_us)) best = &e;
      ASSERT_NE(best, nullptr);
      const TunerChoice c = nccl_tune(r, sys);
      EXPECT_EQ(c.algo, best->algo) << bytes << " " << nccl_algo_text(set);
      EXPECT_EQ(c.proto, best->proto) << bytes << " " << nccl_algo_text(set);
    }
  }
  // Nothing left for AllGather across servers from tree and nvls: NCCL would fail the call.
  PlanRequest ag = allreduce(1 << 20);
  ag.type = CollType::kAllGather;
  set_nccl_algo(ag, tree | nvls);
  EXPECT_TRUE(nccl_candidate_algos(ag, sys).empty());
  set_nccl_algo(ag, ring | nvls);
  EXPECT_EQ(nccl_candidate_algos(ag, sys), std::vector<Algo>{Algo::kRing});
}

// NCCL 2.24.3 gives a small call fewer channels than its communicator has:
// topoGetAlgoInfo drops channels while bytes < channels x threads x
// threshold, then each channel gets at least 16 KiB of traffic. Worked by
// hand from enqueue.cc for 8 search channels (NCCL's communicator runs 16,
// a plan channel stands for two) and 32 ranks: NCCL's count, then the plan's.
TEST(Tuner, GivesSmallCallsTheChannelsNcclGivesThem) {
  auto channels = [](CollType t, Algo a, Proto p, int64_t bytes) {
    PlanRequest r;
    r.type = t;
    r.algo = a;
    r.proto = p;
    r.bytes = bytes;
    r.channels = 8;
    return nccl_call_channels(r, 32, 24);
  };
  const auto ar = CollType::kAllReduce, ag = CollType::kAllGather;
  // Tree/LL: 512 threads x 8 B, 4 KiB per channel; then 16 KiB of traffic
  // (AllReduce: twice the bytes) per channel.
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 1024), 1);    // 1
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 8192), 1);    // 2 by threads, 1 by traffic
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 16384), 1);   // 4, then 2
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 32768), 2);   // 8, then 4
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 65536), 4);   // 16, then 8
  EXPECT_EQ(channels(ar, Algo::kTree, Proto::kLL, 131072), 8);  // 16
  // Ring/LL: the threshold times the ranks, 128 KiB per channel on 32 ranks.
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kLL, 262144), 1);   // 2
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kLL, 1 << 20), 4);  // 8
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kLL, 2 << 20), 8);  // 16
  // An AllGather's traffic is its whole buffer, the size nccl-tests prints.
  EXPECT_EQ(channels(ag, Algo::kRing, Proto::kLL, 524288), 2);    // 4
  EXPECT_EQ(channels(ag, Algo::kRing, Proto::kLL128, 32768), 1);  // 6 by threads (640 x 8 B), 2 by traffic
  // Simple: 512 threads x 64 B, 32 KiB per channel.
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kSimple, 65536), 1);    // 2
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kSimple, 262144), 4);   // 8
  EXPECT_EQ(channels(ar, Algo::kRing, Proto::kSimple, 1 << 20), 8);  // 16
  // NVLS keeps its channels.
  EXPECT_EQ(channels(ar, Algo::kNvls, Proto::kSimple, 1024), 8);
}

// The call-channel rule by release (enqueue.cc of each), worked by hand for
// the same 16 NCCL channels and 32 ranks; NCCL's count, then the plan's.
TEST(Tuner, GivesSmallCallsTheChannelsEachNcclReleaseGivesThem) {
  auto channels = [](Proto p, int64_t bytes, int minor) {
    PlanRequest r;
    r.type = CollType::kAllReduce;
    r.algo = Algo::kTree;
    r.proto = p;
    r.bytes = bytes;
    r.channels = 8;
    return nccl_call_channels(r, 32, minor);
  };
  // Tree/LL 16 KiB: 4 channels by threads (16 KiB / (512 x 8 B)).
  // 2.18-2.21 run them.
  EXPECT_EQ(channels(Proto::kLL, 16384, 18), 2);
  EXPECT_EQ(channels(Proto::kLL, 16384, 21), 2);
  // 2.22: 32 KiB of traffic, 8 KiB per channel (over 512 B) in 16 B cells: 4.
  EXPECT_EQ(channels(Proto::kLL, 16384, 22), 2);
  // 2.23-2.25: at least 16 KiB of traffic per channel, 8 KiB cells: 2.
  EXPECT_EQ(channels(Proto::kLL, 16384, 23), 1);
  EXPECT_EQ(channels(Proto::kLL, 16384, 25), 1);
  // 2.26: LL's traffic x4, 128 KiB, 32 KiB per channel, 2 KiB cells of
  // 16 KiB traffic, 2 cells each: 4 channels again.
  EXPECT_EQ(channels(Proto::kLL, 16384, 26), 2);
  // 2.30: 32 KiB per channel, 4 KiB cells of 32 KiB traffic: 4.
  EXPECT_EQ(channels(Proto::kLL, 16384, 30), 2);
  // Tree/LL128 32 KiB: 6 by threads (32 KiB / (640 x 8 B)); 2.28: 16 KiB
  // per channel, 8 KiB cells, 4 cells: 4; 2.29: 64 KiB / 6 rounded up to 16
  // B, 10928 B per channel, in 16 KiB cells of 32 KiB traffic: 2 cells, 2
  // channels.
  EXPECT_EQ(channels(Proto::kLL128, 32768, 21), 3);
  EXPECT_EQ(channels(Proto::kLL128, 32768, 28), 2);
  EXPECT_EQ(channels(Proto::kLL128, 32768, 29), 1);
  EXPECT_EQ(channels(Proto::kLL128, 32768, 30), 1);
}

// NCCL's figures for AMD hosts (tuning.cc 2.30.7 l.177-183, 228-233), worked
// by hand for 2 x 8 H100 as above: tree/LL's bus bandwidth is capped at
// llMaxBw 22.5 GB/s (39 on Intel), so 1 KiB runs at 0.5 x 22.5 x 0.9 =
// 10.125 GB/s; a ring's 28 intra-server steps of ring/LL each cost the proxy's
// 2 us (1 on Intel): 6.6 + 28 x 2 + 2 x 2.7 = 68.0 us (40.0). On 4 servers
// llMaxBw is 19.0 (20.4).
TEST(Tuner, TakesNcclsFiguresForAmdHosts) {
  TunerSystem amd = h100_2x8();
  amd.cpu = HostCpu::kAmd;
  auto find = [](const TunerSystem& sys, int64_t bytes, Algo a, Proto p) {
    for (const auto& e : nccl_estimates(allreduce(bytes), sys))
      if (e.algo == a && e.proto == p) return e;
    ADD_FAILURE() << "no estimate";
    return TunerEstimate{};
  };
  EXPECT_NEAR(find(amd, 1024, Algo::kTree, Proto::kLL).algbw_GBps, 10.125, 1e-9);
  EXPECT_NEAR(find(h100_2x8(), 1024, Algo::kTree, Proto::kLL).algbw_GBps, 17.55, 1e-9);
  EXPECT_NEAR(find(amd, 1024, Algo::kRing, Proto::kLL).latency_us, 68.0, 1e-9);
  EXPECT_NEAR(find(h100_2x8(), 1024, Algo::kRing, Proto::kLL).latency_us, 40.0, 1e-9);
  TunerSystem amd4 = amd;
  amd4.shape = CommShape{4, 8};
  EXPECT_NEAR(find(amd4, 1024, Algo::kTree, Proto::kLL).algbw_GBps, 0.5 * 19.0 * 0.9, 1e-9);
  EXPECT_EQ(nccl_ring_net_overhead_us(Proto::kSimple, HostCpu::kAmd), 6.0);
  EXPECT_EQ(host_cpu_from_name("AMD"), HostCpu::kAmd);
  EXPECT_THROW((void)host_cpu_from_name("arm"), std::invalid_argument);
}

// What runs: nccl-tests on NCCL's channels gives 1 KiB one plan channel and
// 4 MiB all 8, and says so; a fixed --channels runs every size on that many.
TEST(Tuner, NcclTestsRunSmallSizesOnNcclsChannelsUnlessFixed) {
  NcclTestsOptions o = testing::ib_ndr_sweep(1024, 4 << 20, 4096);
  const NcclTestsResult ncclish = run_nccl_tests(o);
  ASSERT_EQ(ncclish.rows.size(), 2u);
  EXPECT_EQ(ncclish.channels, 8);
  EXPECT_EQ(ncclish.rows[0].channels, 1);
  EXPECT_EQ(ncclish.rows[1].channels, 8);
  EXPECT_NE(format_nccl_tests(ncclish, o).find("# channels: 1024-1024 B 1; 4194304-4194304 B 8;"),
            std::string::npos);
  o.channels = 8;
  const NcclTestsResult fixed = run_nccl_tests(o);
  EXPECT_EQ(fixed.rows[0].channels, 8);
  EXPECT_EQ(fixed.rows[1].channels, 8);
  EXPECT_EQ(format_nccl_tests(fixed, o).find("# channels:"), std::string::npos);
  EXPECT_DOUBLE_EQ(fixed.rows[1].time_us, ncclish.rows[1].time_us);
}

// NCCL 2.23 and later weigh PAT for AllGather and ReduceScatter at one GPU
// per node (tuning.cc ncclPatEnable); the simulation does not model it and
// the nccl-tests header says so exactly there: not before 2.23, not with
// more GPUs per node, not for AllReduce, not when the algorithm is fixed.
TEST(Tuner, NcclTestsSayWhereNcclWouldWeighPat) {
  const std::string note = "would also weigh PAT here";
  const auto header_has_note = [&](CollType t, int gpus, int minor, bool fixed_algo) {
    NcclTestsOptions o = testing::ib_ndr_sweep(1024, 1024, 2, 4);
    o.type = t;
    o.cluster.gpus_per_server = gpus;
    o.comm.nccl_minor = minor;
    if (fixed_algo) o.algo = Algo::kRing;
    return format_nccl_tests(run_nccl_tests(o), o).find(note) != std::string::npos;
  };
  EXPECT_TRUE(header_has_note(CollType::kAllGather, 1, 30, false));
  EXPECT_TRUE(header_has_note(CollType::kReduceScatter, 1, 23, false));
  EXPECT_FALSE(header_has_note(CollType::kAllGather, 1, 22, false));
  EXPECT_FALSE(header_has_note(CollType::kAllGather, 8, 30, false));
  EXPECT_FALSE(header_has_note(CollType::kAllReduce, 1, 30, false));
  EXPECT_FALSE(header_has_note(CollType::kAllGather, 1, 30, true));
}

// On the channels NCCL gives them, small tree/LL AllReduces take NCCL's
// modelled latency plus their data at the share of NCCL's modelled bandwidth
// that those channels are (4 x 8 H100, ib-ndr, PHB: NCCL's tuner picks
// tree/LL from 1 to 128 KiB), plus at most the few microseconds the
// packet-level fabric and NVLink add. NCCL's own model counts all 8
// channels at every size and stays flat; the published runs rise with the
// data per channel as this does (docs/COLLECTIVES.md).
TEST(Tuner, SmallTreeAllReducesRunAtTheirChannelsShareOfNcclsModel) {
  NcclTestsOptions o = testing::ib_ndr_sweep(1024, 128 << 10, 2, 4);
  o.cluster.gpu_nic_path = PciPath::kPhb;
  o.cluster.topology = ClusterTopology::kRail;
  o.fabric.set_mtu(4096);
  const NcclTestsResult r = run_nccl_tests(o);
  ASSERT_EQ(r.rows.size(), 8u);
  TunerSystem sys;
  sys.shape = CommShape{4, 8};
  sys.nic = Rate::from_gbps(400);
  sys.nvlink = o.cluster.nvlink.rate;
  sys.arch = GpuArch::kHopper;
  sys.gpu_nic = PciPath::kPhb;
  for (const NcclTestsRow& row : r.rows) {
    EXPECT_EQ(row.algo, Algo::kTree) << row.bytes;
    EXPECT_EQ(row.proto, Proto::kLL) << row.bytes;
    PlanRequest q;
    q.bytes = row.bytes;
    q.channels = r.channels;
    q.algo = Algo::kTree;
    q.proto = Proto::kLL;
    const auto est = nccl_estimates(q, sys);
    ASSERT_EQ(est.size(), 1u);
    EXPECT_NEAR(est[0].time_us, row.nccl_model_us, 1e-9);
    const double share = static_cast<double>(row.channels) / r.channels;
    const double expected = est[0].latency_us + row.bytes / (1000.0 * est[0].algbw_GBps * share);
    EXPECT_GE(row.time_us, expected) << row.bytes;
    EXPECT_LE(row.time_us, expected + 4.5) << row.bytes;
  }
}

// Conservation with the protocol's lines: LL puts twice the data on the
// links, LL128 128/120 of it rounded to whole lines per transfer.
TEST(Protocols, FabricBytesCarryTheProtocolsLines) {
  auto bytes = [](Proto p) {
    NcclTestsOptions o;
    o.algo = Algo::kRing;
    o.proto = p;
    o.min_bytes = o.max_bytes = 1 << 20;
    o.cluster.servers = 2;
    o.cluster.topology = ClusterTopology::kRail;
    o.fabric = find_profile("ideal").config;
    o.fabric.rc.mtu = 4096;
    const NcclTestsRow row = run_nccl_tests(o).rows[0];
    EXPECT_EQ(row.proto, p);
    return row.fabric_bytes;
  };
  const int64_t simple = bytes(Proto::kSimple);
  // 2 server hops per ring x 30 steps x 8 channels x one 8 KiB block each.
  EXPECT_EQ(simple, int64_t{2} * 30 * 8 * 8192);
  EXPECT_EQ(bytes(Proto::kLL), 2 * simple);
  EXPECT_EQ(bytes(Proto::kLL128), simple / 8192 * ((8192 + 119) / 120 * 128));
}

std::vector<PublishedRow> published(const std::string& file) {
  std::ifstream in(find_shipped("data/reference/nccl-tests/" + file));
  return parse_nccl_tests_table(std::string(std::istreambuf_iterator<char>(in), {}));
}

// The real tool's output parses with the same reader as ours.
TEST(NcclTestsTable, ReadsPublishedRunsAndOurOwnOutput) {
  const auto crusoe = published("a100-hdr-2x8-crusoe.txt");
  ASSERT_EQ(crusoe.size(), 29u);  // 8 B .. 2 GiB
  EXPECT_EQ(crusoe.front().bytes, 8);
  EXPECT_EQ(crusoe.back().bytes, int64_t{1} << 31);
  EXPECT_DOUBLE_EQ(crusoe.back().time_us, 20749.1);
  EXPECT_DOUBLE_EQ(crusoe.back().busbw, 194.06);
  EXPECT_EQ(published("a100-hdr-2x8-azure-ndmv4.txt").size(), 31u);
  EXPECT_EQ(published("h100-ndr-2x8-nebius.txt").size(), 31u);
  EXPECT_EQ(published("h100-ndr-4x8-voltagepark-allreduce.txt").size(), 31u);  // 8 B .. 8 GiB
  EXPECT_EQ(published("h100-ndr-2x8-dell-allreduce.txt").size(), 32u);         // 8 B .. 16 GiB
  EXPECT_EQ(published("h100-ndr-4x8-dell-vm-allreduce.txt").size(), 32u);
  const NcclTestsOptions o = testing::ib_ndr_sweep(1024, 8192);
  const NcclTestsResult r = run_nccl_tests(o);
  const auto back = parse_nccl_tests_table(format_nccl_tests(r, o));
  ASSERT_EQ(back.size(), r.rows.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].bytes, r.rows[i].bytes);
    EXPECT_NEAR(back[i].time_us, r.rows[i].time_us, 0.005);
  }
  EXPECT_THROW((void)parse_nccl_tests_table("  1024  256 float sum\n"), std::invalid_argument);
  // The in-place columns are read where a row has them; a size is compared
  // against the faster timing (Dell 2 x 8: 512 KiB 77.69 out of place, 70.33
  // in place); a row without them keeps its one timing.
  const auto dell = published("h100-ndr-2x8-dell-allreduce.txt");
  const auto at = [](const std::vector<PublishedRow>& rows, int64_t bytes) {
    for (const PublishedRow& r : rows)
      if (r.bytes == bytes) return r;
    return PublishedRow{};
  };
  EXPECT_DOUBLE_EQ(at(dell, 524288).time_us, 77.69);
  EXPECT_DOUBLE_EQ(at(dell, 524288).in_place_us, 70.33);
  EXPECT_DOUBLE_EQ(at(dell, 524288).best_us(), 70.33);
  EXPECT_DOUBLE_EQ(at(dell, 524288).best_busbw(), at(dell, 524288).in_place_busbw);
  const auto one = parse_nccl_tests_table("  1024  256 float sum -1  30.0  0.03  0.06\n");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].in_place_us, 0);
  EXPECT_DOUBLE_EQ(one[0].best_us(), 30.0);
}

// NVLSTree's network hop is 14 us in NCCL's model up to 2.28.7 and 20.9 us
// from 2.28.9 (tuning.cc hwLat[NET][NVLS_TREE]). On 4 x 8 H100 at PIX a 4 MiB
// AllReduce then costs NVLSTree 25 + 2 x log2(4) x 14 = 81 us of latency
// under 2.26 and 25 + 4 x 20.9 = 108.6 under 2.30, plus 4 MiB at the same
// algorithm bandwidth; tree/LL128 takes the same either way. 2.26's tuner
// picks NVLSTree, 2.30's tree/LL128: what the published 2.26.2 run
// (nccl-tests#309) and the simulation with its release show.
TEST(Tuner, NvlsTreeNetworkHopFollowsTheNcclRelease) {
  TunerSystem s = h100_2x8();
  s.shape = CommShape{4, 8};
  s.gpu_nic = PciPath::kPix;
  const PlanRequest r = allreduce(4 << 20);
  auto nvlstree = [&](int minor) {
    s.nccl_minor = minor;
    for (const TunerEstimate& e : nccl_estimates(r, s))
      if (e.algo == Algo::kNvlsTree) return e;
    ADD_FAILURE() << "no NVLSTree estimate";
    return TunerEstimate{};
  };
  const TunerEstimate old = nvlstree(26), now = nvlstree(30);
  EXPECT_NEAR(old.latency_us, 81.0, 1e-9);
  EXPECT_NEAR(now.latency_us, 108.6, 1e-9);
  EXPECT_DOUBLE_EQ(old.algbw_GBps, now.algbw_GBps);
  s.nccl_minor = 26;
  EXPECT_EQ(nccl_tune(r, s).algo, Algo::kNvlsTree);
  s.nccl_minor = 30;
  const TunerChoice c = nccl_tune(r, s);
  EXPECT_EQ(c.algo, Algo::kTree);
  EXPECT_EQ(c.proto, Proto::kLL128);
  // What runs is charged the same hop: 14 - 1 us of fabric transit.
  EXPECT_DOUBLE_EQ(nccl_hop_latency_us(Algo::kNvlsTree, Proto::kSimple, Hop::kNet, 27), 14.0);
  EXPECT_DOUBLE_EQ(nccl_hop_latency_us(Algo::kNvlsTree, Proto::kSimple, Hop::kNet, 28), 20.9);
  EXPECT_DOUBLE_EQ(nccl_hop_latency_us(Algo::kTree, Proto::kLL, Hop::kNet, 24), 5.0);
  EXPECT_EQ(parse_nccl_version("2.26.2"), 26);
  EXPECT_EQ(parse_nccl_version("2.28.9"), 28);
  EXPECT_EQ(parse_nccl_version("2.28"), 28);
  // 2.28.3 and 2.28.7 still had the 14 us hop: refused, naming 2.27.
  try {
    (void)parse_nccl_version("2.28.3");
    ADD_FAILURE() << "2.28.3 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("give 2.27"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_nccl_version("2.18"), 18);
  for (const char* bad : {"2.17", "2.31", "3.1", "2", "2.24.", "2.24x", "v2.24", ""})
    EXPECT_THROW((void)parse_nccl_version(bad), std::invalid_argument) << bad;
  EXPECT_EQ(nccl_version_text(24), "2.24");
}

// 2 x 8 A100 with 8 x 200G HDR (Crusoe, HPC-X, 2 QPs per connection): the
// simulation with NCCL's tuner and latencies against the published run.
// What holds today: every size from 512 KiB within 25%, from 64 MiB
// (ring/Simple) within 10%, and the top busbw within 10%; from 1 KiB within 45%: NCCL's own cost model is
// 18-44% below this run at 1-128 KiB (docs/COLLECTIVES.md), and with the
// channels NCCL gives those sizes (1 to 4) the simulation is 13-41% below.
TEST(NcclTestsTable, TracksAPublishedA100Run) {
  const auto pub = published("a100-hdr-2x8-crusoe.txt");
  NcclTestsOptions o;
  o.min_bytes = 1024;
  o.max_bytes = pub.back().bytes;
  o.cluster.servers = 2;
  o.cluster.topology = ClusterTopology::kRail;
  o.cluster.arch = GpuArch::kAmpere;
  o.cluster.nvlink.rate = gpu_class("a100").nvlink_rate();
  o.cluster.nic_link.rate = o.cluster.fabric_link.rate = Rate::from_gbps(200);
  o.comm.qps_per_conn = 2;
  o.fabric = find_profile("ib-hdr").config;
  o.fabric.set_mtu(4096);
  const NcclTestsResult sim = run_nccl_tests(o, 2);
  const PublishedComparison all = compare_with_published(sim, pub, 1024, 0.45);
  EXPECT_TRUE(all.misses.empty()) << "worst " << all.worst << " at " << all.worst_bytes;
  EXPECT_EQ(all.glitches, std::vector<int64_t>{262144});  // 192.78 us between 51.08 and 68.02
  const PublishedComparison large = compare_with_published(sim, pub, 512 << 10, 0.25);
  EXPECT_TRUE(large.misses.empty()) << "worst " << large.worst << " at " << large.worst_bytes;
  EXPECT_EQ(large.compared, 13);
  EXPECT_NEAR(large.busbw_error(), 0.0, 0.10);
  // The Simple ring (64 MiB up) within 10%: 64 MiB was 23% fast while a
  // channel's GPU work had no cap and hid every step's latency.
  const PublishedComparison simple = compare_with_published(sim, pub, 64 << 20, 0.10);
  EXPECT_TRUE(simple.misses.empty()) << "worst " << simple.worst << " at " << simple.worst_bytes;
  EXPECT_EQ(simple.compared, 6);
}

// 2 x 8 H100 with 8 x 400G NDR, bare metal, NCCL 2.26.2 with GPU Direct RDMA
// at PIX (Dell XE9680, NVIDIA/nccl-tests#309): the tuner's tree/LL,
// tree/LL128 and NVLSTree against the published run up to 1 GiB, each size
// against the faster of its two timings. What holds today: all sizes but
// at most one within 25%, that one within 27% (256 KiB, tree/LL128, 26.6%
// slow against the in-place 46.79 us, 21.6% against the out-of-place
// 48.67; 512 KiB, which the run takes longer than 1 MiB, 17% fast against
// the in-place 70.33, 25.0% against the out-of-place 77.69) and the busbw
// at 1 GiB within 10% (451.5 against 448.9 GB/s). NVIDIA's figures for
// this hardware: ~480 GB/s on one server, 470 on two (the same thread).
TEST(NcclTestsTable, TracksAPublishedH100RunWithGpuDirectAtPix) {
  const auto pub = published("h100-ndr-2x8-dell-allreduce.txt");
  NcclTestsOptions o = testing::ib_ndr_sweep(1024, int64_t{1} << 30, 2, 2);
  o.cluster.gpu_nic_path = PciPath::kPix;
  const NcclTestsResult sim = run_nccl_tests(o);
  const PublishedComparison c = compare_with_published(sim, pub, 1024, 0.25);
  EXPECT_TRUE(c.glitches.empty());
  EXPECT_EQ(c.compared, 21);
  EXPECT_GE(c.within, 20) << "worst " << c.worst << " at " << c.worst_bytes;
  EXPECT_GT(c.worst, -0.27);
  EXPECT_LT(c.worst, 0.27);
  EXPECT_NEAR(c.busbw_error(), 0.0, 0.10);
  EXPECT_EQ(sim.rows.back().algo, Algo::kNvlsTree);
}

// One NVIDIA DGX H100 (8 GPUs, NVSwitch, no network), NVIDIA's own sample
// run (NVIDIA/dgxc-benchmarking nccl/README.md): the tuner's ring/LL then
// NVLS, on NVLink at NCCL's effective rate. What holds today: 22 of the 24
// sizes from 1 KiB within 25% (8 and 16 MiB at -28/-29%, where NCCL's own
// model is 30-33% under the run) and busbw at 16 GiB within 1% of the
// published 479.9 GB/s. 4 KiB, out of place 23.59 us between 17.14 and
// 17.40, takes 16.46 in place: compared against that (the faster timing),
// it is no longer a glitch. (21 before a ring step's chunks were worked on
// side by side: 1 MiB, ring/LL, was -25.0%.)
TEST(NcclTestsTable, TracksNvidiasPublishedDgxH100Run) {
  const auto pub = published("h100-1x8-nvidia-dgx.txt");
  EXPECT_EQ(pub.size(), 32u);
  NcclTestsOptions o;
  o.min_bytes = 1024;
  o.max_bytes = pub.back().bytes;
  o.cluster.servers = 1;
  o.fabric = find_profile("ib-ndr").config;
  const NcclTestsResult sim = run_nccl_tests(o);
  const PublishedComparison c = compare_with_published(sim, pub, 1024, 0.25);
  EXPECT_TRUE(c.glitches.empty());
  EXPECT_EQ(c.compared, 25);
  EXPECT_GE(c.within, 23) << "worst " << c.worst << " at " << c.worst_bytes;
  EXPECT_GT(c.worst, -0.30);
  EXPECT_NEAR(c.busbw_error(), 0.0, 0.01);
  EXPECT_EQ(sim.rows.back().algo, Algo::kNvls);
}

}  // namespace
}  // namespace rdmasim
