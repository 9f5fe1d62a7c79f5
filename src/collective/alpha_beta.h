// The alpha-beta model of VALIDATION.md §A.3 for a ring collective on this
// cluster, with α and B taken from the hardware rather than fitted to the
// collective: α = per-step GPU latency + one hop's latency (NVLink latency,
// or a lone packet's one-way latency measured through the fabric, minus its
// serialization at B); B = the NVLink rate, or the NIC line rate x payload /
// (payload + per-packet overhead + the ACK each packet returns on the same
// link direction). Expected time = launch + steps·α + steps/n · S/B.
#pragma once

#include "collective/communicator.h"

namespace rdmasim {

struct AlphaBetaCheck {
  double alpha_s = 0;
  double bandwidth_Bps = 0;
  double expected_s = 0;
  double measured_s = 0;
  [[nodiscard]] double error() const { return measured_s / expected_s - 1; }
};

// The check's own costs, fixed so that it tests the plan and its execution
// rather than NCCL's latency constants: 1 us per step on NVLink and across
// the fabric, 5 us per call.
[[nodiscard]] inline CommConfig alpha_beta_comm() {
  CommConfig c;
  c.step_latency = c.net_latency = Time::from_us(1);
  c.launch_latency = Time::from_us(5);
  return c;
}

// Runs the ring/Simple collective (one channel; `pipelined`: NCCL's 512 KiB chunks,
// else one chunk per step, the model's own assumption) on a cluster that is
// either one server (NVLink only, cluster.servers == 1) or single-GPU servers
// (fabric only, gpus_per_server == 1). Throws std::invalid_argument otherwise.
[[nodiscard]] AlphaBetaCheck check_alpha_beta(const ClusterConfig& cluster, const FabricConfig& fabric,
                                              const CommConfig& comm, CollType type, int64_t bytes,
                                              bool pipelined);

}  // namespace rdmasim
