// IRN selective repeat (Mittal et al., "Revisiting Network Support for RDMA",
// SIGCOMM 2018): the responder keeps out-of-order packets and NACKs each
// with the PSN that arrived; the requester resends only the holes below the
// highest SACKed PSN, keeps at most irn_window packets in flight (about one
// BDP), and uses two timeouts (§4.1): RTO_low when at most irn_low_packets
// are outstanding (a tail loss has nothing behind it to trigger a NACK),
// RTO_high otherwise. READ responses keep go-back-N.
#pragma once

#include "transport/recovery/recovery.h"

namespace rdmasim {

class Irn final : public Recovery {
 public:
  using Recovery::Recovery;
  [[nodiscard]] const char* name() const override { return "irn"; }
  [[nodiscard]] Time rto(const RcConnection& c) const override;
  [[nodiscard]] bool window_full(const RcConnection& c) const override;
  [[nodiscard]] bool retransmitting(const RcConnection& c) const override;
  uint64_t next_retransmission(RcConnection& c) override;
  void on_sack(RcConnection& c, uint64_t sacked_psn) override;
  bool on_advance(RcConnection& c, uint64_t moved) override;
  bool on_timeout(RcConnection& c) override;
  void on_data(RcConnection& c, Packet* p) override;
};

}  // namespace rdmasim
