// LinkFlowControl: the link-layer flow control of one port, one of
//   lossy   LossyFlowControl   plain Ethernet, a full buffer drops
//   pfc     PfcFlowControl     IEEE 802.1Qbb PAUSE per priority
//   credit  CreditFlowControl  InfiniBand credits per VL
// built by name in fabric/parts.cpp.
//
// Contract. The Port owns its queues, transmitter and counters and owns one
// LinkFlowControl by value; it calls the part, on the simulation thread only:
//   next(port, now)        transmitter idle, no control frame waiting: return
//                          the packet to put on the wire now (taken with
//                          port.dequeue / dequeue_class / pull) or nullptr;
//   on_receive(port, p)    every packet arriving on the port, after it is
//                          counted: true if the part consumed it (a PAUSE or
//                          credit frame; it then owns and frees it);
//   on_enqueue(port, p)    a packet joins the port's queues;
//   on_transmit(port, p)   a packet goes on the wire;
//   on_release(port, c, w) a packet of class c and w wire bytes that arrived
//                          on this port has left its node's buffer (what the
//                          part may return upstream);
//   on_buffered(port, c)   at a switch, a packet of class c that arrived on
//                          this port was admitted to the shared buffer
//                          (port.buffer(): the switch's Mmu);
//   on_left_buffer(port, c) such a packet left the buffer (after on_release);
//   on_timer(port, k, a)   a timer the part set with port.schedule_timer fired;
//   on_corrupt(port, p)    p arrived corrupted (bad FCS) and is discarded
//                          before on_receive: what the sender counted of it;
//   on_link_down(port), on_fault_drop(p), connect_peer/resync (link up).
// The part never keeps a packet pointer. Parts are templates over the port
// (`P`): the hot path is a switch over three alternatives with inlined bodies,
// not a virtual call, and the parts can be unit-tested on a stub port.
#pragma once

#include <cstdint>
#include <utility>
#include <variant>

#include "link/credit/credit_flow_control.h"
#include "link/lossy/lossy_flow_control.h"
#include "link/pfc/pfc_flow_control.h"

namespace rdmasim {

class LinkFlowControl {
 public:
  LinkFlowControl() = default;  // PFC: an Ethernet MAC that honours PAUSE
  template <class Part>
  explicit LinkFlowControl(Part part) : part_(std::move(part)) {}

  template <class P>
  Packet* next(P& port, Time now) {
    return std::visit([&](auto& f) { return f.next(port, now); }, part_);
  }
  template <class P>
  bool on_receive(P& port, Packet* p) {
    return std::visit([&](auto& f) { return f.on_receive(port, p); }, part_);
  }
  template <class P>
  void on_enqueue(P& port, Packet* p) {
    std::visit([&](auto& f) { f.on_enqueue(port, p); }, part_);
  }
  template <class P>
  void on_transmit(P& port, Packet* p) {
    std::visit([&](auto& f) { f.on_transmit(port, p); }, part_);
  }
  template <class P>
  void on_release(P& port, uint8_t cls, uint32_t wire) {
    std::visit([&](auto& f) { f.on_release(port, cls, wire); }, part_);
  }
  template <class P>
  void on_buffered(P& port, uint8_t cls) {
    std::visit([&](auto& f) { f.on_buffered(port, cls); }, part_);
  }
  template <class P>
  void on_left_buffer(P& port, uint8_t cls) {
    std::visit([&](auto& f) { f.on_left_buffer(port, cls); }, part_);
  }
  template <class P>
  void on_timer(P& port, uint32_t kind, uint64_t arg) {
    std::visit([&](auto& f) { f.on_timer(port, kind, arg); }, part_);
  }
  template <class P>
  void on_corrupt(P& port, const Packet& p) {
    std::visit([&](auto& f) { f.on_corrupt(port, p); }, part_);
  }
  // std::visit throws only for a valueless variant; the alternatives never throw on move, so it never is.
  template <class P>
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void on_link_down(P& port) noexcept {
    std::visit([&](auto& f) { f.on_link_down(port); }, part_);
  }
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void on_fault_drop(const Packet& p) noexcept {
    std::visit([&](auto& f) { f.on_fault_drop(p); }, part_);
  }
  // Both ends of a link are built: learn what the peer can take.
  void connect_peer(LinkFlowControl& peer) noexcept {
    auto* c = std::get_if<CreditFlowControl>(&part_);
    auto* pc = std::get_if<CreditFlowControl>(&peer.part_);
    if (c != nullptr && pc != nullptr) c->connect_peer(*pc);
  }
  // The link came back up (both ends already up).
  void resync(const LinkFlowControl& peer) noexcept {
    auto* c = std::get_if<CreditFlowControl>(&part_);
    const auto* pc = std::get_if<CreditFlowControl>(&peer.part_);
    if (c != nullptr && pc != nullptr) c->resync(*pc);
  }

  // What the next transmit decision reads first, as an event argument for
  // the engine to prefetch (0: nothing worth it).
  [[nodiscard]] uint64_t decision_hint() const noexcept {
    const auto* c = std::get_if<CreditFlowControl>(&part_);
    return c != nullptr ? c->decision_hint() : 0;
  }
  // Pause granted past `now` for `tc` (PFC only; zero otherwise).
  // NOLINTNEXTLINE(bugprone-exception-escape)
  [[nodiscard]] Time pause_left(uint8_t tc, Time now) const noexcept {
    return std::visit([&](const auto& f) { return f.pause_left(tc, now); }, part_);
  }
  // Bytes the peer has room for on class `cls` at `now` (credit only; zero otherwise).
  // NOLINTNEXTLINE(bugprone-exception-escape)
  [[nodiscard]] uint64_t credit_bytes(uint8_t cls, Time now) const noexcept {
    return std::visit([&](const auto& f) { return f.credit_bytes(cls, now); }, part_);
  }

  [[nodiscard]] PfcFlowControl* pfc() noexcept { return std::get_if<PfcFlowControl>(&part_); }
  [[nodiscard]] const PfcFlowControl* pfc() const noexcept { return std::get_if<PfcFlowControl>(&part_); }
  [[nodiscard]] CreditFlowControl* credit() noexcept { return std::get_if<CreditFlowControl>(&part_); }
  [[nodiscard]] const CreditFlowControl* credit() const noexcept {
    return std::get_if<CreditFlowControl>(&part_);
  }

 private:
  std::variant<PfcFlowControl, LossyFlowControl, CreditFlowControl> part_;
};

}  // namespace rdmasim
