#include "nic/nic.h"

#include "net/network.h"
#include "transport/transport.h"

namespace rdmasim {

void Nic::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kArrive: {
      Packet* p = reinterpret_cast<Packet*>(arg) /* NOLINT(performance-no-int-to-ptr) */;
      if (ports_[p->in_port]->receive_frame(p)) break;
      if (cfg_.jitter.enabled) [[unlikely]] {
        // In arrival order: never before the packet that arrived ahead of it.
        const Time now = net_.sim().now();
        rx_free_ = std::max(rx_free_, now + draw_jitter());
        if (rx_free_ > now) {
          net_.sim().schedule(rx_free_, this, kDeliver, arg);
          break;
        }
      }
      receive(p);
      break;
    }
    case kDeliver:
      receive(reinterpret_cast<Packet*>(arg) /* NOLINT(performance-no-int-to-ptr) */);
      break;
    case kDoorbell: {
      const auto conn = static_cast<uint32_t>(arg >> 17);
      const auto port = static_cast<uint16_t>((arg >> 1) & 0xffff);
      enqueue(port, conn << 1 | static_cast<uint32_t>(arg & 1));
      break;
    }
    case kTransportTimer + kPaceWake: {
      const auto qp = static_cast<uint32_t>(arg >> 32);
      QpTiming& t = transport_->timing(qp);
      // A rate rise re-timed the wake-up earlier: the event left at the old
      // time is stale.
      if (!t.wake_pending || net_.sim().now() != t.wake_at) break;
      t.wake_pending = false;
      transport_->on_timer(qp, kPaceWake, 0);
      break;
    }
    case kTransportTimer + kDeadline: {
      const auto qp = static_cast<uint32_t>(arg >> 32);
      QpTiming& t = transport_->timing(qp);
      t.armed = false;
      if (!transport_->outstanding(qp)) break;  // nothing to retransmit: the next send re-arms
      if (net_.sim().now() < t.deadline) {      // progress pushed it back since it was armed
        t.armed = true;
        schedule_transport_timer(t.deadline, qp, kDeadline);
        break;
      }
      transport_->on_timer(qp, kDeadline, 0);
      break;
    }
    default:
      if (kind >= kTransportTimer)
        transport_->on_timer(static_cast<uint32_t>(arg >> 32), kind - kTransportTimer,
                             static_cast<uint32_t>(arg & 0xffffffffu));
      break;
  }
}

void Nic::receive(Packet* p) {
  if (p->type == PktType::kSharp && offload_ != nullptr) [[unlikely]] {
    offload_->on_packet(*this, p);
    return;
  }
  transport_->on_packet(*this, p);
}

void Nic::activate(uint16_t port, uint32_t conn, int role, bool doorbell) {
  const Time delay = !doorbell             ? Time::zero()
                     : cfg_.jitter.enabled ? cfg_.tx_latency + draw_jitter()
                                           : cfg_.tx_latency;
  if (delay > Time::zero()) {
    net_.sim().schedule_in(
        delay, this, kDoorbell,
        static_cast<uint64_t>(conn) << 17 | static_cast<uint64_t>(port) << 1 | static_cast<uint64_t>(role));
    return;
  }
  enqueue(port, conn << 1 | static_cast<uint32_t>(role));
}

void Nic::enqueue(uint16_t port, uint32_t entry) {
  const uint32_t conn = entry >> 1;
  const int cls = (conn == kOffloadConn ? offload_->traffic_class() : transport_->traffic_class(conn)) &
                  (kNumClasses - 1);
  PortScheduler& s = sched_[port];
  s.ready[cls].push_back(entry);
  s.active |= 1u << cls;
  ports_[port]->kick();
}

Packet* Nic::pull(Port& port, uint32_t eligible) {
  PortScheduler& s = sched_[port.index()];
  // 0xff from an Ethernet link layer: every class may send (SLs 8..15 too).
  uint32_t ready = s.active & (eligible == 0xff ? ~0u : eligible);
  while (ready != 0) {
    const bool alone = (ready & (ready - 1)) == 0;
    int cls = alone || s.arbiter == nullptr ? -1 : s.arbiter->choose(ready);
    // One class ready needs no arbitration; a class no arbitration table
    // serves goes by class number.
    const bool arbitrated = cls >= 0;
    if (!arbitrated) cls = __builtin_ctz(ready);
    Packet* p = pull_class(s, cls, port.index());
    if (p != nullptr) {
      if (arbitrated) s.arbiter->charge(cls, p->wire);
      return p;
    }
    ready &= ~(1u << cls);  // nothing from this class now (paced, or waiting for a window)
  }
  return nullptr;
}

// Round robin over the class's connections: each turn yields at most one packet.
Packet* Nic::pull_class(PortScheduler& s, int cls, uint16_t port) {
  auto& ring = s.ready[cls];
  Packet* p = nullptr;
  for (size_t left = ring.size(); left > 0 && p == nullptr; --left) {
    const uint32_t e = ring.pop_front();
    bool more = false;
    p = e == kOffloadEntry ? offload_->next_packet(*this, port, more)
                           : transport_->next_packet(e >> 1, static_cast<int>(e & 1), more);
    if (more) ring.push_back(e);
  }
  if (ring.empty()) s.active &= ~(1u << cls);
  return p;
}

}  // namespace rdmasim
