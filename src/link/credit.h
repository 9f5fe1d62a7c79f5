// InfiniBand link-level flow control (IBTA Vol.1 §7.9): per virtual lane, the
// receiver advertises its free buffer in 64-byte credit blocks and the sender
// never starts a packet the advertised space cannot hold, so the link never
// drops for lack of buffer.
//
// The counters are the spec's: the sender's FCTBS (total blocks sent) and the
// receiver's ABR (adjusted blocks received). A flow-control packet (FCP)
// carries FCCL = ABR + free blocks; the sender may send while
// FCTBS + blocks <= FCCL. Here the counters are 64-bit instead of the wire's
// 12-bit modular ones, which changes nothing while FCPs are not lost.
//
// An FCP is not an event. The receiver knows, when it frees buffer, when its
// FCP will leave (after the frame on the wire, ahead of queued data) and when
// it will land; it hands the FCCL to the sender's side with that arrival
// time, and the sender reads what has landed whenever it decides what to send.
// Only a sender blocked for credit sets a timer, for the update that unblocks
// it. The credit loop keeps its timing; one or two events per freed buffer
// per link go (half of an InfiniBand run's events).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "engine/ring.h"
#include "engine/units.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

inline constexpr uint32_t kCreditBlockBytes = 64;  // IBTA Vol.1 §7.9.4: one credit = 64 bytes
inline constexpr int kNumVls = kNumTcs;            // data VLs 0..7 (VL15 rides the control queue)
inline constexpr int kNumSls = 16;
// An FCP is 6 bytes: Op 4 + FCTBS 12 + VL 4 + FCCL 12 + LPCRC 16 bits (IBTA Vol.1 §7.9.4.1).
inline constexpr uint32_t kFcpBytes = 6;
// The most credit a receiver may advertise on one VL: FCCL = ABR + 2048
// blocks of 64 B at most (IBTA Vol.1 §7.9.4.2), 128 KiB.
inline constexpr uint32_t kMaxAdvertisedCredit = 2048 * 64;
// CreditConfig::vl_buffer_bytes for `credit-loop`: one credit loop at line
// rate + 3 MTU packets, the least with which one flow never waits for credit.
inline constexpr uint32_t kVlBufferCreditLoop = UINT32_MAX;

[[nodiscard]] inline uint32_t credit_blocks(uint32_t wire_bytes) {
  return (wire_bytes + kCreditBlockBytes - 1) / kCreditBlockBytes;
}

// One entry of a VLArbitrationTable (IBTA Vol.1 §7.6.9): a VL and its weight
// in 64-byte units; weight 0 skips the entry.
struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;
};

struct CreditConfig {
  // Receive buffer per port and data VL; 0 (auto) = the most IBTA lets a
  // receiver advertise, or the credit loop where a long cable needs more;
  // kVlBufferCreditLoop = the credit loop alone (make_link_flow_control).
  uint32_t vl_buffer_bytes = 0;
  // 0: return credits with an FCP whenever buffer is freed (one FCP at a time
  // per VL waits for the wire, carrying the newest FCCL when it leaves).
  // Otherwise freed credits are batched for up to this long, and returned at
  // once when the VL's buffer drains empty.
  Time update_period;
  // SL -> VL (one table for every port, as OpenSM's qos_sl2vl programs it).
  std::array<uint8_t, kNumSls> sl2vl{0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7};
  std::vector<VlArbEntry> vlarb_high{{0, 4}};
  std::vector<VlArbEntry> vlarb_low{{1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 4}, {6, 4}, {7, 4}};
  // LimitOfHighPriority in 4096-byte units before a waiting low-priority
  // packet gets a turn; 0 = one packet; 255 = unlimited (IBTA Vol.1 §7.6.9).
  uint32_t high_limit = 0;
};

// IB port counters as perfquery reports them (IBTA Vol.1 §16.1.3.5 PortCounters
// and PortVLXmitWait of the extended set). PortXmitDataVL/PortRcvDataVL and
// the per-VL packet counts are in each VL's CreditLane, in bytes:
// perfquery's *Data counters are those divided by 4.
struct IbPortCounters {
  std::array<int64_t, kNumVls> vl_xmit_wait_ps{};  // VL had a packet queued and no credit for it
  int64_t xmit_wait_ps = 0;                        // port idle while holding data it had no credit to send
  uint64_t fcp_sent = 0;
  uint64_t fcp_received = 0;
  uint64_t fcp_lost = 0;       // waiting for the wire when the link failed, or freed while it was down
  uint64_t symbol_errors = 0;  // no bit-error model yet: stays 0
  uint64_t link_error_recovery = 0;
  uint64_t link_downed = 0;
  uint64_t fault_drop_packets = 0;  // lost with a failed link (not a flow-control failure)
  // Must stay 0: a packet sent without credit, a receive buffer overrun.
  uint64_t sent_without_credit = 0;
  uint64_t buffer_overruns = 0;
};

// IBTA Vol.1 §7.6.9 two-level weighted round robin over the data VLs: the
// high-priority table is served first, but after `high_limit` x 4 KiB of it
// a waiting low-priority packet is sent. Weights may be overrun by the packet
// that exhausts them (the spec lets a packet finish).
class VlArbiter {
 public:
  explicit VlArbiter(const CreditConfig* cfg = nullptr) { set_config(cfg); }
  void set_config(const CreditConfig* cfg) {
    cfg_ = cfg;
    high_served_ = cfg != nullptr ? served(cfg->vlarb_high) : 0;
    low_served_ = cfg != nullptr ? served(cfg->vlarb_low) : 0;
  }

  // Picks the VL to send from among `ready` (bit per VL: a packet queued and
  // credit for it), or -1. `wire_of(vl)` is the size of that VL's head packet.
  template <typename WireOf>
  int pick(uint32_t ready, WireOf wire_of) {
    const int vl = choose(ready);
    if (vl >= 0) charge(wire_of(vl));
    return vl;
  }

  // The two halves of pick(), for a sender that builds the packet only once
  // its VL is chosen (a NIC): the VL the tables serve next among `ready`, or
  // -1; then charge() with the size of the packet that VL sent, before the
  // next choose(). A choose() that sent nothing needs no charge.
  int choose(uint32_t ready) {
    if (ready == 0) return -1;
    const bool high_ready = (high_served_ & ready) != 0;
    const bool low_ready = (low_served_ & ready) != 0;
    if (!low_ready) high_sent_ = 0;  // the limit counts only while low priority waits
    const bool limit_hit =
        low_ready && cfg_->high_limit != 255 && high_sent_ > static_cast<uint64_t>(cfg_->high_limit) * 4096;
    if (high_ready && !limit_hit) {
      chosen_high_ = true;
      return find(cfg_->vlarb_high, high_, ready);
    }
    if (low_ready) {
      high_sent_ = 0;
      chosen_high_ = false;
      return find(cfg_->vlarb_low, low_, ready);
    }
    return -1;  // only VLs no table serves are ready
  }
  // Weights may be overrun by the packet that exhausts them (the spec lets a
  // packet finish).
  void charge(uint32_t wire) {
    Cursor& c = chosen_high_ ? high_ : low_;
    const auto& t = chosen_high_ ? cfg_->vlarb_high : cfg_->vlarb_low;
    c.left -= wire;
    if (c.left <= 0) advance(t, c);
    if (chosen_high_) high_sent_ += wire;
  }

 private:
  struct Cursor {
    size_t idx = 0;
    int64_t left = -1;  // bytes of weight left in the current entry; < 0: entry not started
  };
  // The VLs a table serves (an entry with weight above 0), a bit each.
  static uint32_t served(const std::vector<VlArbEntry>& t) {
    uint32_t m = 0;
    for (const auto& e : t)
      if (e.weight > 0) m |= 1u << e.vl;
    return m;
  }
  // Leaves the cursor on the entry it returns, its weight started.
  static int find(const std::vector<VlArbEntry>& t, Cursor& c, uint32_t ready) {
    if (t.empty()) return -1;
    for (size_t tries = 0; tries <= t.size(); ++tries) {
      const VlArbEntry& e = t[c.idx];
      if (c.left < 0) c.left = int64_t{e.weight} * kCreditBlockBytes;
      if (e.weight > 0 && c.left > 0 && ((ready >> e.vl) & 1u)) return e.vl;
      advance(t, c);
    }
    return -1;
  }
  static void advance(const std::vector<VlArbEntry>& t, Cursor& c) {
    c.idx = (c.idx + 1) % t.size();
    c.left = -1;
  }

  const CreditConfig* cfg_ = nullptr;
  uint32_t high_served_ = 0;  // cfg_'s tables as masks: a choice checks them per packet
  uint32_t low_served_ = 0;
  Cursor high_, low_;
  uint64_t high_sent_ = 0;
  bool chosen_high_ = false;
};

// An FCP on its way to the peer: when it lands and the limit it carries.
struct PendingCredit {
  Time arrive;
  uint64_t fccl = 0;
};

// One VL of a port's credit state, as a sender toward its peer and as a
// receiver of the peer's packets. A packet touches one VL's fields only, so
// they share cache lines (the 8 VLs' values were 8 arrays, a line per field).
struct alignas(64) CreditLane {
  // Sender side.
  uint64_t fctbs = 0;
  uint64_t fccl = 0;  // the limit as last read from the peer's lane
  uint64_t xmit_pkts = 0;
  uint64_t xmit_data_bytes = 0;
  // Receiver side.
  uint64_t abr = 0;
  uint64_t held = 0;  // blocks in our buffer, not yet freed
  uint64_t rcv_pkts = 0;
  uint64_t rcv_data_bytes = 0;
  // The credit this port returns: kept here, written on every freed buffer;
  // the peer reads it only when the limit it last read falls short, so
  // neither end touches the other's memory per packet.
  uint64_t reported = 0;  // FCCL last sent to the peer
  uint64_t landed = 0;    // the newest limit that had landed at the last fold
  uint64_t need = 0;      // the limit the peer, blocked for credit, waits for
  Time last_leave;        // when the newest FCP in flight leaves this port
  // Not landed at the last fold, oldest first. A short link holds a few (a
  // 1 us link at 100 Gb/s about 12 frames' worth, more while landed ones wait
  // for the next fold), so they live in the lane: reading them was a run's
  // largest cache miss when they were on the heap. Room for 16: with 8, every
  // busy lane of the InfiniBand bench spilled to the heap (2.5% of its time).
  Ring<PendingCredit, 16> in_flight;

  // The limit in force at `now`, without folding.
  [[nodiscard]] uint64_t limit_at(Time now) const {
    uint64_t f = landed;
    for (size_t i = 0; i < in_flight.size() && in_flight[i].arrive <= now; ++i)
      f = std::max(f, in_flight[i].fccl);
    return f;
  }
  // The limit once every FCP in flight has landed.
  [[nodiscard]] uint64_t final_limit() const {
    return in_flight.empty() ? landed : std::max(landed, in_flight.back().fccl);
  }
};

// The credit state of one port: per VL its lane; the sender's wait for
// credit; PortXmitWait bookkeeping; VL arbitration; counters.
struct CreditState {
  std::array<CreditLane, kNumVls> lane;
  const CreditConfig* cfg = nullptr;
  CreditState* peer = nullptr;  // the other end's state (connect_peer)
  uint64_t peer_capacity = 0;   // the peer's buffer per VL, in blocks
  uint64_t capacity = 0;        // our buffer per VL, in blocks
  uint64_t landed_count = 0;    // our FCPs landed at the peer by the last fold
  bool awaiting = false;        // blocked for credit at the last decision (the peer's wait)
  uint8_t batch_armed = 0;      // bit per VL: an update-period timer is pending
  // The peer, blocked for credit, says what it waits for here: bit per VL
  // (each lane's `need`), and the timer it set.
  uint8_t wait = 0;
  Time wake_at = Time::never();
  // PortXmitWait bookkeeping.
  std::array<Time, kNumVls> vl_wait_since{};
  Time port_wait_since;
  uint8_t vl_waiting = 0;
  bool port_waiting = false;
  VlArbiter arbiter;
  IbPortCounters ctr;

  // Moves our FCPs that have landed by `now` out of flight.
  void fold(int vl, Time now) {
    CreditLane& l = lane[vl];
    while (!l.in_flight.empty() && l.in_flight.front().arrive <= now) {
      l.landed = std::max(l.landed, l.in_flight.front().fccl);
      ++landed_count;
      l.in_flight.pop_front();
    }
  }
  // Credit as last read.
  [[nodiscard]] uint64_t available(int vl) const { return lane[vl].fccl - lane[vl].fctbs; }
  // Reads the limit from the peer's FCPs landed by `now`.
  void refresh(int vl, Time now) {
    if (peer == nullptr) return;
    peer->fold(vl, now);
    lane[vl].fccl = std::max(lane[vl].fccl, peer->lane[vl].landed);
  }
  // The limit in force at `now`.
  [[nodiscard]] uint64_t fccl_at(int vl, Time now) const {
    return peer == nullptr ? lane[vl].fccl : std::max(lane[vl].fccl, peer->lane[vl].limit_at(now));
  }
  [[nodiscard]] uint64_t available_at(int vl, Time now) const { return fccl_at(vl, now) - lane[vl].fctbs; }
  // The limit once every FCP in flight has landed.
  [[nodiscard]] uint64_t final_fccl(int vl) const {
    return peer == nullptr ? lane[vl].fccl : std::max(lane[vl].fccl, peer->lane[vl].final_limit());
  }
  [[nodiscard]] uint64_t advertise(int vl) const { return lane[vl].abr + capacity - lane[vl].held; }
  // IB CC (Annex A10): a congested port is a root of congestion unless its
  // next packet on that VL is waiting for credit, which makes it a victim of
  // congestion further downstream.
  [[nodiscard]] bool congestion_root(int vl, uint32_t head_wire, Time now) const {
    return head_wire == 0 || available_at(vl, now) >= credit_blocks(head_wire);
  }
};

}  // namespace rdmasim
