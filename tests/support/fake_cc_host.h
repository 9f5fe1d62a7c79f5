// A congestion-control host with a settable clock, line rate and telemetry,
// to drive an algorithm's update rule ACK by ACK without a network.
#pragma once

#include "cc/congestion_control.h"

namespace rdmasim {

struct FakeCcHost : CcHost {
  Time t;
  Rate rate = Rate::from_gbps(40);
  const IntStack* stack = nullptr;  // what every ACK carries
  [[nodiscard]] Time now() const override { return t; }
  void schedule_cc_timer(RcConnection&, Time, uint32_t) override {}
  [[nodiscard]] Rate line_rate(const RcConnection&) const override { return rate; }
  [[nodiscard]] int64_t mtu() const override { return 1000; }
  [[nodiscard]] const IntStack* telemetry(const Packet&) const override { return stack; }
};

}  // namespace rdmasim
