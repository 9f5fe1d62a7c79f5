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
// READ (RFC 5040 §4.4): the Read Request is an untagged message on the
// requester's stream; the responder answers with a tagged Read Response
// message on its own stream, the connection's other direction, which has
// its own sequence space, window, congestion state and timers (TCP is
// full duplex). ACKs are pure ACKs, not piggybacked on reverse data,
// except the Read Request's: its response's first segment carries it, as
// an RNIC answers a request with data (assumption: other ACKs are not
// held for reverse data; only Reads send data both ways here).
// SACK (RFC 2018, loss recovery per RFC 6675) when fabric.tcp.sack is on:
// an ACK carries one SACK block, the one holding the segment that caused
// it (RFC 2018 §4's first block; assumption: the second and third blocks
// only repeat older news, which the sender already has unless an ACK was
// lost); the sender keeps a scoreboard and in recovery sends while
// cwnd - pipe >= 1 segment, choosing by NextSeg rules (1)-(3), and resends
// a retransmission found lost (a later segment SACKed before it) rather
// than waiting for the timeout, as Linux does.
// Not yet: the three-way handshake (connections start established).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cc/congestion_control.h"
#include "engine/stable_vector.h"
#include "transport/iwarp/iwarp_framing.h"
#include "transport/iwarp/segment_map.h"
#include "transport/iwarp/tcp_config.h"
#include "transport/transport.h"

namespace rdmasim {

class Network;

struct TcpMessage {
  uint64_t wr_id = 0;  // the response stream: the index of the Read Request it answers
  int64_t size = 0;
  uint64_t first_seg = 0;
  uint64_t end_seg = 0;  // one past its last segment
  Time posted;
  Opcode op = Opcode::kWrite;
  // A Read Response: the acknowledgment its first segment carries for the
  // requester's stream (the responder's ACK of the Read Request rides it).
  uint64_t ack = 0;
  Time ack_echo;
};

// What an ACK tells the sender of one direction: a pure ACK's fields, or
// those a Read Response's first segment carries.
struct TcpAck {
  uint64_t next = 0;  // cumulative: the next segment expected
  Time echo;          // TSecr
  bool ece = false;
  uint64_t sack_begin = 0, sack_end = 0;  // one SACK block when sack_end > sack_begin
  bool pure = true;                       // no data: a duplicate counts (RFC 5681 §2)
};

// Per-direction TCP counters, named as Linux's netstat/nstat shows them.
struct TcpCounters {
  uint64_t segments_sent = 0;  // data segments, retransmissions included
  uint64_t retransmitted = 0;  // RetransSegs
  uint64_t retransmitted_bytes = 0;
  uint64_t fast_retransmits = 0;  // TCPFastRetrans: segments resent in fast recovery
  uint64_t timeouts = 0;          // TCPTimeouts: RTO expiries
  uint64_t reno_recoveries = 0;   // TCPRenoRecovery: episodes entered by duplicate ACKs
  uint64_t sack_recoveries = 0;   // TCPSackRecovery: episodes driven by the scoreboard
  uint64_t acks_sent = 0;         // by this direction's receiver
  uint64_t ooo_segments = 0;      // arrived above a hole (placed by DDP, delivered later)
  uint64_t ecn_echoes = 0;        // ACKs with ECE the sender saw
  uint64_t rtt_samples = 0;
  Time min_rtt = Time::never();
  Time max_rtt;
  int64_t max_cwnd_bytes = 0;

  // Sums counts, keeps the extremes (a total over directions).
  TcpCounters& operator+=(const TcpCounters& o) {
    segments_sent += o.segments_sent;
    retransmitted += o.retransmitted;
    retransmitted_bytes += o.retransmitted_bytes;
    fast_retransmits += o.fast_retransmits;
    timeouts += o.timeouts;
    reno_recoveries += o.reno_recoveries;
    sack_recoveries += o.sack_recoveries;
    acks_sent += o.acks_sent;
    ooo_segments += o.ooo_segments;
    ecn_echoes += o.ecn_echoes;
    rtt_samples += o.rtt_samples;
    min_rtt = min_rtt < o.min_rtt ? min_rtt : o.min_rtt;
    max_rtt = max_rtt < o.max_rtt ? o.max_rtt : max_rtt;
    max_cwnd_bytes = max_cwnd_bytes < o.max_cwnd_bytes ? o.max_cwnd_bytes : max_cwnd_bytes;
    return *this;
  }
};

// One direction of a connection: the sender at one end, the receiver at the other.
struct TcpHalf {
  // Sender.
  std::vector<TcpMessage> msgs;
  size_t una_msg = 0;
  uint64_t snd_una = 0;
  uint64_t snd_nxt = 0;
  uint64_t snd_max = 0;  // highest segment ever sent + 1
  uint64_t snd_end = 0;  // one past the last segment posted
  uint32_t dupacks = 0;
  bool in_recovery = false;
  uint64_t recover = 0;         // snd_max when the loss episode began (RFC 6582, RFC 6675 RecoveryPoint)
  uint64_t retransmit = ~0ull;  // NewReno: a segment to resend before new data
  Time srtt;
  Time rttvar;
  Time rto;
  bool rtt_valid = false;
  uint32_t backoff = 0;
  QpTiming timing;
  CcFlow cc;
  uint64_t cwnd_segs = 0;  // 0: no window from congestion control
  bool active = false;
  // SACK scoreboard (RFC 6675 §3): kSacked per segment from snd_una, the
  // count of marks, the highest dupack_threshold SACKed segments (below the
  // lowest of them every unSACKed segment IsLost), HighRxt as one past it,
  // and the SACKed segments below it (for SetPipe).
  SegmentMap sb;
  uint64_t sacked = 0;
  std::vector<uint64_t> top_sacked;  // ascending
  uint64_t rxt_next = 0;
  uint64_t sacked_below_rxt = 0;
  uint64_t last_sack_begin = 0, last_sack_end = 0;  // the block last marked in full
  // Lost retransmissions (not in RFC 6675; Linux's tcp_mark_lost_retrans, as
  // RACK does by time): each retransmission in order with snd_max when it
  // left; once a segment sent after it is SACKed while it is not, it was
  // lost too and goes again, first.
  struct Resent {
    uint64_t seg;
    uint64_t sent_before;  // snd_max then: segments at or above it left later
  };
  // Vectors, not deques: an empty std::deque allocates, and most directions
  // never retransmit. Both are short (one loss episode) and drained from the front.
  std::vector<Resent> resent;
  std::vector<uint64_t> relost;

  // Receiver.
  uint64_t rcv_nxt = 0;
  SegmentMap ooo;                           // segments above rcv_nxt that arrived
  uint64_t block_begin = 0, block_end = 0;  // the SACK block the last out-of-order segment extended
  uint32_t unacked = 0;                     // in-order segments not yet acknowledged
  Time delack_due = Time::never();          // when the oldest unacknowledged segment's ACK is due
  bool delack_timer = false;                // one delayed-ACK timer pending at most per direction
  Time echo_sent_at;                        // TSecr: the send time of the segment that last advanced rcv_nxt
  size_t recv_msg = 0;
  bool ce_pending = false;  // a CE mark arrived since the last ACK (RFC 3168 §6.1.3)
  bool ce_state = false;    // DCTCP.CE (RFC 8257 §3.2): the CE mark of the last segment

  TcpCounters ctr;
};

// Connection set-up with fabric.tcp.handshake: the requester's SYN, the
// responder's SYN-ACK, the requester's ACK with its MPA Request (the first
// bytes of its stream), the responder's MPA Reply; the requester sends no
// FPDU before the Reply (RFC 5044 §7.1.2). Every retransmission of a lost
// step is the requester's, on RFC 6298's initial 1 s timer.
enum class TcpSetUp : uint8_t { kEstablished, kIdle, kSynSent, kMpaSent };

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
  // half[0]: requester -> responder (Writes, Sends, Read Requests);
  // half[1]: responder -> requester (Read Responses).
  TcpHalf half[2];
  TcpSetUp setup = TcpSetUp::kEstablished;
  uint32_t setup_retries = 0;  // of the current step, for the backoff
  uint32_t setup_sends = 0;    // by the requester: names its timer, so an answered step's timer is ignored
  Time setup_started;          // the first message posted
  Time setup_sent;             // the current step's last transmission
  Time setup_time;             // until the MPA Reply arrived (zero: no handshake)
};

// Timers and congestion-control state are per direction: a "flow" number
// 2 * QP + direction names one (CcFlow::id, and the id the NIC's timer
// events carry back to timing(), outstanding() and on_timer()).
class IwarpTransport final : public Transport, public CcHost {
 public:
  static constexpr uint32_t kDelayedAck = 1;
  static constexpr uint32_t kCcTimer = 2;
  static constexpr uint32_t kSetUpTimer = 3;
  static constexpr uint8_t kSacked = 1;  // scoreboard / out-of-order map mark

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
  [[nodiscard]] bool idle(QpId qp) const override {
    const TcpConnection& c = conns_[qp];
    return c.half[0].snd_una == c.half[0].snd_end && c.half[1].snd_una == c.half[1].snd_end;
  }
  [[nodiscard]] uint64_t packets_for(int64_t bytes) const override {
    return segments_for(Opcode::kWrite, bytes);
  }
  [[nodiscard]] uint64_t forward_packets(Opcode op, int64_t bytes) const override {
    return op == Opcode::kRead ? 1 : segments_for(op, bytes);
  }
  [[nodiscard]] uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  [[nodiscard]] uint64_t back_packets(Opcode op, int64_t bytes) const override {
    return op == Opcode::kRead ? segments_for(op, bytes) : 1;
  }
  [[nodiscard]] uint32_t back_wire(Opcode op, int64_t bytes, uint64_t i) const override;
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
  void on_timer(QpId flow, uint32_t kind, uint32_t tag) override;
  [[nodiscard]] QpTiming& timing(QpId flow) override { return half_of(flow).timing; }
  [[nodiscard]] bool outstanding(QpId flow) const override {
    const TcpHalf& h = conns_[flow >> 1].half[flow & 1];
    return h.snd_una < h.snd_max;
  }
  [[nodiscard]] size_t telemetry_held() const override { return 0; }
  // Per direction: una <= nxt <= max <= end; the receiver has delivered in
  // order at least what the sender saw acknowledged and never more than was
  // sent; a completed message was delivered; the scoreboard's counts agree
  // with its marks. Per connection: every Read Request delivered has its
  // response posted.
  [[nodiscard]] std::string check_invariants() const override;
  // results.json "tcp": totals over every connection and direction; tcp.csv:
  // one row per direction that sent data; the series: cwnd, SRTT, segments
  // in flight and retransmissions so far of each direction with data outstanding.
  void report(nlohmann::ordered_json& results) const override;
  [[nodiscard]] Table connection_table() const override;
  [[nodiscard]] Table series_header() const override;
  void sample_series(Time now, std::string& rows) const override;

  // CcHost.
  [[nodiscard]] Time now() const override;
  void schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) override;
  [[nodiscard]] int64_t mtu() const override { return framing_.max_payload(true); }

  [[nodiscard]] const TcpConfig& config() const { return cfg_; }
  [[nodiscard]] const IwarpFraming& framing() const { return framing_; }
  [[nodiscard]] const TcpConnection& connection(QpId id) const { return conns_[id]; }
  // Segments a message of `bytes` takes (Writes and Read Responses carry 4
  // bytes more per segment than Sends: the tagged DDP header is shorter; a
  // Read Request is one segment).
  [[nodiscard]] uint64_t segments_for(Opcode op, int64_t bytes) const;

 private:
  [[nodiscard]] TcpHalf& half_of(uint32_t flow) { return conns_[flow >> 1].half[flow & 1]; }
  // The two ends of direction d: where its data leaves and lands.
  [[nodiscard]] static int sender(const TcpConnection& c, int d) { return d == 0 ? c.src : c.dst; }
  [[nodiscard]] static int receiver(const TcpConnection& c, int d) { return d == 0 ? c.dst : c.src; }
  [[nodiscard]] static uint16_t sender_port(const TcpConnection& c, int d) {
    return d == 0 ? c.src_nic_port : c.dst_nic_port;
  }
  [[nodiscard]] static uint16_t receiver_port(const TcpConnection& c, int d) {
    return d == 0 ? c.dst_nic_port : c.src_nic_port;
  }
  void post_message(TcpConnection& c, int d, const TcpMessage& m, bool doorbell);
  // Connection set-up: step 1 SYN, 2 SYN-ACK, 3 MPA Request, 4 MPA Reply.
  void send_setup(TcpConnection& c, uint32_t step);
  void on_setup(TcpConnection& c, uint32_t step);
  Packet* build_segment(TcpConnection& c, int d, uint64_t seg);
  void on_data(TcpConnection& c, int d, Packet* p);
  // Returns whether a Read Response was posted that carries this ACK.
  bool deliver_messages(TcpConnection& c, int d, bool& message_end);
  void on_ack(TcpConnection& c, int d, const TcpAck& a);
  // With a SACK block [sack_begin, sack_end) when sack_end > sack_begin.
  void send_ack(TcpConnection& c, int d, uint64_t sack_begin = 0, uint64_t sack_end = 0);
  void rtt_sample(TcpHalf& h, Time rtt);
  void on_rto(TcpConnection& c, int d);
  void activate(TcpConnection& c, int d, bool doorbell = false);
  void arm_timer(TcpConnection& c, int d);
  [[nodiscard]] Time current_rto(const TcpHalf& h) const;
  CcFlow& cc_view(TcpHalf& h) {
    h.cc.una = h.snd_una;
    h.cc.nxt = h.snd_nxt;
    return h.cc;
  }
  void apply_window(TcpHalf& h);
  // SACK (RFC 6675).
  void sack_advance(TcpHalf& h, uint64_t old_una);
  void sack_mark(TcpHalf& h, uint64_t begin, uint64_t end);
  // The segment to send next in SACK recovery (RFC 6675 NextSeg), or ~0 for none.
  uint64_t next_seg(TcpHalf& h);
  [[nodiscard]] uint64_t lost_below(const TcpHalf& h) const;  // IsLost holds for unSACKed segments below
  [[nodiscard]] uint64_t pipe(const TcpHalf& h) const;

  Network& net_;
  TcpConfig cfg_;
  IwarpFraming framing_;
  uint64_t rwnd_segs_ = 0;
  std::unique_ptr<CongestionControl> cc_;
  bool cc_reads_ece_ = false;  // the algorithm takes ECN-Echo itself (DCTCP)
  PathSelector paths_;
  std::vector<Nic*> nics_;
  StableVector<TcpConnection> conns_;
};

}  // namespace rdmasim
