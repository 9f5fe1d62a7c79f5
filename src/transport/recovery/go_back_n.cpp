#include "transport/recovery/go_back_n.h"

#include "transport/rc.h"

namespace rdmasim {

void GoBackN::on_data(RcConnection& c, Packet* p) {
  if (p->psn == c.epsn) {
    if (p->opcode == Opcode::kSend && (p->flags & kFirst) && c.counted_recv) {
      if (c.recv_posted == 0) {
        // Receiver not ready: refuse the SEND; the requester retries it after
        // the RNR timer (IBTA Vol.1 §9.7.5.2.8).
        c.rnr_outstanding = true;
        ++c.ctr.rnr_naks_sent;
        rc_.send_control(c, PktType::kNak, c.epsn, kRnr);
        return;
      }
      --c.recv_posted;
    }
    ++c.epsn;
    c.nak_outstanding = false;
    c.rnr_outstanding = false;
    ++c.since_ack;
    const bool last = (p->flags & kLast) != 0;
    if (last) rc_.report_received(c, c.msgs[p->aux]);
    if (last || c.since_ack >= rc_.config().ack_interval) {
      c.since_ack = 0;
      rc_.send_control(c, PktType::kAck, c.epsn - 1);
    }
  } else if (p->psn > c.epsn && c.rnr_outstanding) {
    ++c.ctr.out_of_order_discards;  // the rest of a refused SEND: drop quietly
  } else if (p->psn > c.epsn) {
    // One NAK per sequence error: a responder NAKs only the first
    // out-of-sequence packet (IBTA Vol.1 §9.7.5.2.2); later losses of the
    // retransmission are recovered by the requester's timeout.
    ++c.ctr.out_of_order_discards;
    if (!c.nak_outstanding) {
      c.nak_outstanding = true;
      ++c.ctr.naks_sent;
      rc_.send_control(c, PktType::kNak, c.epsn);
    }
  } else {
    // A duplicate: the requester went back further than needed; re-ACK so it
    // learns where the responder is.
    rc_.send_control(c, PktType::kAck, c.epsn - 1);
  }
}

uint64_t message_start(const RcEngine& rc, const RcConnection& c, uint64_t psn) {
  const size_t mi = rc.message_of(c, psn);
  return mi < c.msgs.size() ? c.msgs[mi].first_psn : psn;
}

uint64_t GoBack0::rewind_point(const RcConnection& c, uint64_t psn) const {
  return message_start(rc_, c, psn);
}

void GoBack0::on_data(RcConnection& c, Packet* p) {
  if (p->opcode == Opcode::kSend) {
    GoBackN::on_data(c, p);
    return;
  }
  if (p->psn == c.epsn) {
    ++c.epsn;
    c.nak_outstanding = false;
    if ((p->flags & kLast) != 0) {
      rc_.report_received(c, c.msgs[p->aux]);
      rc_.send_control(c, PktType::kAck, c.epsn - 1);
    }
  } else if (p->psn > c.epsn) {
    ++c.ctr.out_of_order_discards;
    if (!c.nak_outstanding) {
      c.nak_outstanding = true;
      c.epsn = message_start(rc_, c, c.epsn);
      ++c.ctr.naks_sent;
      rc_.send_control(c, PktType::kNak, c.epsn);
    }
  } else {
    rc_.send_control(c, PktType::kAck, c.epsn - 1);  // a duplicate of a message already done
  }
}

uint64_t ReorderTolerant::rewind_point(const RcConnection& c, uint64_t psn) const {
  return whole_message_ ? message_start(rc_, c, psn) : psn;
}

void ReorderTolerant::on_data(RcConnection& c, Packet* p) {
  if (p->psn < c.epsn) {
    rc_.send_control(c, PktType::kAck, c.epsn - 1);  // a duplicate (after a timeout): say where we are
    return;
  }
  const uint64_t off = p->psn - c.epsn;
  if (c.ooo.size() <= off) c.ooo.resize(off + 1, 0);
  if (c.ooo[off]) return;
  c.ooo[off] = 1;
  if (off != 0) {
    ++c.ctr.out_of_order_placed;
    // Placed; the gap before it is most likely a packet on a longer path,
    // unless the path difference would have to be this many packets long.
    const uint32_t window = rc_.config().reorder_nak;
    if (window != 0 && off >= window && !c.nak_outstanding) {
      c.nak_outstanding = true;
      ++c.ctr.naks_sent;
      rc_.send_control(c, PktType::kNak, c.epsn);
    }
    return;
  }
  c.nak_outstanding = false;
  while (!c.ooo.empty() && c.ooo.front()) {
    c.ooo.pop_front();
    ++c.epsn;
    ++c.since_ack;
  }
  bool message_end = false;
  while (c.recv_msg < c.msgs.size() && c.msgs[c.recv_msg].end_psn <= c.epsn) {
    rc_.report_received(c, c.msgs[c.recv_msg++]);
    message_end = true;
  }
  if (message_end || c.since_ack >= rc_.config().ack_interval) {
    c.since_ack = 0;
    rc_.send_control(c, PktType::kAck, c.epsn - 1);
  }
}

}  // namespace rdmasim
