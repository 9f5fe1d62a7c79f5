// What a transport tells its path selector about an acknowledgement
// (nic/path/path_selector.h). Sequence numbers count packets, as in CcFlow.
#pragma once

#include <cstdint>

namespace rdmasim {

struct PathAck {
  // One past the highest sequence number acknowledged so far.
  uint64_t acked = 0;
  // One past the highest sequence number sent so far. A round ends when
  // `acked` reaches what `sent` was when the round began: one RTT of ACKs.
  uint64_t sent = 0;
  // The ACK carries ECN-Echo: a data packet it covers met CE.
  bool ecn_echo = false;
  // Packets remain unacknowledged after it.
  bool in_flight = false;
};

}  // namespace rdmasim
