// A host's RDMA NIC: one or more ports, a round-robin scheduler over the
// connections that have something to send, and a receive-processing delay.
// Protocol state lives in the transport engine; the NIC moves packets.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ring.h"
#include "net/network.h"
#include "net/node.h"
#include "net/port.h"
#include "route/route_table.h"

namespace rdmasim {

class Transport;

struct NicConfig {
  Time rx_latency;  // packet in -> transport sees it (0: ideal NIC)
  Time tx_latency;  // doorbell -> first packet may leave (0: ideal NIC)
};

class Nic final : public Node, public PacketSource {
 public:
  static constexpr uint32_t kDoorbell = 2;
  // Transport timers use event kinds kTransportTimer + kind (kind < 16).
  static constexpr uint32_t kTransportTimer = 16;

  Nic(Network& net, int id, int host, std::string name, const NicConfig& cfg)
      : Node(net, id, NodeKind::kHost, std::move(name)), host_(host), cfg_(cfg) {
    set_forwarding(cfg.rx_latency, 0);
  }
  void set_transport(Transport* t) { transport_ = t; }
  void init_scheduler() { active_.resize(ports_.size()); }

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
  [[nodiscard]] bool has_more(const Port& port) const override { return !active_[port.index()].empty(); }

  // Transport hooks: a connection role has packets to send on `port`; a
  // doorbell first waits the NIC's tx latency.
  void activate(uint16_t port, uint32_t conn, int role, bool doorbell);
  // Sends a control packet (ACK/NAK) ahead of data.
  void send_control(uint16_t port, Packet* p) { ports_[port]->enqueue(p); }
  // Calls transport->on_timer(qp, kind, tag) at `at` (kind < 16).
  void schedule_transport_timer(Time at, uint32_t qp, uint32_t kind, uint32_t tag = 0) {
    net_.sim().schedule(at, this, kTransportTimer + (kind & 15), static_cast<uint64_t>(qp) << 32 | tag);
  }

 private:
  int host_;
  NicConfig cfg_;
  Transport* transport_ = nullptr;
  RouteTable routes_;
  std::vector<Ring<uint32_t>> active_;  // per port: conn << 1 | role
};

}  // namespace rdmasim
