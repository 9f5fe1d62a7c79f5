// CongestionPoint: what a switch egress does to the packets that cross it,
// one of
//   red   RedEcnPoint  RED/ECN marking (kmin, kmax, pmax; on enqueue or dequeue)
//   fecn  FecnPoint    InfiniBand FECN at a root of congestion
//   int   IntPoint     HPCC in-band telemetry record
//   trim  TrimPoint    UET packet trimming (cut to headers instead of dropping)
// built by name in fabric/parts.cpp. A switch has any number of them
// (CongestionPoints, e.g. red + int), called in the order they were added.
//
// Contract. The Switch owns its points by value and calls, on the simulation
// thread:
//   before_admit(sw, p, out)         p is routed to `out` and about to be
//                                    offered to the buffer; a point may
//                                    rewrite it in place (trimming above a
//                                    threshold). Called only on switches
//                                    with a point that wants it (trim);
//   on_enqueue(sw, p, out)           p was admitted to egress port `out` and is
//                                    about to join its queue;
//   on_dequeue(sw, p, out, departs)  p left `out`'s queue and the buffer
//                                    (departs: it goes on the wire, not lost
//                                    with a failed link);
//   on_overflow(sw, p, out)          the buffer refused p for `out`. kDrop
//                                    passes to the next point; kForward means
//                                    the point rewrote p in place (say trimmed
//                                    to its headers and moved to a priority
//                                    class) and the switch offers it to the
//                                    buffer again, dropping it only if it is
//                                    refused again. Not for credit links, whose
//                                    ingress accounting follows the arriving size.
// `sw` offers mmu(), note_ecn_mark(p, out), telemetry(), now(), id(); a
// point keeps no packet or switch pointer. Points are templates over the
// switch and port, dispatched by a switch over the alternatives, not virtual
// calls, and testable on stubs.
#pragma once

#include <utility>
#include <variant>
#include <vector>

#include "net/congestion_point/fecn/fecn_point.h"
#include "net/congestion_point/int/int_point.h"
#include "net/congestion_point/overflow.h"
#include "net/congestion_point/red_ecn/red_ecn_point.h"
#include "net/congestion_point/trim/trim_point.h"

namespace rdmasim {

using CongestionPoint = std::variant<RedEcnPoint, FecnPoint, IntPoint, TrimPoint>;

class CongestionPoints {
 public:
  void add(CongestionPoint cp) { points_.push_back(std::move(cp)); }
  // Builds point P in place from its constructor's arguments.
  template <class P, class... Args>
  void emplace(Args&&... args) {
    points_.emplace_back(std::in_place_type<P>, std::forward<Args>(args)...);
  }
  [[nodiscard]] size_t size() const noexcept { return points_.size(); }
  [[nodiscard]] CongestionPoint& at(size_t i) { return points_[i]; }

  // Whether any point rewrites packets before admission (the switch skips the call otherwise).
  [[nodiscard]] bool wants_before_admit() const noexcept {
    for (const auto& cp : points_)
      if (std::holds_alternative<TrimPoint>(cp)) return true;
    return false;
  }
  template <class S, class O>
  void before_admit(S& sw, Packet& p, O& out) {
    for (auto& cp : points_)
      if (auto* t = std::get_if<TrimPoint>(&cp)) t->before_admit(sw, p, out);
  }
  template <class S, class O>
  void on_enqueue(S& sw, Packet& p, O& out) {
    for (auto& cp : points_) std::visit([&](auto& c) { c.on_enqueue(sw, p, out); }, cp);
  }
  template <class S, class O>
  void on_dequeue(S& sw, Packet& p, O& out, bool departs) {
    for (auto& cp : points_) std::visit([&](auto& c) { c.on_dequeue(sw, p, out, departs); }, cp);
  }
  template <class S, class O>
  OverflowAction on_overflow(S& sw, Packet& p, O& out) {
    for (auto& cp : points_)
      if (std::visit([&](auto& c) { return c.on_overflow(sw, p, out); }, cp) == OverflowAction::kForward)
        return OverflowAction::kForward;
    return OverflowAction::kDrop;
  }

 private:
  std::vector<CongestionPoint> points_;
};

}  // namespace rdmasim
