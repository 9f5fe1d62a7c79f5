#include "transport/iwarp/iwarp.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "engine/rng.h"
#include "net/network.h"
#include "nic/nic.h"

namespace rdmasim {
namespace {

constexpr uint8_t kTcpProtocol = 6;

uint32_t tcp_hash(int src, int dst, uint16_t sport, uint16_t dport) {
  const uint64_t h =
      mix64(static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32 | static_cast<uint32_t>(dst));
  return static_cast<uint32_t>(
      mix64(h ^ (static_cast<uint64_t>(sport) << 24 | static_cast<uint64_t>(dport) << 8 | kTcpProtocol)));
}

}  // namespace

IwarpTransport::IwarpTransport(Network& net, const TcpConfig& cfg) : net_(net), cfg_(cfg) {
  framing_.ip_mtu = cfg.ip_mtu;
  framing_.timestamps = cfg.timestamps;
  framing_.markers = cfg.markers;
  rwnd_segs_ = std::max<uint64_t>(2, cfg.receive_window / framing_.mss());
}

uint64_t IwarpTransport::segments_for(Opcode op, int64_t bytes) const {
  const int64_t per = framing_.max_payload(op != Opcode::kSend);
  return bytes <= 0 ? 1u : static_cast<uint64_t>((bytes + per - 1) / per);
}

uint32_t IwarpTransport::forward_wire(Opcode op, int64_t bytes, uint64_t i) const {
  if (op == Opcode::kRead) return framing_.read_request_wire();
  const bool tagged = op != Opcode::kSend;
  const int64_t per = framing_.max_payload(tagged);
  const auto payload =
      static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * per, 0, per));
  return framing_.data_wire(payload, tagged);
}

uint32_t IwarpTransport::back_wire(Opcode op, int64_t bytes, uint64_t i) const {
  if (op != Opcode::kRead) return framing_.ack_wire();
  const int64_t per = framing_.max_payload(true);
  const auto payload =
      static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * per, 0, per));
  return framing_.data_wire(payload, true);
}

QpId IwarpTransport::create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) {
  TcpConnection& c = conns_.emplace_back();
  c.id = static_cast<uint32_t>(conns_.size() - 1);
  c.src = src;
  c.dst = dst;
  c.sink = sink;
  c.tc = tc;
  // An ephemeral source port per connection (RFC 6335 range), the listener's
  // port fixed: the 5-tuple ECMP hashes.
  const auto sport =
      static_cast<uint16_t>(49152 + mix64(net_.sim().seed() ^ (0x1ca7ull << 32) ^ c.id) % 16384);
  constexpr uint16_t kListenPort = 4420;  // assumption: any fixed service port; only the hash uses it
  c.flow_hash = tcp_hash(src, dst, sport, kListenPort);
  c.rev_hash = tcp_hash(dst, src, kListenPort, sport);
  c.src_nic_port = nics_[src]->select_port(dst, c.flow_hash);
  c.dst_nic_port = nics_[dst]->select_port(src, c.rev_hash);
  paths_.connect(c.id, c.flow_hash);
  if (cfg_.handshake) c.setup = TcpSetUp::kIdle;
  for (int d = 0; d < 2; ++d) {
    TcpHalf& h = c.half[d];
    h.rto = cfg_.min_rto;  // the handshake's RTT sample is far below it (tcp_config.h)
    h.cc.id = 2 * c.id + static_cast<uint32_t>(d);
    h.cc.host = sender(c, d);
    h.cc.line_rate = nics_[sender(c, d)]->port(sender_port(c, d)).rate();
    if (cc_) {
      cc_->on_connect(cc_view(h));
      apply_window(h);
    }
  }
  return c.id;
}

void IwarpTransport::set_congestion_control(std::unique_ptr<CongestionControl> cc) {
  cc_ = std::move(cc);
  if (cc_) cc_->attach(this);
  cc_reads_ece_ = cc_ && std::string_view(cc_->feedback()) == "ecn-echo";
}

void IwarpTransport::set_path_selector(PathSelector paths) {
  if (!conns_.empty()) throw std::logic_error("set_path_selector after the first QP");
  paths_ = std::move(paths);
}

void IwarpTransport::post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) {
  TcpMessage m;
  m.wr_id = wr_id;
  m.size = bytes;
  m.op = op;
  m.posted = net_.sim().now();
  TcpConnection& c = conns_[qp];
  post_message(c, 0, m, /*doorbell=*/true);
  if (c.setup == TcpSetUp::kIdle) {
    c.setup = TcpSetUp::kSynSent;
    c.setup_started = m.posted;
    send_setup(c, 1);
  }
}

void IwarpTransport::send_setup(TcpConnection& c, uint32_t step) {
  const bool from_requester = step == 1 || step == 3;
  Packet* p = net_.new_packet(PktType::kAck);
  p->flags = kFirst;  // on an ACK-type packet: a set-up segment, `aux` its step
  p->aux = step;
  p->conn = c.id;
  p->tc = c.tc;
  p->dst = from_requester ? c.dst : c.src;
  p->flow_hash = from_requester ? c.flow_hash : c.rev_hash;
  p->wire = static_cast<uint16_t>(step <= 2 ? framing_.syn_wire(cfg_.sack) : framing_.mpa_start_wire());
  const Time now = net_.sim().now();
  if (from_requester) {
    c.setup_sent = now;
    Time rto = TcpConfig::kInitialRto;
    for (uint32_t i = 0; i < c.setup_retries && rto < cfg_.max_rto; ++i) rto = rto * 2;
    nics_[c.src]->schedule_transport_timer(now + std::min(rto, cfg_.max_rto), 2 * c.id, kSetUpTimer,
                                           ++c.setup_sends);
  }
  nics_[from_requester ? c.src : c.dst]->send_control(from_requester ? c.src_nic_port : c.dst_nic_port, p);
}

void IwarpTransport::on_setup(TcpConnection& c, uint32_t step) {
  const Time now = net_.sim().now();
  switch (step) {
    case 1:  // a SYN (or its retransmission): the SYN-ACK answers every one
      send_setup(c, 2);
      break;
    case 2:
      if (c.setup != TcpSetUp::kSynSent) break;   // a duplicate
      rtt_sample(c.half[0], now - c.setup_sent);  // the handshake's RTT (RFC 6298 §2.2)
      c.setup = TcpSetUp::kMpaSent;
      c.setup_retries = 0;
      send_setup(c, 3);
      break;
    case 3:
      send_setup(c, 4);
      break;
    case 4:
      if (c.setup != TcpSetUp::kMpaSent) break;
      c.setup = TcpSetUp::kEstablished;
      c.setup_time = now - c.setup_started;
      activate(c, 0);
      break;
    default:
      break;
  }
}

void IwarpTransport::post_message(TcpConnection& c, int d, const TcpMessage& msg, bool doorbell) {
  TcpHalf& h = c.half[d];
  TcpMessage m = msg;
  m.first_seg = h.snd_end;
  m.end_seg = h.snd_end + (d == 0 ? forward_packets(m.op, m.size) : segments_for(m.op, m.size));
  h.snd_end = m.end_seg;
  h.msgs.push_back(m);
  activate(c, d, doorbell);
}

// A Send finds the receive buffer the application posted; iWARP has no RNR
// retry (a Send without one terminates the connection, RFC 5040 §7.3), and
// the workloads here always post ahead, so posted receives need no accounting.
void IwarpTransport::post_recv(QpId /*qp*/, int64_t /*n*/) {}

void IwarpTransport::activate(TcpConnection& c, int d, bool doorbell) {
  TcpHalf& h = c.half[d];
  if (h.active) return;
  h.active = true;
  nics_[sender(c, d)]->activate(sender_port(c, d), c.id, d, doorbell);
}

void IwarpTransport::apply_window(TcpHalf& h) {
  const int64_t seg = framing_.max_payload(true);
  h.ctr.max_cwnd_bytes = std::max(h.ctr.max_cwnd_bytes, h.cc.cwnd_bytes);
  h.cwnd_segs = h.cc.cwnd_bytes <= 0 ? 0 : static_cast<uint64_t>((h.cc.cwnd_bytes + seg - 1) / seg);
}

Packet* IwarpTransport::next_packet(QpId qp, int role, bool& more) {
  TcpConnection& c = conns_[qp];
  const int d = role;
  TcpHalf& h = c.half[d];
  const Time now = net_.sim().now();
  auto stop = [&]() -> Packet* {
    h.active = false;
    more = false;
    return nullptr;
  };
  if (c.setup != TcpSetUp::kEstablished) return stop();                         // the MPA Reply activates it
  if (h.retransmit != ~0ull && h.retransmit < h.snd_una) h.retransmit = ~0ull;  // acknowledged meanwhile
  const bool resend = h.retransmit != ~0ull;
  const bool sack_recovery = cfg_.sack && h.in_recovery;
  if (!resend && !sack_recovery && h.snd_nxt >= h.snd_end) return stop();
  if (nics_[sender(c, d)]->pacer_holds(h.timing, 2 * c.id + static_cast<uint32_t>(d), now)) return stop();
  uint64_t seg = h.retransmit;
  if (resend) {
    h.retransmit = ~0ull;  // the fast retransmit goes whatever the window (RFC 5681 §3.2 step 2)
    if (sack_recovery && h.rxt_next <= seg) h.rxt_next = seg + 1;
  } else if (sack_recovery) {
    // RFC 6675 §5 step (C): send while cwnd - pipe >= 1 segment.
    if (h.cwnd_segs != 0 && pipe(h) + 1 > h.cwnd_segs) return stop();
    seg = next_seg(h);
    if (seg == ~0ull) return stop();
  } else {
    // After a timeout the resend skips what the receiver SACKed (RFC 6675 §5.1).
    if (cfg_.sack)
      while (h.snd_nxt < h.snd_max && (h.sb.get(h.snd_nxt) & kSacked) != 0) ++h.snd_nxt;
    if (h.snd_nxt >= h.snd_end) return stop();
    // In NewReno fast recovery each duplicate ACK means a segment has left
    // the network, so it opens the window by one (RFC 5681 §3.2 step 4).
    const uint64_t flight = h.snd_nxt - h.snd_una;
    const uint64_t inflation = h.in_recovery ? h.dupacks : 0;
    const uint64_t cwnd = h.cwnd_segs == 0 ? ~0ull : h.cwnd_segs + inflation;
    if (flight >= std::min(cwnd, rwnd_segs_)) return stop();  // an ACK reactivates it
    seg = h.snd_nxt++;
  }
  Packet* p = build_segment(c, d, seg);
  if (sack_recovery && seg < h.snd_max) h.resent.push_back({seg, h.snd_max});
  if (seg < h.snd_max) {
    ++h.ctr.retransmitted;
    h.ctr.retransmitted_bytes += p->payload;
    if (h.in_recovery) ++h.ctr.fast_retransmits;
  }
  h.snd_max = std::max(h.snd_max, h.snd_nxt);
  Nic::pacer_sent(h.timing, h.cc.pace_rate, p->wire, now);
  if (cc_) {
    cc_->on_send(cc_view(h), p->payload);
    apply_window(h);
  }
  arm_timer(c, d);
  more = h.snd_nxt < h.snd_end || sack_recovery;
  if (!more) h.active = false;
  return p;
}

Packet* IwarpTransport::build_segment(TcpConnection& c, int d, uint64_t seg) {
  TcpHalf& h = c.half[d];
  const auto it = std::upper_bound(h.msgs.begin(), h.msgs.end(), seg,
                                   [](uint64_t v, const TcpMessage& m) { return v < m.end_seg; });
  const auto mi = static_cast<size_t>(it - h.msgs.begin());
  const TcpMessage& m = h.msgs[mi];
  const bool request = d == 0 && m.op == Opcode::kRead;
  const bool tagged = m.op != Opcode::kSend;
  const int64_t per = framing_.max_payload(tagged);
  const uint64_t k = seg - m.first_seg;
  const auto payload =
      request ? 0u
              : static_cast<uint32_t>(std::clamp<int64_t>(m.size - static_cast<int64_t>(k) * per, 0, per));
  Packet* p = net_.new_packet(PktType::kData);
  p->psn = seg;
  p->payload = static_cast<uint16_t>(payload);
  p->flags = static_cast<uint8_t>((cfg_.ecn ? kEct : 0) | (k == 0 ? kFirst : 0) |
                                  (seg + 1 == m.end_seg ? kLast : 0) | (d == 1 ? kReadResponse : 0));
  p->wire =
      static_cast<uint16_t>(request ? framing_.read_request_wire() : framing_.data_wire(payload, tagged));
  p->aux = static_cast<uint32_t>(mi);
  p->opcode = m.op;
  p->dst = receiver(c, d);
  p->conn = c.id;
  p->tc = c.tc;
  p->flow_hash = d == 0 ? paths_.entropy(c.id, c.flow_hash, p->psn) : c.rev_hash;
  ++h.ctr.segments_sent;
  return p;
}

void IwarpTransport::on_packet(Nic& /*nic*/, Packet* p) {
  TcpConnection& c = conns_[p->conn];
  const int d = (p->flags & kReadResponse) != 0 ? 1 : 0;
  if (p->type == PktType::kAck && (p->flags & kFirst) != 0) {
    on_setup(c, p->aux);
  } else if (p->type == PktType::kData) {
    // A Read Response's first segment acknowledges the requester's stream.
    if (d == 1 && (p->flags & kFirst) != 0) {
      const TcpMessage& r = c.half[1].msgs[p->aux];
      TcpAck a;
      a.next = r.ack;
      a.echo = r.ack_echo;
      a.pure = false;
      on_ack(c, 0, a);
    }
    on_data(c, d, p);
  } else if (p->type == PktType::kAck) {
    TcpAck a;
    a.next = p->psn;
    a.echo = p->sent_at;
    a.ece = (p->flags & kCe) != 0;
    if ((p->flags & kSack) != 0) {
      a.sack_begin = p->psn + (p->aux >> 16);
      a.sack_end = a.sack_begin + (p->aux & 0xffff);
    }
    on_ack(c, d, a);
  }
  net_.deliver(p);
}

void IwarpTransport::on_data(TcpConnection& c, int d, Packet* p) {
  TcpHalf& h = c.half[d];
  const bool ce = cfg_.ecn && (p->flags & kCe) != 0;
  if (cc_reads_ece_) {
    // RFC 8257 §3.2: a DCTCP receiver ACKs at once when the CE state of
    // arriving segments changes, so each ACK's ECE covers segments of one
    // state and the sender's marked fraction is exact under delayed ACKs.
    if (ce != h.ce_state) {
      if (h.unacked > 0) send_ack(c, d);
      h.ce_state = ce;
    }
  } else if (ce) {
    h.ce_pending = true;  // RFC 3168 §6.1.3: echo until acknowledged
  }
  const uint64_t seg = p->psn;
  if (seg != h.rcv_nxt) {
    if (seg < h.rcv_nxt) {
      send_ack(c, d);  // a duplicate: ACK at once (RFC 5681 §4.2)
      return;
    }
    if ((h.ooo.get(seg) & kSacked) == 0) {
      h.ooo.set(seg, kSacked);
      ++h.ctr.ooo_segments;  // DDP places it; delivery waits for the hole
    }
    if (!cfg_.sack) {
      send_ack(c, d);  // out of order: ACK at once (RFC 5681 §4.2)
      return;
    }
    // The block holding this segment (RFC 2018 §4: the first block reports
    // the most recent arrival). Arrivals usually extend the last block, so
    // it is rescanned only when they do not.
    if (seg == h.block_end && h.block_begin > h.rcv_nxt) {
      h.block_end = seg + 1;
    } else {
      h.block_begin = seg;
      while (h.block_begin > h.rcv_nxt + 1 && (h.ooo.get(h.block_begin - 1) & kSacked) != 0) --h.block_begin;
      h.block_end = seg + 1;
      while ((h.ooo.get(h.block_end) & kSacked) != 0) ++h.block_end;
    }
    send_ack(c, d, h.block_begin, h.block_end);
    return;
  }
  if (h.unacked == 0) h.echo_sent_at = p->sent_at;  // RFC 7323 §4.3: echo the oldest unacknowledged
  ++h.rcv_nxt;
  ++h.unacked;
  // A segment that fills all or part of a gap is acknowledged at once
  // (RFC 5681 §4.2), so fast recovery never waits for the delayed-ACK timer.
  const bool filled = !h.ooo.empty();
  while ((h.ooo.get(h.rcv_nxt) & kSacked) != 0) {
    ++h.rcv_nxt;
    ++h.unacked;
  }
  h.ooo.advance(h.rcv_nxt);
  bool message_end = false;
  const bool answered = deliver_messages(c, d, message_end);
  // Assumption: an RNIC acknowledges the segment that completes an RDMAP
  // message at once (DDP's Last flag), as RC responders do, so a message's
  // completion never waits for the delayed-ACK timer.
  if (filled || message_end || h.unacked >= cfg_.delayed_ack) {
    if (answered && !filled && !(cc_reads_ece_ ? h.ce_state : h.ce_pending)) {
      h.unacked = 0;  // the Read Response carries the ACK
      h.delack_due = Time::never();
    } else {
      send_ack(c, d);
    }
    return;
  }
  // One timer per direction, re-armed when it fires early, so a long flow
  // does not leave one pending event per segment pair for the timeout's length.
  if (h.unacked == 1) h.delack_due = net_.sim().now() + cfg_.delayed_ack_timeout;
  if (!h.delack_timer) {
    h.delack_timer = true;
    nics_[receiver(c, d)]->schedule_transport_timer(h.delack_due, 2 * c.id + static_cast<uint32_t>(d),
                                                    kDelayedAck);
  }
}

// Messages now wholly in order reach the application: a Write or Send is
// received; a Read Request starts its response on the other direction; a
// Read Response completes the Read it answers.
bool IwarpTransport::deliver_messages(TcpConnection& c, int d, bool& message_end) {
  TcpHalf& h = c.half[d];
  bool answered = false;
  const Time now = net_.sim().now();
  while (h.recv_msg < h.msgs.size() && h.msgs[h.recv_msg].end_seg <= h.rcv_nxt) {
    const size_t mi = h.recv_msg++;
    const TcpMessage& m = h.msgs[mi];
    message_end = true;
    if (d == 1) {
      const TcpMessage& req = c.half[0].msgs[m.wr_id];
      if (c.sink != nullptr)
        c.sink->on_complete(Completion{c.id, req.wr_id, Opcode::kRead, req.size, req.posted, now});
    } else if (m.op == Opcode::kRead) {
      TcpMessage resp;
      resp.wr_id = mi;
      resp.size = m.size;
      resp.op = Opcode::kRead;
      resp.posted = now;
      resp.ack = h.rcv_nxt;
      resp.ack_echo = h.unacked > 0 ? h.echo_sent_at : Time::zero();
      post_message(c, 1, resp, /*doorbell=*/true);  // new work for the responder's RNIC
      answered = true;
    } else if (c.sink != nullptr) {
      c.sink->on_receive(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
    }
  }
  return answered;
}

void IwarpTransport::send_ack(TcpConnection& c, int d, uint64_t sack_begin, uint64_t sack_end) {
  TcpHalf& h = c.half[d];
  Packet* a = net_.new_packet(PktType::kAck);
  a->psn = h.rcv_nxt;  // the next segment expected: TCP's cumulative acknowledgment
  a->sent_at = h.echo_sent_at;
  if (cc_reads_ece_ ? h.ce_state : h.ce_pending) {
    a->flags |= kCe;  // ECE
    h.ce_pending = false;
  }
  if (d == 1) a->flags |= kReadResponse;  // it acknowledges the responder's stream
  // The block travels as offsets from the cumulative ACK, 16 bits each; a
  // block too far ahead to encode is left out (a receive window that large
  // would need window scaling beyond what any RNIC offers here).
  if (sack_end > sack_begin && sack_begin - h.rcv_nxt < 0x10000 && sack_end - sack_begin < 0x10000) {
    a->flags |= kSack;
    a->aux = static_cast<uint32_t>((sack_begin - h.rcv_nxt) << 16 | (sack_end - sack_begin));
  }
  a->dst = sender(c, d);
  a->conn = c.id;
  a->tc = c.tc;  // a TCP ACK rides its connection's class
  a->flow_hash = d == 0 ? c.rev_hash : c.flow_hash;
  a->wire = static_cast<uint16_t>(framing_.ack_wire());
  ++h.ctr.acks_sent;
  h.unacked = 0;
  h.delack_due = Time::never();
  nics_[receiver(c, d)]->send_control(receiver_port(c, d), a);
}

void IwarpTransport::rtt_sample(TcpHalf& h, Time r) {
  ++h.ctr.rtt_samples;
  h.ctr.min_rtt = std::min(h.ctr.min_rtt, r);
  h.ctr.max_rtt = std::max(h.ctr.max_rtt, r);
  if (!h.rtt_valid) {
    h.srtt = r;
    h.rttvar = Time::from_ps(r.ps() / 2);  // RFC 6298 §2.2
    h.rtt_valid = true;
  } else {
    const int64_t diff = h.srtt.ps() > r.ps() ? h.srtt.ps() - r.ps() : r.ps() - h.srtt.ps();
    h.rttvar = Time::from_ps((3 * h.rttvar.ps() + diff) / 4);  // beta = 1/4 (RFC 6298 §2.3)
    h.srtt = Time::from_ps((7 * h.srtt.ps() + r.ps()) / 8);    // alpha = 1/8
  }
  const Time var = std::max(TcpConfig::kClockGranularity, Time::from_ps(4 * h.rttvar.ps()));
  h.rto = std::clamp(h.srtt + var, cfg_.min_rto, cfg_.max_rto);
}

Time IwarpTransport::current_rto(const TcpHalf& h) const {
  Time t = h.rto;
  for (uint32_t i = 0; i < h.backoff && t < cfg_.max_rto; ++i) t = t * 2;  // RFC 6298 §5.5
  return std::min(t, cfg_.max_rto);
}

void IwarpTransport::on_ack(TcpConnection& c, int d, const TcpAck& a) {
  TcpHalf& h = c.half[d];
  const Time now = net_.sim().now();
  const uint64_t ack = std::min(a.next, h.snd_max);
  const bool ece = a.ece;
  if (ece) ++h.ctr.ecn_echoes;
  if (ack > h.snd_una) {
    const uint64_t old_una = h.snd_una;
    h.snd_una = ack;
    if (h.snd_nxt < h.snd_una) h.snd_nxt = h.snd_una;
    if (cfg_.sack) sack_advance(h, old_una);
    if (a.echo > Time::zero()) rtt_sample(h, now - a.echo);
    h.backoff = 0;
    while (h.una_msg < h.msgs.size() && h.msgs[h.una_msg].end_seg <= h.snd_una) {
      const TcpMessage& m = h.msgs[h.una_msg++];
      // A Read completes when its response has arrived, not when its request is acknowledged.
      if (d == 0 && m.op != Opcode::kRead && c.sink != nullptr)
        c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
    }
    if (h.in_recovery && h.snd_una < h.recover) {
      if (!cfg_.sack)
        h.retransmit = h.snd_una;  // a partial ACK: the next hole goes now (RFC 6582 §3.2 step 3)
    } else {
      h.in_recovery = false;
      h.resent.clear();
      h.relost.clear();
    }
    h.dupacks = 0;
    if (h.snd_una < h.snd_max) Nic::push_deadline(h.timing, now + current_rto(h));  // RFC 6298 §5.3
  } else if (ack == h.snd_una && h.snd_una < h.snd_max && a.pure) {
    ++h.dupacks;
  }
  if (cfg_.sack && a.sack_end > a.sack_begin) sack_mark(h, a.sack_begin, a.sack_end);
  // Fast retransmit (RFC 5681 §3.2) on the third duplicate ACK, or with SACK
  // once the oldest segment IsLost (RFC 6675 §5); one reduction per episode
  // (RFC 6582, RFC 6675 §5.1).
  const bool dup_trigger = h.dupacks == cfg_.dupack_threshold;
  const bool sack_trigger = cfg_.sack && h.snd_una < h.snd_max && lost_below(h) > h.snd_una;
  if (!h.in_recovery && (dup_trigger || sack_trigger) && h.snd_una >= h.recover) {
    h.in_recovery = true;
    h.recover = h.snd_max;
    h.retransmit = h.snd_una;
    h.rxt_next = h.snd_una;
    h.sacked_below_rxt = 0;
    ++(cfg_.sack ? h.ctr.sack_recoveries : h.ctr.reno_recoveries);
    if (cc_) {
      cc_->on_loss(cc_view(h));
      apply_window(h);
    }
  }
  if (cc_) {
    cc_->on_ack(cc_view(h), AckSample{ack == 0 ? 0 : ack - 1, a.echo, ece, nullptr});
    // RFC 3168 §6.1.2: without an algorithm of its own for ECN-Echo, TCP
    // answers it as a loss, at most once per window (the algorithm's episode).
    if (ece && !cc_reads_ece_) cc_->on_loss(cc_view(h));
    apply_window(h);
  }
  if (d == 0) paths_.on_ack(c.id, PathAck{h.snd_una, h.snd_nxt, ece, h.snd_una < h.snd_max});
  if (h.snd_una < h.snd_end || h.retransmit != ~0ull) activate(c, d);
}

// Cumulative progress: scoreboard marks below the new snd_una leave the counts.
void IwarpTransport::sack_advance(TcpHalf& h, uint64_t old_una) {
  if (h.sacked != 0) {
    const uint64_t upto = std::min(h.snd_una, h.sb.end());
    for (uint64_t s = std::max(old_una, h.sb.base()); s < upto; ++s) {
      if ((h.sb.get(s) & kSacked) == 0) continue;
      --h.sacked;
      if (s < h.rxt_next) --h.sacked_below_rxt;
    }
    auto& top = h.top_sacked;
    top.erase(top.begin(), std::lower_bound(top.begin(), top.end(), h.snd_una));
  }
  h.sb.advance(h.snd_una);
  if (h.rxt_next < h.snd_una) h.rxt_next = h.snd_una;
}

void IwarpTransport::sack_mark(TcpHalf& h, uint64_t begin, uint64_t end) {
  // A block that grew at its top since the last one: only the new part is new.
  uint64_t from = begin;
  if (begin == h.last_sack_begin && h.last_sack_end > begin && end >= h.last_sack_end) from = h.last_sack_end;
  h.last_sack_begin = begin;
  h.last_sack_end = end;
  from = std::max(from, h.snd_una);
  end = std::min(end, h.snd_max);
  const size_t k = cfg_.dupack_threshold;
  for (uint64_t s = from; s < end; ++s) {
    if ((h.sb.get(s) & kSacked) != 0) continue;
    h.sb.set(s, kSacked);
    ++h.sacked;
    if (s < h.rxt_next) ++h.sacked_below_rxt;
    auto& top = h.top_sacked;
    if (top.size() < k) {
      top.insert(std::upper_bound(top.begin(), top.end(), s), s);
    } else if (s > top.front()) {
      top.erase(top.begin());
      top.insert(std::upper_bound(top.begin(), top.end(), s), s);
    }
  }
  // A SACKed segment that left after a retransmission that is still missing:
  // on one path, in order, that retransmission was lost.
  const uint64_t highest = h.top_sacked.empty() ? 0 : h.top_sacked.back();
  while (!h.resent.empty()) {
    const TcpHalf::Resent r = h.resent.front();
    if (r.seg < h.snd_una || (h.sb.get(r.seg) & kSacked) != 0) {
      h.resent.erase(h.resent.begin());  // it arrived
    } else if (!h.top_sacked.empty() && highest >= r.sent_before) {
      h.relost.push_back(r.seg);
      h.resent.erase(h.resent.begin());
    } else {
      break;  // later ones left later still
    }
  }
}

// RFC 6675 IsLost(S): at least DupThresh SACKed segments above S. Every
// unSACKed segment below the DupThresh-th highest SACKed one is lost.
uint64_t IwarpTransport::lost_below(const TcpHalf& h) const {
  return h.top_sacked.size() >= cfg_.dupack_threshold ? h.top_sacked.front() : h.snd_una;
}

// RFC 6675 SetPipe: each unSACKed segment not deemed lost counts once, and
// each unSACKed one at or below HighRxt once more (it was resent).
uint64_t IwarpTransport::pipe(const TcpHalf& h) const {
  const uint64_t unsacked = (h.snd_max - h.snd_una) - h.sacked;
  const uint64_t lost_end = lost_below(h);
  const uint64_t lost =
      lost_end > h.snd_una ? (lost_end - h.snd_una) - (h.sacked - cfg_.dupack_threshold) : 0;
  const uint64_t resent = h.rxt_next > h.snd_una ? (h.rxt_next - h.snd_una) - h.sacked_below_rxt : 0;
  // A retransmission found lost and not yet sent again is in flight no more.
  return unsacked - lost + resent - std::min<uint64_t>(h.relost.size(), unsacked - lost + resent);
}

// RFC 6675 NextSeg: (1) the first unSACKed lost segment above HighRxt;
// (2) new data the receive window admits; (3) the first unSACKed segment
// above HighRxt below the highest SACKed one. Rule (4), the rescue
// retransmission, is a MAY and left out.
uint64_t IwarpTransport::next_seg(TcpHalf& h) {
  auto skip_sacked = [&](uint64_t limit) {
    while (h.rxt_next < limit && (h.sb.get(h.rxt_next) & kSacked) != 0) {
      ++h.rxt_next;
      ++h.sacked_below_rxt;
    }
  };
  while (!h.relost.empty()) {
    const uint64_t r = h.relost.front();
    h.relost.erase(h.relost.begin());
    if (r >= h.snd_una && (h.sb.get(r) & kSacked) == 0) return r;
  }
  const uint64_t lost_end = lost_below(h);
  skip_sacked(lost_end);
  if (h.rxt_next < lost_end) return h.rxt_next++;
  if (h.snd_nxt < h.snd_end && h.snd_nxt - h.snd_una < rwnd_segs_) return h.snd_nxt++;
  const uint64_t high = h.top_sacked.empty() ? h.snd_una : h.top_sacked.back();
  skip_sacked(high);
  if (h.rxt_next < high) return h.rxt_next++;
  return ~0ull;
}

void IwarpTransport::arm_timer(TcpConnection& c, int d) {
  TcpHalf& h = c.half[d];
  if (h.timing.armed) return;
  nics_[sender(c, d)]->arm_deadline(h.timing, 2 * c.id + static_cast<uint32_t>(d),
                                    net_.sim().now() + current_rto(h));
}

void IwarpTransport::on_timer(QpId flow, uint32_t kind, uint32_t tag) {
  TcpConnection& c = conns_[flow >> 1];
  const int d = static_cast<int>(flow & 1);
  TcpHalf& h = c.half[d];
  switch (kind) {
    case Nic::kDeadline:
      on_rto(c, d);
      break;
    case kDelayedAck:
      h.delack_timer = false;
      if (h.unacked == 0) break;
      if (h.delack_due <= net_.sim().now()) {
        send_ack(c, d);
      } else {
        h.delack_timer = true;
        nics_[receiver(c, d)]->schedule_transport_timer(h.delack_due, flow, kDelayedAck);
      }
      break;
    case kCcTimer:
      if (cc_) {
        cc_->on_timer(cc_view(h), tag);
        apply_window(h);
      }
      break;
    case Nic::kPaceWake:
      activate(c, d);
      break;
    case kSetUpTimer:
      // The step sent then is still unanswered: send it again, the timer doubled.
      if (tag != c.setup_sends || (c.setup != TcpSetUp::kSynSent && c.setup != TcpSetUp::kMpaSent)) break;
      ++c.setup_retries;
      send_setup(c, c.setup == TcpSetUp::kSynSent ? 1 : 3);
      break;
    default:
      break;
  }
}

// The NIC calls this only once the deadline has passed with segments outstanding.
void IwarpTransport::on_rto(TcpConnection& c, int d) {
  TcpHalf& h = c.half[d];
  ++h.ctr.timeouts;
  ++h.backoff;
  if (d == 0) paths_.on_rto(c.id);
  if (cc_) {
    cc_->on_rto(cc_view(h));
    apply_window(h);
  }
  // Everything outstanding is presumed lost: resend from the oldest
  // unacknowledged segment in slow start (RFC 5681 §3.1), and a later
  // duplicate ACK for data sent before the timeout starts no new episode
  // (RFC 6582; RFC 6675 §5.1 sets RecoveryPoint to HighData likewise).
  h.in_recovery = false;
  h.dupacks = 0;
  h.recover = h.snd_max;
  h.retransmit = ~0ull;
  h.snd_nxt = h.snd_una;
  h.rxt_next = h.snd_una;
  h.sacked_below_rxt = 0;
  h.resent.clear();
  h.relost.clear();
  activate(c, d);
  arm_timer(c, d);
}

Time IwarpTransport::now() const { return net_.sim().now(); }

void IwarpTransport::schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) {
  const TcpConnection& c = conns_[f.id >> 1];
  nics_[sender(c, static_cast<int>(f.id & 1))]->schedule_transport_timer(at, f.id, kCcTimer, tag);
}

QpPath IwarpTransport::path(QpId qp) const {
  const TcpConnection& c = conns_[qp];
  return QpPath{c.src,      c.dst, c.src_nic_port, c.dst_nic_port, paths_.entropy(qp, c.flow_hash, 0),
                c.rev_hash, c.tc};
}

std::string IwarpTransport::check_invariants() const {
  for (const TcpConnection& c : conns_) {
    for (int d = 0; d < 2; ++d) {
      const TcpHalf& h = c.half[d];
      const std::string at = "TCP connection " + std::to_string(c.id) + " (" + std::to_string(sender(c, d)) +
                             " -> " + std::to_string(receiver(c, d)) + (d == 0 ? "" : ", read responses") +
                             "): ";
      if (!(h.snd_una <= h.snd_nxt && h.snd_nxt <= h.snd_max && h.snd_max <= h.snd_end))
        return at + "sequence out of order: una " + std::to_string(h.snd_una) + ", nxt " +
               std::to_string(h.snd_nxt) + ", max " + std::to_string(h.snd_max) + ", end " +
               std::to_string(h.snd_end);
      if (h.rcv_nxt < h.snd_una || h.rcv_nxt > h.snd_max)
        return at + "the receiver delivered " + std::to_string(h.rcv_nxt) + " segments, the sender saw " +
               std::to_string(h.snd_una) + " acknowledged of " + std::to_string(h.snd_max) + " sent";
      if (h.recv_msg < h.una_msg)
        return at + std::to_string(h.una_msg) + " messages completed but only " + std::to_string(h.recv_msg) +
               " delivered";
      uint64_t marks = 0;
      for (uint64_t s = h.sb.base(); s < h.sb.end(); ++s) marks += (h.sb.get(s) & kSacked) != 0 ? 1 : 0;
      if (h.sb.base() != h.snd_una && !h.sb.empty())
        return at + "the SACK scoreboard starts at " + std::to_string(h.sb.base()) + ", snd_una is " +
               std::to_string(h.snd_una);
      if (marks != h.sacked)
        return at + "the SACK scoreboard holds " + std::to_string(marks) + " marks but counts " +
               std::to_string(h.sacked);
    }
    // Each Read Request delivered has its response stream posted, one for one.
    size_t reads = 0;
    const TcpHalf& f = c.half[0];
    for (size_t i = 0; i < f.recv_msg; ++i) reads += f.msgs[i].op == Opcode::kRead ? 1 : 0;
    if (reads != c.half[1].msgs.size())
      return "TCP connection " + std::to_string(c.id) + ": " + std::to_string(reads) +
             " Read Requests delivered but " + std::to_string(c.half[1].msgs.size()) + " responses posted";
  }
  return {};
}

namespace {

double us_or_zero(Time t) { return t == Time::never() ? 0.0 : t.us(); }

}  // namespace

void IwarpTransport::report(nlohmann::ordered_json& results) const {
  TcpCounters t;
  uint64_t directions = 0;
  Time srtt_sum, setup_sum, setup_max;
  uint64_t srtt_n = 0, setups = 0, setup_retries = 0;
  for (const TcpConnection& c : conns_) {
    if (c.setup_time > Time::zero()) {
      ++setups;
      setup_sum = setup_sum + c.setup_time;
      setup_max = std::max(setup_max, c.setup_time);
    }
    setup_retries += c.setup_retries;
    for (const TcpHalf& h : c.half) {
      if (h.ctr.segments_sent == 0) continue;
      ++directions;
      t += h.ctr;
      if (h.rtt_valid) {
        srtt_sum = srtt_sum + h.srtt;
        ++srtt_n;
      }
    }
  }
  results["tcp"] = {
      {"connections", conns_.size()},
      {"directions_with_data", directions},
      {"sack", cfg_.sack},
      {"segments_sent", t.segments_sent},
      {"retransmitted_segments", t.retransmitted},
      {"retransmitted_bytes", t.retransmitted_bytes},
      {"fast_retransmits", t.fast_retransmits},
      {"timeouts", t.timeouts},
      {"reno_recoveries", t.reno_recoveries},
      {"sack_recoveries", t.sack_recoveries},
      {"acks_sent", t.acks_sent},
      {"out_of_order_segments", t.ooo_segments},
      {"ecn_echoes", t.ecn_echoes},
      {"rtt_samples", t.rtt_samples},
      {"min_rtt_us", us_or_zero(t.min_rtt)},
      {"max_rtt_us", t.max_rtt.us()},
      {"mean_final_srtt_us", srtt_n == 0 ? 0.0 : srtt_sum.us() / static_cast<double>(srtt_n)},
      {"handshake", cfg_.handshake},
      {"connections_set_up", setups},
      {"setup_us",
       {{"mean", setups == 0 ? 0.0 : setup_sum.us() / static_cast<double>(setups)}, {"max", setup_max.us()}}},
      {"setup_retransmissions", setup_retries},
      {"file", "tcp.csv"}};
}

IwarpTransport::Table IwarpTransport::connection_table() const {
  Table t{"tcp.csv",
          "conn,direction,src,dst,segments_sent,retransmitted_segments,retransmitted_bytes,fast_retransmits,"
          "timeouts,reno_recoveries,sack_recoveries,acks_sent,out_of_order_segments,ecn_echoes,rtt_samples,"
          "min_rtt_us,srtt_us,max_rtt_us,rto_us,cwnd_bytes,max_cwnd_bytes,setup_us\n"};
  for (const TcpConnection& c : conns_)
    for (int d = 0; d < 2; ++d) {
      const TcpHalf& h = c.half[d];
      if (h.ctr.segments_sent == 0) continue;
      const TcpCounters& k = h.ctr;
      t.csv += fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{:.3f}\n", c.id,
          d == 0 ? "requester" : "responder", sender(c, d), receiver(c, d), k.segments_sent, k.retransmitted,
          k.retransmitted_bytes, k.fast_retransmits, k.timeouts, k.reno_recoveries, k.sack_recoveries,
          k.acks_sent, k.ooo_segments, k.ecn_echoes, k.rtt_samples, us_or_zero(k.min_rtt),
          h.rtt_valid ? h.srtt.us() : 0.0, k.max_rtt.us(), current_rto(h).us(), h.cc.cwnd_bytes,
          k.max_cwnd_bytes, c.setup_time.us());
    }
  return t;
}

IwarpTransport::Table IwarpTransport::series_header() const {
  return {
      "tcp_timeseries.csv",
      "time_ns,conn,direction,cwnd_bytes,srtt_us,in_flight_segments,retransmitted_segments,in_recovery\n"};
}

void IwarpTransport::sample_series(Time now, std::string& rows) const {
  for (const TcpConnection& c : conns_)
    for (int d = 0; d < 2; ++d) {
      const TcpHalf& h = c.half[d];
      if (h.snd_una == h.snd_end) continue;  // idle: nothing to plot
      rows +=
          fmt::format("{:.3f},{},{},{},{:.3f},{},{},{}\n", now.ns(), c.id, d == 0 ? "requester" : "responder",
                      h.cc.cwnd_bytes, h.rtt_valid ? h.srtt.us() : 0.0, h.snd_nxt - h.snd_una,
                      h.ctr.retransmitted, h.in_recovery ? 1 : 0);
    }
}

QpStats IwarpTransport::stats(QpId qp) const {
  const TcpConnection& c = conns_[qp];
  QpStats s;
  for (const TcpHalf& h : c.half) {
    s.data_packets_sent += h.ctr.segments_sent;
    s.retransmitted_packets += h.ctr.retransmitted;
    s.retransmitted_bytes += h.ctr.retransmitted_bytes;
    s.timeouts += h.ctr.timeouts;
    s.acks_sent += h.ctr.acks_sent;
    s.out_of_order_placed += h.ctr.ooo_segments;
    s.in_order_received += h.rcv_nxt;
  }
  return s;
}

}  // namespace rdmasim
