#include "collective/nccl_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "fabric/profiles.h"

namespace rdmasim {

namespace {
// Collectives whose call passes each rank's share rather than the buffer.
bool passes_share(CollType t) {
  return t == CollType::kAllGather || t == CollType::kReduceScatter || t == CollType::kAllToAll;
}
}  // namespace

int64_t nccl_tests_count(CollType type, int64_t bytes, int nranks) {
  const int64_t floats = bytes / 4;
  return passes_share(type) ? (floats / std::max(nranks, 1)) & ~int64_t{3} : floats;
}

int64_t nccl_tests_bytes(CollType type, int64_t bytes, int nranks) {
  return nccl_tests_count(type, bytes, nranks) * 4 * (passes_share(type) ? std::max(nranks, 1) : 1);
}

std::vector<int64_t> nccl_tests_sizes(int64_t min_bytes, int64_t max_bytes, int64_t factor) {
  if (min_bytes < 0) throw std::invalid_argument("-b (minbytes) must be >= 0");
  if (max_bytes < min_bytes) throw std::invalid_argument("-e (maxbytes) must be >= -b (minbytes)");
  if (factor < 2) throw std::invalid_argument("-f (stepfactor) must be >= 2");
  std::vector<int64_t> sizes;
  for (int64_t s = min_bytes; s <= max_bytes; s = s == 0 ? 1 : s * factor) {
    sizes.push_back(s);
    if (sizes.size() > 64) throw std::invalid_argument("-b/-e/-f give more than 64 sizes");
    if (s > max_bytes / factor) break;  // the next step is past -e, and s * factor may overflow
  }
  return sizes;
}

namespace {
bool has_redop(CollType t) {
  return t == CollType::kAllReduce || t == CollType::kReduceScatter || t == CollType::kReduce;
}
const char* topo_name(ClusterTopology t) { return t == ClusterTopology::kRail ? "rail" : "leaf-spine"; }

// " a-b B text;" for each run of sizes whose rows share text(row). Rows of
// size 0 are calls NCCL returns from at once, with nothing to say.
template <class Text>
std::string size_runs(const std::vector<NcclTestsRow>& rows, Text text) {
  std::string s;
  for (size_t i = 0; i < rows.size();) {
    if (rows[i].bytes == 0) {
      ++i;
      continue;
    }
    const std::string t = text(rows[i]);
    size_t j = i;
    while (j + 1 < rows.size() && text(rows[j + 1]) == t) ++j;
    s += fmt::format(" {}-{} B {};", rows[i].bytes, rows[j].bytes, t);
    i = j + 1;
  }
  return s;
}
}  // namespace

std::string format_nccl_tests(const NcclTestsResult& r, const NcclTestsOptions& o) {
  std::string s;
  s += fmt::format(
      "# rdmasim nccl-tests: {}_perf  algo {}  proto {}  nranks {} ({} servers x {} GPUs, {})  channels {}\n",
      coll_name(o.type), o.algo ? algo_name(*o.algo) : nccl_algo_text(o.algo_list),
      o.proto ? proto_name(*o.proto) : nccl_proto_text(o.proto_list), r.nranks, o.cluster.servers,
      o.cluster.gpus_per_server, gpu_arch_name(o.cluster.arch), r.channels);
  s += fmt::format("# fabric {}  topology {} {}:1  NIC {} Gb/s  MTU {}  QPs/conn {}  NVLink {} GB/s {} us\n",
                   o.fabric.name, topo_name(o.cluster.topology), o.cluster.oversubscription,
                   o.cluster.nic_link.rate.gbps(), o.fabric.mtu_label(), o.comm.qps_per_conn,
                   o.cluster.nvlink.rate.gbps() / 8, o.cluster.nvlink.latency.us());
  TunerSystem sys;
  sys.shape = CommShape{o.cluster.servers, o.cluster.gpus_per_server};
  sys.arch = o.cluster.arch;
  sys.gpu_nic = o.cluster.gpu_nic_path;
  if (o.comm.host_cpu != HostCpu::kIntel && o.cluster.servers > 1)
    s += fmt::format("# hosts {}: NCCL's tuner takes their LL cap and ring proxy overhead ({} us a step)\n",
                     host_cpu_name(o.comm.host_cpu), nccl_ring_net_overhead_us(Proto::kLL, o.comm.host_cpu));
  if (o.comm.nccl_minor != kNcclMinorDefault)
    s += fmt::format(
        "# NCCL {}: its channels for a small call, and its tuning model's NVLSTree network hop ({} us)\n",
        nccl_version_text(o.comm.nccl_minor),
        nccl_hop_latency_us(Algo::kNvlsTree, Proto::kSimple, Hop::kNet, o.comm.nccl_minor));
  // NCCL 2.23 added PAT for AllGather and ReduceScatter at one GPU per
  // node (tuning.cc ncclPatEnable), which its tuner weighs against the ring
  // (its model: 8 us + log2(nodes) x 4 us + 2.8 us per rank, Simple at 0.75
  // of its graph's bandwidth, 0.85 in 2.23: it wins on many nodes at mid
  // sizes, where a ring pays a network step per rank). Not modelled: say so.
  if ((o.type == CollType::kAllGather || o.type == CollType::kReduceScatter) &&
      o.cluster.gpus_per_server == 1 && o.cluster.servers > 1 && o.comm.nccl_minor >= 23 && !o.algo &&
      o.algo_list == 0)
    s += fmt::format(
        "# NCCL {} would also weigh PAT here (one GPU per node), which is not modelled: ring stands in\n",
        nccl_version_text(o.comm.nccl_minor));
  if (!nccl_ll128_enabled(sys))
    s += fmt::format("# GPU-NIC path {}: NCCL's tuner leaves LL128 out across servers\n",
                     pci_path_name(sys.gpu_nic));
  if (o.comm.calls > 1)
    s += fmt::format(
        "# time: {} calls in a row, each rank's mean per call averaged over the ranks, as nccl-tests\n",
        o.comm.calls);
  else if (has_root(o.type))
    s += "# time: one call, until its last rank has the result; nccl-tests averages each rank's 20 calls in "
         "a row, "
         "which a rooted chain pipelines: -n 20 does so (docs/COLLECTIVES.md)\n";
  if ((o.type == CollType::kAllToAll || o.type == CollType::kSendRecv) && !o.pxn)
    s += "# PXN off (NCCL_PXN_DISABLE=1): chunks leave through the sending GPU's own NIC\n";
  if (o.algo == Algo::kSharp && !find_profile(o.fabric.name).config.sharp.enabled)
    s += "# in-network aggregation: assumed (fabric.sharp.enabled: true), not part of this profile\n";
  if (o.background_cdf && o.background.load > 0)
    s += fmt::format("# background traffic: flow-size CDF at load {} per NIC\n", o.background.load);
  s += "#\n";
  s += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6}   {:>27}   {:>27}\n", "", "", "", "", "",
                   "out-of-place", "in-place");
  s += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}\n",
                   "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
                   "algbw", "busbw", "#wrong");
  s += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}\n",
                   "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                   "(GB/s)", "");
  const char* redop = has_redop(o.type) ? "sum" : "none";
  const int root = has_root(o.type) ? o.root : -1;
  for (const auto& row : r.rows) {
    // The simulation moves bytes, not values: in-place runs the same
    // transfers, and there is no data to check (#wrong N/A, as nccl-tests -c 0).
    s += fmt::format(
        "  {:>10} {:>12} {:>8} {:>6} {:>6} {:>8.2f} {:>7.2f} {:>7.2f} {:>6} {:>8.2f} {:>7.2f} {:>7.2f} "
        "{:>6}\n",
        row.bytes, row.count, "float", redop, root, row.time_us, row.algbw, row.busbw, "N/A", row.time_us,
        row.algbw, row.busbw, "N/A");
  }
  if (!o.algo || !o.proto) {
    // What NCCL's tuner chose, as NCCL_DEBUG_SUBSYS=TUNING would say.
    s += "# tuner:" + size_runs(r.rows, [](const NcclTestsRow& row) {
           return fmt::format("{}/{}", algo_name(row.algo), proto_name(row.proto));
         });
    s += "\n";
  }
  if (o.channels == 0 && std::any_of(r.rows.begin(), r.rows.end(), [&](const NcclTestsRow& row) {
        return row.bytes > 0 && row.channels < r.channels;
      })) {
    // NCCL runs small sizes on fewer channels than the communicator has.
    s += "# channels:" +
         size_runs(r.rows, [](const NcclTestsRow& row) { return std::to_string(row.channels); });
    s += "\n";
  }
  for (const auto& row : r.rows)
    if (row.sharp_fallback) {
      s += "# SHARP: no aggregation group available (switch resources): ran the ring algorithm\n";
      break;
    }
  s += "# Out of bounds values : 0 OK\n";
  s += fmt::format("# Avg bus bandwidth    : {:.4f} \n", r.avg_busbw);
  if (!r.rows.empty())
    s += fmt::format("# Per-NIC busbw at {} B: {:.2f} GB/s (busbw / NICs per server)\n", r.rows.back().bytes,
                     r.rows.back().busbw / o.cluster.gpus_per_server);
  return s;
}

std::string nccl_tests_json(const NcclTestsResult& r, const NcclTestsOptions& o) {
  std::string s = "{\n  \"schema\": \"rdmasim.nccl-tests/1\",\n";
  s += fmt::format(
      "  \"test\": \"{}_perf\", \"algo\": \"{}\", \"proto\": \"{}\", \"calls\": {}, \"fabric\": \"{}\", "
      "\"servers\": {}, \"gpus_per_server\": {}, "
      "\"nranks\": {}, \"channels\": {}, \"qps_per_conn\": {}, \"oversubscription\": {}, \"seed\": {},\n",
      coll_name(o.type), o.algo ? algo_name(*o.algo) : nccl_algo_text(o.algo_list),
      o.proto ? proto_name(*o.proto) : nccl_proto_text(o.proto_list), o.comm.calls, o.fabric.name,
      o.cluster.servers, o.cluster.gpus_per_server, r.nranks, r.channels, o.comm.qps_per_conn,
      o.cluster.oversubscription, o.seed);
  s += "  \"rows\": [\n";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    s += fmt::format(
        "    {{\"size\": {}, \"count\": {}, \"time_us\": {:.4f}, \"algbw_GBps\": {:.4f}, \"busbw_GBps\": "
        "{:.4f}, "
        "\"algo\": \"{}\", \"proto\": \"{}\", \"channels\": {}, \"nccl_model_us\": {:.4f}, \"fabric_bytes\": "
        "{}}}{}\n",
        row.bytes, row.count, row.time_us, row.algbw, row.busbw, algo_name(row.algo), proto_name(row.proto),
        row.channels, row.nccl_model_us, row.fabric_bytes, i + 1 < r.rows.size() ? "," : "");
  }
  s += fmt::format("  ],\n  \"avg_busbw_GBps\": {:.4f}\n}}\n", r.avg_busbw);
  return s;
}

std::vector<PublishedRow> parse_nccl_tests_table(const std::string& text) {
  std::vector<PublishedRow> rows;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream f(line);
    std::string first;
    if (!(f >> first) || first[0] == '#' || first.find_first_not_of("0123456789") != std::string::npos)
      continue;
    PublishedRow r;
    std::string count, type, redop, root;
    r.bytes = std::stoll(first);
    if (!(f >> count >> type >> redop >> root >> r.time_us >> r.algbw >> r.busbw))
      throw std::invalid_argument("line " + std::to_string(n) +
                                  ": expected size count type redop root time algbw busbw ...");
    std::string wrong;
    double algbw = 0;
    if (!(f >> wrong >> r.in_place_us >> algbw >> r.in_place_busbw) || r.in_place_us <= 0)
      r.in_place_us = r.in_place_busbw = 0;  // no in-place columns
    rows.push_back(r);
  }
  return rows;
}

PublishedComparison compare_with_published(const NcclTestsResult& sim,
                                           const std::vector<PublishedRow>& published, int64_t from_bytes,
                                           double tolerance) {
  PublishedComparison c;
  for (size_t i = 0; i < published.size(); ++i) {
    const PublishedRow& p = published[i];
    if (p.bytes < from_bytes) continue;
    const NcclTestsRow* s = nullptr;
    for (const NcclTestsRow& r : sim.rows)
      if (r.bytes == p.bytes) s = &r;
    if (s == nullptr) continue;
    c.busbw_top = s->busbw;
    c.published_busbw_top = p.best_busbw();
    const double t = p.best_us();
    if (i + 1 < published.size() && t > 1.2 * published[i + 1].best_us()) {
      c.glitches.push_back(p.bytes);
      continue;
    }
    const double err = s->time_us / t - 1;
    if (s->nccl_model_us > 0) {
      const double m = s->nccl_model_us / t - 1;
      if (std::fabs(m) > std::fabs(c.model_worst)) c.model_worst = m;
    }
    ++c.compared;
    if (std::fabs(s->time_us / p.time_us - 1) <= tolerance) ++c.within_out_of_place;
    if (std::fabs(err) <= tolerance)
      ++c.within;
    else
      c.misses.push_back(p.bytes);
    if (std::fabs(err) >= std::fabs(c.worst)) {
      c.worst = err;
      c.worst_bytes = p.bytes;
    }
  }
  return c;
}

}  // namespace rdmasim
