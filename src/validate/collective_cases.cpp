// VALIDATION.md §A.3, §A.4 and §C.10 as `rdmasim validate` cases.
#include <fmt/format.h>

#include <cmath>

#include "collective/alpha_beta.h"
#include "collective/nccl_tests.h"
#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "validate/validate.h"

namespace rdmasim {

void collective_cases(std::vector<ValidationResult>& out) {
  FabricConfig ideal = find_profile("ideal").config;
  ideal.rc.mtu = 4096;
  struct Ab {
    CollType t;
    int servers, gpus;
    int64_t bytes;
    bool pipelined;
  };
  for (const Ab& k :
       {Ab{CollType::kAllReduce, 8, 1, 8 << 10, false}, Ab{CollType::kAllReduce, 8, 1, 64 << 20, false},
        Ab{CollType::kAllGather, 8, 1, 8 << 10, false}, Ab{CollType::kAllGather, 8, 1, 64 << 20, false},
        Ab{CollType::kReduceScatter, 8, 1, 8 << 10, false},
        Ab{CollType::kReduceScatter, 8, 1, 64 << 20, false}, Ab{CollType::kAllReduce, 1, 8, 8 << 10, false},
        Ab{CollType::kAllReduce, 1, 8, 256 << 20, false}, Ab{CollType::kAllReduce, 8, 1, 256 << 20, true},
        Ab{CollType::kAllReduce, 1, 8, int64_t{1} << 30, true}}) {
    ClusterConfig cc;
    cc.servers = k.servers;
    cc.gpus_per_server = k.gpus;
    const AlphaBetaCheck r = check_alpha_beta(cc, ideal, CommConfig{}, k.t, k.bytes, k.pipelined);
    out.push_back(
        {"A.3",
         fmt::format("ring {} n=8 {} S={}{}", coll_name(k.t), k.servers == 1 ? "NVLink" : "400G fabric",
                     k.bytes, k.pipelined ? " 512K chunks" : ""),
         fmt::format("{:.1f} us ({:+.2f}%)", r.measured_s * 1e6, 100 * r.error()),
         fmt::format("{:.1f} us +-2%", r.expected_s * 1e6), std::fabs(r.error()) <= 0.02});
  }

  for (CollType t : {CollType::kAllReduce, CollType::kAllGather, CollType::kReduceScatter,
                     CollType::kBroadcast, CollType::kReduce, CollType::kAllToAll, CollType::kSendRecv}) {
    NcclTestsOptions o;
    o.type = t;
    o.algo = default_algo(t);
    o.min_bytes = o.max_bytes = 1 << 20;
    o.cluster.servers = 2;
    o.cluster.gpus_per_server = 4;
    o.fabric = ideal;
    const NcclTestsResult r = run_nccl_tests(o);
    const double f = r.rows[0].busbw / r.rows[0].algbw;
    const double want = busbw_factor(t, 8);
    out.push_back({"A.4", fmt::format("nccl-tests {}_perf busbw/algbw, n=8", coll_name(t)),
                   fmt::format("{:.4f}", f), fmt::format("{:.4f}", want), std::fabs(f - want) < 1e-12});
  }

  // IB NDR's data rate carries 4096 B payloads at 99.4% efficiency (26 B of
  // headers), so its ceiling is 49.7 GB/s; RoCE's 82 B of headers give 49.0.
  for (const char* profile : {"rocev2-dcqcn-400g", "ib-ndr", "ideal"}) {
    NcclTestsOptions o;
    o.min_bytes = o.max_bytes = 256 << 20;
    o.cluster.topology = ClusterTopology::kRail;
    o.fabric = find_profile(profile).config;
    o.fabric.rc.mtu = 4096;
    const NcclTestsResult r = run_nccl_tests(o);
    const double nic = r.rows[0].busbw / o.cluster.gpus_per_server;
    out.push_back({"C.10", fmt::format("all_reduce 256MiB, 4x8 GPUs, rail, {}", profile),
                   fmt::format("{:.2f} GB/s per NIC", nic), "~46-48 GB/s per 400G NIC",
                   nic >= 46 && nic <= 49});
  }
  auto leaf_spine = [&](double oversub, int qps, const FabricConfig& fabric) {
    NcclTestsOptions o;
    o.min_bytes = o.max_bytes = 128 << 20;
    o.cluster.oversubscription = oversub;
    o.comm.qps_per_conn = qps;
    o.fabric = fabric;
    return run_nccl_tests(o).rows[0].busbw / o.cluster.gpus_per_server;
  };
  const double ls1 = leaf_spine(1, 1, ideal), ls8 = leaf_spine(1, 8, ideal), ls2to1 = leaf_spine(2, 8, ideal);
  out.push_back({"C.10", "all_reduce 128MiB leaf-spine ECMP, 1 QP vs 8 QPs per conn",
                 fmt::format("{:.1f} -> {:.1f} GB/s per NIC", ls1, ls8), "collision loss; more QPs recover",
                 ls8 > 1.5 * ls1});
  FabricConfig ib = find_profile("ib-ndr").config;
  const double ib_static = leaf_spine(1, 1, ib);
  ib.ib.sm.adaptive = true;
  const double ib_ar = leaf_spine(1, 1, ib);
  // The subnet manager spreads destinations over the up-ports (d-mod-k), so
  // the ring's flows do not collide as ECMP hashes do; AR must not lose that.
  out.push_back({"C.10", "leaf-spine 1 QP: ECMP vs ib-ndr LFT vs ib-ndr AR",
                 fmt::format("{:.1f} / {:.1f} / {:.1f} GB/s", ls1, ib_static, ib_ar),
                 "LFT > 1.5 x ECMP, AR >= 0.9 x LFT", ib_static > 1.5 * ls1 && ib_ar >= 0.9 * ib_static});
  auto sharp_vs = [&](Algo a, int64_t bytes, int servers, int gpus) {
    NcclTestsOptions o;
    o.algo = a;
    o.min_bytes = o.max_bytes = bytes;
    o.cluster.servers = servers;
    o.cluster.gpus_per_server = gpus;
    o.fabric = ideal;
    o.fabric.sharp.enabled = true;  // the SHARP model itself, checked on the reference network
    return run_nccl_tests(o).rows[0];
  };
  const double s8 = sharp_vs(Algo::kSharp, 8, 16, 8).time_us, r8 = sharp_vs(Algo::kRing, 8, 16, 8).time_us,
               t8 = sharp_vs(Algo::kTree, 8, 16, 8).time_us;
  out.push_back({"C.11", "SHARP 8 B all_reduce, 128 GPUs vs ring / tree",
                 fmt::format("{:.1f} vs {:.1f} / {:.1f} us", s8, r8, t8), "substantially lower (< tree/1.5)",
                 s8 < t8 / 1.5 && s8 < r8 / 5});
  const double big = sharp_vs(Algo::kSharp, int64_t{1} << 30, 8, 1).algbw / 50.0;
  out.push_back({"C.11", "SHARP 1 GiB all_reduce, 8 hosts: algbw / NIC bandwidth",
                 fmt::format("{:.3f} (model: aggregation at 0.95 x port rate)", big), "~0.95",
                 std::fabs(big - 0.95) < 0.01});
  out.push_back({"C.10", "all_reduce 128MiB leaf-spine 8 QPs, 1:1 vs 2:1 oversubscribed",
                 fmt::format("{:.1f} -> {:.1f} GB/s per NIC", ls8, ls2to1),
                 "2:1 <= half of non-blocking (24)", ls2to1 <= 24.0 && ls2to1 < ls8});
}

}  // namespace rdmasim
