// RC loss recovery as strategies: what a requester resends, and what a
// responder does with a packet that is not the next one it expects. One class
// per scheme, chosen from RcConfig::recovery (and accept_out_of_order) when
// the RC engine is built (make_recovery):
//   go-back-n         resend from the NAKed PSN; the responder NAKs the
//                     first gap and drops what follows (IBTA Vol.1 §9.7.5)
//   go-back-0         resend the whole message holding the loss (early RoCE NICs)
//   reorder-tolerant  go-back-n, but the responder keeps packets that arrive
//                     ahead of a gap (adaptive routing reorders, ConnectX places)
//   irn               selective repeat (Mittal et al., SIGCOMM 2018): the
//                     responder keeps out-of-order packets and NACKs each with
//                     the PSN that arrived; the requester resends only holes
//
// Contract: every hook runs inside an RC event on one connection, mutates
// only that connection's state, and reaches the wire only through the
// engine's send_control; none allocates per packet.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/units.h"
#include "net/packet.h"

namespace rdmasim {

class RcEngine;
struct RcConfig;
struct RcConnection;

class Recovery {
 public:
  static constexpr uint64_t kNone = ~0ull;

  explicit Recovery(RcEngine& rc) : rc_(rc) {}
  virtual ~Recovery() = default;
  Recovery(const Recovery&) = delete;
  Recovery& operator=(const Recovery&) = delete;
  [[nodiscard]] virtual const char* name() const = 0;

  // Requester.
  // The retransmission timeout before backoff.
  [[nodiscard]] virtual Time rto(const RcConnection& c) const;
  // The scheme's own cap on packets in flight is reached (no new PSN may go).
  [[nodiscard]] virtual bool window_full(const RcConnection& c) const { return false; }
  // Holes are being resent ahead of new data.
  [[nodiscard]] virtual bool retransmitting(const RcConnection& c) const { return false; }
  // The next hole to resend now, or kNone.
  virtual uint64_t next_retransmission(RcConnection& c) { return kNone; }
  // Where a NAK naming `psn` rewinds the sender.
  [[nodiscard]] virtual uint64_t rewind_point(const RcConnection& c, uint64_t psn) const { return psn; }
  // The responder reported that `sacked_psn` arrived ahead of a hole.
  virtual void on_sack(RcConnection& c, uint64_t sacked_psn) {}
  // The cumulative ACK moved `moved` PSNs. True when the scheme may have held
  // the requester back and it has something to send again.
  virtual bool on_advance(RcConnection& c, uint64_t moved) { return false; }
  // The timer fired. True when the scheme resends selectively; false to
  // rewind to the oldest unacknowledged PSN.
  virtual bool on_timeout(RcConnection& c) { return false; }

  // Responder: a data packet (not a READ response) arrived.
  virtual void on_data(RcConnection& c, Packet* p) = 0;

 protected:
  RcEngine& rc_;
};

// The strategy RcConfig asks for.
[[nodiscard]] std::unique_ptr<Recovery> make_recovery(RcEngine& rc, const RcConfig& cfg);

}  // namespace rdmasim
