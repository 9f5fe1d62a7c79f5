#include "transport/rc.h"

#include <algorithm>
#include <stdexcept>

#include "engine/rng.h"
#include "net/flow_hash.h"
#include "net/network.h"
#include "nic/nic.h"
#include "route/route_table.h"

namespace rdmasim {
namespace {

constexpr uint16_t kRoceUdpPort = 4791;  // IANA-assigned RoCEv2 port

}  // namespace

QpId RcEngine::create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) {
  RcConnection& c = conns_.emplace_back();
  c.id = static_cast<uint32_t>(conns_.size() - 1);
  c.src = src;
  c.dst = dst;
  c.sink = sink;
  c.tc = tc;
  if (route_header_) c.route_header = static_cast<uint8_t>(route_header_(src, dst));
  // RoCEv2 NICs derive the UDP source port from the QP number so that QPs
  // spread over ECMP paths (IBTA Annex A17 §A17.4.3); we hash the connection id.
  c.sport = static_cast<uint16_t>(49152 + mix64(net_.sim().seed() ^ (0xc0ffeeull << 32) ^ c.id) % 16384);
  c.flow_hash = udp_flow_hash(src, dst, c.sport, kRoceUdpPort);
  c.rev_hash = udp_flow_hash(dst, src, c.sport, kRoceUdpPort);
  c.src_nic_port = nics_[src]->select_port(dst, c.flow_hash);
  c.dst_nic_port = nics_[dst]->select_port(src, c.rev_hash);
  paths_.connect(c.id, c.flow_hash);
  c.cc.id = c.id;
  c.cc.host = src;
  c.cc.line_rate = nics_[src]->port(c.src_nic_port).rate();
  if (cc_) {
    cc_->on_connect(cc_view(c));
    apply_window(c);
  }
  return c.id;
}

void RcEngine::apply_window(RcConnection& c) {
  c.cwnd_packets =
      c.cc.cwnd_bytes <= 0 ? 0 : static_cast<uint64_t>((c.cc.cwnd_bytes + cfg_.mtu - 1) / cfg_.mtu);
  nics_[c.src]->pacer_rate_changed(c.timing, c.cc.pace_rate, c.id, net_.sim().now());
}

void RcEngine::set_path_selector(PathSelector paths) {
  if (!conns_.empty()) throw std::logic_error("set_path_selector after the first QP");
  paths_ = std::move(paths);
}

void RcEngine::post(QpId conn, Opcode op, int64_t bytes, uint64_t wr_id) {
  RcConnection& c = conns_[conn];
  RcMessage m;
  m.wr_id = wr_id;
  m.size = bytes;
  m.op = op;
  m.posted = net_.sim().now();
  m.first_psn = c.snd_end;
  m.end_psn = c.snd_end + packets_for(bytes);
  c.snd_end = m.end_psn;
  c.msgs.push_back(m);
  activate(c, 0, /*doorbell=*/true);
}

void RcEngine::post_recv(QpId conn, int64_t n) {
  RcConnection& c = conns_[conn];
  c.counted_recv = true;
  c.recv_posted += n;
}

void RcEngine::activate(RcConnection& c, int role, bool doorbell) {
  bool& flag = role == 0 ? c.requester_active : c.responder_active;
  if (flag) return;
  flag = true;
  if (role == 0)
    nics_[c.src]->activate(c.src_nic_port, c.id, 0, doorbell);
  else
    nics_[c.dst]->activate(c.dst_nic_port, c.id, 1, doorbell);
}

Packet* RcEngine::next_packet(QpId conn, int role, bool& more) {
  RcConnection& c = conns_[conn];
  const Framing& fr = net_.framing();
  if (role == 1) {
    // READ responder: stream the front requested range back to the requester.
    if (c.read_ranges.empty()) {
      c.responder_active = false;
      more = false;
      return nullptr;
    }
    auto& r = c.read_ranges.front();
    Packet* p = net_.new_packet(PktType::kData);
    const bool first = r.next_psn == c.msgs[r.msg].first_psn;
    const auto payload = static_cast<uint32_t>(std::min<int64_t>(cfg_.mtu, r.remaining));
    p->psn = r.next_psn;
    p->payload = static_cast<uint16_t>(payload);
    p->flags = kReadResponse | (r.next_psn + 1 == r.end_psn ? kLast : 0) | (first ? kFirst : 0);
    // READ response First/Last/Only carry an AETH (IBTA Vol.1 §9.3.5).
    p->wire = static_cast<uint16_t>(
        fr.data_wire(payload + ((p->flags & (kFirst | kLast)) ? fr.aeth : 0), false) + c.route_header);
    p->aux = static_cast<uint32_t>(r.msg);
    p->dst = c.src;
    p->conn = c.id;
    p->tc = c.tc;
    p->flow_hash = c.rev_hash;
    p->opcode = Opcode::kRead;
    ++r.next_psn;
    r.remaining -= payload;
    if (r.next_psn == r.end_psn) c.read_ranges.pop_front();
    more = !c.read_ranges.empty();
    if (!more) c.responder_active = false;
    return p;
  }

  const Time now = net_.sim().now();
  const bool irn_holes = recovery_->retransmitting(c);
  if ((c.snd_nxt >= c.snd_end && !irn_holes) || c.rnr_wait_until > now) {
    c.requester_active = false;  // an RNR wait ends with on_rnr_retry()
    more = false;
    return nullptr;
  }
  if (nics_[c.src]->pacer_holds(c.timing, c.id, now)) {
    // Rate-limited by congestion control: out of the NIC's round robin until
    // the pacer's wake-up.
    c.requester_active = false;
    more = false;
    return nullptr;
  }
  if (irn_holes) {
    // Selective repeat: resend the next hole the strategy names.
    const uint64_t psn = recovery_->next_retransmission(c);
    if (psn != Recovery::kNone) {
      Packet* p = build_data(c, psn);
      ++c.ctr.retransmitted_packets;
      c.ctr.retransmitted_bytes += p->payload;
      Nic::pacer_sent(c.timing, c.cc.pace_rate, p->wire, now);
      if (cc_) {
        cc_->on_send(cc_view(c), p->payload);
        apply_window(c);
      }
      arm_timer(c);
      more = true;
      return p;
    }
  }
  if (c.snd_nxt >= c.snd_end) {
    c.requester_active = false;  // only retransmissions were pending
    more = false;
    return nullptr;
  }
  if (recovery_->window_full(c) || (c.cwnd_packets != 0 && c.snd_nxt - c.snd_una >= c.cwnd_packets)) {
    c.requester_active = false;  // window full: an ACK reactivates it
    more = false;
    return nullptr;
  }
  while (c.snd_nxt >= c.msgs[c.nxt_msg].end_psn) ++c.nxt_msg;
  while (c.snd_nxt < c.msgs[c.nxt_msg].first_psn) --c.nxt_msg;
  const RcMessage& m = c.msgs[c.nxt_msg];
  Packet* p;
  if (m.op == Opcode::kRead) {
    p = net_.new_packet(PktType::kReadRequest);
    p->psn = c.snd_nxt;
    p->aux = static_cast<uint32_t>(c.nxt_msg);  // the RETH's length gives the responder m.end_psn
    p->payload = 0;
    p->wire = static_cast<uint16_t>(fr.read_request_wire() + c.route_header);
    c.snd_nxt = m.end_psn;
    p->opcode = m.op;
    p->dst = c.dst;
    p->conn = c.id;
    p->tc = c.tc;
    p->flow_hash = paths_.entropy(c.id, c.flow_hash, p->psn);
  } else {
    p = build_data(c, c.snd_nxt);
    ++c.snd_nxt;
  }
  if (p->psn < c.snd_max) {
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

size_t RcEngine::message_of(const RcConnection& c, uint64_t psn) const {
  const auto it = std::upper_bound(c.msgs.begin(), c.msgs.end(), psn,
                                   [](uint64_t v, const RcMessage& m) { return v < m.end_psn; });
  return static_cast<size_t>(it - c.msgs.begin());
}

namespace {

uint32_t payload_of(int64_t bytes, uint64_t i, uint32_t mtu) {
  return static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * mtu, 0, mtu));
}

}  // namespace

uint32_t RcEngine::forward_wire(Opcode op, int64_t bytes, uint64_t i) const {
  const Framing& fr = net_.framing();
  if (op == Opcode::kRead) return fr.read_request_wire();
  return fr.data_wire(payload_of(bytes, i, cfg_.mtu), op == Opcode::kWrite && i == 0);
}

uint32_t RcEngine::back_wire(Opcode op, int64_t bytes, uint64_t i) const {
  const Framing& fr = net_.framing();
  if (op != Opcode::kRead) return fr.ack_wire();
  // READ response First/Last/Only carry an AETH (IBTA Vol.1 §9.3.5).
  const bool edge = i == 0 || i + 1 == packets_for(bytes);
  return fr.data_wire(payload_of(bytes, i, cfg_.mtu) + (edge ? fr.aeth : 0), false);
}

Packet* RcEngine::build_data(RcConnection& c, uint64_t psn) {
  const RcMessage& cur = c.msgs[c.nxt_msg];
  const size_t mi = psn >= cur.first_psn && psn < cur.end_psn ? c.nxt_msg : message_of(c, psn);
  const RcMessage& m = c.msgs[mi];
  const uint64_t k = psn - m.first_psn;
  Packet* p = net_.new_packet(PktType::kData);
  const int64_t offset = static_cast<int64_t>(k) * cfg_.mtu;
  const auto payload = static_cast<uint32_t>(std::clamp<int64_t>(m.size - offset, 0, cfg_.mtu));
  p->psn = psn;
  p->payload = static_cast<uint16_t>(payload);
  // RoCEv2 NICs send data ECN-capable (ECT) so switches can mark it.
  p->flags = static_cast<uint8_t>(kEct | (k == 0 ? kFirst : 0) | (psn + 1 == m.end_psn ? kLast : 0));
  p->wire = static_cast<uint16_t>(net_.framing().data_wire(payload, m.op == Opcode::kWrite && k == 0) +
                                  c.route_header);
  p->aux = static_cast<uint32_t>(mi);
  if (int_enabled_) p->int_slot = net_.telemetry().acquire();
  p->opcode = m.op;
  p->dst = c.dst;
  p->conn = c.id;
  p->tc = c.tc;
  p->flow_hash = paths_.entropy(c.id, c.flow_hash, psn);
  ++c.ctr.data_packets_sent;
  return p;
}

void RcEngine::on_packet(Nic& nic, Packet* p) {
  RcConnection& c = conns_[p->conn];
  switch (p->type) {
    case PktType::kData:
      if (p->flags & kReadResponse)
        on_read_response(c, p);
      else
        on_data(c, p);
      break;
    case PktType::kAck: {
      // The echoed INT stack was last written at the data's last hop and has
      // left the cache since: load it while the ACK's own processing runs
      // (HPCC input: 1.5-1.8% less wall time, docs/PERFORMANCE.md).
      if (p->int_slot != 0) net_.telemetry().prefetch(p->int_slot);
      const bool moved = on_ack(c, p->psn);
      if (cc_) {
        const AckSample a{p->psn, p->sent_at, (p->flags & kCe) != 0,
                          p->int_slot != 0 ? &net_.telemetry().read(p->int_slot) : nullptr};
        cc_->on_ack(cc_view(c), a);
        apply_window(c);
      }
      paths_.on_ack(c.id, PathAck{c.acked_upto, c.snd_nxt, (p->flags & kCe) != 0, c.snd_una < c.snd_max});
      if (moved) activate(c, 0);
      break;
    }
    case PktType::kNak:
      if (p->flags & kRnr) {
        ++c.ctr.rnr_naks_received;
        if (p->psn > 0) (void)on_ack(c, p->psn - 1);  // everything before the refused SEND arrived
        c.snd_nxt = p->psn;
        c.rnr_wait_until = net_.sim().now() + cfg_.rnr_timer;
        nic.schedule_transport_timer(c.rnr_wait_until, c.id, kRnrTimer);
      } else {
        // A reported hole: congestion control reacts before the resend leaves.
        ++c.ctr.naks_received;
        if (cc_) {
          cc_->on_loss(cc_view(c));
          apply_window(c);
        }
        if (p->flags & kSack)
          on_sack(c, p->psn, p->psn + p->aux);
        else
          on_nak(c, p->psn);
      }
      break;
    case PktType::kReadRequest:
      on_read_request(c, p);
      break;
    case PktType::kCnp:
      ++c.cnps_received;
      if (cc_) {
        cc_->on_cnp(cc_view(c));
        apply_window(c);
      }
      break;
    default:
      break;
  }
  net_.deliver(p);
}

void RcEngine::on_data(RcConnection& c, Packet* p) {
  if (feedback_->on_data(c.fb, *p, net_.sim().now())) {
    ++c.fb.cnps_sent;
    send_control(c, PktType::kCnp, 0);
  }
  recovery_->on_data(c, p);
}

void RcEngine::on_sack(RcConnection& c, uint64_t cumulative, uint64_t sacked_psn) {
  if (cumulative > 0) (void)on_ack(c, cumulative - 1);  // activated below, once the SACK is recorded
  recovery_->on_sack(c, sacked_psn);
  activate(c, 0);
}

void RcEngine::on_read_request(RcConnection& c, Packet* p) {
  if (p->psn > c.epsn) {
    if (!c.nak_outstanding) {
      c.nak_outstanding = true;
      ++c.ctr.naks_sent;
      send_control(c, PktType::kNak, c.epsn);
    }
    return;
  }
  if (p->psn < c.epsn) c.read_ranges.clear();  // a retried READ restarts the response stream
  c.nak_outstanding = false;
  // The RETH carries the length still to read; the shared message table
  // gives the same number.
  const size_t mi = p->aux;
  const RcMessage& m = c.msgs[mi];
  c.epsn = std::max(c.epsn, m.end_psn);
  const int64_t remaining =
      std::max<int64_t>(0, m.size - static_cast<int64_t>(p->psn - m.first_psn) * cfg_.mtu);
  c.read_ranges.push_back(RcConnection::ReadRange{p->psn, m.end_psn, remaining, mi});
  activate(c, 1, /*doorbell=*/true);  // the responder NIC schedules a new READ response
}

void RcEngine::on_read_response(RcConnection& c, Packet* p) {
  if (c.una_msg >= c.msgs.size() || c.msgs[c.una_msg].op != Opcode::kRead) return;  // stale
  if (p->psn == c.snd_una) {
    ++c.snd_una;
    c.rto_exp = 0;
    c.retries = 0;
    Nic::push_deadline(c.timing, net_.sim().now() + recovery_->rto(c));
    const RcMessage& m = c.msgs[c.una_msg];
    if (c.snd_una == m.end_psn) {
      ++c.una_msg;
      complete(c, m);
      bool progressed = false;
      advance_una(c, progressed);
    }
  } else if (p->psn > c.snd_una && c.read_retry_psn != c.snd_una) {
    // A response went missing: re-issue the READ from the first missing PSN.
    c.read_retry_psn = c.snd_una;
    go_back(c, c.snd_una);
  }
}

void RcEngine::advance_una(RcConnection& c, bool& progressed) {
  while (c.una_msg < c.msgs.size() && c.snd_una < c.acked_upto) {
    const RcMessage& m = c.msgs[c.una_msg];
    if (m.op == Opcode::kRead) break;  // completes only when its data has arrived
    c.snd_una = std::min(m.end_psn, c.acked_upto);
    progressed = true;
    if (c.snd_una == m.end_psn) {
      ++c.una_msg;
      complete(c, m);
    }
  }
  if (c.snd_nxt < c.snd_una) c.snd_nxt = c.snd_una;
}

bool RcEngine::on_ack(RcConnection& c, uint64_t last_psn) {
  if (last_psn + 1 <= c.acked_upto) return false;
  c.acked_upto = last_psn + 1;
  const uint64_t old_una = c.snd_una;
  bool progressed = false;
  advance_una(c, progressed);
  if (progressed) {
    c.rto_exp = 0;
    c.retries = 0;
    Nic::push_deadline(c.timing, net_.sim().now() + recovery_->rto(c));
    // Reactivate when the strategy's window or a window from congestion
    // control held the requester back.
    const bool held = recovery_->on_advance(c, c.snd_una - old_una);
    return held || (c.cwnd_packets != 0 && c.snd_nxt < c.snd_end);
  }
  return false;
}

void RcEngine::on_nak(RcConnection& c, uint64_t expected_psn) {
  const bool moved = expected_psn > 0 && on_ack(c, expected_psn - 1);
  // Rewind before the requester may send again, so that nothing past the gap leaves first.
  if (expected_psn < c.snd_nxt && expected_psn >= c.snd_una)
    go_back(c, expected_psn);
  else if (moved)
    activate(c, 0);
}

void RcEngine::go_back(RcConnection& c, uint64_t psn) {
  c.snd_nxt = recovery_->rewind_point(c, psn);
  activate(c, 0);
}

void RcEngine::send_control(RcConnection& c, PktType t, uint64_t psn, uint8_t flags, uint32_t aux) {
  Packet* p = net_.new_packet(t);
  p->psn = psn;
  p->flags = flags;
  p->aux = aux;
  if (t == PktType::kAck) feedback_->on_ack(c.fb, *p);  // congestion control reads ACKs only
  p->dst = c.src;
  p->conn = c.id;
  p->tc = cfg_.ack_tc;
  p->flow_hash = c.rev_hash;
  p->wire = static_cast<uint16_t>(
      (t == PktType::kCnp ? net_.framing().cnp_wire() : net_.framing().ack_wire()) + c.route_header);
  if (t == PktType::kAck) ++c.ctr.acks_sent;
  nics_[c.dst]->send_control(c.dst_nic_port, p);
}

void RcEngine::arm_timer(RcConnection& c) {
  if (c.timing.armed) return;
  nics_[c.src]->arm_deadline(c.timing, c.id,
                             net_.sim().now() + recovery_->rto(c) * (int64_t{1} << c.rto_exp));
}

void RcEngine::on_timer(QpId qp, uint32_t kind, uint32_t tag) {
  RcConnection& c = conns_[qp];
  switch (kind) {
    case Nic::kDeadline:
      on_rto(c);
      break;
    case kRnrTimer:
      on_rnr_retry(c);
      break;
    case kCcTimer:
      if (cc_) {
        cc_->on_timer(cc_view(c), tag);
        apply_window(c);
      }
      break;
    case Nic::kPaceWake:
      activate(c, 0);
      break;
    default:
      break;
  }
}

// The NIC calls this only once the deadline has passed with packets outstanding.
void RcEngine::on_rto(RcConnection& c) {
  ++c.ctr.timeouts;
  ++c.retries;
  if (cfg_.retry_limit != 0 && c.retries > cfg_.retry_limit) return;  // QP would go to error
  c.rto_exp = std::min(c.rto_exp + 1, cfg_.rto_max_backoff);
  paths_.on_rto(c.id);  // before the resend, which may take a new path
  if (cc_) {
    cc_->on_rto(cc_view(c));
    apply_window(c);
  }
  c.read_retry_psn = ~0ull;
  c.snd_max = std::max(c.snd_max, c.snd_nxt);
  if (recovery_->on_timeout(c))
    activate(c, 0);
  else
    go_back(c, c.snd_una);
  arm_timer(c);
}

Time RcEngine::now() const { return net_.sim().now(); }

void RcEngine::schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) {
  nics_[conns_[f.id].src]->schedule_transport_timer(at, f.id, kCcTimer, tag);
}

void RcEngine::on_rnr_retry(RcConnection& c) {
  if (c.rnr_wait_until > net_.sim().now()) return;  // a later RNR NAK moved it
  activate(c, 0);
}

QpPath RcEngine::path(QpId qp) const {
  const RcConnection& c = conns_[qp];
  const uint32_t entropy = paths_.entropy(qp, c.flow_hash, c.snd_nxt);  // where its next packet goes
  return QpPath{c.src, c.dst, c.src_nic_port, c.dst_nic_port, entropy, c.rev_hash, c.tc};
}

QpStats RcEngine::stats(QpId qp) const {
  const RcConnection& c = conns_[qp];
  QpStats s = c.ctr;
  s.cnps_sent = c.fb.cnps_sent;
  s.cnps_received = c.cnps_received;
  s.in_order_received = c.epsn;
  return s;
}

size_t RcEngine::telemetry_held() const {
  size_t n = 0;
  for (const RcConnection& c : conns_) n += c.fb.echo_int != 0 ? 1 : 0;
  return n;
}

void RcEngine::report_received(RcConnection& c, const RcMessage& m) {
  if (c.sink != nullptr)
    c.sink->on_receive(Completion{c.id, m.wr_id, m.op, m.size, m.posted, net_.sim().now()});
}

void RcEngine::complete(RcConnection& c, const RcMessage& m) {
  if (c.sink != nullptr)
    c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, net_.sim().now()});
}

}  // namespace rdmasim
