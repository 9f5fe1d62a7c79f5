// Go-back-N (IBTA Vol.1 §9.7.5): the responder accepts only the next PSN,
// NAKs the first gap once and drops what follows; the requester rewinds to
// the NAKed PSN. SENDs need posted receive WQEs once any is posted; one that
// finds none is refused with an RNR NAK (§9.7.5.2.8).
#pragma once

#include "transport/recovery/recovery.h"

namespace rdmasim {

class GoBackN : public Recovery {
 public:
  using Recovery::Recovery;
  [[nodiscard]] const char* name() const override { return "go-back-n"; }
  void on_data(RcConnection& c, Packet* p) override;
};

// Early RoCE NICs: a loss restarts the whole message that holds it. The
// responder keeps no partial WRITE: it ACKs a message once, at its end, and
// on a sequence error discards what it had of the message and NAKs its
// first PSN, so a message gets through only in one loss-free pass (what
// makes go-back-0 livelock once messages are long against 1/loss, IRN §2).
// SENDs keep go-back-N's responder (receive WQEs, RNR NAK).
class GoBack0 final : public GoBackN {
 public:
  using GoBackN::GoBackN;
  [[nodiscard]] const char* name() const override { return "go-back-0"; }
  [[nodiscard]] uint64_t rewind_point(const RcConnection& c, uint64_t psn) const override;
  void on_data(RcConnection& c, Packet* p) override;
};

// Go-back-N whose responder keeps packets that arrive ahead of a gap instead
// of NAKing them: adaptive routing reorders packets without losing them
// (ConnectX places out-of-order RDMA WRITE data when AR is on). A gap still
// open when a packet `reorder_nak` PSNs past it arrives is a loss, NAKed
// once; the rest (a lost tail) are recovered by the requester's timeout.
// SENDs are not refused with RNR NAK in this mode.
// With `whole_message` the requester rewinds as go-back-0 does.
class ReorderTolerant final : public GoBackN {
 public:
  ReorderTolerant(RcEngine& rc, bool whole_message) : GoBackN(rc), whole_message_(whole_message) {}
  [[nodiscard]] const char* name() const override { return "reorder-tolerant"; }
  [[nodiscard]] uint64_t rewind_point(const RcConnection& c, uint64_t psn) const override;
  void on_data(RcConnection& c, Packet* p) override;

 private:
  bool whole_message_;
};

// The first PSN of the message that holds `psn` (go-back-0's rewind point).
[[nodiscard]] uint64_t message_start(const RcEngine& rc, const RcConnection& c, uint64_t psn);

}  // namespace rdmasim
