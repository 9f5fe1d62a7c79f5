// iWARP: RDMA over TCP (RDMAP RFC 5040, DDP RFC 5041, MPA RFC 5044), the
// Transport of the iwarp-* profiles. A QP is one TCP connection run by the
// RNIC's offload engine: the requester's messages become a byte stream cut
// into segments, each carrying one MPA FPDU (RFC 5044 §8 alignment), so a
// message starts a new segment and sequence numbers here count segments.
//
// TCP as modelled: cumulative ACKs with delayed ACK (an ACK every
// `delayed_ack` in-order segments or after `delayed_ack_timeout`; at once
// for an out-of-order or duplicate segment and for one that fills a hole);
// out-of-order segments are kept and placed (DDP tagged placement needs no
// ordering) but delivered in order; the sender's window is min(cwnd from the
// congestion-control part, the receive window); NewReno fast retransmit and
// fast recovery (RFC 5681 §3.2, RFC 6582: partial ACKs resend the next hole)
// with window inflation by duplicate ACKs; the retransmission timer of
// RFC 6298 (SRTT/RTTVAR from every ACK that echoes a send time, as with
// timestamps, Karn's rule being moot then); ECN per RFC 3168 (a CE-echoing
// ACK is a loss signal once per window unless the algorithm reads ECE
// itself, as DCTCP does).
// Not yet: READ (request + tagged response stream), SACK (RFC 2018/6675),
// the three-way handshake.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "cc/congestion_control.h"
#include "transport/iwarp/iwarp_framing.h"
#include "transport/iwarp/tcp_config.h"
#include "transport/transport.h"

namespace rdmasim {

class Network;

struct TcpMessage {
  uint64_t wr_id = 0;
  int64_t size = 0;
  uint64_t first_seg = 0;
  uint64_t end_seg = 0;  // one past its last segment
  Time posted;
  Opcode op = Opcode::kWrite;
};

struct TcpConnection {
  uint32_t id = 0;
  int src = 0;
  int dst = 0;
  uint16_t src_nic_port = 0;
  uint16_t dst_nic_port = 0;
  uint8_t tc = 0;
  uint32_t flow_hash = 0;
  uint32_t rev_hash = 0;
  CompletionSink* sink = nullptr;

  // Sender.
  std::vector<TcpMessage> msgs;
  size_t una_msg = 0;
  size_t nxt_msg = 0;
  uint64_t snd_una = 0;
  uint64_t snd_nxt = 0;
  uint64_t snd_max = 0;  // highest segment ever sent + 1
  uint64_t snd_end = 0;  // one past the last segment posted
  uint32_t dupacks = 0;
  bool in_recovery = false;
  uint64_t recover = 0;         // snd_max when the loss episode began (RFC 6582)
  uint64_t retransmit = ~0ull;  // a segment to resend before new data
  Time srtt;
  Time rttvar;
  Time rto;
  bool rtt_valid = false;
  uint32_t backoff = 0;
  QpTiming timing;
  CcFlow cc;
  uint64_t cwnd_segs = 0;  // 0: no window from congestion control
  bool requester_active = false;

  // Receiver.
  uint64_t rcv_nxt = 0;
  std::deque<char> ooo;             // segments at and above rcv_nxt that arrived
  uint32_t unacked = 0;             // in-order segments not yet acknowledged
  Time delack_due = Time::never();  // when the oldest unacknowledged segment's ACK is due
  bool delack_timer = false;        // one delayed-ACK timer pending at most per connection
  Time echo_sent_at;                // TSecr: the send time of the segment that last advanced rcv_nxt
  size_t recv_msg = 0;
  FeedbackState fb;

  QpStats ctr;
  uint64_t fast_retransmits = 0;
};

class IwarpTransport final : public Transport, public CcHost {
 public:
  static constexpr uint32_t kDelayedAck = 1;
  static constexpr uint32_t kCcTimer = 2;

  IwarpTransport(Network& net, const TcpConfig& cfg);

  // Transport.
  [[nodiscard]] const char* name() const override { return "iwarp"; }
  void attach_nics(std::vector<Nic*> nics) override { nics_ = std::move(nics); }
  QpId create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) override;
  void post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) override;
  void post_recv(QpId qp, int64_t n) override;
  [[nodiscard]] size_t num_qps() const override { return conns_.size(); }
  [[nodiscard]] QpPath path(QpId qp) const override;
  [[nodiscard]] QpStats stats(QpId qp) const override;
  [[nodiscard]] bool idle(QpId qp) const override { return conns_[qp].snd_una == conns_[qp].snd_end; }
  [[nodiscard]] uint64_t packets_for(int64_t bytes) const override {
    return segments_for(Opcode::kWrite, bytes);
  }
  [[nodiscard]] uint64_t forward_packets(Opcode op, int64_t bytes) const override {
    return segments_for(op, bytes);
  }
  [[nodiscard]] uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  [[nodiscard]] uint64_t back_packets(Opcode /*op*/, int64_t /*bytes*/) const override { return 1; }
  [[nodiscard]] uint32_t back_wire(Opcode /*op*/, int64_t /*bytes*/, uint64_t /*i*/) const override {
    return framing_.ack_wire();
  }
  void set_congestion_control(std::unique_ptr<CongestionControl> cc) override;
  [[nodiscard]] const CongestionControl* congestion_control() const override { return cc_.get(); }
  // TCP's receiver returns what the algorithms here read itself: ACKs, and
  // ECN-Echo (RFC 3168) when fabric.tcp.ecn is on. The schema admits only
  // algorithms that need nothing more (none or ecn-echo), so the part is
  // not called per segment.
  void set_receiver_feedback(std::unique_ptr<ReceiverFeedback> /*fb*/) override {}
  void set_path_selector(PathSelector paths) override;
  [[nodiscard]] const PathSelector& path_selector() const override { return paths_; }
  void on_packet(Nic& nic, Packet* p) override;
  Packet* next_packet(QpId qp, int role, bool& more) override;
  [[nodiscard]] uint8_t traffic_class(QpId qp) const override { return conns_[qp].tc; }
  void on_timer(QpId qp, uint32_t kind, uint32_t tag) override;
  [[nodiscard]] QpTiming& timing(QpId qp) override { return conns_[qp].timing; }
  [[nodiscard]] bool outstanding(QpId qp) const override { return conns_[qp].snd_una < conns_[qp].snd_max; }
  [[nodiscard]] size_t telemetry_held() const override { return 0; }
  // Per connection: una <= nxt <= max <= end; the receiver has delivered in
  // order at least what the sender saw acknowledged and never more than was
  // sent; a completed message was delivered.
  [[nodiscard]] std::string check_invariants() const override;

  // CcHost.
  [[nodiscard]] Time now() const override;
  void schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) override;
  [[nodiscard]] int64_t mtu() const override { return framing_.max_payload(true); }

  [[nodiscard]] const TcpConfig& config() const { return cfg_; }
  [[nodiscard]] const IwarpFraming& framing() const { return framing_; }
  [[nodiscard]] const TcpConnection& connection(QpId id) const { return conns_[id]; }
  // Segments a message of `bytes` takes (Writes carry 4 bytes more per
  // segment than Sends: the tagged DDP header is shorter).
  [[nodiscard]] uint64_t segments_for(Opcode op, int64_t bytes) const;

 private:
  Packet* build_segment(TcpConnection& c, uint64_t seg);
  void on_data(TcpConnection& c, Packet* p);
  void on_ack(TcpConnection& c, const Packet& p);
  void send_ack(TcpConnection& c);
  void rtt_sample(TcpConnection& c, Time rtt);
  void on_rto(TcpConnection& c);
  void activate(TcpConnection& c, bool doorbell = false);
  void arm_timer(TcpConnection& c);
  [[nodiscard]] Time current_rto(const TcpConnection& c) const;
  CcFlow& cc_view(TcpConnection& c) {
    c.cc.una = c.snd_una;
    c.cc.nxt = c.snd_nxt;
    return c.cc;
  }
  void apply_window(TcpConnection& c);

  Network& net_;
  TcpConfig cfg_;
  IwarpFraming framing_;
  uint64_t rwnd_segs_ = 0;
  std::unique_ptr<CongestionControl> cc_;
  bool cc_reads_ece_ = false;  // the algorithm takes ECN-Echo itself (DCTCP)
  PathSelector paths_;
  std::vector<Nic*> nics_;
  std::deque<TcpConnection> conns_;
};

}  // namespace rdmasim
