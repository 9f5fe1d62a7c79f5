// The run's counters as operators read them on real gear, so a finding in
// the simulator can be checked against the same names on a cluster:
//   - counters.txt: per port, `ethtool -S`-style per-priority names from
//     the mlx5 driver (rx_prio3_pause, tx_prio3_pause_duration,
//     rx_discards_phy, rx_crc_errors_phy) and, for hosts, its RDMA hardware
//     counters (out_of_sequence, packet_seq_err, local_ack_timeout_err,
//     np_cnp_sent, rp_cnp_handled); switch ports add per-queue drops, ECN
//     marks and watermarks as SONiC's `show queue counters` reports them.
//   - ibdiagnet.txt (InfiniBand fabrics): the PM counters ibdiagnet reads
//     per port (PortXmitData, PortRcvData, SymbolErrorCounter,
//     LinkErrorRecoveryCounter, LinkDownedCounter, PortRcvErrors,
//     PortXmitDiscards, PortXmitWait) and its "-W-" warnings section.
// Only ports and counters that are nonzero are listed.
#pragma once

#include <string>

namespace rdmasim {

class Experiment;

[[nodiscard]] std::string operator_counters(const Experiment& e);
[[nodiscard]] std::string ibdiagnet_report(const Experiment& e);

}  // namespace rdmasim
