// NCCL's tuner: the cost model NCCL uses to pick an algorithm and a protocol
// for each collective call (ncclTopoTuneModel / ncclTopoGetAlgoTime in
// NVIDIA/nccl src/graph/tuning.cc, v2.30.7). Predicted time is
//   latency(algo, proto, ranks, nodes) + bytes / algorithm bandwidth,
// with NCCL's own per-protocol latencies and bandwidth caps; the choice is
// the cheapest (algo, proto) pair the collective and the system allow. The
// choice is NCCL's; the simulation then runs it packet by packet, so what
// the tuner predicts and what the run measures can differ (and the
// difference is reported, never hidden).
//
// Scope: Ring for every collective, Tree for multi-node AllReduce, NVLS
// (one server) and NVLSTree (several) for AllReduce where the GPU class has
// NVLink SHARP; CollNet (algo sharp) and hierarchical run only when asked
// for (NCCL uses CollNet only with NCCL_COLLNET_ENABLE=1). NVLS across
// servers with IB SHARP (NCCL's multi-node NVLS) is not modelled.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/protocol.h"
#include "engine/units.h"

namespace rdmasim {

// GPU generation: NCCL's per-architecture bandwidth caps differ.
enum class GpuArch : uint8_t { kVolta, kAmpere, kHopper, kBlackwell };
[[nodiscard]] const char* gpu_arch_name(GpuArch a);

// The PCI path between a GPU and its NIC as NCCL's topology search types it
// (NVIDIA/nccl src/include/graph.h PATH_PIX..PATH_SYS): one PCIe switch,
// several, through another GPU's NVLink (PXN), through the CPU's host bridge,
// or across CPU sockets.
enum class PciPath : uint8_t { kPix, kPxb, kPxn, kPhb, kSys };
[[nodiscard]] const char* pci_path_name(PciPath p);  // "PIX" ... "SYS", NCCL's spelling
// The path named `s`, in either case ("phb" or NCCL's "PHB"); throws
// std::invalid_argument naming the known ones.
[[nodiscard]] PciPath pci_path_from_name(const std::string& s);

// The hosts' CPU vendor as NCCL's topology detection reports it
// (ncclTopoCpuVendor). Across servers NCCL's tuner takes LL's bandwidth cap
// (llMaxBw) and a multi-server ring's per-step proxy overhead from it
// (tuning.cc 2.30.7 l.177-183, 228-233: 39 / 20.4 GB/s and 1 us on Intel,
// 22.5 / 19.0 GB/s and 2 us on AMD); on one server it looks at the GPU.
enum class HostCpu : uint8_t { kIntel, kAmd };
[[nodiscard]] const char* host_cpu_name(HostCpu c);  // "intel", "amd"
// Throws std::invalid_argument naming the known ones.
[[nodiscard]] HostCpu host_cpu_from_name(const std::string& s);
// Why a host CPU setting is refused on one server.
inline constexpr const char* kHostCpuOneServer =
    "has no effect on one server: NCCL's tuner looks at the GPU there";

// The NCCL release that runs (2.minor, each minor as its last patch): the
// tables are 2.30.7's; NVLSTree's network hop was 14 us up to 2.28.7, 20.9
// from 2.28.9 (nccl_hop_latency_us),
// and the channels of a small call follow each release's enqueue.cc
// (nccl_call_channels). Published runs state theirs (NCCL_DEBUG=VERSION).
inline constexpr int kNcclMinorDefault = 30;
// "2.24" or "2.24.3" -> 24; NVLS exists from 2.18. Throws
// std::invalid_argument otherwise, and for 2.28.0-2.28.8 (2.28 stands for
// 2.28.9, whose NVLSTree hop they do not have: they model as 2.27).
[[nodiscard]] int parse_nccl_version(const std::string& text);
[[nodiscard]] std::string nccl_version_text(int minor);

struct TunerSystem {
  CommShape shape;
  Rate nic;     // one NIC per GPU
  Rate nvlink;  // per GPU, per direction
  GpuArch arch = GpuArch::kHopper;
  PciPath gpu_nic = PciPath::kPxb;
  int nccl_minor = kNcclMinorDefault;
  HostCpu cpu = HostCpu::kIntel;
};

// Whether NCCL enables LL128 by default on `sys` (tuning.cc ncclTopoTuneModel,
// v2.30.7 l.518-534; the same test since 2.8): only where it has checked
// that a 128-byte store reaches the peer whole and in order, which across
// servers means a GPU-NIC path of at most PXB, or PXN on Hopper and later.
// Elsewhere (a host bridge between them, as a VM without NCCL's topology
// file shows) the tuner chooses between LL and Simple; NCCL_PROTO=LL128 still
// forces it.
[[nodiscard]] bool nccl_ll128_enabled(const TunerSystem& sys);

struct TunerChoice {
  Algo algo = Algo::kRing;
  Proto proto = Proto::kSimple;
};

// One candidate's estimate (for reports and tests).
struct TunerEstimate {
  Algo algo;
  Proto proto;
  double latency_us;
  double algbw_GBps;  // NCCL's bus bandwidth converted to algorithm bandwidth
  double time_us;
};

// The algorithms NCCL's tuner weighs for r.type on `sys` (ring, tree,
// nvls or nvlstree): those that apply and NCCL_ALGO leaves (r.algo_set), or
// the one forced if the tuner models it. Empty: none (NCCL fails the call).
[[nodiscard]] std::vector<Algo> nccl_candidate_algos(const PlanRequest& r, const TunerSystem& sys);
// Every (algo, proto) pair NCCL would consider for r.type on `sys`, with the
// algorithm/protocol of `r` fixed unless r.tune_algo / r.tune_proto.
[[nodiscard]] std::vector<TunerEstimate> nccl_estimates(const PlanRequest& r, const TunerSystem& sys);
// The cheapest of them. Throws std::invalid_argument when none applies.
[[nodiscard]] TunerChoice nccl_tune(const PlanRequest& r, const TunerSystem& sys);

// The channels one call of r.bytes runs on under NCCL 2.`nccl_minor`, once
// the tuner has fixed r.algo and r.proto, when r.channels is the channel
// count NCCL's search finds (its communicator runs each of them twice, so a
// plan channel stands for two of NCCL's). Two rules of enqueue.cc cut NCCL's
// channels for small sizes:
// - topoGetAlgoInfo drops a ring or tree channel while
//   nBytes < nChannels x nThreads x threadThreshold (threads: 512, LL128 640;
//   thresholds from comm.h: LL and LL128 8 bytes per thread, Simple 64; a
//   ring's LL threshold is multiplied by the ranks, tuning.cc), the same in
//   every release modelled;
// - from 2.22, scheduleCollTasksToPlan fills each channel with a minimum of
//   traffic (bytes x 2 for AllReduce, the whole buffer for AllGather) before
//   the next, in cells: 512 B in 2.22, 16 KiB in 2.23-2.28, 32 KiB from
//   2.29; from 2.26 LL's traffic counts four times.
// NVLS, NVLSTree and the others keep r.channels.
[[nodiscard]] int nccl_call_channels(const PlanRequest& r, int nranks, int nccl_minor);

// NCCL's latency figures for what runs (tuning.cc baseLat and hwLat), in
// microseconds: the fixed cost of one collective call, and the cost of one
// hop of a step over NVLink or over the network. Ring's figures stand for the
// ring-based algorithms (hierarchical, pairwise); Tree's for tree;
// CollNetDirect's for sharp.
enum class Hop : uint8_t { kNvlink, kNet };
[[nodiscard]] double nccl_base_latency_us(Algo a, Proto p);
[[nodiscard]] double nccl_hop_latency_us(Algo a, Proto p, Hop h, int nccl_minor = kNcclMinorDefault);
// The proxy's overhead NCCL charges each intra-node step of a multi-node
// ring (tuning.cc l.228-233: 1 us on Intel hosts, 2 on AMD, 3x for Simple).
[[nodiscard]] double nccl_ring_net_overhead_us(Proto p, HostCpu cpu = HostCpu::kIntel);
// The most payload one channel's GPU work moves per second between two
// ranks (GB/s), from NCCL's per-protocol bandwidth caps: LL's llMaxBw shared
// by the channels, LL128's and Tree's per-channel maxima (a tree rank's
// channel sends up and down, NCCL's tree bus bandwidth in all), a Simple
// ring's per-channel bandwidth (min(NIC, NVLink / channels)). 0: no cap
// (the links decide). The wire overhead of LL/LL128 lines is not in here: the
// simulation puts those bytes on the links itself.
// `t` matters to NVLS only (its AllGather and ReduceScatter rates).
// Tree/LL with `comm_channels` > 0: the channel's share of NCCL's modelled
// tree/LL bus bandwidth at `bytes` (with NCCL's tree correction by size) on
// a communicator of that many channels, whatever number the call runs on
// (docs/COLLECTIVES.md, "A tree/LL channel's rate").
[[nodiscard]] double nccl_channel_cap_GBps(Algo a, Proto p, const TunerSystem& sys, int channels,
                                           CollType t = CollType::kAllReduce, int comm_channels = 0,
                                           int64_t bytes = 0);

// Why NVLink SHARP (algo nvls / nvlstree) cannot run on `sys`, "" when it
// can: NCCL needs an NVSwitch of Hopper or later (search.cc) and more than 2
// GPUs per server (nvls.cc); nvlstree runs across servers, nvls on one or,
// for AllReduce, across servers with CollNet (IB SHARP between the heads:
// the caller checks that the fabric has it). AllGather and ReduceScatter:
// nvls on one server only (across servers not modelled), never nvlstree.
[[nodiscard]] std::string nvls_unavailable(Algo a, const TunerSystem& sys, CollType t = CollType::kAllReduce);
// NCCL's bandwidth for NVLS / NVLSTree AllReduce, or NVLS AllGather /
// ReduceScatter on one server (tuning.cc), as algorithm bandwidth in GB/s:
// the NVLS graph's per-channel NVLink and NIC bandwidth, NVLink SHARP's
// efficiency and NVLSTree's per-channel cap, over one channel per GPU of a
// server. The simulation's NVSwitch reduces (AllGather: multicasts) at this
// rate; the NVLSTree's network exchange runs on the fabric.
[[nodiscard]] double nccl_nvls_algbw_GBps(Algo a, const TunerSystem& sys, CollType t = CollType::kAllReduce);

}  // namespace rdmasim
