// Congestion control plug-ins: one class per algorithm, chosen by name
// (fabric/parts.cpp). They are transport-neutral: a transport keeps one
// CcFlow per connection, calls the hooks below, and enforces what they
// decide (a window of bytes in flight and/or a pacing rate). What the
// receiver returns for them (CNPs, ECN-Echo, RTT and INT echoes) is the
// ReceiverFeedback part each algorithm names (cc/feedback.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/units.h"
#include "net/int_telemetry.h"

namespace rdmasim {

// One connection as congestion control sees it. The transport fills in the
// first block before every hook; the algorithm writes the second.
struct CcFlow {
  uint32_t id = 0;  // the connection (QP) number: dense from 0, for per-flow state
  int host = 0;     // the sending host (endpoint index)
  Rate line_rate;   // of the NIC port the connection leaves by
  // Sequence numbers in packets (a byte-stream transport counts segments).
  uint64_t una = 0;  // oldest unacknowledged
  uint64_t nxt = 0;  // next to send

  // Decided by congestion control and enforced by the transport.
  int64_t cwnd_bytes = 0;  // data in flight at most; 0 = no window
  Rate pace_rate;          // 0 = line rate
};

// What one ACK tells the sender.
struct AckSample {
  uint64_t seq = 0;                     // the last sequence number it acknowledges
  Time echoed_sent_at;                  // when the data it answers left (zero: no echo)
  bool ece = false;                     // ECN-Echo (IB: BECN): data it covers was marked
  const IntStack* telemetry = nullptr;  // INT of the data it answers (nullptr: none)
  // Payload bytes this ACK newly acknowledges, cumulatively or selectively
  // (UET SACK). 0 where the transport does not count them: derive from una.
  int64_t acked_bytes = 0;
};

// What an algorithm may ask of the transport that runs it.
class CcHost {
 public:
  [[nodiscard]] virtual Time now() const = 0;
  // Calls on_timer(flow, tag) at `at`.
  virtual void schedule_cc_timer(CcFlow& flow, Time at, uint32_t tag) = 0;
  [[nodiscard]] virtual int64_t mtu() const = 0;  // payload bytes per packet

 protected:
  ~CcHost() = default;
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  // The ReceiverFeedback part it needs: "none", "cnp", "ecn-echo",
  // "rtt-echo" or "int-echo" (cc/feedback.h).
  [[nodiscard]] virtual const char* feedback() const { return "none"; }
  // For "cnp": at most one CNP per QP per this interval (DCQCN's NP).
  [[nodiscard]] virtual Time cnp_interval() const { return Time::zero(); }
  // Whether data packets must collect in-band telemetry (HPCC).
  [[nodiscard]] virtual bool wants_int() const { return false; }

  virtual void on_connect(CcFlow& f) = 0;
  // A data packet with `payload` bytes leaves (first transmission or not).
  virtual void on_send(CcFlow& f, int64_t payload) {}
  // An ACK arrived; `f.una` already counts what it acknowledged.
  virtual void on_ack(CcFlow& f, const AckSample& ack) {}
  // A congestion notification packet arrived (RoCEv2 CNP).
  virtual void on_cnp(CcFlow& f) {}
  // The receiver reported a loss or a hole (NAK, SACK, duplicate ACKs).
  virtual void on_loss(CcFlow& f) {}
  // A switch trimmed a data packet to its header (UET) and the receiver
  // NACKed it: a loss that is known at once to be congestion.
  virtual void on_trim(CcFlow& f) { on_loss(f); }
  // The retransmission timer fired: everything outstanding is presumed lost.
  virtual void on_rto(CcFlow& f) {}
  virtual void on_timer(CcFlow& f, uint32_t tag) {}

  virtual void attach(CcHost* host) { host_ = host; }

 protected:
  CcHost* host_ = nullptr;
};

}  // namespace rdmasim
