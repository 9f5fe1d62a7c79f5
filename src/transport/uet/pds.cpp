#include "transport/uet/pds.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/rng.h"
#include "net/network.h"
#include "nic/nic.h"

namespace rdmasim {
namespace {

constexpr uint16_t kUetUdpPort = 4793;  // IANA-assigned UET port (UEC 1.0 §3.2)
constexpr uint8_t kUdp = 17;

uint32_t five_tuple_hash(int src, int dst, uint16_t sport) {
  const uint64_t h =
      mix64(static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32 | static_cast<uint32_t>(dst));
  return static_cast<uint32_t>(
      mix64(h ^ (static_cast<uint64_t>(sport) << 24 | static_cast<uint64_t>(kUetUdpPort) << 8 | kUdp)));
}

uint32_t payload_at(int64_t bytes, uint64_t i, uint32_t mtu) {
  return static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * mtu, 0, mtu));
}

}  // namespace

UetPds::UetPds(Network& net, PdsConfig cfg)
    : net_(net), cfg_(cfg), mask_(cfg.psn_window - 1), feedback_(std::make_unique<NoFeedback>()) {
  if (cfg_.psn_window < 64 || (cfg_.psn_window & mask_) != 0)
    throw std::invalid_argument("uet psn_window must be a power of two of at least 64");
}

void UetPds::set_congestion_control(std::unique_ptr<CongestionControl> cc) {
  cc_ = std::move(cc);
  if (cc_) cc_->attach(this);
}

void UetPds::set_path_selector(PathSelector paths) {
  if (!pdcs_.empty()) throw std::logic_error("set_path_selector after the first QP");
  paths_ = std::move(paths);
  learn_ev_ = paths_.learns_per_packet();
}

QpId UetPds::create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) {
  Pdc& c = pdcs_.emplace_back();
  c.id = static_cast<uint32_t>(pdcs_.size() - 1);
  c.src = src;
  c.dst = dst;
  c.sink = sink;
  c.tc = tc;
  // The UDP source port is the PDC's entropy value (UEC 1.0 §3.2): a
  // spraying initiator varies it per packet, the switches hash it in ECMP.
  const auto sport =
      static_cast<uint16_t>(49152 + mix64(net_.sim().seed() ^ (0x0e7ull << 40) ^ c.id) % 16384);
  c.flow_hash = five_tuple_hash(src, dst, sport);
  c.rev_hash = five_tuple_hash(dst, src, sport);
  c.src_nic_port = nics_[src]->select_port(dst, c.flow_hash);
  c.dst_nic_port = nics_[dst]->select_port(src, c.rev_hash);
  paths_.connect(c.id, c.flow_hash);
  if (cfg_.mode != DeliveryMode::kUud) {
    c.state.assign(cfg_.psn_window, 0);
    c.rcvd.assign(cfg_.psn_window / 64, 0);
    if (learn_ev_) c.ev.assign(cfg_.psn_window, 0);
  }
  c.cc.id = c.id;
  c.cc.host = src;
  c.cc.line_rate = nics_[src]->port(c.src_nic_port).rate();
  if (cc_) cc_->on_connect(cc_view(c));
  return c.id;
}

void UetPds::post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) {
  if (op == Opcode::kRead)
    throw std::invalid_argument(
        "RDMA READ is not modelled on the UET transport yet (WRITE and SEND are); use op write or send");
  Pdc& c = pdcs_[qp];
  PdsMessage m;
  m.wr_id = wr_id;
  m.size = bytes;
  m.op = op;
  m.posted = net_.sim().now();
  m.first_psn = c.snd_end;
  m.end_psn = c.snd_end + packets_for(bytes);
  c.snd_end = m.end_psn;
  c.msgs.push_back(m);
  c.arrived.push_back(0);
  activate(c, /*doorbell=*/true);
}

void UetPds::activate(Pdc& c, bool doorbell) {
  if (c.active) return;
  c.active = true;
  nics_[c.src]->activate(c.src_nic_port, c.id, 0, doorbell);
}

bool UetPds::idle(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  return c.snd_una == c.snd_end;
}

size_t UetPds::message_of(const Pdc& c, uint64_t psn) const {
  const auto it = std::upper_bound(c.msgs.begin(), c.msgs.end(), psn,
                                   [](uint64_t v, const PdsMessage& m) { return v < m.end_psn; });
  return static_cast<size_t>(it - c.msgs.begin());
}

uint32_t UetPds::payload_of(const Pdc& c, uint64_t psn) const {
  const PdsMessage& m = c.msgs[message_of(c, psn)];
  return payload_at(m.size, psn - m.first_psn, cfg_.mtu);
}

bool UetPds::window_open(const Pdc& c) const {
  if (c.snd_nxt - c.snd_una >= cfg_.psn_window) return false;  // the target could not track it
  return c.cc.cwnd_bytes <= 0 || c.inflight_bytes < c.cc.cwnd_bytes;
}

Packet* UetPds::build_data(Pdc& c, uint64_t psn, bool resend) {
  size_t mi =
      c.nxt_msg < c.msgs.size() && psn >= c.msgs[c.nxt_msg].first_psn && psn < c.msgs[c.nxt_msg].end_psn
          ? c.nxt_msg
          : message_of(c, psn);
  const PdsMessage& m = c.msgs[mi];
  const uint64_t k = psn - m.first_psn;
  const uint32_t payload = payload_at(m.size, k, cfg_.mtu);
  Packet* p = net_.new_packet(PktType::kData);
  p->psn = psn;
  p->payload = static_cast<uint16_t>(payload);
  p->flags = static_cast<uint8_t>(kEct | (k == 0 ? kFirst : 0) | (psn + 1 == m.end_psn ? kLast : 0));
  p->wire = static_cast<uint16_t>(net_.framing().data_wire(payload, false));
  p->aux = static_cast<uint32_t>(mi);
  p->opcode = m.op;
  p->dst = c.dst;
  p->conn = c.id;
  p->tc = c.tc;
  // Every transmission takes the selector's next entropy value, a resend
  // included (it should not follow the lost packet's path). ROD keeps one.
  p->flow_hash =
      paths_.pick(c.id, c.flow_hash, cfg_.mode == DeliveryMode::kRod ? 0 : c.ctr.data_packets_sent);
  if (learn_ev_) c.ev[psn & mask_] = p->flow_hash;
  ++c.ctr.data_packets_sent;
  ++totals_.data_built;
  if (resend) {
    ++c.ctr.retransmitted_packets;
    c.ctr.retransmitted_bytes += payload;
  }
  return p;
}

Packet* UetPds::next_packet(QpId qp, int /*role*/, bool& more) {
  Pdc& c = pdcs_[qp];
  const Time now = net_.sim().now();
  more = false;
  while (!c.resend.empty() && (st(c, c.resend.front()) & (kAcked | kLost)) != kLost) c.resend.pop_front();
  const bool new_data = c.snd_nxt < c.snd_end;
  if ((c.resend.empty() && !new_data) || nics_[c.src]->pacer_holds(c.timing, c.id, now)) {
    c.active = false;  // new work, a pacer wake-up or an ACK reactivates it
    return nullptr;
  }
  Packet* p = nullptr;
  if (cfg_.mode == DeliveryMode::kUud) {
    p = build_data(c, c.snd_nxt, false);
    ++c.snd_nxt;
    c.snd_max = c.snd_una = c.snd_nxt;  // nothing is ever outstanding
    ++totals_.uud_sent;
    while (c.una_msg < c.msgs.size() && c.msgs[c.una_msg].end_psn <= c.snd_una) {
      const PdsMessage& m = c.msgs[c.una_msg++];
      if (c.sink != nullptr) c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
    }
  } else {
    const bool open = c.cc.cwnd_bytes <= 0 || c.inflight_bytes < c.cc.cwnd_bytes;
    uint64_t psn = 0;
    bool resend = false;
    if (!c.resend.empty() && open) {
      psn = c.resend.pop_front();
      resend = true;
    } else if (new_data && window_open(c)) {
      psn = c.snd_nxt++;
      c.snd_max = std::max(c.snd_max, c.snd_nxt);
      while (c.msgs[c.nxt_msg].end_psn <= psn) ++c.nxt_msg;
    } else {
      c.active = false;  // window full: an ACK reopens it
      return nullptr;
    }
    p = build_data(c, psn, resend);
    uint8_t& s = st(c, psn);
    s = static_cast<uint8_t>((s & ~kLost) | kSent | kInFlight);
    c.inflight_bytes += p->payload;
    if (!c.established) p->flags |= kFirst;  // SYN rides every packet until the PDC is established
    if (!c.timing.armed)
      nics_[c.src]->arm_deadline(c.timing, c.id, now + cfg_.rto * (int64_t{1} << c.rto_exp));
  }
  Nic::pacer_sent(c.timing, c.cc.pace_rate, p->wire, now);
  if (cc_) cc_->on_send(cc_view(c), p->payload);
  more = !c.resend.empty() || c.snd_nxt < c.snd_end;
  if (!more) c.active = false;
  return p;
}

void UetPds::on_packet(Nic& /*nic*/, Packet* p) {
  Pdc& c = pdcs_[p->conn];
  switch (p->type) {
    case PktType::kData:
      on_data(c, p);
      break;
    case PktType::kTrimmed:
      on_trimmed(c, p);
      break;
    case PktType::kAck:
      on_ack(c, p);
      break;
    case PktType::kNak:
      on_nack(c, p);
      break;
    default:
      break;
  }
  net_.deliver(p);
}

// --- Target ---------------------------------------------------------------

bool UetPds::has(const Pdc& c, uint64_t psn) const {
  if (psn < c.rcv_nxt) return true;
  if (psn - c.rcv_nxt >= cfg_.psn_window) return false;
  const uint64_t slot = psn & mask_;
  return (c.rcvd[slot >> 6] >> (slot & 63)) & 1u;
}

void UetPds::place(Pdc& c, uint64_t psn, uint32_t msg) {
  if (cfg_.mode != DeliveryMode::kUud) {
    const uint64_t slot = psn & mask_;
    c.rcvd[slot >> 6] |= uint64_t{1} << (slot & 63);
    if (psn != c.rcv_nxt) ++c.ctr.out_of_order_placed;
    // The cumulative point moves over what has arrived; its bits are cleared
    // so the slots serve the PSNs one window later.
    while (has(c, c.rcv_nxt) && c.rcv_nxt < c.snd_end) {
      const uint64_t s = c.rcv_nxt & mask_;
      c.rcvd[s >> 6] &= ~(uint64_t{1} << (s & 63));
      ++c.rcv_nxt;
      c.rod_nack_sent = false;
    }
  } else {
    c.rcv_nxt = std::max(c.rcv_nxt, psn + 1);
  }
  ++c.arrived[msg];
  // Receives are reported in posting order, each once all its packets are placed.
  while (c.recv_msg < c.msgs.size()) {
    const PdsMessage& m = c.msgs[c.recv_msg];
    if (c.arrived[c.recv_msg] < m.end_psn - m.first_psn) break;
    ++c.recv_msg;
    if (c.sink != nullptr)
      c.sink->on_receive(Completion{c.id, m.wr_id, m.op, m.size, m.posted, net_.sim().now()});
  }
}

void UetPds::on_data(Pdc& c, Packet* p) {
  ++totals_.data_received;
  if (!c.opened) {
    c.opened = true;  // the first packet (SYN) creates the target's half of the PDC
    ++totals_.pdcs_opened;
  }
  const uint64_t psn = p->psn;
  if (cfg_.mode == DeliveryMode::kUud) {
    place(c, psn, p->aux);
    return;
  }
  c.ce_pending = c.ce_pending || (p->flags & kCe) != 0;
  if (has(c, psn)) {
    // Its ACK was lost or late, or the initiator resent it on a timeout:
    // acknowledge again. An idempotent (rudi) target applies it again.
    ++totals_.duplicates;
    send_ack(c, *p);
    return;
  }
  if (psn - c.rcv_nxt >= cfg_.psn_window) {
    ++totals_.out_of_window;
    send_nack(c, psn, NackCode::kOutOfWindow, *p);
    return;
  }
  if (cfg_.mode == DeliveryMode::kRod && psn != c.rcv_nxt) {
    ++c.ctr.out_of_order_discards;
    if (!c.rod_nack_sent) {
      c.rod_nack_sent = true;
      ++totals_.rod_ooo_nacks;
      send_nack(c, c.rcv_nxt, NackCode::kRodOutOfOrder, *p);
    }
    return;
  }
  const bool in_order = psn == c.rcv_nxt;
  place(c, psn, p->aux);
  ++c.since_ack;
  if (c.since_ack >= cfg_.ack_every || !in_order || (p->flags & kLast) || cfg_.mode == DeliveryMode::kRudi)
    send_ack(c, *p);
}

void UetPds::on_trimmed(Pdc& c, Packet* p) {
  ++totals_.trimmed_received;
  if (cfg_.mode == DeliveryMode::kUud) return;  // nobody resends it
  if (!c.opened) {
    c.opened = true;
    ++totals_.pdcs_opened;
  }
  if (has(c, p->psn)) {
    ++totals_.trimmed_after_arrival;  // a copy already arrived (a resend overtook it)
    return;
  }
  send_nack(c, p->psn, NackCode::kTrimmed, *p);
  ++totals_.trim_nacks_sent;
}

// The acknowledgements of a sprayed PDC are sprayed too: each ACK or NACK
// takes the next of its entropies back, so a broken reverse path (which the
// target cannot see) costs some ACKs, and the cumulative PSN and SACK
// bitmap of the next ones carry what they said. An unsprayed PDC keeps one.
uint32_t UetPds::reverse_entropy(const Pdc& c, const Packet& trigger) {
  if (trigger.flow_hash == c.flow_hash) return c.rev_hash;
  const uint64_t n = c.ctr.acks_sent + c.ctr.naks_sent;
  return static_cast<uint32_t>(mix64(n * 0x9e3779b97f4a7c15ull ^ c.rev_hash) >> 32);
}

void UetPds::send_ack(Pdc& c, const Packet& trigger) {
  // The SACK bitmap: bit i reports PSN rcv_nxt + 1 + i.
  const uint64_t pos = (c.rcv_nxt + 1) & mask_;
  const size_t w = pos >> 6;
  const unsigned off = pos & 63;
  uint64_t bits = c.rcvd[w] >> off;
  if (off != 0) bits |= c.rcvd[(w + 1) % c.rcvd.size()] << (64 - off);
  Packet* a = net_.new_packet(PktType::kAck);
  a->psn = bits;
  a->aux = static_cast<uint32_t>(c.rcv_nxt);
  a->sent_at = trigger.sent_at;
  a->flags = c.ce_pending ? kCe : 0;
  c.ce_pending = false;
  c.since_ack = 0;
  a->dst = c.src;
  a->conn = c.id;
  a->tc = cfg_.ack_tc;
  a->flow_hash = reverse_entropy(c, trigger);
  a->wire = static_cast<uint16_t>(net_.framing().ack_wire());
  ++c.ctr.acks_sent;
  nics_[c.dst]->send_control(c.dst_nic_port, a);
}

void UetPds::send_nack(Pdc& c, uint64_t psn, NackCode code, const Packet& trigger) {
  // A trimmed header is itself the congestion signal.
  const bool ce = code == NackCode::kTrimmed || (trigger.flags & kCe) != 0;
  Packet* n = net_.new_packet(PktType::kNak);
  n->psn = psn;
  n->aux = static_cast<uint32_t>(code);
  n->flags = ce ? kCe : 0;
  n->dst = c.src;
  n->conn = c.id;
  n->tc = cfg_.ack_tc;
  n->flow_hash = reverse_entropy(c, trigger);
  n->wire = static_cast<uint16_t>(net_.framing().frame(net_.framing().nack_header));
  ++c.ctr.naks_sent;
  nics_[c.dst]->send_control(c.dst_nic_port, n);
}

// --- Initiator ------------------------------------------------------------

void UetPds::acknowledge(Pdc& c, uint64_t psn, int64_t& bytes, bool marked) {
  uint8_t& s = st(c, psn);
  if ((s & kSent) == 0 || (s & kAcked) != 0) return;
  if (learn_ev_) paths_.on_ev(c.id, c.ev[psn & mask_], marked);
  const uint32_t payload = payload_of(c, psn);
  if (s & kInFlight) c.inflight_bytes -= payload;
  bytes += payload;
  s = static_cast<uint8_t>((s | kAcked) & ~(kInFlight | kLost));
}

void UetPds::mark_lost(Pdc& c, uint64_t psn) {
  uint8_t& s = st(c, psn);
  if ((s & kSent) == 0 || (s & (kAcked | kLost)) != 0) return;
  if (s & kInFlight) c.inflight_bytes -= payload_of(c, psn);
  s = static_cast<uint8_t>((s | kLost) & ~kInFlight);
  c.resend.push_back(psn);
}

void UetPds::advance(Pdc& c) {
  while (c.snd_una < c.snd_max && (st(c, c.snd_una) & kAcked)) {
    st(c, c.snd_una) = 0;  // the slot serves the PSN one window later
    ++c.snd_una;
  }
  c.loss_scan = std::max(c.loss_scan, c.snd_una);
  const Time now = net_.sim().now();
  while (c.una_msg < c.msgs.size() && c.msgs[c.una_msg].end_psn <= c.snd_una) {
    const PdsMessage& m = c.msgs[c.una_msg++];
    if (c.sink != nullptr) c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
  }
}

void UetPds::on_ack(Pdc& c, Packet* p) {
  c.established = true;
  // Widen the wire's 32-bit cumulative PSN against the oldest unacked one.
  const auto delta = static_cast<int32_t>(p->aux - static_cast<uint32_t>(c.snd_una));
  const uint64_t cack = delta > 0 ? c.snd_una + static_cast<uint64_t>(delta) : c.snd_una;
  const uint64_t base = c.snd_una + static_cast<uint64_t>(static_cast<int64_t>(delta)) + 1;
  const uint64_t old_una = c.snd_una;
  int64_t bytes = 0;
  const bool ece = (p->flags & kCe) != 0;
  for (uint64_t psn = c.snd_una; psn < cack && psn < c.snd_max; ++psn) acknowledge(c, psn, bytes, ece);
  for (uint64_t bits = p->psn; bits != 0; bits &= bits - 1) {
    const uint64_t psn = base + static_cast<uint64_t>(__builtin_ctzll(bits));
    if (psn < c.snd_una || psn >= c.snd_max) continue;
    acknowledge(c, psn, bytes, ece);
    c.highest_sacked = std::max(c.highest_sacked, psn + 1);
  }
  advance(c);
  // Loss inference from the bitmap: a PSN this far behind the highest SACKed one is presumed lost.
  bool lost = false;
  if (cfg_.mode != DeliveryMode::kRod && c.highest_sacked > c.snd_una + cfg_.sack_loss_threshold) {
    const uint64_t limit = c.highest_sacked - cfg_.sack_loss_threshold;
    for (uint64_t psn = c.loss_scan; psn < limit; ++psn) {
      if ((st(c, psn) & (kInFlight | kAcked)) == kInFlight) {
        mark_lost(c, psn);
        ++totals_.sack_retransmits;
        lost = true;
      }
    }
    c.loss_scan = std::max(c.loss_scan, limit);
  }
  const Time now = net_.sim().now();
  // The timeout guards against silence: any packet newly acknowledged,
  // cumulatively or selectively, shows the PDC is moving (as a per-packet
  // timer restarted by each resend would).
  if (bytes > 0) Nic::push_deadline(c.timing, now + cfg_.rto * (int64_t{1} << c.rto_exp));
  if (c.snd_una > old_una) c.rto_exp = 0;
  if (cc_) {
    if (lost) cc_->on_loss(cc_view(c));
    const AckSample a{cack > 0 ? cack - 1 : 0, p->sent_at, ece, nullptr, bytes};
    cc_->on_ack(cc_view(c), a);
  }
  paths_.on_ack(c.id, PathAck{c.snd_una, c.snd_nxt, ece, c.snd_una < c.snd_max});
  activate(c);
}

void UetPds::on_nack(Pdc& c, Packet* p) {
  c.established = true;
  ++c.ctr.naks_received;
  const uint64_t psn = p->psn;
  switch (static_cast<NackCode>(p->aux)) {
    case NackCode::kTrimmed:
      if (psn >= c.snd_una && psn < c.snd_max && (st(c, psn) & kInFlight)) {
        if (learn_ev_) paths_.on_ev(c.id, c.ev[psn & mask_], /*marked=*/true);  // its path is congested
        mark_lost(c, psn);
        ++totals_.trim_retransmits;
        // Its resend leaves now: the NACK restarts the timeout as an ACK would.
        Nic::push_deadline(c.timing, net_.sim().now() + cfg_.rto * (int64_t{1} << c.rto_exp));
      }
      if (cc_) cc_->on_trim(cc_view(c));
      break;
    case NackCode::kRodOutOfOrder:
      // Go back N: everything from the expected PSN on is resent in order.
      for (uint64_t q = std::max(psn, c.snd_una); q < c.snd_max; ++q) mark_lost(c, q);
      if (cc_) cc_->on_loss(cc_view(c));
      break;
    case NackCode::kOutOfWindow:
      mark_lost(c, psn);
      break;
  }
  activate(c);
}

void UetPds::on_rto(Pdc& c) {
  ++c.ctr.timeouts;
  c.rto_exp = std::min(c.rto_exp + 1, cfg_.rto_max_backoff);
  paths_.on_rto(c.id);
  for (uint64_t psn = c.snd_una; psn < c.snd_max; ++psn)
    if ((st(c, psn) & (kInFlight | kAcked)) == kInFlight) {
      mark_lost(c, psn);
      ++totals_.rto_retransmits;
    }
  if (cc_) cc_->on_rto(cc_view(c));
  activate(c);
  if (!c.timing.armed)
    nics_[c.src]->arm_deadline(c.timing, c.id, net_.sim().now() + cfg_.rto * (int64_t{1} << c.rto_exp));
}

void UetPds::on_timer(QpId qp, uint32_t kind, uint32_t tag) {
  Pdc& c = pdcs_[qp];
  switch (kind) {
    case Nic::kDeadline:
      on_rto(c);
      break;
    case Nic::kPaceWake:
      activate(c);
      break;
    case kCcTimer:
      if (cc_) cc_->on_timer(cc_view(c), tag);
      activate(c);
      break;
    default:
      break;
  }
}

Time UetPds::now() const { return net_.sim().now(); }

void UetPds::schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) {
  nics_[pdcs_[f.id].src]->schedule_transport_timer(at, f.id, kCcTimer, tag);
}

// --- Questions ------------------------------------------------------------

uint32_t UetPds::forward_wire(Opcode /*op*/, int64_t bytes, uint64_t i) const {
  return net_.framing().data_wire(payload_at(bytes, i, cfg_.mtu), false);
}

uint32_t UetPds::back_wire(Opcode /*op*/, int64_t /*bytes*/, uint64_t /*i*/) const {
  return net_.framing().ack_wire();
}

QpPath UetPds::path(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  const uint32_t entropy =
      paths_.entropy(qp, c.flow_hash, cfg_.mode == DeliveryMode::kRod ? 0 : c.ctr.data_packets_sent);
  return QpPath{c.src, c.dst, c.src_nic_port, c.dst_nic_port, entropy, c.rev_hash, c.tc};
}

QpStats UetPds::stats(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  QpStats s = c.ctr;
  s.in_order_received = c.rcv_nxt;
  return s;
}

std::string UetPds::check_invariants() const {
  const auto& led = net_.ledger();
  const auto data = static_cast<int>(PktType::kData);
  const auto trimmed = static_cast<int>(PktType::kTrimmed);
  if (led.created[data] != totals_.data_built)
    return "uet: the network created " + std::to_string(led.created[data]) + " data packets, the PDS built " +
           std::to_string(totals_.data_built);
  if (led.delivered[data] != totals_.data_received)
    return "uet: the network delivered " + std::to_string(led.delivered[data]) +
           " data packets, the targets received " + std::to_string(totals_.data_received);
  if (led.delivered[trimmed] != totals_.trimmed_received)
    return "uet: the network delivered " + std::to_string(led.delivered[trimmed]) +
           " trimmed headers, the targets received " + std::to_string(totals_.trimmed_received);
  if (cfg_.mode != DeliveryMode::kUud &&
      totals_.trim_nacks_sent + totals_.trimmed_after_arrival != totals_.trimmed_received)
    return "uet: " + std::to_string(totals_.trimmed_received) + " trimmed headers received, " +
           std::to_string(totals_.trim_nacks_sent) + " NACKed and " +
           std::to_string(totals_.trimmed_after_arrival) + " already placed";
  if (cfg_.mode != DeliveryMode::kUud && totals_.trim_retransmits > totals_.trim_nacks_sent)
    return "uet: more trim retransmissions (" + std::to_string(totals_.trim_retransmits) +
           ") than trim NACKs (" + std::to_string(totals_.trim_nacks_sent) + ")";
  for (const Pdc& c : pdcs_) {
    const std::string who = "uet PDC " + std::to_string(c.id) + ": ";
    if (c.snd_una > c.snd_nxt || c.snd_nxt > c.snd_end || c.snd_max != c.snd_nxt)
      return who + "PSN order broken (una " + std::to_string(c.snd_una) + ", nxt " +
             std::to_string(c.snd_nxt) + ", max " + std::to_string(c.snd_max) + ", end " +
             std::to_string(c.snd_end) + ")";
    if (cfg_.mode == DeliveryMode::kUud) continue;
    if (c.snd_una > c.rcv_nxt)
      return who + "cumulatively acknowledged PSN " + std::to_string(c.snd_una) + " beyond what arrived (" +
             std::to_string(c.rcv_nxt) + ")";
    if (c.snd_max - c.snd_una > cfg_.psn_window) return who + "more PSNs outstanding than the PSN window";
    int64_t inflight = 0;
    for (uint64_t psn = c.snd_una; psn < c.snd_max; ++psn) {
      const uint8_t s = st(c, psn);
      if ((s & kAcked) && !has(c, psn))
        return who + "PSN " + std::to_string(psn) + " is SACKed but never reached the target";
      if ((s & kAcked) && (s & (kInFlight | kLost)))
        return who + "PSN " + std::to_string(psn) + " acked and lost";
      if (s & kInFlight) inflight += payload_of(c, psn);
    }
    if (inflight != c.inflight_bytes)
      return who + "bytes in flight " + std::to_string(c.inflight_bytes) + " != " + std::to_string(inflight) +
             " counted over its PSNs";
  }
  return {};
}

void UetPds::report(nlohmann::ordered_json& results) const {
  auto& u = results["uet"];
  u["mode"] = delivery_mode_name(cfg_.mode);
  u["pdcs_opened"] = totals_.pdcs_opened;
  u["trimmed_received"] = totals_.trimmed_received;
  u["trim_nacks_sent"] = totals_.trim_nacks_sent;
  u["trimmed_after_arrival"] = totals_.trimmed_after_arrival;
  u["trim_retransmits"] = totals_.trim_retransmits;
  u["sack_retransmits"] = totals_.sack_retransmits;
  u["rto_retransmits"] = totals_.rto_retransmits;
  u["rod_ooo_nacks"] = totals_.rod_ooo_nacks;
  u["out_of_window"] = totals_.out_of_window;
  u["duplicates"] = totals_.duplicates;
  if (cfg_.mode == DeliveryMode::kUud) u["uud_sent"] = totals_.uud_sent;
}

}  // namespace rdmasim
