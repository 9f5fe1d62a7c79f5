// The datapath's unloaded timing, one packet's step across one hop and a
// stream's across a path, shared by the packet level's ideal completion times
// (Fabric::ideal_completion) and the flow level's (flow/flow_level_run.cpp),
// so both compute the same ideal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

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

// Exact unloaded timing of `n` back-to-back packets through `hops` hops (hop h
// is `hop_at(h)`): the first packet of `first` wire bytes, the last of `last`
// (n = 1: `first` alone), the others of `middle`. Returns when the last packet
// is ready past the last hop.
//
// A packet's timing depends only on when each port is free, and shifting all
// of those by the same time shifts the packet's by it too (every packet is
// ready at 0, which binds only the first). So once one middle packet moves
// every port's free time by the same step, every further one does: those are
// skipped in one step, and a flow of a million packets costs what a few dozen
// do (tests/net/test_unloaded_hop.cpp checks it against packet by packet).
template <typename HopAt>
Time unloaded_pipeline(size_t hops, const HopAt& hop_at, uint64_t n, uint32_t first, uint32_t middle,
                       uint32_t last) {
  std::vector<Time> port_free(hops, Time::zero());
  std::vector<Time> before(hops, Time::zero());
  Time done = Time::zero();
  const auto send = [&](uint32_t wire) {
    Time ready = Time::zero();
    Time tail = Time::zero();
    for (size_t h = 0; h < hops; ++h) cross_unloaded_hop(hop_at(h), wire, ready, tail, port_free[h]);
    done = ready;
  };
  if (n == 0) return done;
  send(first);
  for (uint64_t sent = 1; sent + 1 < n;) {
    before = port_free;
    send(middle);
    ++sent;
    const Time step = port_free.empty() ? Time::zero() : port_free[0] - before[0];
    bool steady = true;
    for (size_t h = 1; h < hops && steady; ++h) steady = port_free[h] - before[h] == step;
    if (steady && sent + 1 < n) {
      const auto rest = static_cast<int64_t>(n - 1 - sent);
      // A stream that would take beyond a quarter of 64-bit picoseconds (26
      // days: room left for the last packet and the caller's sums) has no
      // ideal time: never(), as Rate::tx_time saturates, not a wrapped one.
      Time latest = Time::zero();
      for (const Time t : port_free) latest = std::max(latest, t);
      const __int128 end = static_cast<__int128>(latest.ps()) + static_cast<__int128>(step.ps()) * rest;
      if (end >= std::numeric_limits<int64_t>::max() / 4) return Time::never();
      for (auto& t : port_free) t = t + step * rest;
      sent += static_cast<uint64_t>(rest);
    }
  }
  if (n > 1) send(last);
  return done;
}

}  // namespace rdmasim
