// One end of a link: the egress queues, the transmitter and its counters.
// A transmission puts the packet on the wire for its serialization time and
// schedules its arrival at the peer node; the peer's ingress latency and
// cut-through rule are folded into that one event.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "engine/event_queue.h"
#include "engine/units.h"
#include "link/credit.h"
#include "net/counters.h"
#include "net/packet.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

class Node;
class Network;
class Port;
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

class Port final : public EventHandler {
 public:
  static constexpr uint32_t kTxDone = 0;
  static constexpr uint32_t kResume = 1;       // a PFC pause may have expired
  static constexpr uint32_t kCreditBatch = 2;  // an IB credit-update period ended

  Port(Network& net, Node& owner, uint16_t index, Rate rate, Time delay)
      : net_(net), owner_(owner), rate_(rate), delay_(delay), index_(index) {}

  void connect(Node* peer, uint16_t peer_index) {
    peer_ = peer;
    peer_index_ = peer_index;
  }
  void set_source(PacketSource* s) { source_ = s; }
  // Packets leaving this port's queues are released from `sw`'s buffer.
  void set_switch(Switch* sw) { sw_ = sw; }
  void set_scheduler_config(const TcSchedulerConfig* c) { queues_.set_config(c); }

  // Queues a packet for transmission (the caller already admitted it).
  void enqueue(Packet* p);
  // Starts a transmission if the port is idle and has something to send.
  void kick();
  // Sends a MAC control frame (PFC PAUSE) ahead of all queued data, ignoring
  // pause state (IEEE 802.1Qbb: control frames are never paused).
  void send_control_frame(Packet* p);
  // The peer sent PAUSE for `tc` with `quanta` (units of 512 bit times at this
  // port's rate; 0 resumes at once).
  void apply_pause(uint8_t tc, uint32_t quanta);
  [[nodiscard]] bool paused(uint8_t tc) const;
  // A packet arrived on this port: counts it; if it is a PFC frame, applies
  // it to this port's transmitter, frees it and returns true.
  bool receive_frame(Packet* p);
  // Time paused for `tc` up to `now` (pauses granted past `now` not counted).
  [[nodiscard]] Time paused_time(uint8_t tc, Time now) const;

  void on_event(uint32_t kind, uint64_t arg) override;

  // InfiniBand link layer: this port's transmitter sends only with credit
  // from its peer, and it returns credits for what it receives. Call before
  // traffic, on both ends of the link; `capacity_blocks` is this port's
  // receive buffer per VL and `max_packet_bytes` the largest packet a NIC
  // source may hand it.
  void enable_credit(const CreditConfig* cfg, uint64_t capacity_blocks, uint32_t max_packet_bytes);
  // The peer's receive buffer: all of it is credit at link-up.
  void init_peer_credit(uint64_t peer_capacity_blocks);
  [[nodiscard]] CreditState* credit() { return credit_.get(); }
  [[nodiscard]] const CreditState* credit() const { return credit_.get(); }
  // A packet that arrived on this port left our buffer: its blocks are free.
  void credit_release(uint8_t vl, uint32_t wire);
  // XmitWait up to `now`, counting a wait still in progress (port, or one VL).
  [[nodiscard]] Time xmit_wait(Time now) const;
  [[nodiscard]] Time vl_xmit_wait(int vl, Time now) const;

  [[nodiscard]] Node& owner() const { return owner_; }
  [[nodiscard]] Node* peer() const { return peer_; }
  [[nodiscard]] uint16_t index() const { return index_; }
  [[nodiscard]] uint16_t peer_index() const { return peer_index_; }
  [[nodiscard]] Rate rate() const { return rate_; }
  [[nodiscard]] Time delay() const { return delay_; }
  [[nodiscard]] const TcScheduler& queues() const { return queues_; }
  [[nodiscard]] PortCounters& counters() { return ctr_; }
  [[nodiscard]] const PortCounters& counters() const { return ctr_; }
  [[nodiscard]] bool up() const { return up_; }
  // Link state of this end. Going down loses what waits in this port's
  // queues and anything later routed to it (fault drops); packets already on
  // the wire still arrive. Coming up retrains the link: on InfiniBand the
  // flow-control state is re-synchronised with the peer (IBTA Vol.1 §7.9.4.3
  // link initialisation), so credits lost with the link come back.
  void set_up(bool up);
  [[nodiscard]] Time busy_until() const { return busy_until_; }
  // When the last packet this port put on the wire has landed at the peer.
  [[nodiscard]] Time wire_clear_at() const;

 private:
  void transmit(Packet* p, Time now);
  uint32_t eligible_mask(Time now) const;
  void kick_credit(Time now);
  void queue_fcp(uint8_t vl);
  void note_wait(uint32_t blocked_vls, bool port_blocked, Time now);
  void credit_arrival(Packet* p);
  void fault_drop(Packet* p);

  Network& net_;
  Node& owner_;
  Node* peer_ = nullptr;
  PacketSource* source_ = nullptr;
  Switch* sw_ = nullptr;
  Packet* ctrl_head_ = nullptr;  // control frames, sent before anything else
  Packet* ctrl_tail_ = nullptr;
  TcScheduler queues_;
  std::array<Time, kNumTcs> paused_until_{};
  uint8_t pause_seen_ = 0;  // bit per class that has ever been paused (fast path)
  PortCounters ctr_;
  std::unique_ptr<CreditState> credit_;  // null unless the link layer is InfiniBand
  uint32_t max_packet_blocks_ = 0;
  Time busy_until_;
  Rate rate_;
  Time delay_;
  uint16_t index_;
  uint16_t peer_index_ = 0;
  bool tx_pending_ = false;
  bool up_ = true;
};

}  // namespace rdmasim
