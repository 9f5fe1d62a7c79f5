// VALIDATION.md §A.3: ring AllReduce / AllGather / ReduceScatter on an
// uncongested non-blocking network follow the alpha-beta model within 2%:
//   AllReduce  T = 2(n-1)·α + 2(n-1)/n · S/B
//   AG / RS    T =  (n-1)·α +  (n-1)/n · S/B
// (plus the one kernel launch per collective). α and B come from the
// hardware, not from the collective: α = per-step GPU latency + one-way
// latency of one hop (NVLink latency, or a lone packet's measured one-way
// latency through the fabric); B = the NVLink rate, or the NIC line rate x
// payload / (payload + data-packet overhead + the ACK each data packet
// returns on the same link direction, since every ring NIC both sends and
// receives).
// With NCCL's chunk pipelining a step's latency overlaps the previous
// chunks' transfer, so the α term shrinks for large messages; the pipelined
// cases use sizes where that overlap is below 1% of the total.
#include <gtest/gtest.h>

#include "collective/alpha_beta.h"
#include "collective/communicator.h"
#include "fabric/profiles.h"
#include "support/rc_of.h"
#include "support/recorder.h"

namespace rdmasim {
namespace {

struct AbCase {
  CollType type;
  int servers;
  int gpus;
  int64_t bytes;
  bool pipelined = false;  // NCCL's 512 KiB chunks (else one chunk per step, the formula's own model)
};

double formula(CollType t, int n, double alpha_s, double bytes, double bw_Bps) {
  const double steps = t == CollType::kAllReduce ? 2.0 * (n - 1) : (n - 1);
  return steps * alpha_s + steps / n * bytes / bw_Bps;
}

FabricConfig ideal_fabric() {
  FabricConfig f = find_profile("ideal").config;
  f.rc.mtu = 4096;
  return f;
}

class AlphaBeta : public ::testing::TestWithParam<AbCase> {};

TEST_P(AlphaBeta, RingMatchesFormulaWithin2Percent) {
  const AbCase k = GetParam();
  ClusterConfig cc;
  cc.servers = k.servers;
  cc.gpus_per_server = k.gpus;
  const CommConfig comm = alpha_beta_comm();
  const FabricConfig fab = ideal_fabric();
  double hop_s = 0, bw = 0;
  const int n = k.servers * k.gpus;
  const int64_t block = k.bytes / n;
  if (k.servers == 1) {
    hop_s = cc.nvlink.latency.sec();
    bw = cc.nvlink.rate.bps() / 8.0;
  } else {
    // One lone packet-sized message's one-way latency, measured on its own.
    GpuCluster probe(cc, fab, 1);
    testing::Recorder rec;
    const uint32_t qp = rc_of(probe.fabric()).create_qp(0, k.gpus, &rec, fab.rc.data_tc);
    const int64_t probe_bytes = std::min<int64_t>(block, fab.rc.mtu);
    rc_of(probe.fabric()).post(qp, Opcode::kWrite, probe_bytes, 1);
    probe.sim().run(Time::from_ms(1));
    ASSERT_EQ(rec.received.size(), 1u);
    const double wire = fab.rc.mtu + 62 + 20, ack = 62 + 4 + 20;
    bw = cc.nic_link.rate.bps() / 8.0 * fab.rc.mtu / (wire + ack / fab.rc.ack_interval);
    // The lone packet's latency minus its own serialization at B, so that
    // α + m/B reproduces it for m = probe_bytes.
    hop_s = (rec.received[0].completed - rec.received[0].posted).sec() - probe_bytes / bw;
  }
  GpuCluster cl(cc, fab, 1);
  Communicator c(cl, comm);
  PlanRequest r;
  r.type = k.type;
  r.algo = Algo::kRing;
  r.bytes = k.bytes;
  r.channels = 1;
  r.chunk = k.pipelined ? 512 * 1024 : block + 1;
  const double measured = c.run_one(r).sec();
  const StepCosts costs =
      step_costs(comm, Algo::kRing, Proto::kSimple, CommShape{k.servers, k.gpus}, cc.nvlink.latency);
  const double expected =
      costs.launch.sec() +
      formula(k.type, n, (k.servers > 1 ? costs.net : costs.step).sec() + hop_s, k.bytes, bw);
  EXPECT_NEAR(measured / expected, 1.0, 0.02)
      << coll_name(k.type) << " n=" << n << " S=" << k.bytes << ": measured " << measured * 1e6
      << " us, alpha-beta " << expected * 1e6 << " us";
}

INSTANTIATE_TEST_SUITE_P(
    Section_A3, AlphaBeta,
    ::testing::Values(
        // NVLink only: 8 GPUs in one server.
        AbCase{CollType::kAllReduce, 1, 8, 8 << 10}, AbCase{CollType::kAllReduce, 1, 8, 256 << 20},
        AbCase{CollType::kAllGather, 1, 8, 8 << 10}, AbCase{CollType::kAllGather, 1, 8, 256 << 20},
        AbCase{CollType::kReduceScatter, 1, 8, 8 << 10}, AbCase{CollType::kReduceScatter, 1, 8, 256 << 20},
        // Fabric only: 8 single-GPU servers on a non-blocking leaf-spine at 400 Gb/s.
        AbCase{CollType::kAllReduce, 8, 1, 8 << 10}, AbCase{CollType::kAllReduce, 8, 1, 64 << 20},
        AbCase{CollType::kAllGather, 8, 1, 8 << 10}, AbCase{CollType::kAllGather, 8, 1, 64 << 20},
        AbCase{CollType::kReduceScatter, 8, 1, 8 << 10}, AbCase{CollType::kReduceScatter, 8, 1, 64 << 20},
        // Pipelined in 512 KiB chunks, large messages.
        AbCase{CollType::kAllReduce, 1, 8, int64_t{1} << 30, true},
        AbCase{CollType::kAllReduce, 8, 1, 256 << 20, true}),
    [](const auto& info) {
      return std::string(coll_name(info.param.type)) + "_" + std::to_string(info.param.servers) + "x" +
             std::to_string(info.param.gpus) + "_" + std::to_string(info.param.bytes) +
             (info.param.pipelined ? "_pipelined" : "");
    });

}  // namespace
}  // namespace rdmasim
