#include "collective/tuner.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace rdmasim {
namespace {

// Every constant below is NCCL's (NVIDIA/nccl v2.30.7, src/graph/tuning.cc;
// line numbers of that file). Index orders: algorithms Tree, Ring;
// protocols LL, LL128, Simple; columns N1/N2/N4 = one node, two nodes, more.
constexpr int kTree = 0, kRing = 1;
constexpr double kBaseLat[2][kProtos] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};  // l.150-155
constexpr double kNvlinkLat[2][kProtos] = {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}};   // l.159-162
constexpr double kNetLat[2][kProtos] = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};   // l.171-174
// llMaxBws (l.178-183): one node by GPU generation; several nodes by the
// hosts' CPU (row 0: Intel, row 1: AMD).
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282, 90, 70}};
constexpr double kPerChRingLl128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
constexpr double kPerChTreeLl128[4][3] = {
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChTree[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
// treeCorrectionFactor (l.623-627), by log2(bytes / 64).
constexpr double kTreeCorrection[kProtos][24] = {
    {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1, 1},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

// NVLink SHARP (same file, l.138-144, 153-173, 205-210, 307-323): its
// efficiency by GPU generation, hwLat (NVLink 25 us for both; network 18 us
// NVLS, 20.9 us NVLSTree; baseLat 0) and NVLSTree's per-channel cap (N1
// unused: NVLSTree needs two nodes).
constexpr double kNvlsEfficiency[4] = {0, 0, 0.85, 0.74};
constexpr double kNvlsNvlinkLat = 25, kNvlsNetLat = 18, kNvlsTreeNetLat = 20.9;
// NVLSTree's network hop before 2.28.9 (tuning.cc hwLat[NET][NVLS_TREE], v2.18-1 to
// v2.28.7-1); 2.28.9 raised it to 20.9, after 2.28.3 had refitted the NVLS
// bandwidth (nvlsEfficiency, perChMaxNVLSTreeBws). A minor release stands
// for its last patch here (2.28: 2.28.9; parse_nccl_version refuses
// 2.28.0-2.28.8, whose model here would be 2.27's).
constexpr double kNvlsTreeNetLatTo227 = 14;
double nvlstree_net_lat(int nccl_minor) { return nccl_minor <= 27 ? kNvlsTreeNetLatTo227 : kNvlsTreeNetLat; }
constexpr double kPerChNvlsTree[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};
// The NVLS graph's search (src/graph/search.cc l.1057-1066, topo.h l.22-24):
// per-channel speeds it tries, NVLink per link (GB/s) and 18 links per GPU
// (NVLink 4 and 5, NVIDIA data sheets).
constexpr double kSpeedIntra[2][12] = {{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3, 0},
                                       {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18}};
constexpr double kSpeedInter[2][20] = {
    {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12, 0, 0, 0},
    {96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12}};
constexpr double kNvlinkPerLink[4] = {20.0, 20.0, 20.6, 40.1};
constexpr int kNvlinkLinks = 18;

// The N1/N2/N4 column of the per-node-count tables.
int node_column(int nodes) { return nodes <= 2 ? nodes - 1 : 2; }

// llMaxBw: by GPU generation on one node, by the hosts' CPU across nodes.
double ll_max_bw(const TunerSystem& s) {
  const int nodes = s.shape.servers;
  return nodes == 1 ? kLlMaxBw[static_cast<int>(s.arch)][0]
                    : kLlMaxBw[s.cpu == HostCpu::kAmd ? 1 : 0][node_column(nodes)];
}

int log2i(int64_t v) {
  int l = -1;
  while (v > 0) {
    v >>= 1;
    ++l;
  }
  return l;
}

// NCCL's tree correction for an AllReduce of `bytes` (1 outside its table).
double tree_correction(Proto p, int64_t bytes) {
  const int idx = log2i(bytes >> 6);
  return idx >= 0 && idx < 23 ? kTreeCorrection[static_cast<int>(p)][idx] : 1.0;
}

// The fastest per-channel speed of `speeds` (descending, 0-terminated) at
// or below `limit`.
template <size_t K>
double fastest_within(const double (&speeds)[K], double limit) {
  for (double v : speeds)
    if (v > 0 && v <= limit + 1e-9) return v;
  return 0;
}

struct Model {
  const PlanRequest& r;
  const TunerSystem& s;
  int nodes, ppn, ranks, ch, col, arch;
  double bw;  // per channel, GB/s

  Model(const PlanRequest& req, const TunerSystem& sys)
      : r(req),
        s(sys),
        nodes(sys.shape.servers),
        ppn(sys.shape.gpus),
        ranks(sys.shape.ranks()),
        ch(std::max(1, req.channels)),
        col(node_column(nodes)),
        arch(static_cast<int>(sys.arch)) {
    bw = channel_bw(sys, ch);
  }

  // A channel's ring crosses one NIC between nodes; inside one node the
  // channels share each GPU's NVLink.
  static double channel_bw(const TunerSystem& sys, int channels) {
    const double nic = sys.nic.bps() / 8e9, nvl = sys.nvlink.bps() / 8e9;
    const int ch = std::max(1, channels);
    return sys.shape.servers > 1 ? std::min(nic, nvl / ch) : nvl / ch;
  }

  [[nodiscard]] double ll_max() const { return ll_max_bw(s); }

  // NCCL's bus bandwidth for (algo, proto), GB/s.
  [[nodiscard]] double bus_bw(int a, Proto p) const {
    double b = ch * bw;
    if (a == kRing) {
      if (p == Proto::kLL) b = std::min(ll_max(), b * 0.5);
      if (p == Proto::kLL128) b = std::min(b * 0.92, ch * kPerChRingLl128[arch][col]);
      return b;
    }
    b = std::min(b * 0.92, ch * kPerChTree[arch][col]);
    if (p == Proto::kLL) b = std::min(b / 3.8, ll_max());
    if (p == Proto::kLL128) b = std::min(b * 120.0 / 128.0, ch * kPerChTreeLl128[arch][col]);
    return b;
  }

  [[nodiscard]] double latency(int a, Proto p) const {
    const int pi = static_cast<int>(p);
    const double intra = kNvlinkLat[a][pi];
    const double inter = ppn == 1 ? kNetLat[kTree][pi] : kNetLat[a][pi];
    double lat = kBaseLat[a][pi];
    if (a == kTree) return lat + 2 * ((ppn - 1) * intra + log2i(nodes) * inter);
    const bool allreduce = r.type == CollType::kAllReduce;
    const int steps = allreduce ? 2 * (ranks - 1) : ranks - 1;
    const int n_inter = nodes == 1 ? 0 : (allreduce ? 2 : 1) * (nodes - 1);
    // The proxy's per-step overhead on the intra-node steps of a multi-node
    // ring: 1 us on Intel hosts, 2 on AMD, 3x for Simple (l.228-233).
    const double net_ovh = nodes == 1 ? 0 : nccl_ring_net_overhead_us(p, s.cpu);
    lat += (steps - n_inter) * std::max(intra, net_ovh) + n_inter * inter;
    if (allreduce && p == Proto::kSimple && nodes > 1 && r.bytes / (int64_t(ch) * ranks) >= 64)
      lat *= s.arch == GpuArch::kVolta ? 1.9 : 1.4;
    return lat;
  }

  [[nodiscard]] TunerEstimate estimate(int a, Proto p) const {
    double bus = bus_bw(a, p);
    const bool allreduce = r.type == CollType::kAllReduce;
    const int steps = allreduce ? 2 * (ranks - 1) : std::max(1, ranks - 1);
    double alg = a == kRing ? bus * ranks / steps : bus * 0.5;
    if (a == kTree) alg *= tree_correction(p, r.bytes);
    const double lat = latency(a, p);
    return {a == kRing ? Algo::kRing : Algo::kTree, p, lat, alg,
            lat + static_cast<double>(r.bytes) / (1000.0 * alg)};
  }
};

}  // namespace

const char* pci_path_name(PciPath p) {
  switch (p) {
    case PciPath::kPix:
      return "PIX";
    case PciPath::kPxb:
      return "PXB";
    case PciPath::kPxn:
      return "PXN";
    case PciPath::kPhb:
      return "PHB";
    case PciPath::kSys:
      return "SYS";
  }
  return "?";
}

PciPath pci_path_from_name(const std::string& s) {
  for (const PciPath p : {PciPath::kPix, PciPath::kPxb, PciPath::kPxn, PciPath::kPhb, PciPath::kSys})
    if (strcasecmp(s.c_str(), pci_path_name(p)) == 0) return p;
  throw std::invalid_argument("unknown GPU-NIC path '" + s + "' (known: pix, pxb, pxn, phb, sys)");
}

bool nccl_ll128_enabled(const TunerSystem& sys) {
  // One server: no NIC in the graphs (typeInter stays below PXB).
  if (sys.shape.servers <= 1) return true;
  const bool hopper_or_later = sys.arch == GpuArch::kHopper || sys.arch == GpuArch::kBlackwell;
  return sys.gpu_nic <= (hopper_or_later ? PciPath::kPxn : PciPath::kPxb);
}

const char* host_cpu_name(HostCpu c) { return c == HostCpu::kAmd ? "amd" : "intel"; }

HostCpu host_cpu_from_name(const std::string& s) {
  for (const HostCpu c : {HostCpu::kIntel, HostCpu::kAmd})
    if (strcasecmp(s.c_str(), host_cpu_name(c)) == 0) return c;
  throw std::invalid_argument("unknown host CPU '" + s + "' (known: intel, amd)");
}

const char* gpu_arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::kVolta:
      return "volta";
    case GpuArch::kAmpere:
      return "ampere";
    case GpuArch::kHopper:
      return "hopper";
    case GpuArch::kBlackwell:
      return "blackwell";
  }
  return "?";
}

namespace {
// Whether the tuner weighs protocol `p` for `r`: the one forced, one that
// NCCL_PROTO lists, or (NCCL_PROTO unset) any but LL128 where NCCL's rule
// leaves it out.
bool tuner_may_pick(const PlanRequest& r, Proto p, bool ll128_enabled) {
  if (!r.tune_proto) return p == r.proto;
  if (r.proto_set != 0) return (r.proto_set & proto_bit(p)) != 0;
  return p != Proto::kLL128 || ll128_enabled;
}
}  // namespace

std::vector<Algo> nccl_candidate_algos(const PlanRequest& r, const TunerSystem& sys) {
  std::vector<Algo> out;
  const auto listed = [&](Algo a) { return r.algo_set == 0 || (r.algo_set & algo_bit(a)) != 0; };
  if (!r.tune_algo) {
    if (r.algo == Algo::kRing || r.algo == Algo::kTree) out.push_back(r.algo);
  } else if (r.type == CollType::kAllReduce || r.type == CollType::kAllGather ||
             r.type == CollType::kReduceScatter || r.type == CollType::kBroadcast ||
             r.type == CollType::kReduce) {
    if (listed(Algo::kRing)) out.push_back(Algo::kRing);
    // NCCL's trees are AllReduce only, and across nodes (inside one node a
    // tree is a chain).
    if (r.type == CollType::kAllReduce && sys.shape.servers > 1 && listed(Algo::kTree))
      out.push_back(Algo::kTree);
  }
  // NVLink SHARP: NVLS on one node, NVLSTree across nodes. NVLS across
  // servers needs CollNet (IB SHARP), which NCCL's tuner weighs only with
  // NCCL_COLLNET_ENABLE (tuning.cc l.503-506): here when asked for.
  const bool collnet = !r.tune_algo && r.algo == Algo::kNvls && sys.shape.servers > 1;
  const Algo nvls = sys.shape.servers == 1 || collnet ? Algo::kNvls : Algo::kNvlsTree;
  const bool gather = r.type == CollType::kAllGather || r.type == CollType::kReduceScatter;
  const bool asked =
      r.tune_algo ? (r.type == CollType::kAllReduce || gather) && listed(nvls) : r.algo == nvls;
  if (asked && nvls_unavailable(nvls, sys, r.type).empty()) out.push_back(nvls);
  return out;
}

std::vector<TunerEstimate> nccl_estimates(const PlanRequest& r, const TunerSystem& sys) {
  std::vector<TunerEstimate> out;
  const Model m(r, sys);
  const bool ll128 = nccl_ll128_enabled(sys);
  for (const Algo algo : nccl_candidate_algos(r, sys)) {
    if (algo == Algo::kRing || algo == Algo::kTree) {
      for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple})
        if (tuner_may_pick(r, p, ll128)) out.push_back(m.estimate(algo == Algo::kRing ? kRing : kTree, p));
      continue;
    }
    // NVLink SHARP runs Simple only.
    if (!tuner_may_pick(r, Proto::kSimple, ll128)) continue;
    const Algo nvls = algo;
    const int nodes = sys.shape.servers;
    double lat = kNvlsNvlinkLat;
    if (nvls == Algo::kNvlsTree) lat += 2 * log2i(nodes) * nvlstree_net_lat(sys.nccl_minor);
    if (nvls == Algo::kNvls && nodes > 1) lat += kNvlsNetLat;  // tuning.cc l.424-426
    double alg = nccl_nvls_algbw_GBps(nvls, sys, r.type);
    // Blackwell on x86 takes the tree's correction by size (tuning.cc l.643-646).
    const int idx = log2i(r.bytes >> 6);
    if (nvls == Algo::kNvlsTree && sys.arch == GpuArch::kBlackwell && idx >= 0 && idx < 24)
      alg *= kTreeCorrection[static_cast<int>(Proto::kSimple)][idx];
    out.push_back({nvls, Proto::kSimple, lat, alg, lat + static_cast<double>(r.bytes) / (1000.0 * alg)});
  }
  return out;
}

std::string nvls_unavailable(Algo a, const TunerSystem& sys, CollType t) {
  if (sys.arch != GpuArch::kHopper && sys.arch != GpuArch::kBlackwell)
    return std::string("NVLink SHARP needs an NVSwitch of Hopper or later (this GPU class is ") +
           gpu_arch_name(sys.arch) + ")";
  if (sys.shape.gpus <= 2) return "NVLink SHARP needs more than 2 GPUs per server (NCCL disables it below)";
  if (t == CollType::kAllGather || t == CollType::kReduceScatter) {
    if (a == Algo::kNvlsTree)
      return std::string("algo nvlstree does not implement ") + coll_name(t) + ": use nvls";
    if (sys.shape.servers > 1)
      return std::string("NCCL runs NVLS ") + coll_name(t) +
             " inside one server only (across servers with CollNet, IB SHARP, not modelled): use ring";
  } else if (t != CollType::kAllReduce) {
    return std::string("NVLink SHARP does not implement ") + coll_name(t);
  }
  if (a == Algo::kNvlsTree && sys.shape.servers < 2)
    return "algo nvlstree joins servers (NCCL disables it on one node): use nvls";
  return "";
}

double nccl_nvls_algbw_GBps(Algo a, const TunerSystem& sys, CollType t) {
  const int arch = static_cast<int>(sys.arch);
  const int gen = sys.arch == GpuArch::kBlackwell ? 1 : 0;
  const int ppn = sys.shape.gpus, nodes = sys.shape.servers, ranks = sys.shape.ranks();
  // The NVLS graph: one channel per GPU (each its slice's head); the head's
  // NVLink carries twice a channel's speed, the others once (search.cc).
  const int ch = ppn;
  const double bw_intra = fastest_within(kSpeedIntra[gen], kNvlinkLinks * kNvlinkPerLink[arch] / (ppn + 1));
  const double bw_inter = fastest_within(kSpeedInter[gen], sys.nic.bps() / 8e9);
  double bw = bw_intra * kNvlsEfficiency[arch] * (ch - 1) / ch;
  if (t == CollType::kAllGather || t == CollType::kReduceScatter) {
    // One operation, on (ppn - 1) / ppn of the data; NCCL converts no
    // bus bandwidth to algorithm bandwidth for a non-ring AllGather or
    // ReduceScatter, so its figure is the algorithm's.
    return ch * bw * (ppn - 1) / ppn;
  }
  bw *= 2;  // AllReduce pipelines its two operations (ld_reduce and st)
  if (a == Algo::kNvlsTree) {
    bw = std::min(bw, bw_inter * (nodes <= 2 ? 2 : 1));
    bw = std::min(bw, kPerChNvlsTree[arch][node_column(nodes)]);
  } else if (nodes > 1) {
    bw = std::min(bw, bw_inter);  // NVLS with CollNet (IB SHARP): each head's NIC once
  }
  const double bus = ch * bw;
  return bus * ranks / (2.0 * (ranks - 1));  // busbw to algbw, as a ring's
}

TunerChoice nccl_tune(const PlanRequest& r, const TunerSystem& sys) {
  TunerChoice c;
  c.algo = r.tune_algo ? default_algo(r.type) : r.algo;
  c.proto = r.proto;
  // Point-to-point (pairwise AllToAll, SendRecv) and the algorithms NCCL
  // does not choose by itself keep their algorithm; p2p takes LL up to
  // NCCL_P2P_LL_THRESHOLD (16 KiB per peer, NCCL environment documentation).
  if (c.algo == Algo::kPairwise || c.algo == Algo::kHierarchical || c.algo == Algo::kSharp) {
    if (r.tune_proto) {
      const int64_t per_peer =
          r.type == CollType::kAllToAll ? r.bytes / std::max(1, sys.shape.ranks()) : r.bytes;
      const bool ll = c.algo == Algo::kPairwise && per_peer <= 16384;
      // NCCL_PROTO may leave LL or Simple out (never both: a list of one
      // forces its protocol, and tune_proto is then unset).
      const bool ll128 = nccl_ll128_enabled(sys);
      const bool ll_ok = tuner_may_pick(r, Proto::kLL, ll128),
                 simple_ok = tuner_may_pick(r, Proto::kSimple, ll128);
      c.proto = (ll && ll_ok) || !simple_ok ? Proto::kLL : Proto::kSimple;
    }
    return c;
  }
  const auto est = nccl_estimates(r, sys);
  if (est.empty()) throw std::invalid_argument("the tuner has no algorithm for this collective");
  const auto best =
      std::min_element(est.begin(), est.end(),
                       [](const TunerEstimate& a, const TunerEstimate& b) { return a.time_us < b.time_us; });
  c.algo = best->algo;
  c.proto = best->proto;
  return c;
}

// CollNetDirect (SHARP through NCCL's CollNet plugin), Simple only:
// baseLat 0, hwLat NVLINK 3.7 and NET 31 us (l.150-174).
constexpr double kCollNetNvlinkLat = 3.7, kCollNetNetLat = 31;

double nccl_base_latency_us(Algo a, Proto p) {
  if (a == Algo::kSharp || a == Algo::kNvls || a == Algo::kNvlsTree) return 0;
  return kBaseLat[a == Algo::kTree ? kTree : kRing][static_cast<int>(p)];
}

double nccl_hop_latency_us(Algo a, Proto p, Hop h, int nccl_minor) {
  if (a == Algo::kSharp) return h == Hop::kNvlink ? kCollNetNvlinkLat : kCollNetNetLat;
  if (a == Algo::kNvls || a == Algo::kNvlsTree)
    return h == Hop::kNvlink ? kNvlsNvlinkLat : a == Algo::kNvls ? kNvlsNetLat : nvlstree_net_lat(nccl_minor);
  const int ai = a == Algo::kTree ? kTree : kRing;
  return h == Hop::kNvlink ? kNvlinkLat[ai][static_cast<int>(p)] : kNetLat[ai][static_cast<int>(p)];
}

int nccl_call_channels(const PlanRequest& r, int nranks, int nccl_minor) {
  if (r.algo != Algo::kRing && r.algo != Algo::kTree) return std::max(1, r.channels);
  // NCCL's communicator runs every channel its search found twice
  // (connect.cc ncclTopoPostset: comm->nChannels = 2 x the graph's); a plan
  // channel stands for such a pair.
  const int comm_nc = 2 * std::max(1, r.channels);
  int nc = comm_nc;
  const bool ring = r.algo == Algo::kRing;
  // comm->maxThreads (tuning.cc): NCCL_LL128_MAX_NTHREADS 640, else 512 (a
  // ring's Simple takes 256 only where its NVLink graph is no faster than PCI,
  // never on the NVSwitch servers modelled here).
  const int64_t threads = r.proto == Proto::kLL128 ? 640 : 512;
  int64_t threshold = r.proto == Proto::kSimple ? 64 : 8;
  if (ring && r.proto == Proto::kLL) threshold *= nranks;
  while (nc >= 2 && r.bytes < nc * threads * threshold) --nc;
  const auto plan = [](int64_t nccl) { return static_cast<int>((nccl + 1) / 2); };
  // Up to 2.21 the call runs on those channels, its data split evenly.
  if (nccl_minor <= 21) return plan(nc);

  // From 2.22, scheduleCollTasksToPlan deals the data out in cells, filling
  // one channel with its share of the traffic before the next: 2.22 in
  // 16-byte cells at a minimum of 512 B of traffic per channel; 2.23-2.28
  // at least 16 KiB, 2.29 on 32 KiB, in cells of that much traffic. From
  // 2.26 LL's traffic counts four times (enqueue.cc gives no reason; half of
  // an LL line is flags). nccl-tests' data type is the 4-byte float, and
  // every cell is a multiple of 16 bytes.
  const int64_t min_traffic = nccl_minor == 22 ? 512 : nccl_minor <= 28 ? 16 << 10 : 32 << 10;
  const bool gather = r.type == CollType::kAllGather || r.type == CollType::kReduceScatter;
  const int64_t per_byte = (r.type == CollType::kAllReduce ? 2
                            : gather                       ? nranks
                                                           : 1) *
                           (nccl_minor >= 26 && r.proto == Proto::kLL ? 4 : 1);
  const int64_t count_bytes = gather ? r.bytes / std::max(1, nranks) : r.bytes;
  const auto div_up = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const int64_t traffic =
      nccl_minor == 22 ? count_bytes * per_byte : std::max(min_traffic, count_bytes * per_byte);
  const int64_t per_channel =
      nccl_minor <= 28 ? std::max(min_traffic, traffic / nc) : div_up(traffic / nc, 16) * 16;
  const int64_t cell = nccl_minor == 22 ? 16 : div_up(div_up(min_traffic, per_byte), 16) * 16;
  const int64_t cells = std::max<int64_t>(1, div_up(count_bytes, cell));
  const int64_t per_cell = cell * per_byte;
  if (comm_nc == 1) return 1;  // the last channel takes everything
  int64_t each = std::min(cells, div_up(per_channel, per_cell));
  // 2.22 rounds the first channel's share down, later releases up.
  int64_t lo = std::min(cells, nccl_minor == 22 ? per_channel / per_cell : div_up(per_channel, per_cell));
  int64_t mid = (cells - lo) / each, hi = (cells - lo) % each;
  if (comm_nc < (lo != 0) + mid + (hi != 0)) {  // overflow: the rest spread over what is left
    mid = comm_nc - 2;
    each = (cells - lo) / (mid + 1);
    hi = each + (cells - lo) % (mid + 1);
  }
  if (hi == 0 && mid != 0) {
    hi = each;
    --mid;
  }
  if (lo == 0) {  // the first channel skipped: the next one becomes the first
    if (mid == 0) {
      lo = hi;
      hi = 0;
    } else {
      lo = each;
      --mid;
    }
  }
  return plan((lo != 0) + mid + (hi != 0));
}

namespace {
// A tree/LL channel's share of NCCL's modelled tree/LL bandwidth at `bytes`
// (bus bandwidth, with NCCL's tree correction by size) on a communicator of
// `comm_channels`.
double tree_ll_share(const TunerSystem& sys, int comm_channels, int64_t bytes) {
  PlanRequest r;
  r.type = CollType::kAllReduce;
  r.bytes = bytes;
  r.channels = std::max(1, comm_channels);
  const Model m(r, sys);
  return m.bus_bw(kTree, Proto::kLL) * tree_correction(Proto::kLL, bytes) / r.channels;
}
}  // namespace

double nccl_channel_cap_GBps(Algo a, Proto p, const TunerSystem& sys, int channels, CollType t,
                             int comm_channels, int64_t bytes) {
  const int col = node_column(sys.shape.servers), arch = static_cast<int>(sys.arch);
  const double ll = ll_max_bw(sys) / std::max(1, channels);
  // A tree rank's channel both reduces up and broadcasts down: its GPU work
  // carries NCCL's whole tree bus bandwidth (twice the algorithm bandwidth).
  // Tree/LL, given the communicator's channels: the channel's share of
  // NCCL's modelled bandwidth at the call's size, tree correction included
  // (what the published runs follow at these sizes). Otherwise not NCCL's
  // correction by size: for LL128 and Simple it corrects NCCL's model for
  // the pipeline fill and chunking a real tree has, which the simulation runs.
  if (a == Algo::kTree) {
    if (p == Proto::kLL) return comm_channels > 0 ? tree_ll_share(sys, comm_channels, bytes) : ll;
    if (p == Proto::kLL128) return kPerChTreeLl128[arch][col];
    return kPerChTree[arch][col];
  }
  if (a == Algo::kSharp || a == Algo::kPairwise) return 0;  // NCCL has no such cap for CollNet/p2p here
  // NVLink SHARP: the NVSwitch's reduction at NCCL's rate (NVLSTree: with
  // its per-channel cap), shared by the heads (one per GPU) and the
  // channels; charged to each slice's reduction. The network part runs on
  // the fabric and may be slower.
  // NVLS with CollNet: the NVSwitch reduces a server's data at its one-server
  // rate; NCCL's figure for it across servers also holds it to one NIC speed
  // per channel, which here is the fabric's (packet-level SHARP) to decide.
  if (a == Algo::kNvls && sys.shape.servers > 1) {
    TunerSystem one = sys;
    one.shape.servers = 1;
    return nccl_nvls_algbw_GBps(a, one, t) / (sys.shape.gpus * std::max(1, channels));
  }
  if (a == Algo::kNvls || a == Algo::kNvlsTree)
    return nccl_nvls_algbw_GBps(a, sys, t) / (sys.shape.gpus * std::max(1, channels));
  if (p == Proto::kLL) return ll;
  if (p == Proto::kLL128) return kPerChRingLl128[arch][col];
  // Simple: the per-channel bandwidth NCCL's model gives a ring (its graph's
  // speed, here min(NIC, NVLink / channels)). Without it a channel's GPU
  // work was free, the NVLink hops had slack, and the network link never
  // waited for a step's latency, which NCCL's model and the published runs
  // both show it does. The hierarchical algorithm is not NCCL's: no cap.
  if (a == Algo::kRing) return Model::channel_bw(sys, channels);
  return 0;
}

int parse_nccl_version(const std::string& text) {
  int major = 0, minor = 0, patch = 0;
  char dot1 = 0, dot2 = 0;
  std::istringstream in(text);
  in >> major >> dot1 >> minor;
  const bool three = !in.eof() && (in >> dot2 >> patch, true);
  if (!in || !in.eof() || major != 2 || dot1 != '.' || (three && dot2 != '.') || minor < 18 || minor > 30)
    throw std::invalid_argument("expected an NCCL release from 2.18 to 2.30, e.g. 2.24 or 2.26.2, got '" +
                                text + "'");
  // The one patch release that changed a figure modelled here.
  if (three && minor == 28 && patch < 9)
    throw std::invalid_argument(
        "NCCL " + text +
        " kept NVLSTree's 14 us network hop, which 2.28.9 (what 2.28 stands for here) "
        "raised to 20.9; every other figure modelled is the same as 2.27's: give 2.27");
  return minor;
}

std::string nccl_version_text(int minor) { return "2." + std::to_string(minor); }

double nccl_ring_net_overhead_us(Proto p, HostCpu cpu) {
  const double base = cpu == HostCpu::kAmd ? 2.0 : 1.0;
  return p == Proto::kSimple ? 3 * base : base;
}

}  // namespace rdmasim
