// A host's RDMA NIC: one or more ports, a scheduler over the connections
// that have something to send (round robin within a traffic class, the
// port's ClassArbiter between classes), and a receive-processing delay.
// Protocol state lives in the transport engine; the NIC moves packets.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/ring.h"
#include "engine/rng.h"
#include "net/class_arbiter.h"
#include "net/network.h"
#include "net/node.h"
#include "net/port.h"
#include "nic/nic_jitter.h"
#include "nic/qp_timing.h"
#include "route/route_table.h"

namespace rdmasim {

class Nic;
class Transport;

// Traffic a NIC carries for something other than the transport (SHARP's
// streaming aggregation, whose peer is a switch): it takes turns with the
// transport's connections in the NIC's round robin, and receives the
// packets of its own type (PktType::kSharp).
class NicOffload {
 public:
  // The next packet for `port`, or nullptr; `more`: it has more to send now.
  virtual Packet* next_packet(Nic& nic, uint16_t port, bool& more) = 0;
  // Consumes `p`, which arrived at `nic` (after the NIC's receive latency).
  virtual void on_packet(Nic& nic, Packet* p) = 0;
  // The class (on InfiniBand, the SL) its packets are sent with.
  [[nodiscard]] virtual uint8_t traffic_class() const = 0;

 protected:
  ~NicOffload() = default;
};

struct NicConfig {
  Time rx_latency;   // packet in -> transport sees it (0: ideal NIC)
  Time tx_latency;   // doorbell -> first packet may leave (0: ideal NIC)
  NicJitter jitter;  // variable host/NIC delay on top of both (off: none)
};

class Nic final : public Node, public PacketSource {
 public:
  static constexpr uint32_t kDoorbell = 2;
  // A received packet reaches the transport after its host jitter; the link
  // layer (credits, PAUSE) took it at arrival.
  static constexpr uint32_t kDeliver = 3;
  // Transport timers use event kinds kTransportTimer + kind (kind < 16).
  static constexpr uint32_t kTransportTimer = 16;
  // The timer kinds the NIC runs for every transport (theirs are below):
  // Transport::on_timer(qp, kPaceWake) when a paced QP may send again, and
  // (qp, kDeadline) when its retransmission deadline has passed with packets
  // still outstanding.
  static constexpr uint32_t kPaceWake = 14;
  static constexpr uint32_t kDeadline = 15;

  Nic(Network& net, int id, int host, std::string name, const NicConfig& cfg)
      : Node(net, id, NodeKind::kHost, std::move(name)), host_(host), cfg_(cfg) {
    set_forwarding(cfg.rx_latency, 0);
    if (cfg.jitter.enabled) jitter_rng_ = net.sim().rng("nic-jitter/" + this->name());
  }
  void set_transport(Transport* t) { transport_ = t; }
  void set_offload(NicOffload* o) { offload_ = o; }
  // The offload has packets to send on `port`; `doorbell`: it was just
  // posted, and waits the NIC's tx latency first.
  void activate_offload(uint16_t port, bool doorbell) { activate(port, kOffloadConn, 0, doorbell); }
  // One scheduler per port, with the arbiter `make_arbiter` returns for it
  // (nullptr: classes take turns).
  void init_scheduler(const std::function<std::unique_ptr<ClassArbiter>()>& make_arbiter) {
    sched_.resize(ports_.size());
    for (auto& s : sched_) s.arbiter = make_arbiter();
  }

  [[nodiscard]] int host() const { return host_; }
  void set_routes(RouteTable t) { routes_ = std::move(t); }
  // The port a connection to `dst` leaves by (ECMP over a multi-port NIC).
  [[nodiscard]] uint16_t select_port(int dst, uint64_t flow_hash) const {
    if (ports_.size() <= 1) return 0;
    const int p = routes_.select(dst, flow_hash, 0);
    return static_cast<uint16_t>(p < 0 ? 0 : p);
  }
  [[nodiscard]] const NicConfig& config() const { return cfg_; }

  void on_event(uint32_t kind, uint64_t arg) override;
  Packet* pull(Port& port, uint32_t eligible) override;
  [[nodiscard]] bool has_more(const Port& port) const override { return sched_[port.index()].active != 0; }

  // Transport hooks: a connection role has packets to send on `port`; a
  // doorbell first waits the NIC's tx latency.
  void activate(uint16_t port, uint32_t conn, int role, bool doorbell);
  // Sends a control packet (ACK/NAK) ahead of data.
  void send_control(uint16_t port, Packet* p) { ports_[port]->enqueue(p); }
  // Pacing. True while `t` holds the QP back at `now`; the first hold
  // schedules one kPaceWake (the QP leaves the round robin until then).
  bool pacer_holds(QpTiming& t, uint32_t qp, Time now) {
    if (t.next_send <= now) return false;
    if (!t.wake_pending) {
      t.wake_pending = true;
      t.wake_at = t.next_send;
      schedule_transport_timer(t.next_send, qp, kPaceWake);
    }
    return true;
  }
  // A packet of `wire` bytes left at `now` under pacing `rate` (0: unpaced).
  static void pacer_sent(QpTiming& t, Rate rate, uint32_t wire, Time now) {
    if (rate.bps() <= 0) return;
    t.pace_from = std::max(t.next_send, now);
    t.pace_bps = rate.bps();
    t.pace_wire = wire;
    t.next_send = t.pace_from + rate.tx_time(Bytes(wire));
  }
  // Congestion control set the QP's pacing rate to `rate` (0: unpaced). A
  // rate limiter applies a new rate at once: the gap after the last packet
  // is re-timed at it, and a QP held for a longer gap wakes earlier (the
  // HPCC simulator's RdmaHw::ChangeRate moves nextAvail the same way). Kept
  // at the old rate, a QP cut to DCQCN's 1 Mb/s floor would sit out 33 ms
  // for one 4 KiB packet whatever its rate did meanwhile.
  void pacer_rate_changed(QpTiming& t, Rate rate, uint32_t qp, Time now) {
    if (!pacer_retime(t, rate)) return;
    t.wake_at = std::max(t.next_send, now);
    schedule_transport_timer(t.wake_at, qp, kPaceWake);  // the later event finds itself stale
  }
  // The re-timing alone: true when a held QP may now send before its wake-up.
  static bool pacer_retime(QpTiming& t, Rate rate) {
    if (t.pace_wire == 0 || rate.bps() == t.pace_bps) return false;
    t.pace_bps = rate.bps();
    t.next_send = rate.bps() > 0 ? t.pace_from + rate.tx_time(Bytes(t.pace_wire)) : t.pace_from;
    return t.wake_pending && t.next_send < t.wake_at;
  }
  // The retransmission deadline. arm_deadline schedules one event unless one
  // is pending; push_deadline moves the deadline later (on progress) without
  // an event: the pending one re-arms itself when it fires early.
  void arm_deadline(QpTiming& t, uint32_t qp, Time deadline) {
    if (t.armed) return;
    t.armed = true;
    t.deadline = deadline;
    schedule_transport_timer(deadline, qp, kDeadline);
  }
  static void push_deadline(QpTiming& t, Time deadline) { t.deadline = deadline; }

  // Calls transport->on_timer(qp, kind, tag) at `at` (kind < 16).
  void schedule_transport_timer(Time at, uint32_t qp, uint32_t kind, uint32_t tag = 0) {
    net_.sim().schedule(at, this, kTransportTimer + (kind & 15), static_cast<uint64_t>(qp) << 32 | tag);
  }

 private:
  // The round robin's entry (conn << 1 | role) for the offload: a conn no QP has.
  static constexpr uint32_t kOffloadConn = 0x7fffffffu;
  static constexpr uint32_t kOffloadEntry = kOffloadConn << 1;
  // Classes a NIC's connections are in: Ethernet TCs 0..7, InfiniBand SLs 0..15.
  static constexpr int kNumClasses = 16;
  struct PortScheduler {
    std::array<Ring<uint32_t>, kNumClasses> ready;  // per class: conn << 1 | role, round robin
    uint32_t active = 0;                            // bit per class with a non-empty ring
    std::unique_ptr<ClassArbiter> arbiter;
  };
  void receive(Packet* p);
  void enqueue(uint16_t port, uint32_t entry);
  Packet* pull_class(PortScheduler& s, int cls, uint16_t port);

  int host_;
  NicConfig cfg_;
  Transport* transport_ = nullptr;
  NicOffload* offload_ = nullptr;
  RouteTable routes_;
  std::vector<PortScheduler> sched_;  // per port
  Rng jitter_rng_;                    // drawn only with cfg_.jitter on
  Time rx_free_;                      // when the last received packet reaches the transport

  Time draw_jitter() { return cfg_.jitter.at(jitter_rng_.uniform01()); }
};

}  // namespace rdmasim
