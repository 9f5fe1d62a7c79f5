// ForwardingPolicy: which egress port a switch gives a packet among the
// candidates its route table holds for the destination, one of
//   ecmp      EcmpForwarding      hash of the flow with a per-switch seed
//   lft       LftForwarding       InfiniBand LFT, one port per destination
//   adaptive  AdaptiveForwarding  AR (InfiniBand or Ethernet), least-loaded candidate
// built by name in fabric/parts.cpp.
//
// Contract. The Switch owns one policy by value and calls select(sw, p) once
// per packet it forwards, on the simulation thread, after the packet's
// ingress flow control has seen it; it returns a port index or -1 (no route:
// the switch drops and counts the packet). `sw` offers routes(), port(i) and
// now(); the policy keeps no pointer to it. Policies are templates over the
// switch, so the per-packet call is a switch over three alternatives with
// inlined bodies, and they can be tested on a stub switch.
#pragma once

#include <utility>
#include <variant>

#include "route/forwarding/adaptive/adaptive_forwarding.h"
#include "route/forwarding/ecmp/ecmp_forwarding.h"
#include "route/forwarding/lft/lft_forwarding.h"

namespace rdmasim {

class ForwardingPolicy {
 public:
  template <class Policy>
  explicit ForwardingPolicy(Policy policy) : policy_(std::move(policy)) {}

  template <class S>
  [[nodiscard]] int select(const S& sw, const Packet& p) const {
    return std::visit([&](const auto& f) { return f.select(sw, p); }, policy_);
  }

 private:
  std::variant<EcmpForwarding, LftForwarding, AdaptiveForwarding> policy_;
};

}  // namespace rdmasim
