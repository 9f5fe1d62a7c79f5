// The verbs layer: the only door between what hosts do (workloads,
// collectives, background traffic, reports) and the fabric's transport. QPs,
// work requests and completions look the same on every fabric ("same verbs,
// different lossless story"); nothing above this header names a transport
// class, a packet or a port.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/transport.h"
#include "verbs/completion.h"

namespace rdmasim {

// A handle on one QP pair: cheap to copy, valid as long as its fabric lives.
class QueuePair {
 public:
  QueuePair() = default;

  void post_write(int64_t bytes, uint64_t wr_id) { t_->post(id_, Opcode::kWrite, bytes, wr_id); }
  void post_read(int64_t bytes, uint64_t wr_id) { t_->post(id_, Opcode::kRead, bytes, wr_id); }
  void post_send(int64_t bytes, uint64_t wr_id) { t_->post(id_, Opcode::kSend, bytes, wr_id); }
  void post(Opcode op, int64_t bytes, uint64_t wr_id) { t_->post(id_, op, bytes, wr_id); }
  // Receive WQEs at the remote (responder) end, consumed one per SEND.
  void post_recv(int64_t n) { t_->post_recv(id_, n); }

  [[nodiscard]] QpId id() const { return id_; }
  [[nodiscard]] int src() const { return t_->path(id_).src; }
  [[nodiscard]] int dst() const { return t_->path(id_).dst; }
  [[nodiscard]] QpStats stats() const { return t_->stats(id_); }
  // Its hosts, NIC ports and flow hashes (what the fabric routes it by).
  [[nodiscard]] QpPath path() const { return t_->path(id_); }
  [[nodiscard]] bool idle() const { return t_->idle(id_); }
  // Data its receiving host has yet to get (not only an acknowledgment).
  [[nodiscard]] bool awaiting_delivery() const { return t_->awaiting_delivery(id_); }

 private:
  friend class Verbs;
  QueuePair(Transport* t, QpId id) : t_(t), id_(id) {}
  Transport* t_ = nullptr;
  QpId id_ = 0;
};

// The door itself, handed out by a Fabric (Fabric::verbs()). A value type:
// it holds the transport and the fabric's data traffic class.
class Verbs {
 public:
  // `host_tc`, when given, is each host's data class (a NIC configured to
  // mark another priority than the fabric's: misconfig data_tc).
  Verbs(Transport& t, uint8_t data_tc, const std::vector<uint8_t>* host_tc = nullptr)
      : t_(&t), host_tc_(host_tc), data_tc_(data_tc) {}

  // A QP pair from host src to host dst in the data class src's NIC marks
  // (the fabric's); its completions go to `sink`.
  [[nodiscard]] QueuePair create_qp(int src, int dst, CompletionSink* sink) const {
    return create_qp(src, dst, sink, host_tc_ != nullptr ? (*host_tc_)[src] : data_tc_);
  }
  [[nodiscard]] QueuePair create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) const {
    return {t_, t_->create_qp(src, dst, sink, tc)};
  }
  // The QP with this id (ids are dense from 0 in creation order).
  [[nodiscard]] QueuePair qp(QpId id) const { return {t_, id}; }
  [[nodiscard]] size_t num_qps() const { return t_->num_qps(); }
  // Counters summed over every QP.
  [[nodiscard]] QpStats total_stats() const;
  // Data packets a message of `bytes` takes on this fabric.
  [[nodiscard]] uint64_t packets_for(int64_t bytes) const { return t_->packets_for(bytes); }
  // What only this fabric's transport counts (Transport::report and the rest):
  // a results.json section, a per-connection table, a time series.
  void report(nlohmann::ordered_json& results) const { t_->report(results); }
  [[nodiscard]] Transport::Table connection_table() const { return t_->connection_table(); }
  [[nodiscard]] Transport::Table series_header() const { return t_->series_header(); }
  void sample_series(Time now, std::string& rows) const { t_->sample_series(now, rows); }

 private:
  Transport* t_;
  const std::vector<uint8_t>* host_tc_;
  uint8_t data_tc_;
};

inline QpStats Verbs::total_stats() const {
  QpStats sum;
  for (QpId q = 0; q < t_->num_qps(); ++q) {
    const QpStats s = t_->stats(q);
    sum.data_packets_sent += s.data_packets_sent;
    sum.retransmitted_packets += s.retransmitted_packets;
    sum.retransmitted_bytes += s.retransmitted_bytes;
    sum.timeouts += s.timeouts;
    sum.naks_received += s.naks_received;
    sum.naks_sent += s.naks_sent;
    sum.acks_sent += s.acks_sent;
    sum.out_of_order_discards += s.out_of_order_discards;
    sum.rnr_naks_sent += s.rnr_naks_sent;
    sum.rnr_naks_received += s.rnr_naks_received;
    sum.out_of_order_placed += s.out_of_order_placed;
    sum.cnps_sent += s.cnps_sent;
    sum.cnps_received += s.cnps_received;
    sum.in_order_received += s.in_order_received;
  }
  return sum;
}

}  // namespace rdmasim
