// PathSelector: the entropy a NIC writes into the packets of a connection
// (RoCEv2's UDP source port, an IPv6 flow label), which switches hash to pick
// among equal-cost paths (route/forwarding/ecmp). One of
//   per-connection  PerConnectionPaths  one fixed entropy per QP (RoCEv2 NICs today)
//   plb             PlbPaths            a new random entropy after sustained ECN
//                                       congestion (PLB, SIGCOMM 2022)
//   spray           SprayPaths          per packet, one of a set of entropy values
//                                       (UET-style oblivious spraying)
//   reps            RepsPaths           per packet, recycling the entropy values
//                                       whose ACKs came back unmarked (REPS)
// built by name in fabric/parts.cpp (fabric.path_selection).
//
// Contract. The transport owns one selector by value for all its QPs (set
// with Transport::set_path_selector before the first QP is created) and calls
// it on the simulation thread only:
//   connect(qp, base)  once per QP, in creation order (ids dense from 0): base
//                      is the hash of the QP's own 5-tuple, its first entropy.
//                      The only call that may allocate.
//   entropy(qp, base, seq)  for every packet the requester side of the QP
//                      builds (data and READ requests, retransmissions
//                      included; seq its PSN or segment number): the flow_hash
//                      to stamp. ACKs, NAKs, CNPs and READ responses
//                      keep the responder's fixed hash. The NIC port a QP
//                      leaves by is chosen once, at connect, from base.
//   on_ack(qp, ack)    for every ACK the requester receives, after the
//                      transport has retired what it acknowledges (PathAck:
//                      sequence numbers, ECN-Echo, whether packets remain in
//                      flight).
//   on_rto(qp)         a retransmission timeout fired, before the resend.
// A transport that remembers which entropy each packet took (UET) calls
// instead of entropy() for the packets it sends:
//   pick(qp, base, seq)     the entropy of a packet leaving now (a selector
//                      that learns per packet may consume state; the others
//                      answer as entropy() does);
//   on_ev(qp, ev, marked)   a packet sent with entropy `ev` was acknowledged
//                      (marked: with ECN-Echo) or trimmed (marked).
// All calls but connect are noexcept and allocate nothing. A selector keeps
// no pointer to the transport. Selectors are concrete classes held in a
// std::variant: a packet costs one predictable branch, not a virtual call or
// an allocation, and the default is exactly the fixed per-QP hash.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "nic/path/path_signal.h"
#include "nic/path/per_connection/per_connection_paths.h"
#include "nic/path/plb/plb_paths.h"
#include "nic/path/reps/reps_paths.h"
#include "nic/path/spray/spray_paths.h"

namespace rdmasim {

// The fabric's choice and each selector's parameters (fabric.path_selection
// and the block named after the selector).
struct PathSelectionConfig {
  std::string name = "per-connection";
  PlbConfig plb;
  SprayConfig spray;
  RepsConfig reps;
};

class PathSelector {
 public:
  PathSelector() = default;  // per-connection
  template <class Part>
  explicit PathSelector(Part part) : part_(std::move(part)) {}

  void connect(uint32_t qp, uint32_t base) {
    std::visit([&](auto& s) { s.connect(qp, base); }, part_);
  }
  // std::visit throws only for a valueless variant; the alternatives never throw on move, so it never is.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  [[nodiscard]] uint32_t entropy(uint32_t qp, uint32_t base, uint64_t seq) const noexcept {
    return std::visit([&](const auto& s) { return s.entropy(qp, base, seq); }, part_);
  }
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void on_ack(uint32_t qp, const PathAck& a) noexcept {
    std::visit([&](auto& s) { s.on_ack(qp, a); }, part_);
  }
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void on_rto(uint32_t qp) noexcept {
    std::visit([&](auto& s) { s.on_rto(qp); }, part_);
  }
  // NOLINTNEXTLINE(bugprone-exception-escape)
  [[nodiscard]] uint32_t pick(uint32_t qp, uint32_t base, uint64_t seq) noexcept {
    return std::visit(
        [&](auto& s) {
          if constexpr (requires { s.pick(qp, base, seq); })
            return s.pick(qp, base, seq);
          else
            return s.entropy(qp, base, seq);
        },
        part_);
  }
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void on_ev(uint32_t qp, uint32_t ev, bool marked) noexcept {
    std::visit(
        [&](auto& s) {
          if constexpr (requires { s.on_ev(qp, ev, marked); }) s.on_ev(qp, ev, marked);
        },
        part_);
  }
  // Whether the selector learns from each packet's EV (on_ev matters).
  [[nodiscard]] bool learns_per_packet() const noexcept { return std::holds_alternative<RepsPaths>(part_); }

  // The implementation, for its tests and reports (nullptr if another).
  template <class Part>
  [[nodiscard]] const Part* get_if() const noexcept {
    return std::get_if<Part>(&part_);
  }

 private:
  std::variant<PerConnectionPaths, PlbPaths, SprayPaths, RepsPaths> part_;
};

}  // namespace rdmasim
