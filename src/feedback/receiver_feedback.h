// Receiver feedback: what a responder sends back for the sender's congestion
// control. One class per kind, named by the algorithm that reads it
// (CongestionControl::feedback()) and built in fabric/parts.cpp:
//   none      nothing beyond the transport's own ACKs
//   cnp       RoCEv2 congestion notification packets (DCQCN's NP)
//   ecn-echo  ECN-Echo on ACKs (DCTCP; InfiniBand's BECN)
//   rtt-echo  the data packet's send time echoed on ACKs (TIMELY)
//   int-echo  the newest in-band telemetry stack carried on ACKs (HPCC)
// Later: receiver credits (UET RCCC) and TCP's ECE.
//
// Contract: the transport keeps one FeedbackState per connection at the
// responder, calls on_data for every data packet that reaches it (before
// its own sequence handling) and on_ack for every ACK it builds. Both run
// per packet: no allocation, no calls back into the transport.
#pragma once

#include <cstdint>

#include "engine/units.h"
#include "net/packet.h"

namespace rdmasim {

// Per-connection responder state every feedback kind may use.
struct FeedbackState {
  Time last_cnp = Time::from_ps(INT64_MIN / 2);  // when this QP last sent a CNP
  uint64_t cnps_sent = 0;
  Time echo_sent_at;          // send time of the newest data packet
  uint32_t echo_int = 0;      // telemetry of the newest data packet, held for the next ACK
  bool ce_since_ack = false;  // a CE mark arrived since the last ACK
};

class ReceiverFeedback {
 public:
  virtual ~ReceiverFeedback() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  // A data packet reached the responder. Returns true when a congestion
  // notification packet must go back to the sender now (the transport
  // builds and sends it, and counts it in cnps_sent).
  virtual bool on_data(FeedbackState& s, Packet& p, Time now) = 0;
  // An ACK is leaving the responder: write what the sender reads into it.
  virtual void on_ack(FeedbackState& s, Packet& ack) {}
};

class NoFeedback final : public ReceiverFeedback {
 public:
  [[nodiscard]] const char* name() const override { return "none"; }
  bool on_data(FeedbackState&, Packet&, Time) override { return false; }
};

}  // namespace rdmasim
