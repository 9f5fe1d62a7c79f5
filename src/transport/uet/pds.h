// UET's Packet Delivery Sublayer (UEC 1.0 §3.5) as a Transport: the fourth
// fabric's transport beside RC (InfiniBand, RoCEv2) and iWARP.
//
// A QP is one PDC (packet delivery context) between two fabric endpoints.
// It opens without a handshake: the initiator sends at once (the first
// packets carry SYN until an ACK returns) and the target creates its half
// when the first packet arrives. Each PDC numbers its packets with its own
// PSNs. The target places every packet where it belongs whatever order it
// comes in (out-of-order placement by the semantic sublayer) and returns
// ACKs that carry a cumulative ACK PSN (all below it arrived) and a 64-bit
// SACK bitmap at an offset the target picks (UEC's SACK_PSN_OFFSET): the 64
// PSNs after the cumulative one, or, for a packet further ahead, the 64
// ending at it, so every arrival can be reported however deep the hole
// behind it; a trimmed header is NACKed at once.
// The initiator resends a PSN when a NACK names it (trim), when
// `sack_loss_threshold` later PSNs were SACKed without it, or on a timeout.
// Messages complete in the order they were posted, once every packet is
// acknowledged, so reordering on the wire never reorders completions.
//
// On the wire (packet fields): a data packet carries its 64-bit PSN in
// `psn`, its message index in `aux`. An ACK carries the SACK bitmap in `psn`
// (bit i: PSN cack + 1 + offset + i arrived), the SACK offset in `payload`,
// the cumulative ACK PSN as the wire's
// 32 bits in `aux` (the initiator widens it against its oldest unacked PSN),
// the data packet's send time in `sent_at` and its CE mark as ECN-Echo. A
// NACK carries the PSN it names in `psn` and its code in `aux`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cc/congestion_control.h"
#include "cc/rccc/rccc.h"
#include "engine/stable_vector.h"
#include "engine/ring.h"
#include "engine/units.h"
#include "net/packet.h"
#include "transport/transport.h"
#include "transport/uet/pds_config.h"

namespace rdmasim {

class Network;

// NACK codes (UEC 1.0 §3.5.12, the subset a simulated target raises).
enum class NackCode : uint32_t {
  kTrimmed = 0x1,        // UET_PDS_NACK_CODE_TRIMMED
  kOutOfWindow = 0xb,    // PSN_OOR_WINDOW: beyond the target's tracking window
  kRodOutOfOrder = 0xd,  // ROD_OOO: not the next PSN on an ordered PDC
};

struct PdsMessage {
  uint64_t wr_id = 0;
  int64_t size = 0;
  uint64_t first_psn = 0;
  uint64_t end_psn = 0;  // one past its last PSN
  Time posted;
  Opcode op = Opcode::kWrite;
  // Direction 0: a READ's request is one PSN; its data returns on direction
  // 1 as message `link` there. Direction 1: the request's index.
  size_t link = 0;
};

// Totals over every PDC (results.json `uet`).
struct PdsTotals {
  uint64_t pdcs_opened = 0;
  uint64_t trimmed_received = 0;  // trimmed headers that reached a target (each NACKed)
  uint64_t trim_retransmits = 0;  // resends a trim NACK caused
  uint64_t sack_retransmits = 0;  // resends the SACK bitmap caused
  uint64_t rto_retransmits = 0;   // resends a timeout caused
  uint64_t rod_ooo_nacks = 0;
  uint64_t out_of_window = 0;  // packets beyond a target's PSN window (dropped, NACKed)
  uint64_t duplicates = 0;     // a PSN that had already arrived (rudi: applied again)
  uint64_t uud_sent = 0;       // uud: packets sent, never acknowledged
  uint64_t trim_nacks_sent = 0;
  uint64_t trimmed_after_arrival = 0;  // trimmed copies of a PSN that had already arrived (no NACK)
  uint64_t data_built = 0;             // data packets the initiators built (first sends and resends)
  uint64_t data_received = 0;          // data packets that reached a target, whatever became of them
  uint64_t grants_sent = 0;            // RCCC credit packets
};

// One direction of a PDC: a reliable packet stream with its sender at one
// end and its receiver at the other. Direction 0 carries the initiator's
// requests (WRITE and SEND data, READ requests) to the target; direction 1
// carries READ response data back. Each has its own PSNs, window, timers
// and congestion-control flow ("flow" 2 x QP + direction).
struct PdsHalf {
  std::vector<PdsMessage> msgs;

  // Sender.
  size_t una_msg = 0;
  size_t nxt_msg = 0;
  uint64_t snd_una = 0;         // oldest PSN not acknowledged
  uint64_t snd_nxt = 0;         // next new PSN
  uint64_t snd_max = 0;         // one past the highest PSN sent
  uint64_t snd_end = 0;         // one past the last PSN posted
  uint64_t highest_sacked = 0;  // one past the highest PSN SACKed
  uint64_t loss_scan = 0;       // PSNs below it were judged by the SACK rule
  uint64_t sends = 0;           // packets sent: the spraying sequence
  int64_t inflight_bytes = 0;
  std::vector<uint8_t> state;  // per PSN mod psn_window: kSent, kAcked, kLost, kInFlight
  std::vector<uint32_t> ev;    // per PSN mod psn_window: the entropy it left with (REPS learns from it)
  Ring<uint64_t> resend;       // PSNs marked lost, oldest first
  bool established = false;    // an ACK came back: no more SYN
  bool active = false;
  uint32_t rto_exp = 0;
  int64_t credit = 0;  // RCCC: the window the receiver granted (bytes in flight); 0 with RCCC off
  QpTiming timing;
  CcFlow cc;

  // Receiver.
  bool opened = false;
  uint64_t rcv_nxt = 0;        // every PSN below it arrived
  std::vector<uint64_t> rcvd;  // bitmap over PSNs mod psn_window
  uint32_t since_ack = 0;
  bool ce_pending = false;        // a packet since the last ACK met CE: the next ACK echoes it
  bool rod_nack_sent = false;     // one ROD_OOO NACK per gap
  std::vector<uint32_t> arrived;  // per message: packets placed
  size_t recv_msg = 0;            // next message whose arrival is to be reported
};

struct Pdc {
  uint32_t id = 0;
  int src = 0;  // the initiator
  int dst = 0;  // the target
  uint16_t src_nic_port = 0;
  uint16_t dst_nic_port = 0;
  uint8_t tc = 0;
  uint32_t flow_hash =
      0;  // initiator -> target: the PDC's own entropy (its path selector may spray around it)
  uint32_t rev_hash = 0;  // target -> initiator
  CompletionSink* sink = nullptr;
  PdsHalf half[2];
  std::vector<uint8_t> read_done;  // per direction-0 message: its READ response has all arrived
  QpStats ctr;
};

class UetPds final : public Transport, public CcHost {
 public:
  static constexpr uint32_t kCcTimer = 2;
  static constexpr uint64_t kMaxSackOffset = 0xffff;  // a 16-bit field on the wire
  // Per-PSN sender state.
  static constexpr uint8_t kSent = 1, kAcked = 2, kLost = 4, kInFlight = 8;

  // `base_rtt`: the fabric's unloaded RTT, asked for when RCCC sizes the
  // receivers' budgets (after the fabric is built).
  UetPds(Network& net, PdsConfig cfg, std::function<Time()> base_rtt = {});

  [[nodiscard]] const char* name() const override { return "uet"; }
  void attach_nics(std::vector<Nic*> nics) override;
  QpId create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) override;
  void post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) override;
  void post_recv(QpId /*qp*/, int64_t /*n*/) override {}  // the SES buffers unexpected messages
  [[nodiscard]] size_t num_qps() const override { return pdcs_.size(); }
  [[nodiscard]] QpPath path(QpId qp) const override;
  [[nodiscard]] QpStats stats(QpId qp) const override;
  [[nodiscard]] bool idle(QpId qp) const override;
  [[nodiscard]] uint64_t packets_for(int64_t bytes) const override {
    return bytes <= 0 ? 1u : static_cast<uint64_t>((bytes + cfg_.mtu - 1) / cfg_.mtu);
  }
  [[nodiscard]] uint64_t forward_packets(Opcode op, int64_t bytes) const override {
    return op == Opcode::kRead ? 1 : packets_for(bytes);
  }
  [[nodiscard]] uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  [[nodiscard]] uint64_t back_packets(Opcode op, int64_t bytes) const override {
    if (op == Opcode::kRead) return packets_for(bytes);
    return cfg_.mode == DeliveryMode::kUud ? 0 : 1;
  }
  [[nodiscard]] uint32_t back_wire(Opcode op, int64_t bytes, uint64_t i) const override;

  void set_congestion_control(std::unique_ptr<CongestionControl> cc) override;
  [[nodiscard]] const CongestionControl* congestion_control() const override { return cc_.get(); }
  void set_receiver_feedback(std::unique_ptr<ReceiverFeedback> fb) override { feedback_ = std::move(fb); }
  void set_path_selector(PathSelector paths) override;
  [[nodiscard]] const PathSelector& path_selector() const override { return paths_; }

  void on_packet(Nic& nic, Packet* p) override;
  // role 0: the initiator's requests (direction 0); role 1: READ responses (direction 1).
  Packet* next_packet(QpId qp, int role, bool& more) override;
  [[nodiscard]] uint8_t traffic_class(QpId qp) const override { return pdcs_[qp].tc; }
  // Timers, pacing and deadlines are per direction: `flow` = 2 x QP + direction.
  void on_timer(QpId flow, uint32_t kind, uint32_t tag) override;
  [[nodiscard]] QpTiming& timing(QpId flow) override { return pdcs_[flow >> 1].half[flow & 1].timing; }
  [[nodiscard]] bool outstanding(QpId flow) const override {
    const PdsHalf& h = pdcs_[flow >> 1].half[flow & 1];
    return h.snd_una < h.snd_max;
  }
  [[nodiscard]] size_t telemetry_held() const override { return 0; }
  [[nodiscard]] std::string check_invariants() const override;
  void report(nlohmann::ordered_json& results) const override;

  // CcHost.
  [[nodiscard]] Time now() const override;
  void schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) override;
  [[nodiscard]] int64_t mtu() const override { return cfg_.mtu; }

  [[nodiscard]] const PdsConfig& config() const { return cfg_; }
  [[nodiscard]] const Pdc& pdc(QpId qp) const { return pdcs_[qp]; }
  [[nodiscard]] const PdsTotals& totals() const { return totals_; }

 private:
  // Who sends and who receives direction d.
  [[nodiscard]] static int sender(const Pdc& c, int d) { return d == 0 ? c.src : c.dst; }
  [[nodiscard]] static int receiver(const Pdc& c, int d) { return d == 0 ? c.dst : c.src; }
  [[nodiscard]] static uint16_t sender_port(const Pdc& c, int d) {
    return d == 0 ? c.src_nic_port : c.dst_nic_port;
  }
  [[nodiscard]] static uint16_t receiver_port(const Pdc& c, int d) {
    return d == 0 ? c.dst_nic_port : c.src_nic_port;
  }
  [[nodiscard]] static uint32_t flow(const Pdc& c, int d) { return 2 * c.id + static_cast<uint32_t>(d); }
  // Sender.
  Packet* build_data(Pdc& c, int d, uint64_t psn, bool resend);
  void on_ack(Pdc& c, int d, Packet* p);
  void on_nack(Pdc& c, int d, Packet* p);
  void acknowledge(Pdc& c, int d, uint64_t psn, int64_t& bytes, bool marked);
  void mark_lost(Pdc& c, int d, uint64_t psn);
  void advance(Pdc& c, int d);
  void complete_initiator(Pdc& c);
  void on_rto(Pdc& c, int d);
  void activate(Pdc& c, int d, bool doorbell = false);
  void append(Pdc& c, int d, Opcode op, int64_t bytes, uint64_t wr_id, size_t link);
  [[nodiscard]] uint32_t payload_of(const PdsHalf& h, int d, uint64_t psn) const;
  [[nodiscard]] static size_t message_of(const PdsHalf& h, uint64_t psn);
  [[nodiscard]] bool window_open(const PdsHalf& h) const;
  // Receiver.
  void on_data(Pdc& c, int d, Packet* p);
  void on_trimmed(Pdc& c, int d, Packet* p);
  void place(Pdc& c, int d, uint64_t psn, uint32_t msg);
  void delivered(Pdc& c, int d, const PdsMessage& m);
  void send_ack(Pdc& c, int d, const Packet& trigger);
  void send_nack(Pdc& c, int d, uint64_t psn, NackCode code, const Packet& trigger);
  void send_grant(uint32_t flow, int64_t bytes);
  void on_grant(Pdc& c, int d, const Packet& p);
  [[nodiscard]] uint32_t reverse_entropy(const Pdc& c, int d) const;
  [[nodiscard]] uint32_t forward_entropy(Pdc& c, int d, uint64_t psn);
  [[nodiscard]] bool has(const PdsHalf& h, uint64_t psn) const;
  [[nodiscard]] uint8_t& st(PdsHalf& h, uint64_t psn) const { return h.state[psn & mask_]; }
  [[nodiscard]] uint8_t st(const PdsHalf& h, uint64_t psn) const { return h.state[psn & mask_]; }
  CcFlow& cc_view(PdsHalf& h) {
    h.cc.una = h.snd_una;
    h.cc.nxt = h.snd_nxt;
    return h.cc;
  }

  Network& net_;
  PdsConfig cfg_;
  uint64_t mask_;
  std::unique_ptr<CongestionControl> cc_;
  std::unique_ptr<ReceiverFeedback> feedback_;
  PathSelector paths_;
  bool learn_ev_ = false;   // the selector learns from each packet's entropy (reps)
  bool sprays_ = false;     // the selector sprays: acknowledgements and READ responses spray back too
  uint64_t acks_sent_ = 0;  // every ACK and NACK so far: the reverse spraying sequence
  std::function<Time()> base_rtt_;
  std::unique_ptr<RcccScheduler> rccc_;  // the receivers' credit scheduler (RCCC on)
  std::vector<Nic*> nics_;
  StableVector<Pdc> pdcs_;
  PdsTotals totals_;
};

}  // namespace rdmasim
