// A packet switch: the forwarding policy picks the egress, the MMU admits the
// packet to the shared buffer, the egress congestion points mark, stamp or
// handle overflow, and the ingress port's link flow control hears of the
// packet entering and leaving the buffer (PFC sends XOFF/XON from that).
#pragma once

#include <cstdint>
#include <vector>

#include "net/aggregation_node.h"
#include "net/congestion_point/congestion_point.h"
#include "net/mmu.h"
#include "net/node.h"
#include "route/forwarding/forwarding_policy.h"
#include "route/route_table.h"

namespace rdmasim {

struct SwitchCounters {
  uint64_t no_route_drops = 0;
  uint64_t buffer_drops = 0;
  uint64_t lossless_drops = 0;  // lossless class dropped: PFC misconfigured
  uint64_t oversize_drops = 0;  // above an ingress port's MTU: MTU misconfigured
  uint64_t ecn_marked = 0;
  uint64_t pfc_xoff_sent = 0;
  uint64_t pfc_xon_sent = 0;
};

class Switch final : public Node {
 public:
  Switch(Network& net, int id, std::string name, const MmuConfig& mmu_cfg, size_t num_ports_hint,
         uint64_t ecmp_seed)
      : Node(net, id, NodeKind::kSwitch, std::move(name)),
        mmu_(mmu_cfg, num_ports_hint),
        fwd_(EcmpForwarding(ecmp_seed)),
        ecmp_seed_(ecmp_seed) {}

  // The policy that picks the egress (ECMP with this switch's seed until set).
  void set_forwarding_policy(ForwardingPolicy f) { fwd_ = f; }  // trivially copyable
  // Adds an egress congestion point after those already added.
  void add_congestion_point(CongestionPoint cp) {
    points_.add(std::move(cp));
    trims_ = points_.wants_before_admit();
  }
  [[nodiscard]] CongestionPoints& congestion_points() { return points_; }
  void on_event(uint32_t kind, uint64_t arg) override;
  // A packet left egress port `out`'s queue: free its buffer, maybe send XON.
  // `departs`: the packet goes on the wire (not dropped by a failed link).
  void on_dequeue(Packet& p, uint16_t out, bool departs);
  // InfiniBand with SHIELD or adaptive routing: a packet still queued for a
  // port that went down is forwarded again (the LFT's alternative or AR's
  // next port) instead of being lost with the link. False when the switch
  // does not, or has no other port for it: the caller drops it.
  void set_reroute_queued(bool on) { reroute_queued_ = on; }
  [[nodiscard]] bool reroute_queued(Packet& p, uint16_t dead);

  // The in-network aggregation unit kSharp packets go to (nullptr: none,
  // and such a packet is dropped as unroutable).
  void set_aggregation_node(AggregationNode* a) { aggregation_ = a; }
  // The aggregation unit sends `p` (a result it built) out of port `out`.
  void emit_aggregate(Packet* p, uint16_t out) {
    aggregate_bytes_ += p->wire;
    ports_[out]->enqueue(p);
  }
  // Bytes of aggregation results waiting in this switch's egress queues:
  // queued, but held by the aggregation unit, not by the shared buffer.
  [[nodiscard]] uint64_t aggregate_bytes() const { return aggregate_bytes_; }

  void set_routes(RouteTable t) { routes_ = std::move(t); }
  [[nodiscard]] const RouteTable& routes() const { return routes_; }
  [[nodiscard]] Mmu& mmu() { return mmu_; }
  // Port `port` drops frames with more payload than `bytes` (an MTU below
  // the fabric's, misconfig: mtu), into the switch and out of it.
  void set_port_mtu(uint16_t port, uint32_t bytes);
  [[nodiscard]] const Mmu& mmu() const { return mmu_; }
  [[nodiscard]] const SwitchCounters& counters() const { return ctr_; }
  [[nodiscard]] uint64_t ecmp_seed() const { return ecmp_seed_; }

  // What the forwarding policy and congestion points use of their switch.
  [[nodiscard]] Time now() const;
  [[nodiscard]] IntTable& telemetry();
  // An ingress port's flow control sent PFC XOFF (or XON) upstream.
  void note_pause_sent(bool xoff) { ++(xoff ? ctr_.pfc_xoff_sent : ctr_.pfc_xon_sent); }
  // A congestion point trimmed `p` to its headers: the packet ledger follows.
  void retype(Packet& p, PktType t);
  // A congestion point set CE on `p` at egress `out`: marks and counts it.
  void note_ecn_mark(Packet& p, Port& out) {
    p.flags |= kCe;
    ++ctr_.ecn_marked;
    out.counters().ecn_marked_packets[p.tc] += 1;
  }

 private:
  void receive(Packet* p);

  // Discards `p` when it exceeds the MTU of `in` or `out` (counted at that port).
  bool drop_oversize(Port& in, Port& out, Packet* p);
  // The shared buffer refused `p` at egress `out`: counted there and freed.
  void buffer_drop(Port& in, Port& out, Packet* p, Mmu::Verdict v);
  Mmu mmu_;
  bool mtu_limited_ = false;  // some port has an MTU of its own (set_port_mtu)
  bool trims_ = false;        // a congestion point rewrites packets before admission
  bool reroute_queued_ = false;
  AggregationNode* aggregation_ = nullptr;
  uint64_t aggregate_bytes_ = 0;
  RouteTable routes_;
  SwitchCounters ctr_;
  ForwardingPolicy fwd_;
  CongestionPoints points_;
  uint64_t ecmp_seed_;
};

}  // namespace rdmasim
