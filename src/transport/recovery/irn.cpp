#include "transport/recovery/irn.h"

#include <algorithm>

#include "transport/rc.h"

namespace rdmasim {

Time Irn::rto(const RcConnection& c) const {
  const RcConfig& cfg = rc_.config();
  return c.snd_max - c.snd_una <= cfg.irn_low_packets ? cfg.irn_rto_low : cfg.irn_rto_high;
}

bool Irn::window_full(const RcConnection& c) const {
  const uint32_t w = rc_.config().irn_window;
  return w != 0 && c.snd_nxt - c.snd_una >= w;
}

bool Irn::retransmitting(const RcConnection& c) const { return c.in_recovery; }

uint64_t Irn::next_retransmission(RcConnection& c) {
  // The next hole below the highest SACKed PSN.
  uint64_t psn = std::max(c.retx_next, c.snd_una);
  while (psn < c.highest_sacked && psn - c.snd_una < c.sacked.size() && c.sacked[psn - c.snd_una]) ++psn;
  if (psn >= c.highest_sacked || psn >= c.snd_max) return kNone;
  c.retx_next = psn + 1;
  return psn;
}

void Irn::on_sack(RcConnection& c, uint64_t sacked_psn) {
  if (sacked_psn >= c.snd_una && sacked_psn < c.snd_max) {
    const uint64_t off = sacked_psn - c.snd_una;
    if (c.sacked.size() <= off) c.sacked.resize(off + 1, 0);
    c.sacked[off] = 1;
    c.highest_sacked = std::max(c.highest_sacked, sacked_psn + 1);
  }
  if (!c.in_recovery) {
    c.in_recovery = true;
    c.retx_next = c.snd_una;
    c.recovery_end = c.snd_max;
  }
}

bool Irn::on_advance(RcConnection& c, uint64_t moved) {
  if (moved >= c.sacked.size())
    c.sacked.clear();
  else
    c.sacked.erase(c.sacked.begin(), c.sacked.begin() + static_cast<std::ptrdiff_t>(moved));
  if (c.in_recovery && c.snd_una >= c.recovery_end) c.in_recovery = false;
  // The window (or a hole) may have held the requester back.
  return c.snd_nxt < c.snd_end || c.in_recovery;
}

bool Irn::on_timeout(RcConnection& c) {
  // Everything outstanding and not SACKed is presumed lost.
  c.in_recovery = true;
  c.retx_next = c.snd_una;
  c.highest_sacked = c.snd_max;
  c.recovery_end = c.snd_max;
  return true;
}

void Irn::on_data(RcConnection& c, Packet* p) {
  if (p->psn < c.epsn) {
    rc_.send_control(c, PktType::kAck, c.epsn - 1);  // duplicate
    return;
  }
  const uint64_t off = p->psn - c.epsn;
  if (c.ooo.size() <= off) c.ooo.resize(off + 1, 0);
  if (c.ooo[off]) return;  // already have it
  c.ooo[off] = 1;
  if (off != 0) {
    // Keep it, and tell the requester exactly what arrived (IRN's NACK).
    ++c.ctr.out_of_order_discards;  // counted as out of order, though kept
    ++c.ctr.naks_sent;
    rc_.send_control(c, PktType::kNak, c.epsn, kSack, static_cast<uint32_t>(p->psn - c.epsn));
    return;
  }
  while (!c.ooo.empty() && c.ooo.front()) {
    c.ooo.pop_front();
    ++c.epsn;
  }
  while (c.recv_msg < c.msgs.size() && c.msgs[c.recv_msg].end_psn <= c.epsn)
    rc_.report_received(c, c.msgs[c.recv_msg++]);
  rc_.send_control(c, PktType::kAck, c.epsn - 1);
}

}  // namespace rdmasim
