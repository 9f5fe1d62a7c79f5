// DCQCN's notification point (Zhu et al., SIGCOMM 2015, §3.2): a CE-marked
// data packet makes the responder send a CNP, at most one per QP per
// interval; ACKs carry nothing for congestion control.
#pragma once

#include "feedback/receiver_feedback.h"

namespace rdmasim {

class CnpFeedback final : public ReceiverFeedback {
 public:
  explicit CnpFeedback(Time interval) : interval_(interval) {}
  [[nodiscard]] const char* name() const override { return "cnp"; }
  bool on_data(FeedbackState& s, Packet& p, Time now) override {
    if (!(p.flags & kCe) || now - s.last_cnp < interval_) return false;
    s.last_cnp = now;
    return true;
  }

 private:
  Time interval_;
};

}  // namespace rdmasim
