// The fabric.uet keys: UET's Packet Delivery Sublayer as an endpoint runs it.
#pragma once

#include <cstdint>
#include <string>

#include "cc/rccc/rccc.h"
#include "engine/units.h"

namespace rdmasim {

// UET delivery modes (UEC 1.0 §3.5): what the PDS promises a message.
//  rud   reliable, unordered: packets placed as they arrive, SACK repair
//  rod   reliable, ordered: the target takes only the next PSN (go-back-N);
//        one entropy value, since spraying would reorder every packet
//  rudi  reliable, unordered, idempotent: no duplicate filtering at the
//        target (a resent packet is applied again), every packet ACKed
//  uud   unreliable, unordered: no ACKs; a lost packet stays lost
enum class DeliveryMode : uint8_t { kRud, kRod, kRudi, kUud };

[[nodiscard]] inline const char* delivery_mode_name(DeliveryMode m) {
  switch (m) {
    case DeliveryMode::kRud:
      return "rud";
    case DeliveryMode::kRod:
      return "rod";
    case DeliveryMode::kRudi:
      return "rudi";
    case DeliveryMode::kUud:
      return "uud";
  }
  return "?";
}

struct PdsConfig {
  DeliveryMode mode = DeliveryMode::kRud;
  uint32_t mtu = 4096;     // payload bytes per packet
  uint32_t ack_every = 1;  // the target ACKs every N packets (and every message end, every gap)
  // PSNs a PDC tracks ahead of its cumulative ACK: the target's receive
  // bitmap; the initiator sends no further ahead. A power of two.
  uint32_t psn_window = 1024;
  // A PSN is presumed lost when this many later PSNs have been SACKed
  // (reordering from spraying is tolerated up to it).
  uint32_t sack_loss_threshold = 32;
  Time rto = Time::from_us(256);
  uint32_t rto_max_backoff = 3;
  uint8_t ack_tc = 7;  // ACKs and NACKs ride a strict-priority class
  RcccConfig rccc;     // receiver credits (fabric.rccc), beside the sender's congestion control

  template <class V>
  void visit(V& v) {
    v.choice({"mode",
              "delivery mode (UEC 1.0 §3.5): rud reliable unordered, rod reliable ordered (go-back-N on one "
              "path), rudi idempotent (duplicates re-applied), uud unreliable (no ACKs)"},
             mode,
             {{"rud", DeliveryMode::kRud},
              {"rod", DeliveryMode::kRod},
              {"rudi", DeliveryMode::kRudi},
              {"uud", DeliveryMode::kUud}});
    v.size({"mtu", "payload bytes per packet (the framing adds Ethernet, IP, UDP, PDS and SES headers)"},
           mtu);
    v.check(mtu >= 256 && mtu <= 9000, "mtu", "expected a payload MTU between 256B and 9000B");
    if (mode == DeliveryMode::kUud) {
      for (const char* key : {"ack_every", "psn_window", "sack_loss_threshold", "rto", "rto_max_backoff"})
        v.refuse(key, "has no effect: mode uud sends no ACKs and never retransmits");
    } else {
      if (mode == DeliveryMode::kRudi)
        v.refuse("ack_every", "has no effect: mode rudi ACKs every packet (its target keeps no PSN state)");
      else
        v.count(
            {"ack_every", "the target ACKs every N packets, and at once on a gap, a trim or a message end"},
            ack_every, 1, 64);
      v.count({"psn_window",
               "PSNs a PDC tracks ahead of its cumulative ACK (the target's bitmap); the initiator sends no "
               "further ahead; a power of two"},
              psn_window, 64, 1 << 20);
      v.check((psn_window & (psn_window - 1)) == 0, "psn_window", "expected a power of two");
      if (mode == DeliveryMode::kRod)
        v.refuse("sack_loss_threshold",
                 "has no effect: mode rod goes back N on the target's out-of-order NACK");
      else
        v.count({"sack_loss_threshold",
                 "a PSN is presumed lost (and resent) once this many later PSNs were selectively ACKed"},
                sack_loss_threshold, 1, 63);
      v.time({"rto", "retransmission timeout: no ACK progress for this long resends what is outstanding"},
             rto);
      v.check(rto >= Time::from_ns(100), "rto", "expected a retransmission timeout of at least 100ns");
      v.count(
          {"rto_max_backoff", "doublings of the timeout over consecutive timeouts; ACK progress resets it"},
          rto_max_backoff, 0, 20);
    }
    v.count({"ack_tc", "traffic class of the ACKs and NACKs a target returns"}, ack_tc, 0, 7);
  }
};

}  // namespace rdmasim
