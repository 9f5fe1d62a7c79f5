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
// SACK bitmap of the 64 PSNs after it; a trimmed header is NACKed at once.
// The initiator resends a PSN when a NACK names it (trim), when
// `sack_loss_threshold` later PSNs were SACKed without it, or on a timeout.
// Messages complete in the order they were posted, once every packet is
// acknowledged, so reordering on the wire never reorders completions.
//
// On the wire (packet fields): a data packet carries its 64-bit PSN in
// `psn`, its message index in `aux`. An ACK carries the SACK bitmap in `psn`
// (bit i: PSN cack + 1 + i arrived), the cumulative ACK PSN as the wire's
// 32 bits in `aux` (the initiator widens it against its oldest unacked PSN),
// the data packet's send time in `sent_at` and its CE mark as ECN-Echo. A
// NACK carries the PSN it names in `psn` and its code in `aux`.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "cc/congestion_control.h"
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
};

struct Pdc {
  uint32_t id = 0;
  int src = 0;
  int dst = 0;
  uint16_t src_nic_port = 0;
  uint16_t dst_nic_port = 0;
  uint8_t tc = 0;
  uint32_t flow_hash = 0;  // the PDC's own entropy (its path selector may spray around it)
  uint32_t rev_hash = 0;
  CompletionSink* sink = nullptr;
  std::vector<PdsMessage> msgs;

  // Initiator.
  size_t una_msg = 0;
  size_t nxt_msg = 0;
  uint64_t snd_una = 0;         // oldest PSN not acknowledged
  uint64_t snd_nxt = 0;         // next new PSN
  uint64_t snd_max = 0;         // one past the highest PSN sent
  uint64_t snd_end = 0;         // one past the last PSN posted
  uint64_t highest_sacked = 0;  // one past the highest PSN SACKed
  uint64_t loss_scan = 0;       // PSNs below it were judged by the SACK rule
  int64_t inflight_bytes = 0;
  std::vector<uint8_t> state;  // per PSN mod psn_window: kSent, kAcked, kLost, kInFlight
  std::vector<uint32_t> ev;    // per PSN mod psn_window: the entropy it left with (REPS learns from it)
  Ring<uint64_t> resend;       // PSNs marked lost, oldest first
  bool established = false;    // an ACK came back: no more SYN
  bool active = false;
  uint32_t rto_exp = 0;
  QpTiming timing;
  CcFlow cc;

  // Target.
  bool opened = false;
  uint64_t rcv_nxt = 0;        // every PSN below it arrived
  std::vector<uint64_t> rcvd;  // bitmap over PSNs mod psn_window
  uint32_t since_ack = 0;
  bool ce_pending = false;        // a packet since the last ACK met CE: the next ACK echoes it
  bool rod_nack_sent = false;     // one ROD_OOO NACK per gap
  std::vector<uint32_t> arrived;  // per message: packets placed
  size_t recv_msg = 0;            // next message whose arrival is to be reported

  QpStats ctr;
};

class UetPds final : public Transport, public CcHost {
 public:
  static constexpr uint32_t kCcTimer = 2;
  // Per-PSN initiator state.
  static constexpr uint8_t kSent = 1, kAcked = 2, kLost = 4, kInFlight = 8;

  UetPds(Network& net, PdsConfig cfg);

  [[nodiscard]] const char* name() const override { return "uet"; }
  void attach_nics(std::vector<Nic*> nics) override { nics_ = std::move(nics); }
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
  [[nodiscard]] uint64_t forward_packets(Opcode /*op*/, int64_t bytes) const override {
    return packets_for(bytes);
  }
  [[nodiscard]] uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const override;
  [[nodiscard]] uint64_t back_packets(Opcode /*op*/, int64_t /*bytes*/) const override {
    return cfg_.mode == DeliveryMode::kUud ? 0 : 1;
  }
  [[nodiscard]] uint32_t back_wire(Opcode op, int64_t bytes, uint64_t i) const override;

  void set_congestion_control(std::unique_ptr<CongestionControl> cc) override;
  [[nodiscard]] const CongestionControl* congestion_control() const override { return cc_.get(); }
  void set_receiver_feedback(std::unique_ptr<ReceiverFeedback> fb) override { feedback_ = std::move(fb); }
  void set_path_selector(PathSelector paths) override;
  [[nodiscard]] const PathSelector& path_selector() const override { return paths_; }

  void on_packet(Nic& nic, Packet* p) override;
  Packet* next_packet(QpId qp, int role, bool& more) override;
  [[nodiscard]] uint8_t traffic_class(QpId qp) const override { return pdcs_[qp].tc; }
  void on_timer(QpId qp, uint32_t kind, uint32_t tag) override;
  [[nodiscard]] QpTiming& timing(QpId qp) override { return pdcs_[qp].timing; }
  [[nodiscard]] bool outstanding(QpId qp) const override { return pdcs_[qp].snd_una < pdcs_[qp].snd_max; }
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
  // Initiator.
  Packet* build_data(Pdc& c, uint64_t psn, bool resend);
  void on_ack(Pdc& c, Packet* p);
  void on_nack(Pdc& c, Packet* p);
  void acknowledge(Pdc& c, uint64_t psn, int64_t& bytes, bool marked);
  void mark_lost(Pdc& c, uint64_t psn);
  void advance(Pdc& c);
  void on_rto(Pdc& c);
  void arm_timer(Pdc& c);
  void activate(Pdc& c, bool doorbell = false);
  [[nodiscard]] uint32_t payload_of(const Pdc& c, uint64_t psn) const;
  [[nodiscard]] size_t message_of(const Pdc& c, uint64_t psn) const;
  [[nodiscard]] bool window_open(const Pdc& c) const;
  // Target.
  void on_data(Pdc& c, Packet* p);
  void on_trimmed(Pdc& c, Packet* p);
  void place(Pdc& c, uint64_t psn, uint32_t msg);
  void send_ack(Pdc& c, const Packet& trigger);
  void send_nack(Pdc& c, uint64_t psn, NackCode code, const Packet& trigger);
  [[nodiscard]] static uint32_t reverse_entropy(const Pdc& c, const Packet& trigger);
  [[nodiscard]] bool has(const Pdc& c, uint64_t psn) const;
  [[nodiscard]] uint8_t& st(Pdc& c, uint64_t psn) const { return c.state[psn & mask_]; }
  [[nodiscard]] uint8_t st(const Pdc& c, uint64_t psn) const { return c.state[psn & mask_]; }
  CcFlow& cc_view(Pdc& c) {
    c.cc.una = c.snd_una;
    c.cc.nxt = c.snd_nxt;
    return c.cc;
  }

  Network& net_;
  PdsConfig cfg_;
  uint64_t mask_;
  std::unique_ptr<CongestionControl> cc_;
  std::unique_ptr<ReceiverFeedback> feedback_;
  PathSelector paths_;
  bool learn_ev_ = false;  // the selector learns from each packet's entropy (reps)
  std::vector<Nic*> nics_;
  std::deque<Pdc> pdcs_;
  PdsTotals totals_;
};

}  // namespace rdmasim
