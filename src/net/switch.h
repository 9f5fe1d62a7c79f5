// A packet switch: route lookup (LFT/ECMP), buffer admission, egress queueing,
// PFC generation toward upstream ports, ECN marking at egress.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "net/mmu.h"
#include "net/node.h"
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

// RED-style ECN marking on egress queue depth (Floyd & Jacobson 1993, as in
// DCQCN's CP): no mark below kmin, probability rising linearly to pmax at
// kmax, always above kmax. Thresholds scale with the port's rate when
// `reference_rate` is set (the HPCC simulator's per-rate KMIN/KMAX maps are
// exactly proportional: 400/1600 KB at 100G, 1600/6400 KB at 400G).
struct EcnConfig {
  bool enabled = false;
  uint64_t kmin_bytes = 400'000;
  uint64_t kmax_bytes = 1'600'000;
  double pmax = 0.2;
  Rate reference_rate = Rate::from_gbps(100);  // bps 0: no scaling
  uint8_t tc_mask = 0xff;                      // classes that are marked
  // Where RED looks at the queue. On dequeue (the HPCC simulator's switch, and
  // the DCQCN fluid model's assumption) a mark reports the queue the packet
  // leaves behind, so the feedback loop does not carry the queueing delay too;
  // on enqueue the mark is as old as the packet's wait in the queue.
  bool mark_on_dequeue = true;
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
        ecmp_seed_(ecmp_seed),
        ecn_rng_(ecmp_seed, "ecn") {}

  void configure(const PfcConfig& pfc, const EcnConfig& ecn);
  void on_event(uint32_t kind, uint64_t arg) override;
  // A packet left egress port `out`'s queue: free its buffer, maybe send XON.
  // `departs`: the packet goes on the wire (not dropped by a failed link).
  void on_dequeue(Packet& p, uint16_t out, bool departs);

  void set_routes(RouteTable t) { routes_ = std::move(t); }
  // InfiniBand adaptive routing: pick per packet among the entry's
  // equal-cost ports (the LFT port first) instead of the LFT port alone.
  void set_adaptive(bool on) { adaptive_ = on; }
  [[nodiscard]] const RouteTable& routes() const { return routes_; }
  [[nodiscard]] Mmu& mmu() { return mmu_; }
  [[nodiscard]] const Mmu& mmu() const { return mmu_; }
  [[nodiscard]] const SwitchCounters& counters() const { return ctr_; }
  [[nodiscard]] uint64_t ecmp_seed() const { return ecmp_seed_; }

 private:
  void receive(Packet* p);
  void send_pause(uint16_t port, uint8_t tc, uint32_t quanta);
  void maybe_mark(Packet* p, const Port& out);
  [[nodiscard]] int adaptive_port(const Packet& p) const;

  Mmu mmu_;
  RouteTable routes_;
  SwitchCounters ctr_;
  PfcConfig pfc_;
  EcnConfig ecn_;
  std::vector<std::array<uint64_t, 2>> ecn_thresholds_;  // per port: kmin, kmax
  std::vector<std::array<Time, kNumTcs>> refresh_at_;    // per port: pending XOFF refresh
  uint64_t ecmp_seed_;
  Rng ecn_rng_;
  bool adaptive_ = false;
};

}  // namespace rdmasim
