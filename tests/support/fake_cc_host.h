// A congestion-control host with a settable clock, line rate and telemetry,
// to drive an algorithm's update rule ACK by ACK without a network.
#pragma once

#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct FakeCcHost : CcHost {
  Time t;
  Rate rate = Rate::from_gbps(40);
  int64_t mtu_bytes = 1000;
  const IntStack* stack = nullptr;   // what every ACK carries
  std::vector<Time> timers;          // every timer asked for
  std::vector<uint32_t> timer_tags;  // and its tag
  [[nodiscard]] Time now() const override { return t; }
  void schedule_cc_timer(RcConnection&, Time at, uint32_t tag) override {
    timers.push_back(at);
    timer_tags.push_back(tag);
  }
  [[nodiscard]] Rate line_rate(const RcConnection&) const override { return rate; }
  [[nodiscard]] int64_t mtu() const override { return mtu_bytes; }
  [[nodiscard]] const IntStack* telemetry(const Packet&) const override { return stack; }
};

}  // namespace rdmasim
