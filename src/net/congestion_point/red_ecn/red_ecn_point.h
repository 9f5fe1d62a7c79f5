// RED-style ECN marking on the egress queue (Floyd & Jacobson 1993, as in
// DCQCN's CP): no mark at or below kmin, probability rising linearly to pmax
// at kmax, always above kmax; kmin = kmax is DCTCP's step at K. Marks either
// as the packet joins the queue or as it leaves (see EcnConfig::mark_on_dequeue).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "engine/units.h"
#include "net/congestion_point/overflow.h"
#include "net/packet.h"

namespace rdmasim {

struct EcnConfig {
  bool enabled = false;
  uint64_t kmin_bytes = 400'000;
  uint64_t kmax_bytes = 1'600'000;
  double pmax = 0.2;
  // Thresholds scale with the port's rate when `reference_rate` is set (the
  // HPCC simulator's per-rate KMIN/KMAX maps are exactly proportional:
  // 400/1600 KB at 100G, 1600/6400 KB at 400G); bps 0: no scaling.
  Rate reference_rate = Rate::from_gbps(100);
  uint8_t tc_mask = 0xff;  // classes that are marked
  // Where RED looks at the queue. On dequeue (the HPCC simulator's switch, and
  // the DCQCN fluid model's assumption) a mark reports the queue the packet
  // leaves behind, so the feedback loop does not carry the queueing delay too;
  // on enqueue the mark is as old as the packet's wait in the queue.
  bool mark_on_dequeue = true;
};

class RedEcnPoint {
 public:
  // `port_rates[i]`: the line rate of the switch's port i; `seed`: the
  // switch's seed, from which the point's own "ecn" random stream is drawn.
  RedEcnPoint(const EcnConfig& cfg, const std::vector<Rate>& port_rates, uint64_t seed)
      : cfg_(cfg), rng_(seed, "ecn") {
    thresholds_.reserve(port_rates.size());
    for (const Rate r : port_rates) {
      double scale = 1.0;
      if (cfg.reference_rate.bps() > 0)
        scale = static_cast<double>(r.bps()) / static_cast<double>(cfg.reference_rate.bps());
      thresholds_.push_back({static_cast<uint64_t>(static_cast<double>(cfg.kmin_bytes) * scale),
                             static_cast<uint64_t>(static_cast<double>(cfg.kmax_bytes) * scale)});
    }
  }

  template <class S, class O>
  void on_enqueue(S& sw, Packet& p, O& out) {
    if (!cfg_.mark_on_dequeue) maybe_mark(sw, p, out);
  }
  template <class S, class O>
  void on_dequeue(S& sw, Packet& p, O& out, bool departs) {
    if (departs && cfg_.mark_on_dequeue) maybe_mark(sw, p, out);
  }
  template <class S, class O>
  OverflowAction on_overflow(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {
    return OverflowAction::kDrop;
  }

  // Whether a packet seeing `queue_bytes` of its class at `port` is marked;
  // draws from the stream only between the thresholds.
  bool decide(uint16_t port, uint64_t queue_bytes) {
    const auto [kmin, kmax] = thresholds_[port];
    if (queue_bytes > kmax) return true;
    if (queue_bytes <= kmin) return false;
    return rng_.uniform01() <
           cfg_.pmax * static_cast<double>(queue_bytes - kmin) / static_cast<double>(kmax - kmin);
  }
  [[nodiscard]] std::array<uint64_t, 2> thresholds(uint16_t port) const { return thresholds_[port]; }

 private:
  template <class S, class O>
  void maybe_mark(S& sw, Packet& p, O& out) {
    if (!(p.flags & kEct) || !((cfg_.tc_mask >> p.tc) & 1u)) return;
    if (decide(out.index(), sw.mmu().egress_bytes(out.index(), p.tc))) sw.note_ecn_mark(p, out);
  }

  EcnConfig cfg_;
  std::vector<std::array<uint64_t, 2>> thresholds_;  // per port: kmin, kmax
  Rng rng_;
};

}  // namespace rdmasim
