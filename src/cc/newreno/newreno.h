// NewReno: TCP's loss-driven window control (RFC 5681 slow start and
// congestion avoidance, RFC 6582 one reduction per loss episode), in packets,
// as a transport-neutral CongestionControl. It needs no receiver feedback:
// losses reach it through the transport (a NAK or SACK hole: on_loss; the
// retransmission timer: on_rto). Its constants are the RFCs' own, so it has
// no parameters:
//   initial window 10 packets (RFC 6928 §2), ssthresh starts unbounded
//   (RFC 5681 §3.1), ssthresh after a loss = max(flight / 2, 2) (RFC 5681
//   eq. 4), loss window after a timeout 1 packet (RFC 5681 §3.1).
#pragma once

#include <cstdint>
#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

class NewReno final : public CongestionControl {
 public:
  static constexpr double kInitialWindow = 10;  // packets, RFC 6928
  static constexpr double kMinSsthresh = 2;     // packets, RFC 5681 eq. 4

  [[nodiscard]] const char* name() const override { return "newreno"; }
  void on_connect(CcFlow& f) override;
  void on_ack(CcFlow& f, const AckSample& ack) override;
  void on_loss(CcFlow& f) override;
  void on_rto(CcFlow& f) override;

  [[nodiscard]] double window(uint32_t flow) const { return st_[flow].cwnd; }
  [[nodiscard]] double ssthresh(uint32_t flow) const { return st_[flow].ssthresh; }
  [[nodiscard]] bool in_recovery(uint32_t flow) const { return st_[flow].in_recovery; }

 private:
  struct State {
    double cwnd = kInitialWindow;
    double ssthresh = 1e18;  // unbounded until the first loss
    uint64_t una = 0;        // where the last ACK left the window
    uint64_t recover = 0;    // highest sequence sent when the loss was reported
    bool in_recovery = false;
  };
  void apply(CcFlow& f, const State& s) const;

  std::vector<State> st_;
};

}  // namespace rdmasim
