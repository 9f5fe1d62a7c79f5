// Workload types for GPU jobs on a scenario's fabric:
//   collective  one NCCL-style collective (nccl-tests' op, algo, size,
//               channels, chunk, root, QPs per connection) over every
//               endpoint of the topology, grouped into servers of
//               `gpus_per_server` GPUs joined by NVLink;
//   background  storage-style Poisson flows at a load per NIC that keep
//               arriving while other workloads run (open-ended).
// Rank r is fabric endpoint r, as in GpuCluster.
#pragma once

#include <memory>
#include <optional>

#include "collective/background.h"
#include "collective/communicator.h"
#include "config/params.h"
#include "workload/workload.h"

namespace rdmasim {

// The key gpu_nic_path, as the collective and training workloads read it.
inline constexpr Names<PciPath> kPciPathNames = {{"pix", PciPath::kPix},
                                                 {"pxb", PciPath::kPxb},
                                                 {"pxn", PciPath::kPxn},
                                                 {"phb", PciPath::kPhb},
                                                 {"sys", PciPath::kSys}};
inline constexpr const char* kGpuNicPathDoc =
    "the PCI path NCCL sees between a GPU and its NIC (pix: one PCIe switch, pxb: several, pxn: through "
    "another GPU, phb: the CPU's host bridge, sys: across sockets); NCCL's tuner picks LL128 across "
    "servers only up to pxb (pxn on hopper and blackwell). Default pxb: HGX/DGX boards put each GPU and "
    "its NIC behind PCIe switches (an assumption; a VM without NCCL's topology file may show phb). Only "
    "NCCL's LL128 rule follows it: the network path stays GPUDirect, as NCCL keeps it beyond pxb only when "
    "NCCL_NET_GDR_LEVEL says so";

// The key host_cpu, as the collective and training workloads read it.
inline constexpr Names<HostCpu> kHostCpuNames = {{"intel", HostCpu::kIntel}, {"amd", HostCpu::kAmd}};
inline constexpr const char* kHostCpuDoc =
    "the servers' CPU vendor as NCCL detects it: across servers NCCL's tuner takes LL's bandwidth cap "
    "(llMaxBw, 39 GB/s on 2 Intel servers, 22.5 on AMD; 20.4 and 19.0 on more) and a ring's per-step "
    "proxy overhead (1 us on Intel, 2 on AMD) from it (tuning.cc 2.30.7); on one server it looks at the "
    "GPU, and the key is refused. Default intel (an assumption: HGX H100 servers ship with either)";

// NCCL_PROTO in NCCL's own syntax (parse_nccl_proto) as a key: the
// collective's proto and the training workload's nccl_proto.
struct NcclProtoSetCodec {
  static void read(const CfgNode& n, const char* key, ProtoSet& set);
  static nlohmann::ordered_json echo(ProtoSet set) { return nccl_proto_text(set); }
  static std::string form() {
    return "auto, LL, LL128 or Simple; or NCCL_PROTO's list (LL,Simple) or exclusion (^LL128)";
  }
};

// The NCCL release as a key (parse_nccl_version): the collective's and the
// training workload's nccl_version.
struct NcclVersionCodec {
  static void read(const CfgNode& n, const char* key, int& minor);
  static nlohmann::ordered_json echo(int minor) { return nccl_version_text(minor); }
  static std::string form() { return "an NCCL release 2.18 .. 2.30, e.g. 2.24 or 2.26.2"; }
};
inline constexpr const char* kNcclVersionDoc =
    "the NCCL release that runs (2.minor, as NCCL_DEBUG=VERSION prints it): it decides the channels a "
    "small call runs on (enqueue.cc's rule changed in 2.22, 2.23, 2.26 and 2.29) and NVLSTree's network "
    "hop in the tuning model (14 us up to 2.28.7, 20.9 from 2.28.9, which 2.28 stands for); every other "
    "figure is 2.30.7's. Default 2.30";

struct CollectiveParams final : WorkloadParams {
  PlanRequest req;  // channels 0: one per GPU of a server, at least 2
  int gpus_per_server = 8;
  CommConfig comm;
  NvlinkConfig nvlink;
  GpuArch arch = GpuArch::kHopper;
  PciPath gpu_nic_path = PciPath::kPxb;
};

struct BackgroundParams final : WorkloadParams {
  std::string file;
  std::optional<FlowSizeCdf> sizes;  // always set once parsed
  BackgroundConfig cfg;
};

// The channels a request runs with once `channels` 0 is resolved.
[[nodiscard]] int resolved_channels(const PlanRequest& r, int gpus_per_server);

class CollectiveWorkload final : public Workload,
                                 public EventHandler,
                                 public CollectiveListener,
                                 public GpuJob {
 public:
  explicit CollectiveWorkload(const WorkloadSpec& spec);
  ~CollectiveWorkload() override;

  void setup(WorkloadContext& ctx) override;
  void start(WorkloadContext& ctx) override;
  // setup() and start() on another network than a packet-level fabric (the
  // flow-level model), whose hosts' NICs run at `nic_rate`.
  void setup_on(Simulation& sim, CollectiveNetwork& net, Rate nic_rate) override;
  void start_on(Simulation& sim) override;
  [[nodiscard]] bool finished() const override { return done_; }
  // The granularity at which the stand-alone nccl-tests loop used to poll;
  // keeping it keeps its end-of-run state.
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(20); }
  void report(nlohmann::ordered_json& out) const override;
  [[nodiscard]] std::string summary() const override;

  // What it measured (valid once finished()).
  [[nodiscard]] Time duration() const { return end_ - begin_; }
  // nccl-tests' time per call (Communicator::time_per_call): the duration
  // unless calls are queued back to back (CommConfig::calls).
  [[nodiscard]] Time time_per_call() const { return comm_->time_per_call(); }
  [[nodiscard]] double algbw_gbps() const;  // GB/s, 1e9 bytes/s, as nccl-tests, over time_per_call()
  [[nodiscard]] double busbw_gbps() const;
  [[nodiscard]] int64_t fabric_bytes() const { return comm_->fabric_bytes(); }
  [[nodiscard]] bool sharp_fallback() const { return comm_->sharp_fallback(); }
  [[nodiscard]] Algo algo_run() const { return comm_->last_algo(); }
  [[nodiscard]] Proto proto_run() const { return comm_->last_proto(); }
  [[nodiscard]] int channels_run() const { return comm_->last_channels(); }
  [[nodiscard]] double nccl_predicted_us() const { return comm_->nccl_predicted_us(); }
  [[nodiscard]] int ranks() const { return comm_->size(); }
  [[nodiscard]] const PlanRequest& request() const { return req_; }

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_collective_done(uint32_t comm_id, uint64_t tag, Time start, Time end) override;

 private:
  [[nodiscard]] ClusterConfig cluster_config(const Topology& t, Rate nic_rate) const;
  void finish_setup(Simulation& sim);

  const WorkloadSpec& spec_;
  const CollectiveParams& p_;
  PlanRequest req_;
  Simulation* sim_ = nullptr;
  std::unique_ptr<GpuCluster> cluster_;
  std::unique_ptr<Communicator> comm_;
  bool done_ = false;
  Time begin_, end_;
};

class BackgroundWorkload final : public Workload {
 public:
  explicit BackgroundWorkload(const WorkloadSpec& spec);
  void setup(WorkloadContext& ctx) override;
  [[nodiscard]] bool open_ended() const override { return true; }
  void report(nlohmann::ordered_json& out) const override;
  [[nodiscard]] std::string summary() const override;
  [[nodiscard]] const BackgroundTraffic& traffic() const { return *traffic_; }

 private:
  const BackgroundParams& p_;
  std::unique_ptr<BackgroundTraffic> traffic_;
};

[[nodiscard]] const WorkloadType& collective_workload_type();
[[nodiscard]] const WorkloadType& background_workload_type();

}  // namespace rdmasim
