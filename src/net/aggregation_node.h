// A switch's in-network compute unit (SHARP's aggregation node, "AN"): the
// switch hands it every PktType::kSharp packet instead of forwarding it. The
// unit owns what it is handed (it frees the ingress buffer the packet held
// and returns it to the pool or sends it on) and sends results through
// Switch::emit_aggregate, from its own buffer: they never enter the shared
// buffer, but they queue at the egress port with everything else and take
// the downstream link's credits or PAUSE like any packet.
#pragma once

#include "net/packet.h"

namespace rdmasim {

class Port;
class Switch;

class AggregationNode {
 public:
  // `p` arrived at `sw` on `in` (past the link layer, which counted it).
  virtual void on_packet(Switch& sw, Port& in, Packet* p) = 0;

 protected:
  ~AggregationNode() = default;
};

}  // namespace rdmasim
