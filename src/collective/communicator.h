// A communicator: a group of GPU ranks that runs collectives, one at a time,
// the way NCCL's kernels do — a Plan's transfers start when their inputs have
// arrived plus a per-step GPU latency (the kernel's reduce/copy and flag
// handling), and leave either over NVLink (same server) or as RDMA WRITEs on
// the channel's RC QPs (other servers). It talks to the network only through
// the cluster's CollectiveNetwork (connect, post a WRITE, its arrival): the
// packet-level fabric's verbs, or the flow-level model's fluid flows.
//
// NVLink is modelled analytically, not as topology links: each GPU has one
// egress FIFO at the NVLink rate (450 GB/s per direction on H100) and a fixed
// latency. NVSwitch is non-blocking for the patterns collectives use (each GPU
// sends to and receives from a bounded set of peers at full rate), so the only
// contention that matters is at the sending GPU; modelling NVSwitch ports as
// packet-level links would add millions of events per collective for no
// change in the result.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collective/algorithms.h"
#include "collective/cluster.h"
#include "collective/tuner.h"
#include "verbs/verbs.h"

namespace rdmasim {

struct CommConfig {
  // QPs per (channel, peer) connection; a transfer is striped over them, each
  // with its own UDP source port (NCCL_IB_QPS_PER_CONNECTION, default 1).
  int qps_per_conn = 1;
  // The three costs below default to NCCL's own latency model for the
  // algorithm and protocol that run (Time::never() = auto; step_costs()).
  // GPU time before a chunk moves over NVLink: the kernel's reduce/copy and
  // its flag handshake (Simple: a fence and a flag per step; LL/LL128: the
  // receiver polls the data's own flags).
  Time step_latency = Time::never();
  // The same for a chunk that crosses the fabric: the GPU's part plus NCCL's
  // network proxy noticing the full slot and posting the RDMA WRITE, and on
  // the receiving side polling the completion (and, for Simple over
  // GPUDirect, the flush read before the flag).
  Time net_latency = Time::never();
  // Fixed cost per collective call: kernel launch, setup and the final
  // synchronisation.
  Time launch_latency = Time::never();
  // Chunks a channel may have in flight to one peer: NCCL's staging buffer
  // has NCCL_STEPS = 8 slots, and a sender waits for a free slot at the
  // receiver. Without this bound a rank with all its data ready (a broadcast
  // root) would queue every chunk of channel 0 ahead of channel 1 on its
  // NVLink instead of the channels sharing it.
  int slots = 8;  // of the protocol's step size (more, smaller, transfers for LL/LL128 grains)
  // Calls queued back to back on every rank, as nccl-tests times `iters` of
  // them (its -n): a rank's GPU starts its next call, after NCCL's launch
  // cost, once it has done its part of the last (repeat_calls), and a chunk
  // for a rank still in an earlier call holds its slot until that rank gets
  // to it (NCCL's connection buffers are the calls' in turn). 1: one call.
  int calls = 1;
  // The NCCL release whose tuning model decides and charges (2.minor;
  // kNcclMinorDefault, tuner.h).
  int nccl_minor = kNcclMinorDefault;
  // The hosts' CPU vendor NCCL detects (tuner.h HostCpu): across servers,
  // LL's bandwidth cap and a ring's per-step proxy overhead.
  HostCpu host_cpu = HostCpu::kIntel;
};

// What one run charges: CommConfig's values, or where they are auto, NCCL's
// model (tuner.h) for algorithm `a` and protocol `p`:
//   launch = baseLat[a][p];
//   step   = hwLat[NVLINK][a][p] - the NVLink transit the simulation adds
//            (on a multi-node ring at least NCCL's proxy overhead per step);
//   net    = hwLat[NET][a][p] - 1 us: NCCL's network hop contains the
//            NIC-switch-NIC transit the packet-level fabric simulates, which
//            on the InfiniBand clusters NCCL is tuned on is about 1 us
//            (an assumption).
struct StepCosts {
  Time launch, step, net;
};
inline constexpr Time kNcclNetTransit = Time::from_ns(1000);
[[nodiscard]] StepCosts step_costs(const CommConfig& cfg, Algo a, Proto p, const CommShape& shape,
                                   Time nvlink_latency);

// NCCL's chunk for a Simple tree (enqueue.cc computeColl, 2.8 to 2.19):
// the 512 KiB step halved, down to 128/64/32 KiB, while each channel's data
// would fill fewer than 8x/4x/1x the tree's depth of chunks, so that a
// mid-sized message still pipelines through the chain and the tree. From
// 2.20 calcCollChunking keeps the whole step; kept here because the tuner
// picks tree/Simple at no size on the published runs' configurations
// (docs/COLLECTIVES.md), so only a forced one shows it: a known difference
// from 2.24.
[[nodiscard]] int64_t tree_simple_chunk(const PlanRequest& r, const CommShape& shape);

// Notified when a collective finishes.
class CollectiveListener {
 public:
  virtual void on_collective_done(uint32_t comm_id, uint64_t tag, Time start, Time end) = 0;

 protected:
  ~CollectiveListener() = default;
};

class Communicator final : public EventHandler, public CompletionSink {
 public:
  // `ranks`: the cluster ranks, shaped as `shape.servers` servers x
  // `shape.gpus` GPUs (communicator rank s*gpus+g is ranks[s*gpus+g]).
  Communicator(GpuCluster& cluster, std::vector<int> ranks, CommShape shape, CommConfig cfg, uint32_t id = 0);
  // The whole cluster as one communicator.
  Communicator(GpuCluster& cluster, CommConfig cfg);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // Starts a collective now. Throws std::invalid_argument for an inapplicable
  // algorithm; std::logic_error if one is already running.
  void start(const PlanRequest& req, uint64_t tag, CollectiveListener* listener);
  [[nodiscard]] bool busy() const { return running_; }
  [[nodiscard]] int size() const { return shape_.ranks(); }
  [[nodiscard]] const CommShape& shape() const { return shape_; }
  [[nodiscard]] uint32_t id() const { return id_; }
  [[nodiscard]] Time last_start() const { return start_; }
  [[nodiscard]] Time last_end() const { return end_; }
  // Bytes of the last collective that crossed the fabric / NVLink.
  [[nodiscard]] int64_t fabric_bytes() const { return fabric_bytes_; }
  // Connection state: the most QPs any one NIC holds for this communicator
  // (a QP's context lives at both of its ends).
  [[nodiscard]] int qps_per_nic_max() const;
  [[nodiscard]] int64_t nvlink_bytes() const { return nvlink_bytes_; }
  // --algo sharp: whether the last request fell back to ring because the
  // switches had no aggregation group left. A fabric without SHARP makes
  // start() throw std::invalid_argument instead.
  [[nodiscard]] bool sharp_fallback() const { return sharp_fallback_; }
  // Why the running collective cannot finish: its SHARP job was stopped
  // when a link of its aggregation tree failed (sharp_data_path.h). Empty
  // when nothing stopped it.
  [[nodiscard]] std::string stop_reason() const;
  [[nodiscard]] Algo last_algo() const { return last_algo_; }
  [[nodiscard]] Proto last_proto() const { return last_proto_; }
  // The channels the last call ran on (NCCL gives small sizes fewer).
  [[nodiscard]] int last_channels() const { return last_channels_; }
  // NCCL's own estimate of the last collective (tuner.h), 0 where its model
  // has none (hierarchical, pairwise, sharp).
  [[nodiscard]] double nccl_predicted_us() const { return predicted_us_; }
  // nccl-tests' time per call: with CommConfig::calls > 1 each rank's time
  // to its last call's end over the calls, averaged over the ranks
  // (nccl-tests src/common.cu BenchTime); else the call to its last rank.
  [[nodiscard]] Time time_per_call() const { return calls_ > 1 ? per_call_ : end_ - start_; }

  // Runs one collective to completion on an otherwise idle simulation and
  // returns its duration (a convenience for nccl-tests and tests).
  Time run_one(const PlanRequest& req);

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_complete(const Completion&) override {}
  void on_receive(const Completion& c) override;

 private:
  enum Kind : uint32_t { kReady = 1, kNvlinkArrive = 2, kLaunched = 3, kPost = 4 };
  void launch_ready(uint32_t x);
  void transmit(uint32_t x);
  void post(uint32_t x);
  // When the sending GPU's channel has produced transfer x's data, under the
  // protocol's bandwidth cap (now when uncapped).
  Time gpu_done(uint32_t x);
  void delivered(uint32_t x);
  // A rank's slot of a peer link is free again: the next waiting chunk
  // takes it.
  void release_slot(uint32_t link);
  // Rank `r` has done its part of call `k` (mark transfer x).
  void call_done(uint32_t x);
  void finish();
  QpId conn_for(int channel, int src, int dst, int stripe);
  // GPU (and, across the fabric, proxy) time before transfer x may move.
  [[nodiscard]] Time ready_delay(uint32_t x) const;
  [[nodiscard]] TunerSystem tuner_system() const;

  GpuCluster& cl_;
  std::vector<int> ranks_;
  std::vector<int> server_of_;  // per cluster rank: its server in this communicator (-1: not a member)
  CommShape shape_;
  CommConfig cfg_;
  uint32_t id_;
  Plan plan_;
  std::vector<uint16_t> deps_left_;
  std::vector<uint16_t> parts_left_;
  std::vector<QpId> first_conn_;  // per transfer crossing the fabric: its first QP
  // Per (channel, src, dst): chunks in flight and those waiting for a slot.
  struct PeerLink {
    int in_flight = 0;
    std::deque<uint32_t> waiting;
  };
  std::vector<uint32_t> link_of_;  // per transfer
  std::vector<PeerLink> links_;
  std::unordered_map<uint64_t, QpId> conns_;
  size_t delivered_ = 0;
  bool running_ = false;
  uint64_t tag_ = 0;
  CollectiveListener* listener_ = nullptr;
  Time start_, end_;
  int64_t fabric_bytes_ = 0, nvlink_bytes_ = 0;
  // The communicator's SHARP aggregation group, allocated on first use:
  // false when the switches have none left; throws, naming `algo`, on a
  // fabric without SHARP.
  bool hold_sharp_group(const char* algo);
  std::optional<SharpGroup> sharp_group_;
  bool sharp_tried_ = false, sharp_fallback_ = false;
  Algo last_algo_ = Algo::kRing;
  Proto last_proto_ = Proto::kSimple;
  int last_channels_ = 0;
  double predicted_us_ = 0;
  StepCosts costs_;
  int slots_ = 8;               // transfers in flight per peer for this run
  double cap_Bps_ = 0;          // per channel, 0: none (nccl_channel_cap_GBps)
  bool nvls_paced_st_ = false;  // NVLS multicasts take the cap too (an AllGather's)
  // A channel's GPU work runs in lanes, NCCL's warps (LL 16 and LL128 20
  // per channel; Simple one: the whole block moves a slice). The chunks of
  // a ring step, a warp's share each (proto_grain_bytes), are worked on side
  // by side, each at the channel's rate over its step's chunks: they finish
  // together and the next step's latency follows them, as NCCL's cost model
  // adds it. Worked one after another, later chunks hid every step's
  // latency (ring/LL on one H100 server, 1 MiB: 20.5 us, where NCCL's model
  // says 28.0 and NVIDIA's published run took 27.4). Chains and trees
  // pipeline their chunks hop by hop: one lane at the channel's rate.
  int lanes_ = 1;
  std::vector<uint32_t> gpu_slot_;  // per transfer: (sending rank, channel, lane)
  std::vector<Time> gpu_free_;      // per (rank, channel, lane): when its GPU work is next free
  // A Simple ring's hop across the fabric: the GPU's work and the proxy's
  // sends stream together, and the transfer is delivered when both have
  // finished. NCCL posts each slice, half a step's block, as soon as the GPU
  // has filled it; a ring step here is one transfer, so filling all of it
  // before the send would serialize what NCCL overlaps (and double an
  // unpipelined ring's time where the GPU and the NIC run at one rate,
  // VALIDATION.md A.3). Trees move NCCL-sized chunks and keep fill-then-send.
  // Per transfer: when its GPU work ends.
  bool stream_net_ = false;
  std::vector<Time> gpu_end_;
  // Tree/LL: LL's per-line flags let a rank start on a chunk as its first
  // lines land, so along a chain the channel's rate is paid once, not at
  // every hop. A transfer's GPU work may begin one step latency after its
  // predecessor's began (earliest_), never ends before its data has landed,
  // and across the fabric the proxy still sends the whole chunk at once.
  bool cut_through_ = false;
  std::vector<Time> gpu_begin_, earliest_;
  std::vector<int> sharp_hosts_;  // scratch: the hosts of one SHARP operation
  // Back-to-back calls (CommConfig::calls): transfers per call and its marks,
  // each transfer's receiving rank, calls each rank has done and when its
  // last ended, and the slots held for ranks still in an earlier call.
  int calls_ = 1;
  uint32_t call_block_ = 0;
  std::vector<int> dst_local_;
  std::vector<int> calls_done_;
  std::vector<Time> rank_end_;
  struct HeldSlot {
    int call;
    uint32_t link;
  };
  std::vector<std::vector<HeldSlot>> held_;
  Time per_call_;
};

}  // namespace rdmasim
