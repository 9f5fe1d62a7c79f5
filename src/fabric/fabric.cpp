#include "fabric/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <queue>
#include <stdexcept>

#include "cc/per_host.h"
#include "fabric/schema.h"
#include "net/unloaded_hop.h"
#include "route/shortest_path.h"
#include "sharp/sharp_data_path.h"
#include "transport/iwarp/iwarp_framing.h"

namespace rdmasim {

namespace {
// HPCC's INT header rides every data packet and ACK.
// What the chosen parts imply for the framing: HPCC's INT header; iWARP's
// TCP headers, and its segment payload as the fabric's packet size (BDP,
// PFC headroom).
FabricConfig with_framing(FabricConfig cfg) {
  if (cfg.cc == "hpcc") cfg.framing.int_header = cfg.hpcc.int_header_bytes;
  if (cfg.transport == "iwarp") {
    cfg.framing = Framing::iwarp(cfg.tcp.timestamps);
    cfg.rc.mtu = IwarpFraming{cfg.tcp.ip_mtu, cfg.tcp.timestamps, cfg.tcp.markers}.max_payload(true);
  }
  if (cfg.transport == "uet") {
    cfg.framing = Framing::uet();
    cfg.rc.mtu = cfg.uet.mtu;
    cfg.sw.trim.wire_extra = cfg.framing.wire_extra;
  }
  return cfg;
}
}  // namespace

Fabric::Fabric(Simulation& sim, Topology topo, FabricConfig cfg)
    : sim_(sim), topo_(std::move(topo)), cfg_(with_framing(std::move(cfg))), net_(sim, cfg_.framing) {
  if (cfg_.cc == "ibcc" && !cfg_.ib.enabled)
    throw std::invalid_argument("congestion control 'ibcc' needs an InfiniBand profile (ib-ndr, ib-hdr)");
  // Adaptive routing reorders a flow's packets; the NIC places them anyway.
  if (cfg_.ib.enabled && cfg_.ib.sm.adaptive) cfg_.rc.accept_out_of_order = true;
  // So do Ethernet adaptive routing and per-packet spraying.
  if (!cfg_.ib.enabled && (cfg_.sw.adaptive_routing || cfg_.paths.name == "spray"))
    cfg_.rc.accept_out_of_order = true;
  if (cfg_.rc.recovery == LossRecovery::kIrn && cfg_.rc.irn_window == 0) cfg_.rc.irn_window = bdp_packets();
  // Trimming at one BDP (VALIDATION.md D.12) unless the scenario names a depth.
  if (cfg_.sw.trim.enabled && cfg_.sw.trim.threshold_bytes == 0)
    cfg_.sw.trim.threshold_bytes = uint64_t{bdp_packets()} * cfg_.framing.data_wire(cfg_.rc.mtu, false);
  // Resolved here, not in the part, so results.json records the window that ran.
  // Over TCP it starts at RFC 6928's initial window and slow-starts.
  if (cfg_.cc == "dctcp" && cfg_.dctcp.initial_window == 0)
    cfg_.dctcp.initial_window = cfg_.dctcp.tcp ? 10 : bdp_packets();
  if (std::any_of(topo_.nodes.begin(), topo_.nodes.end(), [](const TopoNode& n) { return n.router; })) {
    router_cfg_ = std::make_unique<FabricConfig>(cfg_);
    SwitchSettings& r = router_cfg_->sw;
    r.latency = router_latency(cfg_);
    if (!cfg_.ib.enabled) r.mmu.buffer_bytes = cfg_.router.buffer_bytes;
    if (!cfg_.router.lossless && r.mmu.lossless_mask != 0) {
      r.mmu.lossless_mask = 0;
      site_edge_cfg_ = std::make_unique<FabricConfig>(cfg_);
      site_edge_cfg_->sw.mmu.lossless_mask = 0;
    }
  }
  transport_ = make_transport(cfg_, net_, part_context());
  build();
  if (link_flow_control_name(cfg_) == "pfc")
    pfc_watch_ = std::make_unique<PfcWatch>(
        sim_, net_,
        PfcWatchConfig{cfg_.sw.pfc_watchdog, cfg_.sw.pfc_deadlock_detection, cfg_.sw.mmu.lossless_mask});
  if (cfg_.sharp.enabled) sharp_ = std::make_unique<SharpDataPath>(*this);
}

Fabric::~Fabric() = default;

uint32_t Fabric::bdp_packets() const {
  const TopoLink* host_link = nullptr;
  for (const auto& l : topo_.links)
    if (l.a == topo_.hosts[0] || l.b == topo_.hosts[0]) host_link = &l;
  if (host_link == nullptr) return 1;
  const uint32_t wire = cfg_.framing.data_wire(cfg_.rc.mtu, false);
  const int64_t bytes = host_link->rate.bytes_in(max_base_rtt()).count();
  return static_cast<uint32_t>(std::max<int64_t>(1, (bytes + wire - 1) / wire));
}

Time Fabric::max_base_rtt() const {
  // The unloaded RTT from host 0 to the host farthest from it in time (fabrics
  // here are symmetric), store and forward at the host link rate: each way, per
  // link its delay plus a full packet's serialization, per switch or router
  // crossed its pipeline, and both NICs' processing latency. Per link, not per
  // hop count: a long link or a router between two sites is most of the RTT.
  const TopoLink* host_link = nullptr;
  for (const auto& l : topo_.links)
    if (l.a == topo_.hosts[0] || l.b == topo_.hosts[0]) host_link = &l;
  if (host_link == nullptr) return Time::zero();
  const Time serialization = host_link->rate.tx_time(Bytes(cfg_.framing.data_wire(cfg_.rc.mtu, false)));
  const Time router = router_latency(cfg_);
  std::vector<std::vector<std::pair<int, Time>>> adj(topo_.nodes.size());
  for (const auto& l : topo_.links) {
    adj[l.a].emplace_back(l.b, l.delay + serialization);
    adj[l.b].emplace_back(l.a, l.delay + serialization);
  }
  // Dijkstra; a node's pipeline is paid on leaving it, hosts do not forward.
  std::vector<Time> dist(topo_.nodes.size(), Time::never());
  using Entry = std::pair<Time, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  dist[topo_.hosts[0]] = Time::zero();
  frontier.emplace(Time::zero(), topo_.hosts[0]);
  Time longest = Time::zero();
  while (!frontier.empty()) {
    const auto [d, n] = frontier.top();
    frontier.pop();
    if (d != dist[n]) continue;
    const TopoNode& node = topo_.nodes[n];
    Time leave = d;
    if (node.kind == TopoNodeKind::kHost) {
      if (n != topo_.hosts[0]) {
        longest = std::max(longest, d);
        continue;
      }
    } else {
      leave = d + (node.router ? router : cfg_.sw.latency);
    }
    for (const auto& [m, cost] : adj[n])
      if (leave + cost < dist[m]) {
        dist[m] = leave + cost;
        frontier.emplace(dist[m], m);
      }
  }
  if (longest == Time::zero()) longest = host_link->delay + serialization;  // a lone host
  return longest * 2 + (cfg_.nic.tx_latency + cfg_.nic.rx_latency) * 2;
}

void Fabric::build() {
  const auto adj = port_adjacency(topo_);
  // InfiniBand: the subnet manager's LFTs; Ethernet: ECMP over shortest paths.
  auto tables = cfg_.ib.enabled ? compute_lfts(topo_, cfg_.ib.sm) : shortest_path_routes(topo_);
  int subnets = 1;
  for (const TopoNode& n : topo_.nodes) subnets = std::max(subnets, n.subnet + 1);
  if (cfg_.ib.enabled && subnets > 1) sm_stats_.sweeps_by_subnet.assign(static_cast<size_t>(subnets), 0);
  by_topo_id_.resize(topo_.nodes.size());
  std::vector<int> host_index(topo_.nodes.size(), -1);
  for (int i = 0; i < topo_.num_hosts(); ++i) host_index[topo_.hosts[i]] = i;
  nics_.resize(topo_.num_hosts());
  for (size_t n = 0; n < topo_.nodes.size(); ++n) {
    const TopoNode& tn = topo_.nodes[n];
    if (tn.kind == TopoNodeKind::kHost) {
      auto nic = std::make_unique<Nic>(net_, static_cast<int>(n), host_index[n], tn.name, cfg_.nic);
      nics_[host_index[n]] = nic.get();
      by_topo_id_[n] = &net_.add_node(std::move(nic));
    } else {
      const uint64_t seed =
          cfg_.sw.same_ecmp_seed ? mix64(sim_.seed()) : mix64(sim_.seed() ^ (n * 0x9e3779b97f4a7c15ull));
      auto sw = std::make_unique<Switch>(net_, static_cast<int>(n), tn.name,
                                         device_config(static_cast<int>(n)).sw.mmu, adj[n].size(), seed);
      sw->set_forwarding(device_config(static_cast<int>(n)).sw.latency,
                         cfg_.sw.cut_through ? cfg_.sw.cut_through_bytes : 0);
      switches_.push_back(sw.get());
      by_topo_id_[n] = &net_.add_node(std::move(sw));
    }
  }
  // Ports in link order, matching port_adjacency().
  for (const auto& l : topo_.links) {
    for (int end = 0; end < 2; ++end) {
      Node* self = by_topo_id_[end == 0 ? l.a : l.b];
      auto idx = static_cast<uint16_t>(self->num_ports());
      Port& p = self->add_port(std::make_unique<Port>(net_, *self, idx, l.rate, l.delay));
      if (l.error_rate > 0.0) set_link_loss(end == 0 ? l.a : l.b, idx, l.error_rate);  // each way
      if (self->kind() == NodeKind::kSwitch) {
        auto* sw = static_cast<Switch*>(self);
        p.set_switch(sw);
        p.set_scheduler_config(&cfg_.sw.scheduler);
      } else {
        p.set_source(static_cast<Nic*>(self));
      }
    }
  }
  for (size_t n = 0; n < topo_.nodes.size(); ++n) {
    Node* self = by_topo_id_[n];
    for (size_t i = 0; i < adj[n].size(); ++i) {
      const auto [peer, peer_port] = adj[n][i];
      self->port(i).connect(by_topo_id_[peer], static_cast<uint16_t>(peer_port));
    }
    if (self->kind() == NodeKind::kSwitch) {
      auto* sw = static_cast<Switch*>(self);
      sw->set_routes(std::move(tables[n]));
      sw->set_forwarding_policy(make_forwarding_policy(forwarding_policy_name(cfg_), *sw));
      sw->set_reroute_queued(cfg_.ib.enabled && (cfg_.ib.sm.shield || cfg_.ib.sm.adaptive));
      const FabricConfig& dc = device_config(static_cast<int>(n));
      for (const std::string& cp : congestion_point_names(dc))
        sw->add_congestion_point(make_congestion_point(cp, dc, *sw));
      const uint32_t max_frame = cfg_.framing.data_wire(cfg_.rc.mtu, true);
      uint64_t carved = 0;
      int most_lossless = 0;
      for (size_t i = 0; i < sw->num_ports(); ++i) {
        Port& p = sw->port(i);
        const auto idx = static_cast<uint16_t>(i);
        const FabricConfig& pc = port_config(static_cast<int>(n), idx, {"pfc.enabled", "pfc.classes"});
        sw->mmu().set_port_lossless(idx, pc.sw.mmu.lossless_mask);
        const FabricConfig& hc = port_config(static_cast<int>(n), idx, {"pfc.headroom"});
        uint64_t h = hc.sw.pfc_headroom_bytes;
        // What can still arrive after the XOFF decision: the cable in both
        // directions, our own pipeline (packets already past the MAC), the
        // upstream's response time, one frame being sent on each side, and the
        // PAUSE frame itself.
        if (h == 0)
          h = static_cast<uint64_t>(
                  p.rate()
                      .bytes_in(p.delay() * 2 + sw->ingress_latency() + hc.sw.pfc_response_time)
                      .count()) +
              2ull * max_frame + cfg_.framing.pfc_wire();
        sw->mmu().set_headroom(idx, h);
        const int lossless = __builtin_popcount(pc.sw.mmu.lossless_mask);
        most_lossless = std::max(most_lossless, lossless);
        carved += lossless * (h + dc.sw.mmu.pg_reserved_bytes);
        const uint32_t mtu = port_config(static_cast<int>(n), idx, {"mtu"}).rc.mtu;
        if (mtu < cfg_.rc.mtu) sw->set_port_mtu(idx, mtu);
      }
      if (!dc.sw.mmu.unlimited && most_lossless > 0 && carved >= dc.sw.mmu.buffer_bytes)
        throw std::invalid_argument("switch '" + sw->name() + "': PFC headroom and reserved bytes for " +
                                    std::to_string(sw->num_ports()) + " ports x " +
                                    std::to_string(most_lossless) + " lossless classes need " +
                                    std::to_string(carved) + " bytes, more than its " +
                                    std::to_string(dc.sw.mmu.buffer_bytes) + "-byte buffer");
    } else {
      auto* nic = static_cast<Nic*>(self);
      nic->set_routes(std::move(tables[n]));
      nic->set_transport(transport_.get());
      const FabricConfig& dc = device_config(static_cast<int>(n));
      nic->init_scheduler([&] { return make_class_arbiter(link_flow_control_name(dc), dc); });
    }
  }
  install_flow_control();
  if (nic_misconfigured("data_tc")) {
    host_data_tc_.resize(nics_.size());
    for (size_t h = 0; h < nics_.size(); ++h) host_data_tc_[h] = device_config(topo_.hosts[h]).rc.data_tc;
  }
  transport_->attach_nics(nics_);
  if (cfg_.cc == "hpcc") {
    if (cfg_.hpcc.base_rtt == Time::zero()) cfg_.hpcc.base_rtt = max_base_rtt();
    for (const Nic* nic : nics_)
      for (size_t i = 0; i < nic->num_ports(); ++i)
        if (cfg_.hpcc.min_rate >= nic->port(i).rate())
          throw std::invalid_argument("fabric.hpcc.min_rate must be below every host link rate (" +
                                      fmt::format("{:g}Gbps", nic->port(i).rate().gbps()) + ")");
  }
  const PartContext ctx = part_context();
  auto cc = make_congestion_control(cfg_, ctx);
  if (cc != nullptr && nic_misconfigured(cfg_.cc)) {
    std::vector<std::unique_ptr<CongestionControl>> by_host(nics_.size());
    for (size_t h = 0; h < nics_.size(); ++h) {
      const FabricConfig& dc = device_config(topo_.hosts[h]);
      if (&dc == &cfg_) continue;
      FabricConfig c = dc;  // what the constructor resolved, unless the NIC sets it
      if (c.hpcc.base_rtt == Time::zero()) c.hpcc.base_rtt = cfg_.hpcc.base_rtt;
      if (c.dctcp.initial_window == 0) c.dctcp.initial_window = cfg_.dctcp.initial_window;
      by_host[h] = make_congestion_control(c, ctx);
    }
    cc = std::make_unique<PerHostCongestionControl>(std::move(cc), std::move(by_host));
  }
  transport_->set_receiver_feedback(make_receiver_feedback(cc.get(), net_));
  transport_->set_path_selector(make_path_selector(cfg_, cc.get(), sim_.seed()));
  transport_->set_congestion_control(std::move(cc));
}

void Fabric::install_flow_control() {
  const std::string name = link_flow_control_name(cfg_);
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    Node& node = net_.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      // A port with PFC off neither sends PAUSE nor obeys it.
      const FabricConfig& pc =
          port_config(static_cast<int>(n), static_cast<uint16_t>(i), {"pfc.enabled", "pfc.classes"});
      const std::string own = name == "pfc" && pc.sw.mmu.lossless_mask == 0 ? "lossy" : name;
      node.port(i).set_flow_control(make_link_flow_control(own, pc, node.port(i)));
    }
  }
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    Node& node = net_.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      Port& p = node.port(i);
      p.flow_control().connect_peer(p.peer()->port(p.peer_index()).flow_control());
    }
  }
}

const FabricConfig& Fabric::device_config(int node) const {
  if (router_cfg_ != nullptr && topo_.nodes[node].router) return *router_cfg_;  // misconfig refuses routers
  if (cfg_.misconfig.empty()) return cfg_;
  const DeviceOverride::Kind kind = topo_.nodes[node].kind == TopoNodeKind::kHost
                                        ? DeviceOverride::Kind::kNic
                                        : DeviceOverride::Kind::kSwitch;
  // Each entry was read on top of the earlier ones covering the same device.
  for (auto it = cfg_.misconfig.rbegin(); it != cfg_.misconfig.rend(); ++it)
    if (it->covers(kind, topo_.nodes[node].name)) return *it->cfg;
  return cfg_;
}

bool Fabric::nic_misconfigured(std::string_view key) const {
  return std::any_of(cfg_.misconfig.begin(), cfg_.misconfig.end(), [&](const DeviceOverride& o) {
    return o.kind == DeviceOverride::Kind::kNic && o.sets(key);
  });
}

const FabricConfig& Fabric::port_config(int node, uint16_t port,
                                        std::initializer_list<std::string_view> keys) const {
  // A switch port facing a lossy router neither pauses it nor is paused: the
  // lossless class ends at the site (the topology is built by then).
  if (site_edge_cfg_ != nullptr && !topo_.nodes[node].router && port < by_topo_id_[node]->num_ports() &&
      std::any_of(keys.begin(), keys.end(), [](std::string_view k) { return k == "pfc.enabled"; })) {
    const Node* peer = by_topo_id_[node]->port(port).peer();
    if (peer != nullptr && topo_.nodes[peer->id()].router) return *site_edge_cfg_;
  }
  for (auto it = cfg_.misconfig.rbegin(); it != cfg_.misconfig.rend(); ++it)
    if (it->kind == DeviceOverride::Kind::kPort && it->port == port && it->node == topo_.nodes[node].name &&
        std::any_of(keys.begin(), keys.end(), [&](std::string_view k) { return it->sets(k); }))
      return *it->cfg;
  return device_config(node);
}

int Fabric::port_towards(int a, int b) const {
  const Node& n = *by_topo_id_[a];
  for (size_t i = 0; i < n.num_ports(); ++i)
    if (n.port(i).peer() == by_topo_id_[b]) return static_cast<int>(i);
  return -1;
}

void Fabric::set_link_loss(int node, uint16_t port, double p, double ber) {
  if (node < 0 || static_cast<size_t>(node) >= by_topo_id_.size() || port >= by_topo_id_[node]->num_ports())
    throw std::invalid_argument("no port " + std::to_string(port) + " on node " + std::to_string(node));
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("link loss must be a probability between 0 and 1, got " + std::to_string(p));
  const std::string fc = link_flow_control_name(cfg_);
  if (p > 0.0 && fc != "lossy")
    throw std::invalid_argument("link loss is not modelled on a " + fc +
                                " link (what a lost PAUSE frame or credit update does is not)");
  if (!(ber >= 0.0 && ber < 1.0))
    throw std::invalid_argument("a bit-error rate must be in [0, 1), got " + std::to_string(ber));
  Port& pt = by_topo_id_[node]->port(port);
  // Seeded once: a later change continues the port's stream rather than replaying it.
  if ((p > 0.0 || ber > 0.0) && !pt.has_loss_stream())
    pt.set_loss_stream(sim_.rng("bit-errors/" + topo_.nodes[node].name + ":" + std::to_string(port)));
  pt.set_loss(p);
  pt.set_ber(ber);
}

void Fabric::schedule_link_state(Time at, int node, uint16_t port, bool up, bool silent) {
  if (node < 0 || static_cast<size_t>(node) >= by_topo_id_.size() || port >= by_topo_id_[node]->num_ports())
    throw std::invalid_argument("no port " + std::to_string(port) + " on node " + std::to_string(node));
  if (silent && cfg_.ib.enabled)
    throw std::invalid_argument("silent (gray) failures are modelled on Ethernet fabrics only");
  link_changes_.push_back(LinkChange{node, port, up, silent, Rate()});
  sim_.schedule(at, &fault_agent_, kLinkChange, link_changes_.size() - 1);
}

void Fabric::schedule_link_rate(Time at, int node, uint16_t port, Rate rate) {
  if (node < 0 || static_cast<size_t>(node) >= by_topo_id_.size() || port >= by_topo_id_[node]->num_ports())
    throw std::invalid_argument("no port " + std::to_string(port) + " on node " + std::to_string(node));
  if (rate <= Rate()) throw std::invalid_argument("a degraded link needs a positive rate");
  link_changes_.push_back(LinkChange{node, port, true, false, rate});
  sim_.schedule(at, &fault_agent_, kLinkRate, link_changes_.size() - 1);
}

std::string Fabric::link_name(int node, uint16_t port) const {
  return topo_.nodes[node].name + ":" + std::to_string(port);
}

// A switch forwards by its table; a NIC only when it has more than one port.
bool Fabric::routed(int node) const {
  const Node& n = *by_topo_id_[node];
  return n.kind() == NodeKind::kSwitch || n.num_ports() > 1;
}

void Fabric::install_routes(int node, RouteTable t) {
  Node& n = *by_topo_id_[node];
  if (n.kind() == NodeKind::kSwitch)
    static_cast<Switch&>(n).set_routes(std::move(t));
  else
    static_cast<Nic&>(n).set_routes(std::move(t));
}

void Fabric::schedule_receiver_stuck(Time at, int node, uint16_t port, bool stuck) {
  if (node < 0 || static_cast<size_t>(node) >= by_topo_id_.size() || port >= by_topo_id_[node]->num_ports())
    throw std::invalid_argument("no port " + std::to_string(port) + " on node " + std::to_string(node));
  if (by_topo_id_[node]->kind() != NodeKind::kHost)
    throw std::invalid_argument("a stuck receiver is a NIC: '" + by_topo_id_[node]->name() + "' is a switch");
  if (pfc_watch_ == nullptr)
    throw std::invalid_argument("a stuck receiver pauses its link with PFC, and this fabric's links run " +
                                link_flow_control_name(cfg_));
  pfc_watch_->schedule_stuck(at, by_topo_id_[node]->port(port), stuck);
}

void Fabric::on_fault_event(uint32_t kind, uint64_t arg) {
  if (kind == kLinkChange || kind == kLinkUpDeferred) {
    const auto idx = static_cast<uint32_t>(arg);
    const LinkChange& ch = link_changes_[idx];
    Port& a = by_topo_id_[ch.node]->port(ch.port);
    Port& b = a.peer()->port(a.peer_index());
    if (down_.empty()) {
      down_.resize(topo_.nodes.size());
      link_gen_.resize(topo_.nodes.size());
      for (size_t n = 0; n < down_.size(); ++n) {
        down_[n].assign(by_topo_id_[n]->num_ports(), 0);
        link_gen_[n].assign(by_topo_id_[n]->num_ports(), 0);
      }
    }
    uint32_t& gen = link_gen_[ch.node][ch.port];
    if (kind == kLinkUpDeferred) {
      if (gen != arg >> 32) return;  // a later request for this link came in meanwhile
    } else {
      link_gen_[a.peer()->id()][a.peer_index()] = ++gen;  // either end names the link
    }
    if (a.up() == ch.up) return;
    // A link retrains only once the packets still on its wire have landed
    // (real IB/Ethernet training takes far longer); coming up earlier would
    // resynchronise credits that those packets are about to change. A request
    // due exactly when the wire clears was queued before those arrivals and
    // runs first, so it waits too; the deferred one runs after them.
    const Time clear = std::max(a.wire_clear_at(), b.wire_clear_at());
    if (ch.up && (kind == kLinkChange ? clear >= sim_.now() : clear > sim_.now())) {
      sim_.schedule(clear, &fault_agent_, kLinkUpDeferred, uint64_t{gen} << 32 | idx);
      return;
    }
    down_[ch.node][ch.port] = ch.up ? 0 : 1;
    down_[a.peer()->id()][a.peer_index()] = ch.up ? 0 : 1;
    // Both ends first, then resynchronise: each end's credit state reads the other's.
    a.set_up(ch.up);
    b.set_up(ch.up);
    recovery_log_.push_back({sim_.now(), ch.up ? "up" : "down", link_name(ch.node, ch.port)});
    if (cfg_.ib.enabled) {
      // The subnet manager of each subnet the link touches (both, for a router's long link).
      const uint64_t subnets =
          uint64_t{1} << topo_.nodes[ch.node].subnet | uint64_t{1} << topo_.nodes[a.peer()->id()].subnet;
      sim_.schedule_in(cfg_.ib.sm.detection_delay, &fault_agent_, kSmSweep, subnets);
      if (!ch.up && cfg_.ib.sm.shield) {
        // The switches at the link's ends see the port leave Active and
        // route around it in hardware (FLFR), before the SM hears of it.
        recovery_log_.push_back({sim_.now(), "detected", link_name(ch.node, ch.port)});
        recovery_log_.push_back({sim_.now(), "local_repair", link_name(ch.node, ch.port)});
        for (const int end : {ch.node, a.peer()->id()}) flfn_check(end);
      }
    } else {
      const RerouteConfig& rr = cfg_.reroute;
      sim_.schedule_in(ch.silent && !ch.up ? rr.bfd_detect() : rr.link_detect, &fault_agent_, kDetect, idx);
    }
    if (!ch.up && sharp_) {
      // SHARP's aggregation manager learns of it with the routing: the SM's
      // trap on InfiniBand, the switches' detection on Ethernet.
      const RerouteConfig& rr = cfg_.reroute;
      const Time heard = cfg_.ib.enabled ? cfg_.ib.sm.detection_delay
                         : ch.silent     ? rr.bfd_detect()
                                         : rr.link_detect;
      sharp_->on_link_down(ch.node, ch.port, link_name(ch.node, ch.port), sim_.now() + heard);
    }
    return;
  }
  if (kind == kLinkRate) {
    const LinkChange& ch = link_changes_[arg];
    Port& a = by_topo_id_[ch.node]->port(ch.port);
    a.set_rate(ch.rate);
    a.peer()->port(a.peer_index()).set_rate(ch.rate);
    recovery_log_.push_back({sim_.now(), "degraded", link_name(ch.node, ch.port)});
    return;
  }
  if (kind == kDetect) {
    on_detect(link_changes_[arg]);
    return;
  }
  if (kind == kLocalRepair) {
    const auto node = static_cast<int>(arg);
    install_routes(node, without_ports(base_routes_[node], known_down_[node]));
    recovery_log_.push_back({sim_.now(), "local_repair", topo_.nodes[node].name});
    return;
  }
  if (kind == kReconverge) {
    base_routes_ = shortest_path_routes(topo_, &known_down_);
    for (size_t n = 0; n < base_routes_.size(); ++n)
      if (routed(static_cast<int>(n))) install_routes(static_cast<int>(n), base_routes_[n]);
    recovery_log_.push_back({sim_.now(), "reconverged", ""});
    return;
  }
  if (kind == kFlfn) {
    on_flfn(flfn_pending_[arg]);
    return;
  }
  if (kind == kSmSweep) {
    // A heavy sweep sees the fabric as it is now; its LFTs land later. A
    // subnet's tables depend on its own links and the routers' long links
    // only, so one computation over the whole fabric gives each sweeping
    // subnet what its own manager would.
    const bool split = !sm_stats_.sweeps_by_subnet.empty();
    for (size_t s = 0; s < (split ? sm_stats_.sweeps_by_subnet.size() : 1); ++s) {
      if (split && (arg >> s & 1) == 0) continue;
      ++sm_stats_.sweeps;
      if (split) ++sm_stats_.sweeps_by_subnet[s];
      recovery_log_.push_back({sim_.now(), "sm_sweep", split ? "subnet " + std::to_string(s) : ""});
    }
    pending_tables_.push_back({compute_lfts(topo_, cfg_.ib.sm, &down_), arg});
    sim_.schedule_in(cfg_.ib.sm.compute_time, &fault_agent_, kSmInstall, pending_tables_.size() - 1);
    return;
  }
  PendingLfts& lfts = pending_tables_[arg];
  auto& tables = lfts.tables;
  auto takes = [&](int node) { return (lfts.subnets >> topo_.nodes[node].subnet & 1) != 0; };
  for (Switch* sw : switches_)
    if (takes(sw->id())) sw->set_routes(std::move(tables[sw->id()]));
  for (Nic* nic : nics_)
    if (takes(nic->id())) nic->set_routes(std::move(tables[nic->id()]));
  tables.clear();
  tables.shrink_to_fit();
  ++sm_stats_.lft_installs;
  sm_stats_.last_install = sim_.now();
  sm_stats_.installs.push_back(sim_.now());
  recovery_log_.push_back({sim_.now(), "lft_install", ""});
}

// SHIELD's FLFN: switch `node` has destinations none of whose LFT ports is
// up any more. It tells its neighbours over its live links, which after
// flfn_delay stop sending it those destinations where they have another
// port; a neighbour with none passes the notice on in turn.
void Fabric::flfn_check(int node) {
  if (by_topo_id_[node]->kind() != NodeKind::kSwitch) return;
  const auto& sw = static_cast<const Switch&>(*by_topo_id_[node]);
  std::vector<int> lost;
  for (int d = 0; d < static_cast<int>(sw.routes().destinations()); ++d) {
    const auto group = sw.routes().ports(d);
    if (!group.empty() &&
        std::none_of(group.begin(), group.end(), [&](uint16_t i) { return sw.port(i).up(); }))
      lost.push_back(d);
  }
  if (lost.empty()) return;
  flfn_pending_.push_back({node, std::move(lost)});
  ++sm_stats_.flfn_notices;
  sim_.schedule_in(cfg_.ib.sm.flfn_delay, &fault_agent_, kFlfn, flfn_pending_.size() - 1);
}

void Fabric::on_flfn(const FlfnNotice& n) {
  recovery_log_.push_back({sim_.now(), "flfn", topo_.nodes[n.from].name});
  const Node& from = *by_topo_id_[n.from];
  for (size_t i = 0; i < from.num_ports(); ++i) {
    const Port& p = from.port(i);
    if (!p.up() || p.peer()->kind() != NodeKind::kSwitch) continue;
    const int m = p.peer()->id();
    const uint16_t towards = p.peer_index();  // m's port to the notifier
    auto& sw = static_cast<Switch&>(*by_topo_id_[m]);
    RouteTable t = sw.routes();
    bool changed = false;
    for (const int d : n.destinations) {
      const auto group = t.ports(d);
      if (std::find(group.begin(), group.end(), towards) == group.end()) continue;
      std::vector<uint16_t> keep;
      for (const uint16_t q : group)
        if (q != towards && sw.port(q).up()) keep.push_back(q);
      if (keep.empty()) continue;  // no other way: m notices itself when its own ports fail
      t.set(d, keep);
      changed = true;
    }
    if (changed) install_routes(m, std::move(t));
    flfn_check(m);
  }
}

// An Ethernet switch has noticed a link's state (loss of signal, or BFD for a
// gray failure): it fixes its own ECMP groups first, the rest of the fabric
// follows when BGP has converged. The state read is the link's state now: a
// link that came back before its failure was noticed changes nothing.
void Fabric::on_detect(const LinkChange& ch) {
  const Port& a = by_topo_id_[ch.node]->port(ch.port);
  const int peer = a.peer()->id();
  const uint16_t peer_port = a.peer_index();
  if (known_down_.empty()) {
    known_down_.resize(topo_.nodes.size());
    for (size_t n = 0; n < known_down_.size(); ++n) known_down_[n].assign(by_topo_id_[n]->num_ports(), 0);
    base_routes_ = shortest_path_routes(topo_);
  }
  const char now_down = down_[ch.node][ch.port];
  if (known_down_[ch.node][ch.port] == now_down) return;
  known_down_[ch.node][ch.port] = now_down;
  known_down_[peer][peer_port] = now_down;
  recovery_log_.push_back({sim_.now(), "detected", link_name(ch.node, ch.port)});
  for (const int end : {ch.node, peer})
    if (routed(end)) sim_.schedule_in(cfg_.reroute.local_repair, &fault_agent_, kLocalRepair, end);
  sim_.schedule_in(cfg_.reroute.bgp_convergence, &fault_agent_, kReconverge);
}

void Fabric::settle_credits() {
  const Time now = sim_.now();
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    Node& node = net_.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i)
      if (CreditFlowControl* c = node.port(i).flow_control().credit()) c->settle(node.port(i), now);
  }
}

std::string Fabric::check_credits() const {
  const bool quiet = net_.packets_in_flight() == 0;  // every credit must be back home
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    const Node& node = net_.node(n);
    bool credits = false;
    for (size_t i = 0; i < node.num_ports(); ++i) credits = credits || node.port(i).credit() != nullptr;
    if (!credits) continue;
    // Blocks each ingress port still holds in this switch's egress queues.
    std::vector<std::array<uint64_t, kNumVls>> queued(node.num_ports());
    if (node.kind() == NodeKind::kSwitch)
      for (size_t o = 0; o < node.num_ports(); ++o)
        for (int vl = 0; vl < kNumVls; ++vl)
          for (const Packet* q = node.port(o).queues().head(vl); q != nullptr; q = q->next)
            queued[q->in_port][vl] += credit_blocks(q->wire);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const CreditState* cs = node.port(i).credit();
      if (cs == nullptr) continue;
      const std::string where = node.name() + " port " + std::to_string(i);
      if (cs->ctr.sent_without_credit != 0)
        return "credit flow control violated: " + where + " sent " +
               std::to_string(cs->ctr.sent_without_credit) + " packets without credit";
      if (cs->ctr.buffer_overruns != 0)
        return "credit flow control violated: " + where + " received " +
               std::to_string(cs->ctr.buffer_overruns) + " packets beyond its advertised buffer";
      const Port& p = node.port(i);
      const CreditState& peer = *p.peer()->port(p.peer_index()).credit();
      for (int vl = 0; vl < kNumVls; ++vl) {
        const std::string at = where + " VL" + std::to_string(vl) + ": ";
        if (cs->lane[vl].held != queued[i][vl])
          return "credit conservation violated at " + at + "holds " + std::to_string(cs->lane[vl].held) +
                 " blocks, its packets in the buffer need " + std::to_string(queued[i][vl]);
        // Our sent blocks either arrived at the peer or are on the wire; the
        // limit we use, or will once the FCPs in flight land, never exceeds
        // what the peer can still take.
        const uint64_t fccl = cs->final_fccl(vl);
        if (cs->lane[vl].fctbs < peer.lane[vl].abr || fccl > peer.advertise(vl))
          return "credit conservation violated at " + at + "FCTBS " + std::to_string(cs->lane[vl].fctbs) +
                 ", FCCL " + std::to_string(fccl) + " vs peer ABR " + std::to_string(peer.lane[vl].abr) +
                 ", peer free " + std::to_string(peer.capacity - peer.lane[vl].held);
        if (quiet && p.up() &&
            (cs->lane[vl].fctbs != peer.lane[vl].abr || fccl - cs->lane[vl].fctbs != peer.capacity))
          return "credit conservation violated at " + at + "network idle but " +
                 std::to_string(fccl - cs->lane[vl].fctbs) + " of " + std::to_string(peer.capacity) +
                 " credits are back";
      }
    }
  }
  return {};
}

std::vector<const Port*> Fabric::path(int src, int dst, uint64_t flow_hash, uint16_t first_port) const {
  std::vector<const Port*> out;
  const Nic* nic = nics_[src];
  if (nic->num_ports() == 0) return out;
  const Port* p = &nic->port(first_port);
  for (size_t guard = 0; guard < topo_.nodes.size() + 2; ++guard) {
    out.push_back(p);
    const Node* peer = p->peer();
    if (peer->kind() == NodeKind::kHost) {
      if (static_cast<const Nic*>(peer)->host() != dst) out.clear();
      return out;
    }
    const auto* sw = static_cast<const Switch*>(peer);
    const int next = sw->routes().select(dst, flow_hash, sw->ecmp_seed());
    if (next < 0) return {};
    p = &sw->port(static_cast<size_t>(next));
  }
  return {};
}

namespace {

// The unloaded timing of `n` back-to-back packets through `path`
// (net/unloaded_hop.h), the first and last of their own sizes.
Time pipeline(const std::vector<const Port*>& path, uint64_t n, uint32_t first, uint32_t middle,
              uint32_t last) {
  const auto hop_at = [&](size_t h) {
    const Port& p = *path[h];
    const Node& next = *p.peer();
    return UnloadedHop{p.rate(), p.delay(), next.ingress_latency(), next.cut_through_bytes()};
  };
  return unloaded_pipeline(path.size(), hop_at, n, first, middle, last);
}

}  // namespace

Time Fabric::ideal_completion(QpId qp, Opcode op, int64_t bytes) const {
  // The transport's exchange (data then its ACK; a READ request then the
  // response stream), each packet as the transport frames it.
  const QpPath c = transport_->path(qp);
  const auto fwd = path(c.src, c.dst, c.flow_hash, c.src_nic_port);
  const auto rev = path(c.dst, c.src, c.rev_hash, c.dst_nic_port);
  if (fwd.empty() || rev.empty()) return Time::never();
  const Transport& t = *transport_;
  // Every packet but the first and the last is a full one: three sizes.
  const auto three = [](uint64_t n, auto wire_of) {
    const uint32_t first = wire_of(0), middle = n > 2 ? wire_of(1) : first, last = wire_of(n - 1);
    return std::array<uint32_t, 3>{first, middle, last};
  };
  const uint64_t n_there = t.forward_packets(op, bytes), n_back = t.back_packets(op, bytes);
  const uint32_t grh = cfg_.ib.enabled ? grh_bytes(topo_, c.src, c.dst) : 0;
  const auto fw = three(n_there, [&](uint64_t i) { return t.forward_wire(op, bytes, i) + grh; });
  const auto bw = three(n_back, [&](uint64_t i) { return t.back_wire(op, bytes, i) + grh; });
  const Time there = pipeline(fwd, n_there, fw[0], fw[1], fw[2]);
  const Time back = pipeline(rev, n_back, bw[0], bw[1], bw[2]);
  if (there == Time::never() || back == Time::never()) return Time::never();
  const Time tx = cfg_.nic.tx_latency;
  // A READ response is new work at the responder's NIC: it pays the tx latency again.
  return op == Opcode::kRead ? tx + there + tx + back : tx + there + back;
}

// What parts may ask of the fabric, computed when they ask (after build()).
PartContext Fabric::part_context() const {
  return PartContext{[this] { return max_base_rtt(); }, [this] { return bdp_packets(); },
                     [this] { return unloaded_rtt(); },
                     [this](int src, int dst) { return cfg_.ib.enabled ? grh_bytes(topo_, src, dst) : 0; }};
}

Time Fabric::unloaded_rtt() const {
  // max_base_rtt() is a store-and-forward bound that counts the ACK as a full
  // packet; a delay-based algorithm that subtracts its base RTT from each
  // sample needs what a lone packet really measures, or every flow lowers it
  // to its own first samples, each inflated by a different start-up queue.
  if (topo_.hosts.empty() || transport_ == nullptr) return Time::zero();
  const Transport& t = *transport_;
  // The first packet of a long WRITE: a full one, whatever the transport's MTU.
  const int64_t bytes = int64_t{1} << 30;
  const uint32_t data = t.forward_wire(Opcode::kWrite, bytes, 0);
  const uint32_t ack = t.back_wire(Opcode::kWrite, bytes, 0);
  const int from = 0;
  Time longest = Time::zero();
  for (size_t h = 1; h < topo_.hosts.size(); ++h) {
    const auto fwd = path(from, static_cast<int>(h), 0, 0);
    const auto rev = path(static_cast<int>(h), from, 0, 0);
    if (fwd.empty() || rev.empty()) continue;
    // From the data packet's first bit on the wire (where sent_at is stamped,
    // after the NIC's tx latency) to its ACK reaching the initiator's transport.
    const Time rtt = pipeline(fwd, 1, data, data, data) + pipeline(rev, 1, ack, ack, ack);
    longest = std::max(longest, rtt);
  }
  return longest;
}

Rate Fabric::path_bottleneck(QpId qp) const {
  const QpPath c = transport_->path(qp);
  Rate r = Rate::from_bps(0);
  for (const Port* p : path(c.src, c.dst, c.flow_hash, c.src_nic_port))
    if (r.bps() == 0 || p->rate() < r) r = p->rate();
  return r;
}

int Fabric::path_links(QpId qp) const {
  const QpPath c = transport_->path(qp);
  return static_cast<int>(path(c.src, c.dst, c.flow_hash, c.src_nic_port).size());
}

std::string Fabric::check_invariants() const {
  std::string err = net_.check_conservation();
  if (!err.empty()) return err;
  err = check_credits();
  if (!err.empty()) return err;
  err = transport_->check_invariants();
  if (!err.empty()) return err;
  // INT stacks: with no packet in flight, the only ones in use wait at a
  // responder for its next ACK.
  if (net_.packets_in_flight() == 0) {
    const size_t waiting = transport_->telemetry_held();
    if (net_.telemetry().in_use() != waiting)
      return "INT stacks leaked: " + std::to_string(net_.telemetry().in_use()) + " in use, " +
             std::to_string(waiting) + " held for an ACK, no packet in flight";
  }
  if (net_.telemetry().qlen_clipped() > 0)
    return "INT: " + std::to_string(net_.telemetry().qlen_clipped()) +
           " records of a port queue of 4 GiB or more, which IntHop's 32-bit queue length cannot hold";
  for (const Switch* sw : switches_) {
    uint64_t queued = 0;
    for (size_t i = 0; i < sw->num_ports(); ++i) queued += sw->port(i).queues().total_bytes();
    // A lossless class drops only when PFC is misconfigured: a run that
    // injects a misconfiguration reports them as its finding; without one
    // they are a modelling error (auto headroom) or a configuration the user
    // must hear about (a headroom below what the links need).
    if (cfg_.misconfig.empty() && sw->counters().lossless_drops > 0)
      return "lossless class dropped " + std::to_string(sw->counters().lossless_drops) + " packets at " +
             sw->name() +
             (cfg_.sw.pfc_headroom_bytes == 0
                  ? std::string(" although PFC headroom was sized automatically")
                  : " with fabric.pfc.headroom " + std::to_string(cfg_.sw.pfc_headroom_bytes) +
                        " B: below what its links need (use auto), or inject it as misconfig: to study it");
    // Aggregation results wait in the queues from the aggregation unit's own buffer.
    if (queued != sw->mmu().used() + sw->aggregate_bytes())
      return "buffer accounting violated at " + sw->name() + ": MMU holds " +
             std::to_string(sw->mmu().used()) + " bytes and the aggregation unit " +
             std::to_string(sw->aggregate_bytes()) + ", queues hold " + std::to_string(queued);
  }
  return {};
}

bool DeviceOverride::sets(std::string_view key) const {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
    return k == key || (k.size() > key.size() && k.compare(0, key.size(), key) == 0 && k[key.size()] == '.');
  });
}

std::string DeviceOverride::target() const {
  switch (kind) {
    case Kind::kSwitch:
      return "switch " + (node.empty() ? std::string("all") : node);
    case Kind::kNic:
      return "nic " + (node.empty() ? std::string("all") : node);
    case Kind::kPort:
      return "port " + node + ":" + std::to_string(port);
  }
  return {};
}

std::string FabricConfig::transport_label() const {
  if (transport == "uet") return std::string("UET PDS (") + delivery_mode_name(uet.mode) + ")";
  return transport == "iwarp" ? "iWARP (TCP)" : "RC";
}

std::string FabricConfig::mtu_label(const char* unit) const {
  if (transport != "iwarp") return std::to_string(rc.mtu) + unit;
  IwarpFraming fr;
  fr.ip_mtu = tcp.ip_mtu;
  fr.timestamps = tcp.timestamps;
  fr.markers = tcp.markers;
  const std::string u = *unit != 0 ? unit : " B";
  return std::to_string(tcp.ip_mtu) + unit + " Ethernet (" + std::to_string(fr.max_payload(true)) + u +
         " per segment)";
}

void FabricConfig::set_mtu(int64_t bytes) {
  if (transport == "iwarp") {
    if (bytes < 576 || bytes > 9216)
      throw std::invalid_argument("--mtu on iWARP is the Ethernet MTU: expected 576 to 9216 bytes");
    tcp.ip_mtu = static_cast<uint32_t>(bytes);
    framing = Framing::iwarp(tcp.timestamps);
    return;
  }
  if (transport == "uet") {
    if (bytes < 256 || bytes > 9000)
      throw std::invalid_argument("--mtu on UET must be between 256 and 9000 bytes");
    uet.mtu = rc.mtu = static_cast<uint32_t>(bytes);
    return;
  }
  if (bytes < 64 || bytes > 4096)
    throw std::invalid_argument(
        "--mtu must be between 64 and 4096 bytes, the largest path MTU of InfiniBand and RoCE");
  rc.mtu = static_cast<uint32_t>(bytes);
}

}  // namespace rdmasim
