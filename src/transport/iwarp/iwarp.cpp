#include "transport/iwarp/iwarp.h"

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
  const bool tagged = op != Opcode::kSend;
  const int64_t per = framing_.max_payload(tagged);
  const auto payload =
      static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * per, 0, per));
  return framing_.data_wire(payload, tagged);
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
  c.rto = cfg_.min_rto;  // the handshake's RTT sample is far below it (tcp_config.h)
  c.cc.id = c.id;
  c.cc.line_rate = nics_[src]->port(c.src_nic_port).rate();
  if (cc_) {
    cc_->on_connect(cc_view(c));
    apply_window(c);
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
  if (op == Opcode::kRead)
    throw std::invalid_argument("RDMA Read over iWARP is not modelled yet (use write or send)");
  TcpConnection& c = conns_[qp];
  TcpMessage m;
  m.wr_id = wr_id;
  m.size = bytes;
  m.op = op;
  m.posted = net_.sim().now();
  m.first_seg = c.snd_end;
  m.end_seg = c.snd_end + segments_for(op, bytes);
  c.snd_end = m.end_seg;
  c.msgs.push_back(m);
  activate(c, /*doorbell=*/true);
}

// A Send finds the receive buffer the application posted; iWARP has no RNR
// retry (a Send without one terminates the connection, RFC 5040 §7.3), and
// the workloads here always post ahead, so posted receives need no accounting.
void IwarpTransport::post_recv(QpId /*qp*/, int64_t /*n*/) {}

void IwarpTransport::activate(TcpConnection& c, bool doorbell) {
  if (c.requester_active) return;
  c.requester_active = true;
  nics_[c.src]->activate(c.src_nic_port, c.id, 0, doorbell);
}

void IwarpTransport::apply_window(TcpConnection& c) {
  const int64_t seg = framing_.max_payload(true);
  c.cwnd_segs = c.cc.cwnd_bytes <= 0 ? 0 : static_cast<uint64_t>((c.cc.cwnd_bytes + seg - 1) / seg);
}

Packet* IwarpTransport::next_packet(QpId qp, int /*role*/, bool& more) {
  TcpConnection& c = conns_[qp];
  const Time now = net_.sim().now();
  auto stop = [&]() -> Packet* {
    c.requester_active = false;
    more = false;
    return nullptr;
  };
  if (c.retransmit != ~0ull && c.retransmit < c.snd_una) c.retransmit = ~0ull;  // acknowledged meanwhile
  const bool resend = c.retransmit != ~0ull;
  if (!resend && c.snd_nxt >= c.snd_end) return stop();
  if (nics_[c.src]->pacer_holds(c.timing, c.id, now)) return stop();
  uint64_t seg = c.retransmit;
  if (resend) {
    c.retransmit = ~0ull;  // the fast retransmit goes whatever the window (RFC 5681 §3.2 step 2)
  } else {
    // In fast recovery each duplicate ACK means a segment has left the
    // network, so it opens the window by one (RFC 5681 §3.2 step 4).
    const uint64_t flight = c.snd_nxt - c.snd_una;
    const uint64_t inflation = c.in_recovery ? c.dupacks : 0;
    const uint64_t cwnd = c.cwnd_segs == 0 ? ~0ull : c.cwnd_segs + inflation;
    if (flight >= std::min(cwnd, rwnd_segs_)) return stop();  // an ACK reactivates it
    seg = c.snd_nxt++;
  }
  Packet* p = build_segment(c, seg);
  if (seg < c.snd_max) {
    ++c.ctr.retransmitted_packets;
    c.ctr.retransmitted_bytes += p->payload;
  }
  c.snd_max = std::max(c.snd_max, c.snd_nxt);
  Nic::pacer_sent(c.timing, c.cc.pace_rate, p->wire, now);
  if (cc_) {
    cc_->on_send(cc_view(c), p->payload);
    apply_window(c);
  }
  arm_timer(c);
  more = c.snd_nxt < c.snd_end;
  if (!more) c.requester_active = false;
  return p;
}

Packet* IwarpTransport::build_segment(TcpConnection& c, uint64_t seg) {
  const auto it = std::upper_bound(c.msgs.begin(), c.msgs.end(), seg,
                                   [](uint64_t v, const TcpMessage& m) { return v < m.end_seg; });
  const auto mi = static_cast<size_t>(it - c.msgs.begin());
  const TcpMessage& m = c.msgs[mi];
  const bool tagged = m.op != Opcode::kSend;
  const int64_t per = framing_.max_payload(tagged);
  const uint64_t k = seg - m.first_seg;
  const auto payload =
      static_cast<uint32_t>(std::clamp<int64_t>(m.size - static_cast<int64_t>(k) * per, 0, per));
  Packet* p = net_.new_packet(PktType::kData);
  p->psn = seg;
  p->payload = static_cast<uint16_t>(payload);
  p->flags = static_cast<uint8_t>((cfg_.ecn ? kEct : 0) | (k == 0 ? kFirst : 0) |
                                  (seg + 1 == m.end_seg ? kLast : 0));
  p->wire = static_cast<uint16_t>(framing_.data_wire(payload, tagged));
  p->aux = static_cast<uint32_t>(mi);
  p->opcode = m.op;
  p->dst = c.dst;
  p->conn = c.id;
  p->tc = c.tc;
  p->flow_hash = paths_.entropy(c.id, c.flow_hash);
  ++c.ctr.data_packets_sent;
  return p;
}

void IwarpTransport::on_packet(Nic& /*nic*/, Packet* p) {
  TcpConnection& c = conns_[p->conn];
  if (p->type == PktType::kData)
    on_data(c, p);
  else if (p->type == PktType::kAck)
    on_ack(c, *p);
  net_.deliver(p);
}

void IwarpTransport::on_data(TcpConnection& c, Packet* p) {
  if (cfg_.ecn && (p->flags & kCe)) c.fb.ce_since_ack = true;  // RFC 3168 §6.1.3: echo until acknowledged
  const uint64_t seg = p->psn;
  if (seg != c.rcv_nxt) {
    if (seg > c.rcv_nxt) {
      const uint64_t i = seg - c.rcv_nxt;
      if (c.ooo.size() <= i) c.ooo.resize(i + 1, 0);
      if (c.ooo[i] == 0) {
        c.ooo[i] = 1;
        ++c.ctr.out_of_order_placed;  // DDP places it; delivery waits for the hole
      }
    }
    send_ack(c);  // out of order or a duplicate: ACK at once (RFC 5681 §4.2)
    return;
  }
  if (c.unacked == 0) c.echo_sent_at = p->sent_at;  // RFC 7323 §4.3: echo the oldest unacknowledged
  ++c.rcv_nxt;
  ++c.unacked;
  // A segment that fills all or part of a gap is acknowledged at once
  // (RFC 5681 §4.2), so fast recovery never waits for the delayed-ACK timer.
  const bool filled = !c.ooo.empty();
  if (filled) c.ooo.pop_front();
  while (!c.ooo.empty() && c.ooo.front() != 0) {
    c.ooo.pop_front();
    ++c.rcv_nxt;
    ++c.unacked;
  }
  bool message_end = false;
  while (c.recv_msg < c.msgs.size() && c.msgs[c.recv_msg].end_seg <= c.rcv_nxt) {
    const TcpMessage& m = c.msgs[c.recv_msg++];
    message_end = true;
    if (c.sink != nullptr)
      c.sink->on_receive(Completion{c.id, m.wr_id, m.op, m.size, m.posted, net_.sim().now()});
  }
  // Assumption: an RNIC acknowledges the segment that completes an RDMAP
  // message at once (DDP's Last flag), as RC responders do, so a message's
  // completion never waits for the delayed-ACK timer.
  if (filled || message_end || c.unacked >= cfg_.delayed_ack) {
    send_ack(c);
    return;
  }
  // One timer per connection, re-armed when it fires early, so a long flow
  // does not leave one pending event per segment pair for the timeout's length.
  if (c.unacked == 1) c.delack_due = net_.sim().now() + cfg_.delayed_ack_timeout;
  if (!c.delack_timer) {
    c.delack_timer = true;
    nics_[c.dst]->schedule_transport_timer(c.delack_due, c.id, kDelayedAck);
  }
}

void IwarpTransport::send_ack(TcpConnection& c) {
  Packet* a = net_.new_packet(PktType::kAck);
  a->psn = c.rcv_nxt;  // the next segment expected: TCP's cumulative acknowledgment
  a->sent_at = c.echo_sent_at;
  if (c.fb.ce_since_ack) {
    a->flags |= kCe;  // ECE
    c.fb.ce_since_ack = false;
  }
  a->dst = c.src;
  a->conn = c.id;
  a->tc = c.tc;  // a TCP ACK rides its connection's class
  a->flow_hash = c.rev_hash;
  a->wire = static_cast<uint16_t>(framing_.ack_wire());
  ++c.ctr.acks_sent;
  c.unacked = 0;
  c.delack_due = Time::never();
  nics_[c.dst]->send_control(c.dst_nic_port, a);
}

void IwarpTransport::rtt_sample(TcpConnection& c, Time r) {
  if (!c.rtt_valid) {
    c.srtt = r;
    c.rttvar = Time::from_ps(r.ps() / 2);  // RFC 6298 §2.2
    c.rtt_valid = true;
  } else {
    const int64_t diff = c.srtt.ps() > r.ps() ? c.srtt.ps() - r.ps() : r.ps() - c.srtt.ps();
    c.rttvar = Time::from_ps((3 * c.rttvar.ps() + diff) / 4);  // beta = 1/4 (RFC 6298 §2.3)
    c.srtt = Time::from_ps((7 * c.srtt.ps() + r.ps()) / 8);    // alpha = 1/8
  }
  const Time var = std::max(TcpConfig::kClockGranularity, Time::from_ps(4 * c.rttvar.ps()));
  c.rto = std::clamp(c.srtt + var, cfg_.min_rto, cfg_.max_rto);
}

Time IwarpTransport::current_rto(const TcpConnection& c) const {
  Time t = c.rto;
  for (uint32_t i = 0; i < c.backoff && t < cfg_.max_rto; ++i) t = t * 2;  // RFC 6298 §5.5
  return std::min(t, cfg_.max_rto);
}

void IwarpTransport::on_ack(TcpConnection& c, const Packet& p) {
  const Time now = net_.sim().now();
  const uint64_t ack = std::min(p.psn, c.snd_max);
  const bool ece = (p.flags & kCe) != 0;
  if (ack > c.snd_una) {
    c.snd_una = ack;
    if (c.snd_nxt < c.snd_una) c.snd_nxt = c.snd_una;
    if (p.sent_at > Time::zero()) rtt_sample(c, now - p.sent_at);
    c.backoff = 0;
    while (c.una_msg < c.msgs.size() && c.msgs[c.una_msg].end_seg <= c.snd_una) {
      const TcpMessage& m = c.msgs[c.una_msg++];
      if (c.sink != nullptr) c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
    }
    if (c.in_recovery && c.snd_una < c.recover) {
      c.retransmit = c.snd_una;  // a partial ACK: the next hole goes now (RFC 6582 §3.2 step 3)
    } else {
      c.in_recovery = false;
    }
    c.dupacks = 0;
    if (c.snd_una < c.snd_max) Nic::push_deadline(c.timing, now + current_rto(c));  // RFC 6298 §5.3
  } else if (ack == c.snd_una && c.snd_una < c.snd_max) {
    ++c.dupacks;
    if (!c.in_recovery && c.dupacks == cfg_.dupack_threshold && c.snd_una >= c.recover) {
      // Fast retransmit (RFC 5681 §3.2); one reduction per episode (RFC 6582).
      c.in_recovery = true;
      c.recover = c.snd_max;
      c.retransmit = c.snd_una;
      ++c.fast_retransmits;
      if (cc_) {
        cc_->on_loss(cc_view(c));
        apply_window(c);
      }
    }
  }
  if (cc_) {
    cc_->on_ack(cc_view(c), AckSample{ack == 0 ? 0 : ack - 1, p.sent_at, ece, nullptr});
    // RFC 3168 §6.1.2: without an algorithm of its own for ECN-Echo, TCP
    // answers it as a loss, at most once per window (the algorithm's episode).
    if (ece && !cc_reads_ece_) cc_->on_loss(cc_view(c));
    apply_window(c);
  }
  paths_.on_ack(c.id, PathAck{c.snd_una, c.snd_nxt, ece, c.snd_una < c.snd_max});
  if (c.snd_una < c.snd_end || c.retransmit != ~0ull) activate(c);
}

void IwarpTransport::arm_timer(TcpConnection& c) {
  if (c.timing.armed) return;
  nics_[c.src]->arm_deadline(c.timing, c.id, net_.sim().now() + current_rto(c));
}

void IwarpTransport::on_timer(QpId qp, uint32_t kind, uint32_t tag) {
  TcpConnection& c = conns_[qp];
  switch (kind) {
    case Nic::kDeadline:
      on_rto(c);
      break;
    case kDelayedAck:
      c.delack_timer = false;
      if (c.unacked == 0) break;
      if (c.delack_due <= net_.sim().now()) {
        send_ack(c);
      } else {
        c.delack_timer = true;
        nics_[c.dst]->schedule_transport_timer(c.delack_due, c.id, kDelayedAck);
      }
      break;
    case kCcTimer:
      if (cc_) {
        cc_->on_timer(cc_view(c), tag);
        apply_window(c);
      }
      break;
    case Nic::kPaceWake:
      activate(c);
      break;
    default:
      break;
  }
}

// The NIC calls this only once the deadline has passed with segments outstanding.
void IwarpTransport::on_rto(TcpConnection& c) {
  ++c.ctr.timeouts;
  ++c.backoff;
  paths_.on_rto(c.id);
  if (cc_) {
    cc_->on_rto(cc_view(c));
    apply_window(c);
  }
  // Everything outstanding is presumed lost: resend from the oldest
  // unacknowledged segment in slow start (RFC 5681 §3.1), and a later
  // duplicate ACK for data sent before the timeout starts no new episode.
  c.in_recovery = false;
  c.dupacks = 0;
  c.recover = c.snd_max;
  c.retransmit = ~0ull;
  c.snd_nxt = c.snd_una;
  activate(c);
  arm_timer(c);
}

Time IwarpTransport::now() const { return net_.sim().now(); }

void IwarpTransport::schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) {
  nics_[conns_[f.id].src]->schedule_transport_timer(at, f.id, kCcTimer, tag);
}

QpPath IwarpTransport::path(QpId qp) const {
  const TcpConnection& c = conns_[qp];
  return QpPath{c.src,      c.dst, c.src_nic_port, c.dst_nic_port, paths_.entropy(qp, c.flow_hash),
                c.rev_hash, c.tc};
}

std::string IwarpTransport::check_invariants() const {
  for (const TcpConnection& c : conns_) {
    const std::string at = "TCP connection " + std::to_string(c.id) + " (" + std::to_string(c.src) + " -> " +
                           std::to_string(c.dst) + "): ";
    if (!(c.snd_una <= c.snd_nxt && c.snd_nxt <= c.snd_max && c.snd_max <= c.snd_end))
      return at + "sequence out of order: una " + std::to_string(c.snd_una) + ", nxt " +
             std::to_string(c.snd_nxt) + ", max " + std::to_string(c.snd_max) + ", end " +
             std::to_string(c.snd_end);
    if (c.rcv_nxt < c.snd_una || c.rcv_nxt > c.snd_max)
      return at + "the receiver delivered " + std::to_string(c.rcv_nxt) + " segments, the sender saw " +
             std::to_string(c.snd_una) + " acknowledged of " + std::to_string(c.snd_max) + " sent";
    if (c.recv_msg < c.una_msg)
      return at + std::to_string(c.una_msg) + " messages completed but only " + std::to_string(c.recv_msg) +
             " delivered";
  }
  return {};
}

QpStats IwarpTransport::stats(QpId qp) const {
  const TcpConnection& c = conns_[qp];
  QpStats s = c.ctr;
  s.in_order_received = c.rcv_nxt;
  return s;
}

}  // namespace rdmasim
