// Reliable Connection transport (IBTA Vol.1 ch. 9), shared by InfiniBand and
// RoCEv2: PSN-ordered packets, coalesced ACKs, NAK on sequence error,
// go-back-N retransmission and a retransmission timer with exponential backoff.
// A connection is a QP pair: the requester QP at `src`, the responder at `dst`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "cc/congestion_control.h"
#include "engine/stable_vector.h"
#include "engine/units.h"
#include "net/packet.h"
#include "transport/recovery/recovery.h"
#include "transport/transport.h"
#include "verbs/completion.h"

namespace rdmasim {

class Nic;
class Network;

// How a requester recovers lost packets.
//  go-back-n: resend from the first unacknowledged PSN (RoCE/IB default).
//  go-back-0: resend the whole message holding the loss (early RoCE NICs).
//  irn: selective repeat with a window of about one BDP (Mittal et al.,
//       "Revisiting Network Support for RDMA", SIGCOMM 2018): the responder
//       keeps out-of-order packets and NACKs each with the PSN that arrived;
//       the requester resends only the holes. READ responses keep go-back-n.
enum class LossRecovery : uint8_t { kGoBackN, kGoBack0, kIrn };

struct RcConfig {
  uint32_t mtu = 1000;        // payload bytes per packet
  uint32_t ack_interval = 1;  // ACK every N in-order packets (and every message end)
  // Local ACK timeout = 4.096 us x 2^n (IBTA Vol.1 §9.7.6.1.3). n = 10
  // (4.194 ms) keeps it above the worst queueing delay of a 32 MiB buffer
  // drained at 100 Gb/s (2.7 ms), so deep queues do not cause spurious
  // go-back-N timeouts.
  Time rto = Time::from_ps(4'194'304'000);
  uint32_t rto_max_backoff = 3;  // the timeout doubles at most this many times
  uint32_t retry_limit = 0;      // 0 = retry forever (counted, never gives up)
  // RNR NAK timer code 12 = 0.64 ms (IBTA Vol.1 §9.7.5.2.8), perftest's
  // default min_rnr_timer: how long a requester waits after an RNR NAK.
  Time rnr_timer = Time::from_us(640);
  uint8_t data_tc = 3;
  uint8_t ack_tc = 7;  // ACK/NAK ride a strict-priority class
  LossRecovery recovery = LossRecovery::kGoBackN;
  uint32_t irn_window = 0;  // IRN: max packets in flight; 0 = one BDP (set by Fabric)
  // IRN's two timeouts (Mittal et al. 2018, §4.1): RTO_low when at most
  // irn_low_packets are outstanding (a tail loss has nothing behind it to
  // trigger a NACK), else RTO_high.
  Time irn_rto_low = Time::from_us(100);
  Time irn_rto_high = Time::from_us(320);
  uint32_t irn_low_packets = 3;
  // Go-back-N responder that keeps packets arriving ahead of a gap instead
  // of NAKing them: adaptive routing reorders packets without losing them
  // (ConnectX places out-of-order RDMA WRITE data when AR is on). Gaps that
  // are real losses are recovered by the requester's timeout. SENDs are not
  // refused with RNR NAK in this mode.
  bool accept_out_of_order = false;
  // With out-of-order placement: a gap still open once a packet this many
  // PSNs past it has arrived is taken for a loss and NAKed once (the
  // requester goes back to it), so a loss with later packets behind it does
  // not wait for the timeout. 0: never (the timeout recovers every loss).
  uint32_t reorder_nak = 0;
};

struct RcMessage {
  uint64_t wr_id = 0;
  int64_t size = 0;
  uint64_t first_psn = 0;
  uint64_t end_psn = 0;  // one past the last PSN
  Time posted;
  Opcode op = Opcode::kWrite;
};

struct RcConnection {
  uint32_t id = 0;
  int src = 0;
  int dst = 0;
  uint16_t sport = 0;  // UDP source port: RoCEv2's ECMP entropy
  uint16_t src_nic_port = 0;
  uint16_t dst_nic_port = 0;
  uint8_t tc = 0;
  uint8_t route_header = 0;  // on every packet of the QP, both ways: an IB GRH between subnets
  uint32_t flow_hash = 0;  // requester -> responder direction, the QP's own (its path selector may change it)
  uint32_t rev_hash = 0;   // responder -> requester direction
  CompletionSink* sink = nullptr;

  // Requester.
  std::vector<RcMessage> msgs;
  size_t una_msg = 0;  // oldest message not yet complete
  size_t nxt_msg = 0;  // message holding snd_nxt
  uint64_t snd_una = 0;
  uint64_t snd_nxt = 0;
  uint64_t snd_max = 0;     // highest PSN ever sent + 1 (below it a send is a retransmission)
  uint64_t snd_end = 0;     // one past the last PSN posted
  uint64_t acked_upto = 0;  // one past the highest PSN ACKed
  uint64_t read_retry_psn = ~0ull;
  QpTiming timing;  // pacing and the retransmission deadline, run by the NIC
  uint32_t rto_exp = 0;
  uint32_t retries = 0;
  bool requester_active = false;

  Time rnr_wait_until;        // no sending before this (after an RNR NAK)
  CcFlow cc;                  // congestion control's view and decisions (window, pacing rate)
  uint64_t cwnd_packets = 0;  // cc.cwnd_bytes in whole packets; 0 = no window
  uint64_t cnps_received = 0;

  // Responder.
  uint64_t epsn = 0;
  uint32_t since_ack = 0;
  bool nak_outstanding = false;
  bool rnr_outstanding = false;  // discard quietly until the retried SEND arrives
  bool counted_recv = false;     // SENDs need posted receive WQEs (once any is posted)
  int64_t recv_posted = 0;
  FeedbackState fb;  // what the responder returns for the sender's congestion control
  struct ReadRange {
    uint64_t next_psn;
    uint64_t end_psn;
    int64_t remaining;
    uint64_t msg;
  };
  std::deque<ReadRange> read_ranges;
  bool responder_active = false;

  // IRN requester: SACKed PSNs at and above snd_una, and the hole scan.
  std::deque<char> sacked;
  uint64_t highest_sacked = 0;  // one past the highest SACKed PSN
  uint64_t retx_next = 0;
  uint64_t recovery_end = 0;
  bool in_recovery = false;
  // IRN responder: PSNs at and above epsn that have arrived.
  std::deque<char> ooo;
  size_t recv_msg = 0;  // next message whose arrival is to be reported

  QpStats ctr;  // cnps_sent/received and in_order_received are filled in by stats()

  [[nodiscard]] bool idle() const { return snd_una == snd_end && read_ranges.empty(); }
  // The responder has not taken every PSN posted, or a READ's responses are
  // still to reach the requester (answered or not).
  [[nodiscard]] bool awaiting_delivery() const {
    if (idle()) return false;
    if (epsn < snd_end || !read_ranges.empty()) return true;
    for (size_t m = una_msg; m < msgs.size(); ++m)
      if (msgs[m].op == Opcode::kRead) return true;
    return false;
  }
};

// The protocol engine for every RC connection of one network: the Transport
// of InfiniBand and RoCEv2. NICs hand it received packets and ask it for the
// next packet of a connection.
class RcEngine final : public Transport, public CcHost {
 public:
  // Its own NIC timer kinds (Nic::schedule_transport_timer); pacing and the
  // retransmission deadline are the NIC's (Nic::kPaceWake, Nic::kDeadline).
  static constexpr uint32_t kRnrTimer = 1;
  static constexpr uint32_t kCcTimer = 2;

  // `route_header(src, dst)`: bytes every packet between two endpoints
  // carries beyond the framing's headers (InfiniBand's GRH between subnets);
  // none when empty.
  RcEngine(Network& net, RcConfig cfg, std::function<uint32_t(int, int)> route_header = {})
      : net_(net), cfg_(cfg), route_header_(std::move(route_header)), recovery_(make_recovery(*this, cfg_)) {}
  // Transport.
  [[nodiscard]] const char* name() const override { return "rc"; }
  void attach_nics(std::vector<Nic*> nics) override { nics_ = std::move(nics); }
  QpId create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) override;
  void post(QpId conn, Opcode op, int64_t bytes, uint64_t wr_id) override;
  void post_recv(QpId conn, int64_t n) override;
  [[nodiscard]] size_t num_qps() const override { return conns_.size(); }
  [[nodiscard]] QpPath path(QpId qp) const override;
  [[nodiscard]] QpStats stats(QpId qp) const override;
  [[nodiscard]] bool idle(QpId qp) const override { return conns_[qp].idle(); }
  [[nodiscard]] bool awaiting_delivery(QpId qp) const override { return conns_[qp].awaiting_delivery(); }
  [[nodiscard]] uint64_t packets_for(int64_t bytes) const override {
    return bytes <= 0 ? 1u : static_cast<uint64_t>((bytes + cfg_.mtu - 1) / cfg_.mtu);
  }
  [[nodiscard]] uint64_t forward_packets(Opcode op, int64_t bytes) const override {
    return op == Opcode::kRead ? 1 : packets_for(bytes);
  }
  [[nodiscard]] uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  [[nodiscard]] uint64_t back_packets(Opcode op, int64_t bytes) const override {
    return op == Opcode::kRead ? packets_for(bytes) : 1;
  }
  [[nodiscard]] uint32_t back_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  void set_congestion_control(std::unique_ptr<CongestionControl> cc) override {
    cc_ = std::move(cc);
    if (cc_) cc_->attach(this);
    int_enabled_ = cc_ && cc_->wants_int();
  }
  [[nodiscard]] const CongestionControl* congestion_control() const override { return cc_.get(); }
  void set_receiver_feedback(std::unique_ptr<ReceiverFeedback> fb) override { feedback_ = std::move(fb); }
  void set_path_selector(PathSelector paths) override;
  [[nodiscard]] const PathSelector& path_selector() const override { return paths_; }
  [[nodiscard]] const ReceiverFeedback& receiver_feedback() const { return *feedback_; }
  void on_packet(Nic& nic, Packet* p) override;
  Packet* next_packet(QpId conn, int role, bool& more) override;
  [[nodiscard]] uint8_t traffic_class(QpId qp) const override { return conns_[qp].tc; }
  void on_timer(QpId qp, uint32_t kind, uint32_t tag) override;
  [[nodiscard]] QpTiming& timing(QpId qp) override { return conns_[qp].timing; }
  [[nodiscard]] bool outstanding(QpId qp) const override { return conns_[qp].snd_una < conns_[qp].snd_max; }
  [[nodiscard]] size_t telemetry_held() const override;
  // RC's sequence state is checked by its tests and the packet ledger.
  [[nodiscard]] std::string check_invariants() const override { return {}; }

  // CcHost.
  [[nodiscard]] Time now() const override;
  void schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) override;
  [[nodiscard]] int64_t mtu() const override { return cfg_.mtu; }

  [[nodiscard]] const RcConfig& config() const { return cfg_; }
  // RC's own state, for its unit tests and RC-specific diagnostics.
  [[nodiscard]] const RcConnection& connection(QpId id) const { return conns_[id]; }
  [[nodiscard]] const Recovery& recovery() const { return *recovery_; }

  // For its recovery strategies (transport/recovery).
  void send_control(RcConnection& c, PktType t, uint64_t psn, uint8_t flags = 0, uint32_t aux = 0);
  // The responder saw the last byte of `m` land: tell the QP's sink.
  void report_received(RcConnection& c, const RcMessage& m);
  // The index of the message holding `psn` (msgs.size() if none).
  [[nodiscard]] size_t message_of(const RcConnection& c, uint64_t psn) const;

 private:
  void on_data(RcConnection& c, Packet* p);
  void on_read_response(RcConnection& c, Packet* p);
  void on_read_request(RcConnection& c, Packet* p);
  // Retires what `last_psn` acknowledges; true when the window moved and the
  // requester may send again. The caller activates it, after congestion
  // control has seen the ACK, so the next packet obeys the new window/rate.
  [[nodiscard]] bool on_ack(RcConnection& c, uint64_t last_psn);
  void on_nak(RcConnection& c, uint64_t expected_psn);
  void advance_una(RcConnection& c, bool& progressed);
  void go_back(RcConnection& c, uint64_t psn);
  Packet* build_data(RcConnection& c, uint64_t psn);
  void on_sack(RcConnection& c, uint64_t cumulative, uint64_t sacked_psn);
  void arm_timer(RcConnection& c);
  // `doorbell`: new work the NIC learns of (a posted WR, a READ to answer),
  // which pays its tx latency; internal wake-ups (pacing, window, retry) do not.
  void activate(RcConnection& c, int role, bool doorbell = false);
  void complete(RcConnection& c, const RcMessage& m);
  void on_rto(RcConnection& c);
  void on_rnr_retry(RcConnection& c);

  Network& net_;
  RcConfig cfg_;
  std::function<uint32_t(int, int)> route_header_;
  // Congestion control sees the connection's current sequence numbers.
  CcFlow& cc_view(RcConnection& c) {
    c.cc.una = c.snd_una;
    c.cc.nxt = c.snd_nxt;
    return c.cc;
  }
  // The window congestion control set, in whole packets (RC sends nothing
  // smaller), and its pacing rate, which the NIC applies at once.
  void apply_window(RcConnection& c);
  std::unique_ptr<CongestionControl> cc_;
  std::unique_ptr<ReceiverFeedback> feedback_ = std::make_unique<NoFeedback>();
  std::unique_ptr<Recovery> recovery_;
  PathSelector paths_;        // the requester's entropy per packet (per-connection by default)
  bool int_enabled_ = false;  // data packets collect INT (the CC reads it from ACKs)
  std::vector<Nic*> nics_;
  StableVector<RcConnection> conns_;  // stable addresses: handlers may hold references
};

}  // namespace rdmasim
