// H.1: the flow-level model (fabric.model: flow) against the packet level
// where both run: a 1,024-host k=16 fat-tree under WebSearch at 30% load,
// the same flows on the same paths, once as packets through HPCC (the
// congestion control closest to the max-min fair share the fluid assumes,
// near-zero queues) and once as fluids. Issue 17 asks for long flows'
// throughput within 10% and the slowdown by size within stated tolerances:
// p50 within 20% and p95 within 35% in every size bin (docs/FLOW_LEVEL.md
// explains the tails, which the fluid does not reach: ECMP collisions and
// HPCC's own dynamics at packet level).
// H.2: the same on InfiniBand NDR (ib-ndr: the subnet manager's ftree LFTs
// in both models, credits at packet level, no congestion control). Its
// short flows are not compared: at packet level they wait behind other
// flows' packets in credit-blocked input buffers (IB switches arbitrate
// among ports, not flows), a delay the fluid has no part of
// (docs/FLOW_LEVEL.md); flows from 100 KB are held to H.1's tolerances, and
// 100 KB-1 MB, whose tail grows with the VL buffers, is a known gap when
// outside them.
// H.3: collectives at flow level (the same Communicator on fluid transfers)
// against the packet level on a 128-GPU k=8 fat-tree of ib-ndr: each
// collective's time within 5%, the tree's within 7%. A tree's interior
// leader takes two children's chunks at once; on the ftree LFTs that 2:1
// incast backs up through credits into edge uplinks other tree edges share
// (PortXmitWait ~240 us of 798 on eight edge-to-aggregation ports), a wait
// the fluid's fair share has no part of (docs/FLOW_LEVEL.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "collective/collective_workload.h"
#include "config/scenario.h"
#include "flow/flow_level_run.h"
#include "metrics/distribution.h"
#include "run/experiment.h"
#include "validate/validate.h"

namespace rdmasim {

namespace {

std::string scenario(const std::string& profile, bool flow) {
  return std::string("name: h-") + (flow ? "flow" : "packet") +
         "\nseed: 1\nduration: 100ms\ntopology: {type: fat-tree, k: 16}\nfabric: {profile: " + profile +
         (flow ? ", model: flow" : "") +
         "}\nworkload:\n  - {type: cdf, cdf: data/cdf/websearch.txt, load: 0.3, window: 500us}\n";
}

struct Bins {
  std::vector<double> slowdown[4];
  double long_gbps = 0;
  size_t long_flows = 0;
};

Bins bins(const std::vector<FlowRecord>& flows, const std::vector<FlowRecord>& both_done_in) {
  static constexpr int64_t kEdges[] = {10'000, 100'000, 1'000'000};
  Bins b;
  for (size_t i = 0; i < flows.size(); ++i) {
    const FlowRecord& f = flows[i];
    // Only flows both models completed, so both sides describe the same set.
    if (!f.finished() || !both_done_in[i].finished()) continue;
    int bin = 0;
    while (bin < 3 && f.spec.size_bytes >= kEdges[bin]) ++bin;
    b.slowdown[bin].push_back(static_cast<double>(f.fct().ps()) / static_cast<double>(f.ideal.ps()));
    if (bin == 3) {
      b.long_gbps += static_cast<double>(f.spec.size_bytes) * 8 / f.fct().sec() / 1e9;
      ++b.long_flows;
    }
  }
  return b;
}

// One case: `first_bin` is the smallest size bin held to the tolerances;
// `below_1mb_gap`, if set, reports a bin under 1 MB outside them as a known
// gap with that reason.
void compare(std::vector<ValidationResult>& out, const char* id, const std::string& profile, int first_bin,
             const char* below_1mb_gap = "") {
  Experiment packet(load_scenario_text(scenario(profile, false), "h-packet.yaml"));
  packet.run();
  FlowLevelRun flow(load_scenario_text(scenario(profile, true), "h-flow.yaml"));
  flow.run();
  const Bins p = bins(packet.flows(), flow.flows());
  const Bins f = bins(flow.flows(), packet.flows());
  const bool same_flows = packet.flows().size() == flow.flows().size() && packet.invariant_error().empty();
  const double pt = p.long_gbps / static_cast<double>(std::max<size_t>(1, p.long_flows));
  const double ft = f.long_gbps / static_cast<double>(std::max<size_t>(1, f.long_flows));
  out.emplace_back(id,
                   fmt::format("flow vs packet level ({}), 1,024 hosts, WebSearch 30%: mean throughput "
                               "of {} flows >= 1 MB",
                               profile, f.long_flows),
                   fmt::format("{:.2f} Gb/s ({:+.1f}%)", ft, (ft / pt - 1) * 100),
                   fmt::format("{:.2f} Gb/s +-10% (packet level)", pt),
                   same_flows && std::abs(ft / pt - 1) <= 0.10);
  static constexpr const char* kNames[] = {"<10KB", "10KB-100KB", "100KB-1MB", ">=1MB"};
  for (int b = first_bin; b < 4; ++b) {
    const Distribution a = summarize(f.slowdown[b]);
    const Distribution e = summarize(p.slowdown[b]);
    out.emplace_back(
        id, fmt::format("flow vs packet level, slowdown p50 / p95 of {} {} flows", a.count, kNames[b]),
        fmt::format("{:.2f} / {:.2f}", a.p50, a.p95),
        fmt::format("{:.2f} +-20% / {:.2f} +-35%", e.p50, e.p95),
        same_flows && a.count > 0 && std::abs(a.p50 / e.p50 - 1) <= 0.20 &&
            std::abs(a.p95 / e.p95 - 1) <= 0.35,
        b < 3 ? below_1mb_gap : "");
  }
}

void compare_collective(std::vector<ValidationResult>& out, const std::string& w, double tol) {
  auto yaml = [&](bool flow) {
    return std::string(
               "name: h3\nseed: 1\nduration: 1s\ntopology: {type: fat-tree, k: 8, link: {rate: "
               "400Gbps, delay: 150ns}}\nfabric: {profile: ib-ndr, mtu: 4KiB") +
           (flow ? ", model: flow, flow_epoch: 1us" : "") +
           "}\nworkload:\n  - {type: collective, gpus_per_server: 8, " + w + "}\n";
  };
  Experiment packet(load_scenario_text(yaml(false), "h3-packet.yaml"));
  packet.run();
  FlowLevelRun flow(load_scenario_text(yaml(true), "h3-flow.yaml"));
  flow.run();
  const auto& p = static_cast<const CollectiveWorkload&>(*packet.workloads()[0]);
  const auto& f = static_cast<const CollectiveWorkload&>(*flow.jobs()[0]);
  const double pu = p.duration().us(), fu = f.duration().us();
  out.emplace_back("H.3", fmt::format("flow vs packet level, 16 x 8 H100 on a k=8 ib-ndr fat-tree: {}", w),
                   fmt::format("{:.1f} us ({:+.1f}%)", fu, (fu / pu - 1) * 100),
                   fmt::format("{:.1f} us +-{:.0f}% (packet level)", pu, tol * 100),
                   p.finished() && f.finished() && std::abs(fu / pu - 1) <= tol);
}

}  // namespace

void flow_cases(std::vector<ValidationResult>& out) {
  compare(out, "H.1", "rocev2-hpcc", 0);
  compare(out, "H.2", "ib-ndr", 2,
          "a flow under 1 MB also waits at packet level behind other flows' packets in credit-blocked input "
          "buffers, the longer the deeper they are (p95 3.36 with one credit loop per VL, 3.95 with the "
          "128 KiB a port advertises): a wait the fluid has no part of");
  compare_collective(out, "op: all_reduce, algo: ring, size: 64MiB", 0.05);
  compare_collective(out, "op: all_reduce, algo: tree, size: 64MiB", 0.07);
  compare_collective(out, "op: alltoall, size: 16MiB", 0.05);
}

}  // namespace rdmasim
