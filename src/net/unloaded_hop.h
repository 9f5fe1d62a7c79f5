// One packet's step across one hop of the datapath's unloaded timing, shared
// by the packet level's ideal completion times (Fabric::ideal_completion) and
// the flow level's (flow/flow_level_run.cpp), so both compute the same ideal.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/units.h"

namespace rdmasim {

// The link of one hop and how the node at its far end takes packets in.
struct UnloadedHop {
  Rate rate;
  Time delay;
  Time ingress;          // the far node's pipeline (a switch's latency, a NIC's rx latency)
  uint32_t cut_through;  // bytes the far node needs before forwarding (0: store and forward)
};

// A packet of `wire` bytes, ready at `ready` (and, after a cut-through hop, no
// earlier than `tail` allows), starts when the port is free; it moves the
// port's `port_free` and returns with `ready`/`tail` set for the next hop.
inline void cross_unloaded_hop(const UnloadedHop& hop, uint32_t wire, Time& ready, Time& tail,
                               Time& port_free) {
  const Time ser = hop.rate.tx_time(Bytes(wire));
  Time start = std::max(ready, port_free);
  if (tail > start + ser) start = tail - ser;
  const Time finish = start + ser;
  port_free = finish;
  const Time last_in = finish + hop.delay + hop.ingress;
  if (hop.cut_through != 0 && hop.cut_through < wire) {
    ready = start + hop.rate.tx_time(Bytes(hop.cut_through)) + hop.delay + hop.ingress;
    tail = last_in;
  } else {
    ready = last_in;
    tail = Time::zero();
  }
}

}  // namespace rdmasim
