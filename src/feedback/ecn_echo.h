// ECN-Echo on ACKs (DCTCP, RFC 8257 §3.2; InfiniBand's BECN, IBTA Vol.1
// Annex A10): an ACK is marked when any data packet it covers arrived with
// CE, so the sender counts marked ACKs.
#pragma once

#include "feedback/receiver_feedback.h"

namespace rdmasim {

class EcnEcho final : public ReceiverFeedback {
 public:
  [[nodiscard]] const char* name() const override { return "ecn-echo"; }
  bool on_data(FeedbackState& s, Packet& p, Time) override {
    if (p.flags & kCe) s.ce_since_ack = true;
    return false;
  }
  void on_ack(FeedbackState& s, Packet& ack) override {
    if (!s.ce_since_ack) return;
    ack.flags |= kCe;
    s.ce_since_ack = false;
  }
};

}  // namespace rdmasim
