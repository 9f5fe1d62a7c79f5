// Pacing and the retransmission deadline of one QP. Every transport needs
// both; the NIC runs them (Nic::pacer_holds, Nic::pacer_sent, Nic::arm_deadline
// and its timer events) so no transport re-implements them. The state lives
// beside the transport's connection, which lends it to the NIC through
// Transport::timing(), so the NIC keeps no per-QP table of its own.
#pragma once

#include "engine/units.h"

namespace rdmasim {

struct QpTiming {
  Time next_send;  // the pacer lets the QP's next packet start then
  Time deadline;   // retransmission deadline; progress pushes it back lazily
  // The gap behind next_send: the last paced packet's wire bytes, from when
  // they count and the rate they were timed at, so that a new rate re-times
  // the gap at once (Nic::pacer_rate_changed).
  Time pace_from;
  int64_t pace_bps = 0;
  uint32_t pace_wire = 0;
  bool wake_pending = false;  // a pacer wake-up event is scheduled, at wake_at
  bool armed = false;         // a deadline event is scheduled
  Time wake_at;
};

}  // namespace rdmasim
