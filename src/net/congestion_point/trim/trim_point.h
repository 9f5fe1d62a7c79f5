// Packet trimming (UET 1.0; NDP, Handley et al., SIGCOMM 2017): a data packet
// that the buffer refuses, or that finds its egress class queue above the
// trim threshold, is not dropped but cut to its headers and forwarded in a
// priority class, so the receiver learns of the loss one path delay later
// and NACKs it, instead of the sender waiting for a timeout.
//
// The trimmed class is bounded: at most `class_limit` bytes of trimmed
// headers wait at one egress; a trim that would exceed it drops the packet
// (counted as trim_drop_packets), so trimmed headers cannot starve data.
#pragma once

#include <cstdint>

#include "net/congestion_point/overflow.h"
#include "net/packet.h"

namespace rdmasim {

struct TrimConfig {
  bool enabled = false;
  uint32_t header_bytes = 0;     // the trimmed frame, FCS included (preamble and IFG added by framing)
  uint32_t wire_extra = 20;      // preamble, SFD, IFG
  uint64_t threshold_bytes = 0;  // 0: trim only what the buffer refuses
  uint8_t tc = 7;                // class trimmed headers ride
  uint64_t class_limit_bytes = 0;
};

class TrimPoint {
 public:
  explicit TrimPoint(const TrimConfig& cfg) noexcept
      : wire_(cfg.header_bytes + cfg.wire_extra),
        threshold_(cfg.threshold_bytes),
        limit_(cfg.class_limit_bytes),
        tc_(cfg.tc) {}

  // Before the buffer sees the packet: trim it if its class queue is above the threshold.
  template <class S, class O>
  void before_admit(S& sw, Packet& p, O& out) {
    if (threshold_ == 0 || p.type != PktType::kData) return;
    if (sw.mmu().egress_bytes(out.index(), p.tc) + p.wire > threshold_) (void)trim(sw, p, out);
  }
  template <class S, class O>
  void on_enqueue(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {}
  template <class S, class O>
  void on_dequeue(S& /*sw*/, Packet& /*p*/, O& /*out*/, bool /*departs*/) noexcept {}
  template <class S, class O>
  OverflowAction on_overflow(S& sw, Packet& p, O& out) {
    if (p.type != PktType::kData) return OverflowAction::kDrop;
    return trim(sw, p, out) ? OverflowAction::kForward : OverflowAction::kDrop;
  }

 private:
  template <class S, class O>
  bool trim(S& sw, Packet& p, O& out) {
    if (out.queues().bytes(tc_) + wire_ > limit_) {
      ++out.counters().trim_drop_packets;
      return false;
    }
    p.payload = 0;
    p.wire = static_cast<uint16_t>(wire_);
    p.tc = tc_;
    p.flags = static_cast<uint8_t>(p.flags & ~kEct);  // a header is not marked again
    sw.retype(p, PktType::kTrimmed);
    ++out.counters().trimmed_packets;
    return true;
  }

  uint32_t wire_;
  uint64_t threshold_;
  uint64_t limit_;
  uint8_t tc_;
};

}  // namespace rdmasim
