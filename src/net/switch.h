// A packet switch: the forwarding policy picks the egress, the MMU admits the
// packet to the shared buffer, the egress congestion points mark, stamp or
// handle overflow, and PFC XOFF/XON goes upstream from the buffer's
// per-priority-group thresholds.
#pragma once

#include <cstdint>
#include <vector>

#include "net/congestion_point/congestion_point.h"
#include "net/mmu.h"
#include "net/node.h"
#include "route/forwarding/forwarding_policy.h"
#include "route/route_table.h"

namespace rdmasim {

// PFC behaviour of a switch port (IEEE 802.1Qbb). Thresholds live in MmuConfig.
struct PfcConfig {
  // Quanta carried by XOFF (max 0xFFFF; one quantum = 512 bit times).
  uint32_t quanta = 0xFFFF;
  // A paused PG re-sends XOFF when this share of the pause time has elapsed,
  // so the upstream never resumes while we are still congested.
  double refresh_fraction = 0.5;
};

struct SwitchCounters {
  uint64_t no_route_drops = 0;
  uint64_t buffer_drops = 0;
  uint64_t lossless_drops = 0;  // lossless class dropped: PFC misconfigured
  uint64_t ecn_marked = 0;
  uint64_t pfc_xoff_sent = 0;
  uint64_t pfc_xon_sent = 0;
};

class Switch final : public Node {
 public:
  static constexpr uint32_t kPfcRefresh = 1;

  Switch(Network& net, int id, std::string name, const MmuConfig& mmu_cfg, size_t num_ports_hint,
         uint64_t ecmp_seed)
      : Node(net, id, NodeKind::kSwitch, std::move(name)),
        mmu_(mmu_cfg, num_ports_hint),
        fwd_(EcmpForwarding(ecmp_seed)),
        ecmp_seed_(ecmp_seed) {}

  // Call once every port exists, before traffic.
  void configure(const PfcConfig& pfc);
  // The policy that picks the egress (ECMP with this switch's seed until set).
  void set_forwarding_policy(ForwardingPolicy f) { fwd_ = f; }  // trivially copyable
  // Adds an egress congestion point after those already added.
  void add_congestion_point(CongestionPoint cp) { points_.add(std::move(cp)); }
  [[nodiscard]] CongestionPoints& congestion_points() { return points_; }
  void on_event(uint32_t kind, uint64_t arg) override;
  // A packet left egress port `out`'s queue: free its buffer, maybe send XON.
  // `departs`: the packet goes on the wire (not dropped by a failed link).
  void on_dequeue(Packet& p, uint16_t out, bool departs);

  void set_routes(RouteTable t) { routes_ = std::move(t); }
  [[nodiscard]] const RouteTable& routes() const { return routes_; }
  [[nodiscard]] Mmu& mmu() { return mmu_; }
  [[nodiscard]] const Mmu& mmu() const { return mmu_; }
  [[nodiscard]] const SwitchCounters& counters() const { return ctr_; }
  [[nodiscard]] uint64_t ecmp_seed() const { return ecmp_seed_; }

  // What the forwarding policy and congestion points use of their switch.
  [[nodiscard]] Time now() const;
  [[nodiscard]] IntTable& telemetry();
  // A congestion point set CE on `p` at egress `out`: marks and counts it.
  void note_ecn_mark(Packet& p, Port& out) {
    p.flags |= kCe;
    ++ctr_.ecn_marked;
    out.counters().ecn_marked_packets[p.tc] += 1;
  }

 private:
  void receive(Packet* p);
  void send_pause(uint16_t port, uint8_t tc, uint32_t quanta);

  Mmu mmu_;
  RouteTable routes_;
  SwitchCounters ctr_;
  ForwardingPolicy fwd_;
  CongestionPoints points_;
  PfcConfig pfc_;
  std::vector<std::array<Time, kNumTcs>> refresh_at_;  // per port: pending XOFF refresh
  uint64_t ecmp_seed_;
};

}  // namespace rdmasim
