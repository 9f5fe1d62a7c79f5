#include "net/switch.h"

#include "net/network.h"

namespace rdmasim {

void Switch::on_event(uint32_t /*kind*/, uint64_t arg) {
  receive(reinterpret_cast<Packet*>(arg) /* NOLINT(performance-no-int-to-ptr) */);
}

void Switch::receive(Packet* p) {
  Port& in = *ports_[p->in_port];
  in.counters().rx_packets += 1;
  in.counters().rx_bytes += p->wire;
  const int out_idx = routes_.select(p->dst, p->flow_hash, ecmp_seed_);
  if (out_idx < 0) {
    ++ctr_.no_route_drops;
    in.counters().drop_packets[p->tc] += 1;
    in.counters().drop_bytes[p->tc] += p->wire;
    net_.drop(p);
    return;
  }
  Port& out = *ports_[out_idx];
  if (!mmu_.admit(out.index(), p->tc, p->wire)) {
    ++ctr_.buffer_drops;
    out.counters().drop_packets[p->tc] += 1;
    out.counters().drop_bytes[p->tc] += p->wire;
    net_.drop(p);
    return;
  }
  out.enqueue(p);
}

}  // namespace rdmasim
