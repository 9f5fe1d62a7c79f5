// The transport boundary: what a transport (RC and iWARP today; UET PDS
// next) offers the verbs layer above it and the NIC below it. One class per
// transport, created by name (fabric/parts.cpp). The verbs layer is its only
// user above; the NIC hands it packets and asks it for the next one.
//
// Contract: QP ids are dense from 0 in creation order and never reused;
// completions are reported through the QP's CompletionSink from inside
// simulation events (never re-entrantly from post()); stats() and path()
// are cheap and may be called at any time, including after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cc/congestion_control.h"
#include "feedback/receiver_feedback.h"
#include "nic/path/path_selector.h"
#include "nic/qp_timing.h"
#include "verbs/completion.h"

namespace rdmasim {

class Nic;

// Per-QP counters every transport keeps (a transport without a mechanism
// leaves its counter at 0: no NAKs on a transport that has none).
struct QpStats {
  uint64_t data_packets_sent = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t retransmitted_bytes = 0;
  uint64_t timeouts = 0;
  uint64_t naks_received = 0;
  uint64_t naks_sent = 0;
  uint64_t acks_sent = 0;
  uint64_t out_of_order_discards = 0;
  uint64_t rnr_naks_sent = 0;
  uint64_t rnr_naks_received = 0;
  uint64_t out_of_order_placed = 0;  // accepted ahead of a gap (reordering tolerated)
  uint64_t cnps_sent = 0;            // congestion notifications the responder sent
  uint64_t cnps_received = 0;
  uint64_t in_order_received = 0;  // responder: packets delivered in order so far (progress)
};

// Where a QP's packets go: enough to recompute its path through the fabric.
struct QpPath {
  int src = 0;
  int dst = 0;
  uint16_t src_nic_port = 0;
  uint16_t dst_nic_port = 0;
  uint32_t flow_hash = 0;  // requester -> responder: the entropy its packets carry now
  uint32_t rev_hash = 0;   // responder -> requester
  uint8_t tc = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  [[nodiscard]] virtual const char* name() const = 0;

  // Verbs side.
  // Creates a QP pair from host src to host dst in traffic class tc.
  virtual QpId create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) = 0;
  virtual void post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) = 0;
  // Posts `n` receive WQEs at the responder. Until the first call a QP takes
  // SENDs without them; after it, a SEND that finds none is refused.
  virtual void post_recv(QpId qp, int64_t n) = 0;
  [[nodiscard]] virtual size_t num_qps() const = 0;
  [[nodiscard]] virtual QpPath path(QpId qp) const = 0;
  [[nodiscard]] virtual QpStats stats(QpId qp) const = 0;
  // Nothing outstanding: every posted message acknowledged and answered.
  [[nodiscard]] virtual bool idle(QpId qp) const = 0;
  // Data the receiving host has yet to get: a QP whose last message has all
  // arrived and waits only for its acknowledgment has none (a long link's
  // last round trip is not a stall). By default, as long as it is not idle.
  [[nodiscard]] virtual bool awaiting_delivery(QpId qp) const { return !idle(qp); }
  // Data packets a message of `bytes` takes.
  [[nodiscard]] virtual uint64_t packets_for(int64_t bytes) const = 0;
  // The unloaded exchange of one message, for ideal completion times: the
  // packets requester -> responder (data; for a READ its request) and back
  // (the ACK that completes it; for a READ the response stream), and the
  // wire bytes of the i-th of each.
  [[nodiscard]] virtual uint64_t forward_packets(Opcode op, int64_t bytes) const = 0;
  [[nodiscard]] virtual uint32_t forward_wire(Opcode op, int64_t bytes, uint64_t i) const = 0;
  [[nodiscard]] virtual uint64_t back_packets(Opcode op, int64_t bytes) const = 0;
  [[nodiscard]] virtual uint32_t back_wire(Opcode op, int64_t bytes, uint64_t i) const = 0;

  // The congestion-control plug-in for every QP (nullptr: line rate).
  virtual void set_congestion_control(std::unique_ptr<CongestionControl> cc) = 0;
  [[nodiscard]] virtual const CongestionControl* congestion_control() const = 0;
  // What responders return for it (the part the algorithm names; none by default).
  virtual void set_receiver_feedback(std::unique_ptr<ReceiverFeedback> fb) = 0;
  // The entropy its requesters put in their packets (per-connection by
  // default). Before the first QP: throws std::logic_error after it.
  virtual void set_path_selector(PathSelector paths) = 0;
  [[nodiscard]] virtual const PathSelector& path_selector() const = 0;

  // NIC side. The NICs by host index, before the first QP is created.
  virtual void attach_nics(std::vector<Nic*> nics) = 0;
  // on_packet consumes `p` (delivers or frees it).
  virtual void on_packet(Nic& nic, Packet* p) = 0;
  // The next packet of `qp` in `role` (0 requester, 1 responder stream);
  // sets `more` when that role has further packets to send.
  virtual Packet* next_packet(QpId qp, int role, bool& more) = 0;
  [[nodiscard]] virtual uint8_t traffic_class(QpId qp) const = 0;
  // A timer the transport asked its NIC for (Nic::schedule_transport_timer),
  // or one the NIC runs for it: Nic::kPaceWake, Nic::kDeadline.
  virtual void on_timer(QpId qp, uint32_t kind, uint32_t tag) = 0;
  // The QP's pacing and deadline state, which the NIC runs (nic/qp_timing.h).
  [[nodiscard]] virtual QpTiming& timing(QpId qp) = 0;
  // True while `qp` has sent packets not yet acknowledged: its deadline matters.
  [[nodiscard]] virtual bool outstanding(QpId qp) const = 0;

  // Invariant support: INT stacks the transport holds for a later ACK.
  [[nodiscard]] virtual size_t telemetry_held() const = 0;
  // The transport's own conservation laws, checked at the end of every run
  // (and whenever asked): "" when they hold, else what broke.
  [[nodiscard]] virtual std::string check_invariants() const = 0;

  // What only this transport counts, as its operators name it. report()
  // adds a section to results.json (nothing by default); the connection
  // table is a CSV written beside flows.csv (no file when `file` is empty);
  // the series is sampled with the queue time series (none when the header
  // is empty), one row per connection that is busy at `now`.
  struct Table {
    std::string file;
    std::string csv;
  };
  virtual void report(nlohmann::ordered_json& /*results*/) const {}
  [[nodiscard]] virtual Table connection_table() const { return {}; }
  [[nodiscard]] virtual Table series_header() const { return {}; }
  virtual void sample_series(Time /*now*/, std::string& /*rows*/) const {}
};

}  // namespace rdmasim
