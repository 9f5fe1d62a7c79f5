// A congestion-control host with a settable clock, line rate and telemetry,
// to drive an algorithm's update rule ACK by ACK without a network.
#pragma once

#include <vector>

#include "cc/congestion_control.h"
#include "net/packet.h"

namespace rdmasim {

struct FakeCcHost : CcHost {
  Time t;
  Rate rate = Rate::from_gbps(40);
  int64_t mtu_bytes = 1000;
  const IntStack* stack = nullptr;   // what every ACK carries
  std::vector<Time> timers;          // every timer asked for
  std::vector<uint32_t> timer_tags;  // and its tag
  [[nodiscard]] Time now() const override { return t; }
  void schedule_cc_timer(CcFlow&, Time at, uint32_t tag) override {
    timers.push_back(at);
    timer_tags.push_back(tag);
  }
  [[nodiscard]] int64_t mtu() const override { return mtu_bytes; }
  // A flow on a NIC port of `rate`.
  [[nodiscard]] CcFlow flow() const {
    CcFlow f;
    f.line_rate = rate;
    return f;
  }
  // What congestion control reads from `ack`, carrying `stack` as its telemetry.
  [[nodiscard]] AckSample sample(const Packet& ack) const {
    return AckSample{ack.psn, ack.sent_at, (ack.flags & kCe) != 0, stack};
  }
};

}  // namespace rdmasim
