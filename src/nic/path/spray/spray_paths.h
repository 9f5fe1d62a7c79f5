// spray: oblivious per-packet spraying over a set of entropy values (EVs),
// the multipath of Ultra Ethernet's packet delivery (UEC 1.0: a PDC sprays
// over an EV set, "typically 64 to 256" values, VALIDATION.md §D.12) and of
// the packet-spraying fabrics of the HPC world. Packet k of a QP (by its
// sequence number) takes EV number k mod `evs`, each a hash of the QP's own
// entropy and the EV's index, so consecutive packets spread over the ECMP
// paths the switches hash them to and a resend of a packet takes its path
// again. The receiver must place out-of-order packets (the fabric turns RC's
// reorder-tolerant placement on). EV recycling in the REPS style (reuse the
// EVs whose ACKs came back unmarked) is another selector, still to come.
#pragma once

#include <cstdint>

#include "engine/rng.h"
#include "nic/path/path_signal.h"

namespace rdmasim {

struct SprayConfig {
  uint32_t evs = 64;  // UEC's lower bound; an assumption until a profile cites its own

  template <class V>
  void visit(V& v) {
    v.count({"evs",
             "entropy values each QP sprays its packets over, in turn (UEC: typically 64-256); switches hash "
             "each to one ECMP path"},
            evs, 1, 65536);
  }
};

class SprayPaths {
 public:
  explicit SprayPaths(SprayConfig cfg) : evs_(cfg.evs) {}
  void connect(uint32_t /*qp*/, uint32_t /*base*/) noexcept {}
  [[nodiscard]] uint32_t entropy(uint32_t /*qp*/, uint32_t base, uint64_t seq) const noexcept {
    const uint64_t ev = seq % evs_;
    return static_cast<uint32_t>(mix64(base ^ ((ev + 1) * 0x9e3779b97f4a7c15ull)) >> 32);
  }
  void on_ack(uint32_t /*qp*/, const PathAck& /*a*/) noexcept {}
  void on_rto(uint32_t /*qp*/) noexcept {}

 private:
  uint64_t evs_;
};

}  // namespace rdmasim
