// RTT echo (TIMELY, Mittal et al., SIGCOMM 2015): an ACK carries the send
// time of the newest data packet it covers, so the sender samples the RTT
// from its own clock (the NIC's hardware timestamps).
#pragma once

#include "feedback/receiver_feedback.h"

namespace rdmasim {

class RttEcho final : public ReceiverFeedback {
 public:
  [[nodiscard]] const char* name() const override { return "rtt-echo"; }
  bool on_data(FeedbackState& s, Packet& p, Time) override {
    s.echo_sent_at = p.sent_at;
    return false;
  }
  void on_ack(FeedbackState& s, Packet& ack) override { ack.sent_at = s.echo_sent_at; }
};

}  // namespace rdmasim
