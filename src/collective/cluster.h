// A GPU cluster: servers of G GPUs each, joined inside a server by an
// NVLink-class interconnect and across servers by the simulated fabric, one
// NIC per GPU. Rank r is GPU (r % G) of server (r / G) and is fabric endpoint
// r (the topology builders below number endpoints server-major).
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "collective/tuner.h"
#include "engine/simulation.h"
#include "engine/units.h"
#include "fabric/fabric.h"
#include "sharp/sharp.h"
#include "topo/topology.h"

namespace rdmasim {

// The intra-server interconnect. Defaults: H100 SXM5, NVLink 4, at the rate
// NCCL's kernels reach over it (see GpuClass): 370.8 GB/s per direction.
// Latency: 0.5 us GPU-to-GPU through an NVSwitch is an assumption bounded by
// NCCL's tuning model, which charges 0.6 us for a whole LL hop over NVLink,
// transit and GPU work together (tuning.cc hwLat); override it.
struct NvlinkConfig {
  Rate rate = Rate::from_bps(2'966'400'000'000);  // 370.8 GB/s per GPU, per direction
  Time latency = Time::from_ns(500);
};

// The GPU class of a cluster: its generation (NCCL's tuner has per-generation
// bandwidth caps) and its NVLink rate per direction as NCCL's kernels move
// data over it, not the data sheet's: NCCL's graph counts every NVLink at
// its SMxx_NVLINK_BW (NVIDIA/nccl v2.30.7 src/graph/topo.h l.19-24), so A100
// 12 x 20.0 = 240 GB/s (data sheet 300), H100 18 x 20.6 = 370.8 (450), B200
// 18 x 40.1 = 721.8 (900), V100 SXM2 6 x 20.0 = 120 (150). Real rings confirm it: one 8 x H100 server's ring
// AllReduce busbw is "365-370 GBps" (NVIDIA/nccl#1455; NCCL's maintainer in
// NVIDIA/nccl-tests#212: "an effective NVLink bandwidth of 370GB/s ... with
// NCCL_ALGO=RING"), one 8 x A100 server's 232.54 GB/s (NVIDIA/nccl-tests#175).
struct GpuClass {
  const char* name;
  GpuArch arch;
  double nvlink_GBps;  // per direction, NCCL's effective figure
  [[nodiscard]] Rate nvlink_rate() const { return Rate::from_bps(std::llround(nvlink_GBps * 8e9)); }
};
// The class of a generation (the NVLink rate a YAML workload's gpu_arch implies).
[[nodiscard]] const GpuClass& gpu_class(GpuArch arch);
[[nodiscard]] const std::vector<GpuClass>& gpu_classes();
// Throws std::invalid_argument listing the known names.
[[nodiscard]] const GpuClass& gpu_class(const std::string& name);

enum class ClusterTopology : uint8_t {
  kLeafSpine,  // every GPU NIC of one server on the server's leaf; leaves to spines (ECMP)
  kRail,       // rail-optimized: NIC g of every server on rail leaf g; rails to spines
};

struct ClusterConfig {
  int servers = 4;
  int gpus_per_server = 8;
  ClusterTopology topology = ClusterTopology::kLeafSpine;
  // Leaf uplink capacity = downlink capacity / oversubscription (1 = non-blocking).
  double oversubscription = 1.0;
  // Rail-optimized: servers under one rail leaf (0: all of them), as
  // make_servers' servers_per_leaf.
  int servers_per_leaf = 0;
  // Rail-optimized: ports per switch (0: no bound), as make_servers'
  // switch_radix: beyond radix rail leaves, pods of radix/2 leaves and a core tier.
  int switch_radix = 0;
  // ConnectX-7 class NIC per GPU: 400 Gb/s (NDR / 400GbE). Cables: 150 ns,
  // 30 m of fibre at 5 ns/m; an assumption (a pod keeps NIC-leaf and
  // leaf-spine runs to tens of metres; 3 m copper is 15 ns, 100 m fibre 500 ns).
  LinkSpec nic_link{Rate::from_gbps(400), Time::from_ns(150)};
  LinkSpec fabric_link{Rate::from_gbps(400), Time::from_ns(150)};
  NvlinkConfig nvlink;
  GpuArch arch = GpuArch::kHopper;
  // What NCCL's topology search sees between a GPU and its NIC; decides
  // whether its tuner may pick LL128 across servers (nccl_ll128_enabled).
  PciPath gpu_nic_path = PciPath::kPxb;

  [[nodiscard]] int ranks() const { return servers * gpus_per_server; }
};

// Throws std::invalid_argument naming the parameter when the cluster is invalid.
[[nodiscard]] Topology make_cluster_topology(const ClusterConfig& c);
// The spines make_cluster_topology gives the cluster: enough for the leaves'
// downlink capacity divided by the oversubscription.
[[nodiscard]] int cluster_spines(const ClusterConfig& c);

// Why `fabric` cannot run algo sharp, "" when it can: its switches offer no
// in-network aggregation (fabric.sharp.enabled). `how` says how the caller's
// user turns it on, e.g. "set fabric.sharp.enabled: true".
[[nodiscard]] std::string sharp_unavailable(const FabricConfig& fabric, const std::string& how);

// What a communicator needs of the network between servers: connections,
// RDMA WRITEs and their arrival, and the switches' aggregation where the
// fabric has it. The packet-level fabric gives it through its verbs
// (FabricNetwork); the flow-level model (fabric.model: flow) as fluid flows.
class CollectiveNetwork {
 public:
  // A connection from endpoint src to dst; the arrival of each WRITE posted
  // on it reaches sink->on_receive with the work request's id.
  virtual QpId connect(int src, int dst, CompletionSink* sink) = 0;
  virtual void post_write(QpId qp, int64_t bytes, uint64_t wr_id) = 0;
  // A connection's (src, dst) endpoints.
  [[nodiscard]] virtual std::pair<int, int> endpoints(QpId qp) const = 0;
  [[nodiscard]] virtual const FabricConfig& fabric_config() const = 0;
  [[nodiscard]] virtual const Topology& topology() const = 0;
  // The switches' aggregation data path; nullptr where there is none.
  [[nodiscard]] virtual SharpDataPath* sharp() = 0;

 protected:
  ~CollectiveNetwork() = default;
};

// A GPU job a scenario runs (collective, training): set up over any
// CollectiveNetwork and started on the simulation its events run on (the
// flow-level model's entry; the packet level goes through Workload).
class GpuJob {
 public:
  virtual void setup_on(Simulation& sim, CollectiveNetwork& net, Rate nic_rate) = 0;
  virtual void start_on(Simulation& sim) = 0;

 protected:
  ~GpuJob() = default;
};

// The packet-level fabric, through its verbs.
class FabricNetwork final : public CollectiveNetwork {
 public:
  explicit FabricNetwork(Fabric& f) : f_(f) {}
  QpId connect(int src, int dst, CompletionSink* sink) override {
    return f_.verbs().create_qp(src, dst, sink).id();
  }
  void post_write(QpId qp, int64_t bytes, uint64_t wr_id) override {
    f_.verbs().qp(qp).post_write(bytes, wr_id);
  }
  [[nodiscard]] std::pair<int, int> endpoints(QpId qp) const override {
    const QueuePair q = f_.verbs().qp(qp);
    return {q.src(), q.dst()};
  }
  [[nodiscard]] const FabricConfig& fabric_config() const override { return f_.config(); }
  [[nodiscard]] const Topology& topology() const override { return f_.topology(); }
  [[nodiscard]] SharpDataPath* sharp() override { return f_.sharp(); }

 private:
  Fabric& f_;
};

// A simulation, its fabric and the cluster geometry: everything a
// communicator needs. Its SHARP groups come from the fabric's fabric.sharp.
class GpuCluster {
 public:
  // A fresh simulation and fabric of its own on make_cluster_topology(c)
  // (unit tests and analytic checks).
  GpuCluster(const ClusterConfig& c, const FabricConfig& fabric, uint64_t seed);
  // The geometry over a simulation and fabric owned by someone else (a
  // scenario run, where workloads share them): rank r is fabric endpoint r.
  // Both must outlive the cluster. Throws std::invalid_argument when the
  // fabric has fewer than c.ranks() endpoints.
  GpuCluster(const ClusterConfig& c, Simulation& sim, Fabric& fabric);
  // The same over another network (the flow-level model), which must
  // outlive the cluster. Throws as above.
  GpuCluster(const ClusterConfig& c, Simulation& sim, CollectiveNetwork& net);
  [[nodiscard]] Simulation& sim() { return *sim_; }
  // The packet-level fabric. Precondition: the cluster runs on one (not
  // on the flow-level model).
  [[nodiscard]] Fabric& fabric() { return *fabric_; }
  [[nodiscard]] CollectiveNetwork& net() { return *net_; }
  [[nodiscard]] const ClusterConfig& config() const { return cfg_; }
  [[nodiscard]] int ranks() const { return cfg_.ranks(); }
  [[nodiscard]] int gpus_per_server() const { return cfg_.gpus_per_server; }
  [[nodiscard]] int server_of(int rank) const { return rank / cfg_.gpus_per_server; }
  [[nodiscard]] int local_of(int rank) const { return rank % cfg_.gpus_per_server; }
  [[nodiscard]] int rank_of(int server, int local) const { return server * cfg_.gpus_per_server + local; }
  [[nodiscard]] bool same_server(int a, int b) const { return server_of(a) == server_of(b); }
  // When GPU `rank`'s NVLink egress is next free (shared by every communicator).
  [[nodiscard]] Time& nvlink_free(int rank) { return nvlink_free_[rank]; }
  [[nodiscard]] SharpManager& sharp() { return *sharp_; }

 private:
  // The borrowed-simulation constructors': `own` (a fabric's) or `net`.
  GpuCluster(const ClusterConfig& c, Simulation& sim, std::unique_ptr<FabricNetwork> own,
             CollectiveNetwork* net);

  ClusterConfig cfg_;
  std::unique_ptr<Simulation> own_sim_;  // null when borrowed
  std::unique_ptr<Fabric> own_fabric_;
  Simulation* sim_;
  Fabric* fabric_;                          // null on the flow-level model
  std::unique_ptr<FabricNetwork> own_net_;  // fabric_'s, when there is one
  CollectiveNetwork* net_;
  std::vector<Time> nvlink_free_;
  std::unique_ptr<SharpManager> sharp_;
};

}  // namespace rdmasim
