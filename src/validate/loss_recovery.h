// Go-back-0, go-back-N and IRN's selective repeat under random loss (Mittal
// et al., "Revisiting Network Support for RDMA", SIGCOMM 2018, §2/§4): with
// go-back-0 a lost packet restarts the whole message, so once a message is
// long against 1/loss it never completes (livelock); go-back-N resends from
// the hole and IRN only the holes.
#pragma once

#include <cstdint>
#include <string>

#include "engine/units.h"
#include "fabric/fabric.h"  // LossRecovery (the transport part's settings)

namespace rdmasim {

struct LossRecoveryRun {
  LossRecovery mode = LossRecovery::kGoBackN;
  double loss = 0;
  int messages = 0;  // posted back to back on one QP
  int completed = 0;
  double goodput_gbps = 0;  // bytes of completed messages over the time the last one took (or the horizon)
  uint64_t retransmitted_packets = 0;
  uint64_t wire_losses = 0;
  std::string invariants;
};

// One QP WRITEs `messages` x `bytes` across one switch of 100 Gb/s links
// (ethernet-lossy, no congestion control, RTO 1 ms: go-back-0 ACKs a message
// only at its end, so the timer must outlast one); the
// switch's link to the receiver loses each data frame with probability `loss`.
[[nodiscard]] LossRecoveryRun run_loss_recovery(LossRecovery mode, double loss, int messages, int64_t bytes,
                                                Time horizon, uint64_t seed);

}  // namespace rdmasim
