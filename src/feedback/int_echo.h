// INT echo (HPCC, Li et al., SIGCOMM 2019, §3.2): the next ACK carries the
// telemetry stack of the newest data packet; older stacks are spent. The
// stack moves from the data packet to the ACK without a copy (the slot in
// the network's IntTable changes hands).
#pragma once

#include "feedback/receiver_feedback.h"
#include "net/int_telemetry.h"

namespace rdmasim {

class IntEcho final : public ReceiverFeedback {
 public:
  explicit IntEcho(IntTable& table) : table_(table) {}
  [[nodiscard]] const char* name() const override { return "int-echo"; }
  bool on_data(FeedbackState& s, Packet& p, Time) override {
    if (p.int_slot == 0) return false;
    if (s.echo_int != 0) table_.release(s.echo_int);
    s.echo_int = p.int_slot;
    p.int_slot = 0;
    return false;
  }
  void on_ack(FeedbackState& s, Packet& ack) override {
    if (s.echo_int == 0) return;
    ack.int_slot = s.echo_int;
    s.echo_int = 0;
  }

 private:
  IntTable& table_;
};

}  // namespace rdmasim
