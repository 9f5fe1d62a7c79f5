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
      const int role = static_cast<int>(arg & 1);
      active_[port].push_back(conn << 1 | static_cast<uint32_t>(role));
      ports_[port]->kick();
      break;
    }
    case kTransportTimer + kPaceWake: {
      const auto qp = static_cast<uint32_t>(arg >> 32);
      transport_->timing(qp).wake_pending = false;
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
  active_[port].push_back(conn << 1 | static_cast<uint32_t>(role));
  ports_[port]->kick();
}

Packet* Nic::pull(Port& port, uint32_t eligible) {
  auto& ring = active_[port.index()];
  for (size_t left = ring.size(); left > 0; --left) {
    const uint32_t e = ring.pop_front();
    const bool offload = e == kOffloadEntry;
    if (eligible != 0xff &&
        !((eligible >> (offload ? offload_->traffic_class() : transport_->traffic_class(e >> 1))) & 1u)) {
      ring.push_back(e);  // its class is paused by PFC: try the others
      continue;
    }
    bool more = false;
    Packet* p = offload ? offload_->next_packet(*this, port.index(), more)
                        : transport_->next_packet(e >> 1, static_cast<int>(e & 1), more);
    if (more) ring.push_back(e);
    if (p != nullptr) return p;
  }
  return nullptr;
}

}  // namespace rdmasim
