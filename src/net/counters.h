// Per-port counters, named as switch and NIC operators know them
// (ifHCOutOctets-style tx/rx packets and bytes, discards per class, queue
// watermark as SONiC reports it).
#pragma once

#include <array>
#include <cstdint>

#include "net/tc_scheduler.h"

namespace rdmasim {

struct PortCounters {
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;  // wire bytes, including preamble and IFG
  uint64_t rx_packets = 0;
  uint64_t rx_bytes = 0;
  uint64_t tx_data_payload_bytes = 0;  // RDMA payload carried (goodput numerator)
  uint64_t busy_ps = 0;                // time spent serializing
  // With the counters above: every frame a port queues or sends updates them.
  std::array<uint64_t, kNumTcs> queue_watermark_bytes{};
  std::array<uint64_t, kNumTcs> drop_packets{};
  std::array<uint64_t, kNumTcs> drop_bytes{};
  // PFC, per priority. tx: PAUSE frames this port sent (to its peer); rx:
  // PAUSE frames it received; paused_ps: time this port was told not to send.
  std::array<uint64_t, kNumTcs> pfc_tx_frames{};
  std::array<uint64_t, kNumTcs> pfc_rx_frames{};
  std::array<int64_t, kNumTcs> pfc_paused_ps{};
  std::array<uint64_t, kNumTcs> ecn_marked_packets{};
  std::array<uint64_t, kNumTcs> lossless_drop_packets{};  // must stay 0 unless misconfigured
  // lost to a failed link or a stuck receiver (a fault, not a flow-control failure)
  uint64_t fault_drop_packets = 0;
  // PFC watchdog (SONiC's PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED / _RESTORED
  // and its dropped packets), per priority of this egress queue.
  std::array<uint64_t, kNumTcs> pfc_wd_storms{};
  std::array<uint64_t, kNumTcs> pfc_wd_restores{};
  std::array<uint64_t, kNumTcs> pfc_wd_drop_packets{};
  // Lost on the wire into this port (random loss, corruption): its MAC
  // discarded them on a bad FCS, what it reports as rx CRC errors. Not in
  // rx_packets/rx_bytes.
  uint64_t corrupt_drop_packets = 0;
  // With more payload than this port's MTU (a misconfigured MTU), received
  // or routed to it: discarded (ethtool's rx_oversize_pkts_phy at ingress).
  uint64_t oversize_drop_packets = 0;
  // Data packets this egress cut to their headers (UET packet trimming),
  // and trimmed headers it dropped because its trimmed class was full.
  uint64_t trimmed_packets = 0;
  uint64_t trim_drop_packets = 0;
};

}  // namespace rdmasim
