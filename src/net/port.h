// One end of a link: the egress queues, the transmitter and its counters.
// Whether a packet may go on the wire now, and what a received packet
// returns upstream, is the link's flow control (link/link_flow_control.h),
// a part the port owns and calls. A transmission puts the packet on the wire for its serialization time and
// schedules its arrival at the peer node; the peer's ingress latency and
// cut-through rule are folded into that one arrival (queued behind the
// frames already on the wire: see wire_).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>

#include "engine/event_queue.h"
#include "engine/ring.h"
#include "engine/rng.h"
#include "engine/units.h"
#include "link/link_flow_control.h"
#include "net/counters.h"
#include "net/packet.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

class Mmu;
class Network;
class Node;
class Port;
class RouteTable;
class Switch;

// Supplies packets to an idle port when its own queues are empty (a NIC's
// per-QP scheduler). Returns nullptr when nothing may be sent now.
class PacketSource {
 public:
  // `eligible`: bit per traffic class that may send now (PFC clears bits).
  virtual Packet* pull(Port& port, uint32_t eligible) = 0;
  [[nodiscard]] virtual bool has_more(const Port& port) const = 0;

 protected:
  ~PacketSource() = default;
};

// Sees every frame a port puts on the wire (the pcap capture). Off by
// default: a port without one pays a single null test per frame.
class PortTap {
 public:
  // `first_bit`: when the frame's first bit leaves the port.
  virtual void on_transmit(const Port& port, const Packet& p, Time first_bit) = 0;
  // A link flow-control frame the port sends without a Packet (an InfiniBand
  // FCP, link/credit.h), leaving at `first_bit`.
  virtual void on_link_frame(const Port& port, Time first_bit) = 0;

 protected:
  ~PortTap() = default;
};

class Port final : public EventHandler {
 public:
  static constexpr uint32_t kTxDone = 0;         // other event kinds are the flow control's timers
  static constexpr uint32_t kWireArrive = 0xff;  // the first frame on the wire reaches the peer

  Port(Network& net, Node& owner, uint16_t index, Rate rate, Time delay)
      : net_(net), delay_(delay), index_(index), owner_(owner) {
    set_rate(rate);
  }

  void connect(Node* peer, uint16_t peer_index);
  void set_source(PacketSource* s) { source_ = s; }
  // Hands every frame this port transmits, as it leaves, to `t` (nullptr: none).
  void set_tap(PortTap* t) { tap_ = t; }
  // Packets leaving this port's queues are released from `sw`'s buffer.
  void set_switch(Switch* sw);
  void set_scheduler_config(const TcSchedulerConfig* c) { queues_.set_config(c); }
  // Frames this port sends are lost on the wire with probability `p` each
  // (random loss; a bit-error rate as the share of frames it corrupts): the
  // frame still takes its time on the wire and the peer discards it on
  // arrival. Draws come from `stream`, this port's own (set_loss_stream,
  // once); p = 0 draws nothing. May change during a run.
  void set_loss(double p) { loss_ = p; }
  void set_loss_stream(Rng stream) {
    loss_rng_ = stream;
    has_loss_stream_ = true;
  }
  [[nodiscard]] double loss() const { return loss_; }
  // A bit-error rate on what this port sends: a frame of w wire bytes is
  // corrupted with probability 1 - (1 - ber)^(8w), drawn from the loss
  // stream. Link-level control frames (PAUSE, credit updates: 64 B and
  // less, ~5e-10 at a BER of 1e-12) are spared. 0: none.
  void set_ber(double ber) { ber_log_ = ber > 0.0 ? std::log1p(-ber) : 0.0; }
  [[nodiscard]] double ber() const { return ber_log_ < 0.0 ? -std::expm1(ber_log_) : 0.0; }
  [[nodiscard]] bool has_loss_stream() const { return has_loss_stream_; }
  // A switch port with a smaller MTU than the fabric's (misconfig: mtu):
  // frames with more payload bytes that it receives, or that the switch
  // would send through it, are discarded as oversize. 0: no limit.
  void set_max_payload(uint32_t bytes) { max_payload_ = bytes; }
  [[nodiscard]] uint32_t max_payload() const { return max_payload_; }
  // Installs the link-layer flow control; call before traffic, on both ends.
  void set_flow_control(LinkFlowControl fc) { fc_ = std::move(fc); }
  [[nodiscard]] LinkFlowControl& flow_control() { return fc_; }
  [[nodiscard]] const LinkFlowControl& flow_control() const { return fc_; }

  // PFC watchdog action drop on class `tc`: what waits in that queue and
  // whatever is later queued to it is discarded (counted as watchdog drops)
  // until it is restored.
  void set_watchdog_drop(uint8_t tc, bool on);
  [[nodiscard]] uint8_t watchdog_drop_mask() const { return wd_drop_; }

  // Queues a packet for transmission (the caller already admitted it).
  void enqueue(Packet* p);
  // Starts a transmission if the port is idle and has something to send.
  void kick();
  // Sends a link control frame (a PFC PAUSE) ahead of all queued data,
  // ignoring flow control (IEEE 802.1Qbb: control frames are never paused).
  // InfiniBand's FCPs are no packets: link/credit.h times them.
  void send_control_frame(Packet* p);
  // The peer sent PAUSE for `tc` with `quanta` (units of 512 bit times at this
  // port's rate; 0 resumes at once). No effect unless the link runs PFC.
  void apply_pause(uint8_t tc, uint32_t quanta);
  [[nodiscard]] bool paused(uint8_t tc) const;
  // A packet arrived on this port: counts it; if it is a link control frame,
  // the flow control consumes it and this returns true. A frame lost on the
  // wire is discarded here (counted, never seen by the flow control or the
  // node), and this returns true too.
  bool receive_frame(Packet* p);
  // A packet that arrived on this port left its node's buffer.
  void release(uint8_t cls, uint32_t wire) { fc_.on_release(*this, cls, wire); }
  // Time paused for `tc` up to `now` (pauses granted past `now` not counted).
  [[nodiscard]] Time paused_time(uint8_t tc, Time now) const;

  void on_event(uint32_t kind, uint64_t arg) override;

  // InfiniBand credit state, or nullptr when the link does not run credits.
  [[nodiscard]] CreditState* credit();
  [[nodiscard]] const CreditState* credit() const;
  // XmitWait up to `now`, counting a wait still in progress (port, or one VL);
  // zero unless the link runs credits.
  [[nodiscard]] Time xmit_wait(Time now) const;
  [[nodiscard]] Time vl_xmit_wait(int vl, Time now) const;

  // What the flow control uses of its port (see link/link_flow_control.h).
  // Takes the scheduler's next packet among `eligible` classes, or one
  // class's head, releasing it from the switch buffer.
  Packet* dequeue(uint32_t eligible);
  Packet* dequeue_class(int cls);
  // A packet from the NIC's scheduler among `eligible` classes, or nullptr.
  Packet* pull(uint32_t eligible) { return source_ != nullptr ? source_->pull(*this, eligible) : nullptr; }
  [[nodiscard]] bool has_source() const { return source_ != nullptr; }
  [[nodiscard]] bool source_has_more() const { return source_ != nullptr && source_->has_more(*this); }
  [[nodiscard]] bool at_switch() const { return sw_ != nullptr; }
  // The shared buffer of this port's switch (at_switch() only). Inline: the
  // PFC part asks for it on every packet a switch admits and releases.
  [[nodiscard]] Mmu& buffer() const { return *mmu_; }
  // This port sent PFC XOFF (or XON): the switch counts it.
  void note_pause_sent(bool xoff);
  void schedule_timer(Time at, uint32_t kind, uint64_t arg);
  [[nodiscard]] Time now() const;
  [[nodiscard]] Network& net() const { return net_; }

  [[nodiscard]] Node& owner() const { return owner_; }
  [[nodiscard]] Node* peer() const { return peer_; }
  [[nodiscard]] uint16_t index() const { return index_; }
  [[nodiscard]] uint16_t peer_index() const { return peer_index_; }
  [[nodiscard]] Rate rate() const { return rate_; }
  // A degraded link (a 400G port falling back to 200G): frames from now on
  // serialize at `r`; one being sent finishes at the old speed.
  void set_rate(Rate r) {
    rate_ = r;
    // Line rates divide 8e12 bit-ps (100G: 80 ps a byte), so the per-frame
    // division becomes one multiply with the same result.
    constexpr int64_t kBitPs = 8 * 1'000'000'000'000LL;
    ps_per_byte_ = r.bps() > 0 && kBitPs % r.bps() == 0 ? kBitPs / r.bps() : 0;
  }
  [[nodiscard]] Time delay() const { return delay_; }
  [[nodiscard]] const TcScheduler& queues() const { return queues_; }
  [[nodiscard]] PortCounters& counters() { return ctr_; }
  [[nodiscard]] const PortCounters& counters() const { return ctr_; }
  [[nodiscard]] bool up() const { return up_; }
  // Link state of this end. Going down loses what waits in this port's
  // queues and anything later routed to it (fault drops); packets already on
  // the wire still arrive. Coming up retrains the link: the flow control is
  // re-synchronised with the peer (IBTA Vol.1 §7.9.4.3 link initialisation),
  // so credits lost with the link come back.
  void set_up(bool up);
  [[nodiscard]] Time busy_until() const { return busy_until_; }
  // When a frame may start: after the one on the wire and any link control
  // frame sent without an event of its own (an InfiniBand FCP, hold_wire).
  [[nodiscard]] Time wire_free_at() const { return std::max(busy_until_, hold_until_); }
  void hold_wire(Time until) { hold_until_ = until; }
  // A link flow-control frame sent without a Packet leaves at `first_bit`:
  // a tap sees it.
  void note_link_frame(Time first_bit) {
    if (tap_ != nullptr) [[unlikely]]
      tap_->on_link_frame(*this, first_bit);
  }
  // The port at the other end of the link.
  [[nodiscard]] Port& peer_port() const;
  // When the last packet this port put on the wire has landed at the peer.
  [[nodiscard]] Time wire_clear_at() const;

 private:
  void transmit(Packet* p, Time now);
  // rate_.tx_time(b) for a frame-sized b.
  [[nodiscard]] Time ser_time(uint32_t b) const {
    return ps_per_byte_ != 0 ? Time::from_ps(ps_per_byte_ * b) : rate_.tx_time(Bytes(b));
  }
  // The TxDone event's argument, which the engine prefetches an event ahead:
  // what the next transmit decision reads first (the flow control's credit
  // lane, else the packet the queues will most likely send).
  [[nodiscard]] uint64_t decision_hint() const {
    const uint64_t h = fc_.decision_hint();
    return h != 0 ? h : reinterpret_cast<uint64_t>(queues_.likely_next());
  }
  void fault_drop(Packet* p);
  void watchdog_drop(Packet* p);

  // Laid out by how often a frame's hop reads a field: what every transmit
  // decision reads first, on the lines after the vtable pointer; then the
  // counters each frame bumps, the queues and the flow control; the rest
  // after. A k=8 fat-tree's 768 ports are about 1.2 MB, more than L2 holds,
  // and the hop is bound by the lines it touches, not by its instructions.
  Network& net_;
  Node* peer_ = nullptr;
  const RouteTable* peer_routes_ = nullptr;  // the peer's, when it is a switch
  Switch* sw_ = nullptr;
  Packet* ctrl_head_ = nullptr;  // control frames, sent before anything else
  Time busy_until_;
  Time delay_;
  // The peer's ingress latency and cut-through bytes, copied at connect:
  // every transmit adds them, and the peer node's line is cold by then.
  Time peer_latency_;
  int64_t ps_per_byte_ = 0;  // rate_'s exact time per byte, 0 when not whole
  Time hold_until_;
  // Frames on the wire that pay the peer's ingress latency, in sending order,
  // which is also their arrival order. Only the first has an event queued;
  // the others keep the sequence number they were given when sent, so the
  // order of events is the same as with one event each, and the queue holds
  // one entry per busy link instead of one per frame on a wire (at 8,192
  // hosts, most of its cache misses).
  struct InFlight {
    Time at;
    uint64_t seq;
    Packet* p;
  };
  Ring<InFlight> wire_;
  Time wire_last_;  // arrival of the last frame put in wire_
  double loss_ = 0.0;
  double ber_log_ = 0.0;  // log(1 - ber): negative when bit errors are on
  PacketSource* source_ = nullptr;
  PortTap* tap_ = nullptr;
  Rate rate_;
  uint32_t peer_ct_bytes_ = 0;
  uint16_t index_;
  uint16_t peer_index_ = 0;
  bool tx_pending_ = false;
  bool up_ = true;
  uint8_t wd_drop_ = 0;  // classes the PFC watchdog drops
  bool has_loss_stream_ = false;
  uint32_t max_payload_ = 0;
  PortCounters ctr_;
  TcScheduler queues_;
  LinkFlowControl fc_;  // next to the queues: both are read on every transmit decision
  Node& owner_;
  Mmu* mmu_ = nullptr;  // sw_'s buffer
  Packet* ctrl_tail_ = nullptr;
  Rng loss_rng_;
};

}  // namespace rdmasim
