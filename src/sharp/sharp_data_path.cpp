#include "sharp/sharp_data_path.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fabric/fabric.h"

namespace rdmasim {

SharpDataPath::SharpDataPath(Fabric& fabric)
    : fab_(fabric),
      cfg_(fabric.config().sharp),
      tc_(fabric.config().sharp.traffic_class >= 0 ? static_cast<uint8_t>(fabric.config().sharp.traffic_class)
                                                   : fabric.config().rc.data_tc),
      mtu_(fabric.config().rc.mtu),
      host_ops_(fabric.num_hosts()),
      in_ring_(fabric.num_hosts(), 0),
      leaf_of_(fabric.num_hosts(), -1) {
  window_ = static_cast<uint32_t>(std::max<int64_t>(1, cfg_.window_bytes / mtu_));
  const Topology& topo = fabric.topology();
  std::vector<int> endpoint_of(topo.nodes.size(), -1);
  for (int i = 0; i < topo.num_hosts(); ++i) endpoint_of[topo.hosts[i]] = i;
  for (const TopoLink& l : topo.links) {
    const bool a_host = endpoint_of[l.a] >= 0, b_host = endpoint_of[l.b] >= 0;
    if (a_host != b_host) leaf_of_[endpoint_of[a_host ? l.a : l.b]] = a_host ? l.b : l.a;
  }
  for (Switch* sw : fabric.switches()) sw->set_aggregation_node(this);
  for (int h = 0; h < fabric.num_hosts(); ++h) fabric.nic(h).set_offload(this);
}

uint32_t SharpDataPath::payload_of(const Op& op, uint32_t k) const {
  const int64_t left = op.bytes - int64_t{k} * mtu_;
  return static_cast<uint32_t>(std::min<int64_t>(left, mtu_));
}

void SharpDataPath::start(const SharpGroup& g, const std::vector<int>& hosts, int64_t bytes,
                          EventHandler* done, uint32_t kind, uint64_t arg) {
  Simulation& sim = fab_.sim();
  ++ctr_.operations;
  if (bytes <= 0 || hosts.empty()) {  // nothing to reduce
    sim.schedule(sim.now(), done, kind, arg);
    return;
  }
  uint32_t id = 0;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<uint32_t>(ops_.size());
    ops_.emplace_back();
  }
  Op& op = ops_[id];
  ++op.generation;
  op.stop_link.clear();
  op.bytes = bytes;
  op.packets = static_cast<uint32_t>((bytes + mtu_ - 1) / mtu_);
  op.hosts_done = 0;
  op.done = done;
  op.done_kind = kind;
  op.done_arg = arg;
  op.tree.clear();
  op.hosts.clear();
  // The leaves, in the order their first host appears, then the root.
  std::vector<int> leaves;
  for (int h : hosts) {
    if (h < 0 || h >= static_cast<int>(leaf_of_.size()) ||
        std::find(g.switches.begin(), g.switches.end(), leaf_of_[h]) == g.switches.end())
      throw std::invalid_argument("SHARP operation: endpoint " + std::to_string(h) + " is not in the group");
    if (std::find(leaves.begin(), leaves.end(), leaf_of_[h]) == leaves.end()) leaves.push_back(leaf_of_[h]);
  }
  const bool one_leaf = leaves.size() == 1;
  std::vector<Time>& alu_free = alu_free_[g.switches];
  if (alu_free.empty()) alu_free.assign(fab_.topology().nodes.size(), Time::zero());
  auto add_switch = [&](int topo_node) {
    TreeSwitch t;
    t.sw = &static_cast<Switch&>(fab_.node_by_topo_id(topo_node));
    t.alu_free = &alu_free[topo_node];
    t.arrived.assign(window_, 0);
    op.tree.push_back(std::move(t));
    return static_cast<uint32_t>(op.tree.size() - 1);
  };
  // The tree, level by level: these leaves, then the group's switches above
  // them in the order first reached (two levels: the root at index
  // leaves.size()); a parent lists its children in tree order. Switches of
  // the group above none of these leaves take no part.
  std::vector<int> node_of;
  for (int l : leaves) {
    add_switch(l);
    node_of.push_back(l);
  }
  for (size_t i = 0; i < node_of.size() && !one_leaf; ++i) {
    const int n = node_of[i];
    const auto at =
        static_cast<size_t>(std::find(g.switches.begin(), g.switches.end(), n) - g.switches.begin());
    const int up = g.parent[at];
    if (up < 0) continue;
    auto u = static_cast<uint32_t>(std::find(node_of.begin(), node_of.end(), up) - node_of.begin());
    if (u == node_of.size()) {
      u = add_switch(up);
      node_of.push_back(up);
    }
    op.tree[i].parent = u;
    op.tree[i].parent_port = fab_.port_towards(n, up);
    op.tree[u].child_ports.push_back(static_cast<uint16_t>(fab_.port_towards(up, n)));
    op.tree[u].child_index.push_back(static_cast<uint32_t>(i));
  }
  const Topology& topo = fab_.topology();
  for (int h : hosts) {
    const auto leaf =
        static_cast<uint32_t>(std::find(leaves.begin(), leaves.end(), leaf_of_[h]) - leaves.begin());
    HostSlot s;
    s.host = h;
    s.leaf = leaf;
    s.port = static_cast<uint16_t>(fab_.port_towards(topo.hosts[h], leaves[leaf]));
    op.tree[leaf].child_ports.push_back(
        static_cast<uint16_t>(fab_.port_towards(leaves[leaf], topo.hosts[h])));
    op.tree[leaf].child_index.push_back(static_cast<uint32_t>(op.hosts.size()));
    op.hosts.push_back(s);
  }
  for (TreeSwitch& t : op.tree) {
    const Rate port = t.sw->port(t.child_ports.front()).rate();
    t.alu =
        Rate::from_bps(static_cast<int64_t>(static_cast<double>(port.bps()) * cfg_.aggregation_efficiency));
  }
  // A tree over a link that is down (its hosts do not know yet, or the job
  // is already being stopped) stops like one that was running.
  for (const DownLink& d : down_) {
    if (fab_.node_by_topo_id(d.node).port(d.port).up() || !crosses(op, d)) continue;
    stop_for(id, d);
    break;
  }
  for (uint32_t s = 0; s < op.hosts.size(); ++s) {
    host_ops_[op.hosts[s].host].push_back({id, s});
    wake(op.hosts[s], true);
  }
}

void SharpDataPath::wake(HostSlot& h, bool doorbell) {
  if (in_ring_[h.host] != 0) return;
  in_ring_[h.host] = 1;
  fab_.nic(h.host).activate_offload(h.port, doorbell);
}

Packet* SharpDataPath::next_packet(Nic& nic, uint16_t /*port*/, bool& more) {
  const int host = nic.host();
  Packet* p = nullptr;
  more = false;
  for (const HostEntry& e : host_ops_[host]) {
    Op& op = ops_[e.op];
    HostSlot& h = op.hosts[e.slot];
    if (!can_send(op, h)) continue;
    if (p != nullptr) {
      more = true;
      break;
    }
    const uint32_t k = h.sent++;
    p = fab_.net().new_packet(PktType::kSharp);
    p->conn = e.op;
    p->psn = k;
    p->aux = h.leaf;
    p->dst = host;
    p->payload = static_cast<uint16_t>(payload_of(op, k));
    // Headers as an RC WRITE's first packet: the RETH's 16 B stand for
    // SHARP's own aggregation header (an assumption; its size is not public).
    p->wire = static_cast<uint16_t>(fab_.net().framing().data_wire(p->payload, true));
    p->tc = tc_;
    ++ctr_.packets_sent;
    more = can_send(op, h);
    if (more) break;
  }
  if (!more) in_ring_[host] = 0;
  return p;
}

void SharpDataPath::on_packet(Switch& /*sw*/, Port& in, Packet* p) {
  in.release(p->tc, p->wire);  // the aggregation unit takes it: the port's buffer frees now
  const uint32_t id = p->conn;
  if (ops_[id].stopped) {
    fab_.net().deliver(p);  // its job is gone: the unit discards it
    return;
  }
  TreeSwitch& t = ops_[id].tree[p->aux & kIndex];
  if ((p->aux & kDown) != 0) {  // a result from the parent: replicate it at once
    multicast(id, t, p);
    return;
  }
  uint16_t& arrived = t.arrived[p->psn % window_];
  if (++arrived < t.child_ports.size()) {
    fab_.net().deliver(p);  // folded into the partial result
    return;
  }
  arrived = 0;
  ++ctr_.reductions;
  const Time now = fab_.sim().now();
  Time& alu_free = *t.alu_free;
  alu_free = std::max(alu_free, now) + t.alu.tx_time(Bytes(p->payload));
  p->aux &= kIndex;
  fab_.sim().schedule(alu_free + cfg_.switch_latency, this, kReduced, reinterpret_cast<uint64_t>(p));
}

void SharpDataPath::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kStop) {
    const auto id = static_cast<uint32_t>(arg);
    if (ops_[id].generation == arg >> 32 && !ops_[id].stop_link.empty()) stop(id);
    return;
  }
  auto* p = reinterpret_cast<Packet*>(arg);  // NOLINT(performance-no-int-to-ptr)
  if (ops_[p->conn].stopped) {
    fab_.net().deliver(p);
    return;
  }
  TreeSwitch& t = ops_[p->conn].tree[p->aux];
  if (t.parent_port < 0) {
    multicast(p->conn, t, p);
    return;
  }
  p->aux = t.parent;
  t.sw->emit_aggregate(p, static_cast<uint16_t>(t.parent_port));
}

void SharpDataPath::multicast(uint32_t op, TreeSwitch& t, Packet* p) {
  const size_t n = t.child_ports.size();
  for (size_t c = 0; c < n; ++c) {
    Packet* q = p;
    if (c + 1 < n) {
      q = fab_.net().new_packet(PktType::kSharp);
      *q = *p;  // the type and the ledger entry are new_packet's; the contents are the result's
      q->next = nullptr;
    }
    q->conn = op;
    q->aux = kDown | t.child_index[c];
    t.sw->emit_aggregate(q, t.child_ports[c]);
  }
}

void SharpDataPath::on_packet(Nic& /*nic*/, Packet* p) {
  const uint32_t id = p->conn;
  Op& op = ops_[id];
  fab_.net().deliver(p);
  if (op.stopped) return;
  HostSlot& h = op.hosts[p->aux & kIndex];
  ++ctr_.results;
  if (++h.got == op.packets) {
    auto& mine = host_ops_[h.host];
    mine.erase(std::find_if(mine.begin(), mine.end(), [&](const HostEntry& e) { return e.op == id; }));
    if (++op.hosts_done == op.hosts.size()) finish(id);
    return;
  }
  if (can_send(op, h)) wake(h, false);
}

void SharpDataPath::finish(uint32_t id) {
  Op& op = ops_[id];
  op.stop_link.clear();  // complete before the stop came: nothing to stop
  fab_.sim().schedule(fab_.sim().now(), op.done, op.done_kind, op.done_arg);
  free_.push_back(id);
}

bool SharpDataPath::crosses(const Op& op, const DownLink& d) const {
  // Tree links are known at their switch end; a host's own link at its leaf.
  for (const TreeSwitch& t : op.tree) {
    const int n = t.sw->id();
    if (n != d.node && n != d.far) continue;
    const uint16_t port = n == d.node ? d.port : d.far_port;
    if (t.parent_port == port) return true;
    for (const uint16_t c : t.child_ports)
      if (c == port) return true;
  }
  return false;
}

void SharpDataPath::stop_for(uint32_t id, const DownLink& d) {
  Op& op = ops_[id];
  op.stop_link = d.link;
  fab_.sim().schedule(std::max(d.reported, fab_.sim().now()), this, kStop,
                      uint64_t{op.generation} << 32 | id);
}

void SharpDataPath::on_link_down(int node, uint16_t port, const std::string& link, Time reported) {
  const Port& here = fab_.node_by_topo_id(node).port(port);
  down_.push_back({node, here.peer()->id(), port, here.peer_index(), link, reported});
  for (uint32_t id = 0; id < ops_.size(); ++id) {
    Op& op = ops_[id];
    // A freed slot's operation has every host done: it is skipped here too.
    if (op.stopped || !op.stop_link.empty() || op.hosts_done == op.hosts.size()) continue;
    if (crosses(op, down_.back())) stop_for(id, down_.back());
  }
}

void SharpDataPath::stop(uint32_t id) {
  Op& op = ops_[id];
  op.stopped = true;
  for (const HostSlot& h : op.hosts) {
    auto& mine = host_ops_[h.host];
    mine.erase(std::remove_if(mine.begin(), mine.end(), [&](const HostEntry& e) { return e.op == id; }),
               mine.end());
  }
  if (stopped(op.done) == nullptr) {
    stops_.push_back({fab_.sim().now(), op.stop_link, op.done});
    fab_.note_recovery({fab_.sim().now(), "sharp_job_stopped", op.stop_link});
  }
}

const SharpDataPath::Stop* SharpDataPath::stopped(const EventHandler* done) const {
  for (const Stop& s : stops_)
    if (s.done == done) return &s;
  return nullptr;
}

}  // namespace rdmasim
