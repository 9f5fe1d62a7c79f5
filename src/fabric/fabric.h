// A fabric instance: the topology turned into switches, NICs and links, with
// routes installed and the transport attached. Everything a run touches on
// the network side hangs off one Fabric, which belongs to one Simulation.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cc/cubic/cubic.h"
#include "cc/dcqcn.h"
#include "cc/dctcp.h"
#include "cc/hpcc.h"
#include "cc/ib_cc.h"
#include "cc/nscc/nscc.h"
#include "cc/timely.h"
#include "engine/simulation.h"
#include "fabric/parts.h"
#include "link/credit.h"
#include "net/framing.h"
#include "net/mmu.h"
#include "net/network.h"
#include "net/pfc_watch.h"
#include "net/switch.h"
#include "net/tc_scheduler.h"
#include "nic/nic.h"
#include "nic/path/path_selector.h"
#include "route/reroute.h"
#include "route/subnet_manager.h"
#include "sharp/sharp.h"
#include "topo/topology.h"
#include "transport/iwarp/tcp_config.h"
#include "transport/rc.h"
#include "transport/transport.h"
#include "transport/uet/pds_config.h"
#include "verbs/verbs.h"

namespace rdmasim {

class SharpDataPath;  // sharp/sharp_data_path.h

struct SwitchSettings {
  MmuConfig mmu;
  bool cut_through = false;
  // Bytes a cut-through switch receives (from the first preamble bit) before
  // it can start forwarding: enough for the L2/L3 header lookup.
  uint32_t cut_through_bytes = 64;
  Time latency = Time::zero();  // ingress-to-egress pipeline latency
  TcSchedulerConfig scheduler;
  bool same_ecmp_seed = false;  // every switch hashes alike (reproduces polarization)
  // Ethernet adaptive routing: per packet, the least-loaded of the equal-cost
  // ports (as Spectrum-X-class switches do); the NICs then place
  // out-of-order packets. InfiniBand's is fabric.ib.adaptive_routing.
  bool adaptive_routing = false;
  PfcConfig pfc;
  EcnConfig ecn;
  // UET packet trimming (fabric.trimming); threshold_bytes 0 = one BDP,
  // resolved by the fabric.
  TrimConfig trim;
  // Per-PG headroom: 0 = sized per port as rate x (2 x cable delay + the
  // upstream's response time) + 2 maximum frames (one in flight each way).
  uint64_t pfc_headroom_bytes = 0;
  Time pfc_response_time = Time::from_ns(1000);
  PfcWatchdogConfig pfc_watchdog;
  // How long a cycle of paused queues must stall before the run ends as a
  // deadlock (zero: not looked for).
  Time pfc_deadlock_detection = Time::from_us(500);
};

// The InfiniBand side of a fabric: credit-based link layer and the subnet
// manager's routing. Off for Ethernet fabrics, whose ports keep PFC/lossy.
struct InfinibandSettings {
  bool enabled = false;
  CreditConfig credit;
  SubnetManagerConfig sm;
};

struct FabricConfig;

// A device the scenario misconfigures (misconfig:): one switch, one NIC or
// one switch port, or every switch or every NIC, running `cfg` (the
// fabric's configuration with `keys` set otherwise) instead of the fabric's.
// What each key does to one device is documented in docs/FAILURES.md.
struct DeviceOverride {
  enum class Kind : uint8_t { kSwitch, kNic, kPort };
  Kind kind = Kind::kSwitch;
  std::string node;               // empty: every switch (kSwitch) or every NIC (kNic)
  int port = -1;                  // kPort: the port index on switch `node`
  std::vector<std::string> keys;  // fabric keys it sets, dotted: "pfc.headroom", "dcqcn.rate_ai"
  std::shared_ptr<const FabricConfig> cfg;
  // Whether it sets `key` or a key inside block `key` ("dcqcn").
  [[nodiscard]] bool sets(std::string_view key) const;
  [[nodiscard]] bool covers(Kind k, const std::string& name) const {
    return kind == k && (node.empty() || node == name);
  }
  // "switch leaf0", "nic all", "port leaf0:2", as the run's label names it.
  [[nodiscard]] std::string target() const;
};

// The routers a two-site topology may put between its sites
// (topology.router, docs/DISTANCE.md): switches with their own pipeline and
// buffer, at the edge of each site's lossless domain unless told otherwise.
struct RouterSettings {
  // never: auto, the fabric's switch latency on InfiniBand (an IB router is
  // a switch forwarding by GRH), 2 us on Ethernet (a DCI router's pipeline).
  Time latency = Time::never();
  uint64_t buffer_bytes = 4ull << 30;  // Ethernet: a deep-buffer router's
  bool lossless = false;               // PFC: whether the lossless class crosses the routed hop
};

struct FabricConfig {
  std::string name = "ethernet-lossy";
  Framing framing = Framing::rocev2();
  // The host link the profile is built for: the default of a scenario's
  // topology.link and of perftest.
  LinkSpec link{Rate::from_gbps(100), Time::from_ns(1000)};
  SwitchSettings sw;
  RouterSettings router;  // only on a topology with routers
  NicConfig nic;
  // packet: every packet through the datapath; flow: fluid max-min fair
  // rates over the same links (flow/, docs/FLOW_LEVEL.md).
  std::string model = "packet";
  Time flow_epoch;  // flow: rates recomputed at most this often (0: at every arrival and completion)
  std::string transport = "rc";  // the Transport part (fabric/parts.cpp): rc | iwarp | uet
  RcConfig rc;                   // rc; data_tc is every transport's, mtu the packet size every part sizes by
  TcpConfig tcp;                 // iwarp
  PdsConfig uet;                 // uet
  // none | dcqcn | dctcp | timely | hpcc | ibcc (InfiniBand only) | newreno | cubic | nscc
  std::string cc = "none";
  DcqcnConfig dcqcn;
  DctcpConfig dctcp;
  TimelyConfig timely;
  HpccConfig hpcc;
  InfinibandSettings ib;
  IbCcConfig ibcc;
  CubicConfig cubic;
  NsccConfig nscc;
  PathSelectionConfig paths;  // fabric.path_selection and its selector's block (nic/path)
  RerouteConfig reroute;      // Ethernet: link-failure detection and route repair
  // In-network aggregation (fabric.sharp), what collectives' algo sharp runs
  // on: InfiniBand profiles have it; an Ethernet one only when a scenario
  // enables it to model a vendor extension.
  SharpConfig sharp;
  // Devices configured otherwise than the above (scenario misconfig:), in
  // scenario order: a later entry for the same device builds on an earlier.
  std::vector<DeviceOverride> misconfig;

  // What a front end prints for the transport: its name as perftest and
  // nccl-tests show it, and the MTU the user sets with --mtu (RC: payload
  // bytes per packet; iWARP: the Ethernet MTU, its segment payload beside).
  [[nodiscard]] std::string transport_label() const;
  [[nodiscard]] std::string mtu_label(const char* unit = "") const;
  // --mtu: RC's payload MTU, or iWARP's Ethernet MTU (576..9216).
  void set_mtu(int64_t bytes);
};

// One step of a fault and the fabric's recovery from it, for the incident
// report: what happened (down, up, degraded, detected, local_repair,
// reconverged, sm_sweep, lft_install), when, and on which link
// ("node:port" of the end the fault named; empty for fabric-wide steps).
struct RecoveryEvent {
  Time at;
  std::string what;
  std::string link;
};

// What the subnet manager did after link state changes.
struct SmStats {
  int sweeps = 0;                     // heavy sweeps (one per detected link change, per subnet that sees it)
  std::vector<int> sweeps_by_subnet;  // with routers: each subnet manager's own
  int lft_installs = 0;               // times new LFTs were written to the switches
  int flfn_notices = 0;  // SHIELD: switches that told their neighbours of unreachable destinations
  Time last_install = Time::never();
  std::vector<Time> installs;
};

class Fabric {
 public:
  Fabric(Simulation& sim, Topology topo, FabricConfig cfg);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  [[nodiscard]] Simulation& sim() { return sim_; }
  [[nodiscard]] Network& net() { return net_; }
  [[nodiscard]] const Network& net() const { return net_; }
  // The door for workloads, collectives and reports: QPs, work requests, completions.
  // Posting through a const Fabric is allowed: QPs are not part of its configuration.
  [[nodiscard]] Verbs verbs() const {
    return {*transport_, cfg_.rc.data_tc, host_data_tc_.empty() ? nullptr : &host_data_tc_};
  }
  // The transport part itself, for the fabric's own parts, invariants and
  // the transport's unit tests; everything above the verbs layer uses verbs().
  [[nodiscard]] Transport& transport() { return *transport_; }
  [[nodiscard]] const Transport& transport() const { return *transport_; }
  [[nodiscard]] const Topology& topology() const { return topo_; }
  [[nodiscard]] const FabricConfig& config() const { return cfg_; }
  [[nodiscard]] int num_hosts() const { return topo_.num_hosts(); }
  [[nodiscard]] Nic& nic(int host) { return *nics_[host]; }
  [[nodiscard]] const std::vector<Switch*>& switches() const { return switches_; }

  // The ports a packet with this hash crosses from src to dst (empty if unroutable).
  [[nodiscard]] std::vector<const Port*> path(int src, int dst, uint64_t flow_hash,
                                              uint16_t first_port) const;

  // Time for the flow alone on its path: the exact unloaded pipeline of its
  // packets through every hop, plus the final ACK (WRITE/SEND) or the READ
  // request (READ), including NIC latencies. What a lone flow measures.
  [[nodiscard]] Time ideal_completion(QpId qp, Opcode op, int64_t bytes) const;
  // The bottleneck rate on the QP's forward path.
  [[nodiscard]] Rate path_bottleneck(QpId qp) const;
  [[nodiscard]] int path_links(QpId qp) const;
  // The longest unloaded host-to-host RTT of a full packet and its ACK (the
  // base RTT T that HPCC and the IRN window use).
  [[nodiscard]] Time max_base_rtt() const;
  // The longest RTT a lone full packet and its ACK measure between host 0
  // and another host, from the packet's first bit on the wire (its sent_at)
  // to the ACK at the initiator, timed exactly as the datapath moves them
  // (cut-through, the transport's ACK size); zero before the transport is
  // attached.
  [[nodiscard]] Time unloaded_rtt() const;
  // The fabric's answers to its parts (PartContext), computed on demand.
  [[nodiscard]] PartContext part_context() const;

  // Takes the link at port `port` of topology node `node` down or up (both
  // ends) at `at`. On InfiniBand the subnet manager notices after
  // sm.detection_delay, re-sweeps and writes new LFTs sm.compute_time later;
  // until then traffic routed onto the failed link is lost (fault drops).
  // On Ethernet the switches at both ends drop the port from their ECMP
  // groups reroute.local_repair after detecting the failure, and every switch
  // takes routes recomputed without it reroute.bgp_convergence after that.
  // Throws std::invalid_argument for a node/port that does not exist.
  // A `silent` failure (Ethernet) drops every frame without loss of signal:
  // the ends notice only after reroute.bfd_detect(), not reroute.link_detect.
  void schedule_link_state(Time at, int node, uint16_t port, bool up, bool silent = false);
  // The link keeps running at `rate` (both ends) from `at` on.
  void schedule_link_rate(Time at, int node, uint16_t port, Rate rate);
  // Every fault and recovery step so far, in time order.
  [[nodiscard]] const std::vector<RecoveryEvent>& recovery_log() const { return recovery_log_; }
  // A recovery step a part of the fabric took (a SHARP job stopped), now.
  void note_recovery(RecoveryEvent e) { recovery_log_.push_back(std::move(e)); }
  [[nodiscard]] const SmStats& sm_stats() const { return sm_stats_; }
  // At `at`, the NIC at port `port` of topology node `node` (a host) stops
  // draining its receive side (`stuck`) or drains again: it holds PFC XOFF
  // on every lossless class toward its switch, refreshed, and discards what
  // still arrives. Throws std::invalid_argument off a PFC fabric or a host.
  void schedule_receiver_stuck(Time at, int node, uint16_t port, bool stuck);
  // The PFC watchdog and deadlock watch; nullptr unless the links run PFC.
  [[nodiscard]] const PfcWatch* pfc_watch() const { return pfc_watch_.get(); }
  // From now on, each frame port `port` of topology node `node` sends is
  // lost on the wire with probability `p` (random loss; bit errors as the
  // share of frames they corrupt), whatever it carries: the peer's port
  // discards it on arrival and counts it (PortCounters::corrupt_drop_packets,
  // results.json network.corruption_drops). Each port draws from its own
  // stream of the run's seed ("bit-errors/<node>:<port>"), so one link's
  // losses never shift another's; p = 0 draws nothing. Lossy links only: a
  // lost PAUSE frame or credit update is not modelled, so a nonzero p on a
  // PFC or credit link throws std::invalid_argument, as does a node or port
  // that does not exist.
  // `ber` adds bit errors on every link type: a frame is corrupted with
  // probability 1 - (1 - ber)^bits (Port::set_ber), PAUSE and credit frames
  // spared; on a credit link its blocks come back to the sender as IB's
  // FCTBS resynchronisation returns them.
  void set_link_loss(int node, uint16_t port, double p, double ber = 0.0);
  // The switches' in-network aggregation (fabric.sharp.enabled), or nullptr.
  [[nodiscard]] SharpDataPath* sharp() { return sharp_.get(); }
  [[nodiscard]] const SharpDataPath* sharp() const { return sharp_.get(); }
  // The port leading from topology node `a` to node `b` (-1 if not adjacent).
  [[nodiscard]] int port_towards(int a, int b) const;
  [[nodiscard]] Node& node_by_topo_id(int n) { return *by_topo_id_[n]; }
  [[nodiscard]] const Node& node_by_topo_id(int n) const { return *by_topo_id_[n]; }

  // End-of-run invariants (packet conservation, buffer accounting). Empty
  // string when they hold.
  [[nodiscard]] std::string check_invariants() const;
  // Reads every InfiniBand FCP that has landed by now into its port's limit
  // and counters (they are read when a port decides what to send; a run's
  // end reads the rest before its counters are reported).
  void settle_credits();
  // Credit conservation on every InfiniBand link (part of check_invariants).
  [[nodiscard]] std::string check_credits() const;

 private:
  void build();
  void install_flow_control();
  void on_fault_event(uint32_t kind, uint64_t arg);

  // Delivers link-state changes and subnet-manager steps as simulation events.
  class FaultAgent final : public EventHandler {
   public:
    explicit FaultAgent(Fabric& f) : f_(f) {}
    void on_event(uint32_t kind, uint64_t arg) override { f_.on_fault_event(kind, arg); }

   private:
    Fabric& f_;
  };
  struct LinkChange {
    int node;
    uint16_t port;
    bool up;
    bool silent;
    Rate rate;  // nonzero: a speed change, not a state change
  };
  static constexpr uint32_t kLinkChange = 0;
  static constexpr uint32_t kSmSweep = 1;
  static constexpr uint32_t kSmInstall = 2;
  static constexpr uint32_t kLinkUpDeferred = 3;  // arg: generation << 32 | link change
  static constexpr uint32_t kLinkRate = 4;        // arg: link change
  static constexpr uint32_t kDetect = 5;          // arg: link change; Ethernet
  static constexpr uint32_t kLocalRepair = 6;     // arg: topology node
  static constexpr uint32_t kReconverge = 7;
  static constexpr uint32_t kFlfn = 8;  // arg: FLFN notice; InfiniBand with SHIELD
  // Destinations switch `from` can no longer reach (SHIELD's FLFN).
  struct FlfnNotice {
    int from;
    std::vector<int> destinations;
  };
  void on_detect(const LinkChange& ch);
  void flfn_check(int node);
  void on_flfn(const FlfnNotice& n);
  void install_routes(int node, RouteTable t);
  [[nodiscard]] std::string link_name(int node, uint16_t port) const;
  [[nodiscard]] bool routed(int node) const;
  FaultAgent fault_agent_{*this};
  std::vector<LinkChange> link_changes_;
  std::vector<std::vector<char>> down_;          // per topology node and port
  std::vector<std::vector<uint32_t>> link_gen_;  // per node and port: link-state requests seen
  // Per sweep until installed: the new tables and the subnets that swept
  // (bit s: subnet s's manager heard of the change; only its switches and
  // NICs take the new tables).
  struct PendingLfts {
    std::vector<RouteTable> tables;
    uint64_t subnets = 0;
  };
  std::vector<PendingLfts> pending_tables_;
  std::vector<FlfnNotice> flfn_pending_;
  // Ethernet: the ports each node knows are down, and the routes the routing
  // protocol last gave it (local repair prunes those).
  std::vector<std::vector<char>> known_down_;
  std::vector<RouteTable> base_routes_;
  std::vector<RecoveryEvent> recovery_log_;
  SmStats sm_stats_;
  [[nodiscard]] uint32_t bdp_packets() const;
  // What switch or NIC `node` runs (misconfig: entries covering it, else
  // the fabric's), and what port `port` of it runs for `keys`
  // ("pfc.headroom", "mtu"): a port entry setting one of them, else its node's.
  [[nodiscard]] const FabricConfig& device_config(int node) const;
  // Whether a misconfig entry for NICs sets `key` (or a key in block `key`).
  [[nodiscard]] bool nic_misconfigured(std::string_view key) const;
  [[nodiscard]] const FabricConfig& port_config(int node, uint16_t port,
                                                std::initializer_list<std::string_view> keys) const;

  Simulation& sim_;
  Topology topo_;
  FabricConfig cfg_;
  // With routers in the topology: what a router runs (its latency and
  // buffer; lossy on a PFC fabric unless router.lossless), and what a
  // switch port facing a lossy router runs (the site's lossless domain ends there).
  std::unique_ptr<FabricConfig> router_cfg_;
  std::unique_ptr<FabricConfig> site_edge_cfg_;
  Network net_;
  std::unique_ptr<Transport> transport_;
  std::vector<Nic*> nics_;             // by endpoint index
  std::vector<uint8_t> host_data_tc_;  // by endpoint index, when a NIC marks another class (misconfig)
  std::vector<Switch*> switches_;
  std::vector<Node*> by_topo_id_;  // topology node id -> node
  std::unique_ptr<PfcWatch> pfc_watch_;
  std::unique_ptr<SharpDataPath> sharp_;
};

}  // namespace rdmasim
