// perftest equivalents (linux-rdma/perftest): ib_write_lat, ib_send_lat,
// ib_read_lat, ib_write_bw, ib_send_bw, ib_read_bw between two hosts.
// Latency tests report what perftest reports: half the round trip for the
// write/send ping-pong, the full completion time for READ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/fabric.h"

namespace rdmasim {

struct PerftestOptions {
  std::string test = "write_lat";  // write_lat | send_lat | read_lat | write_bw | send_bw | read_bw
  int64_t size = -1;               // -1: perftest's default (2 B for latency, 65536 B for bandwidth)
  int iters = -1;                  // -1: perftest's default (1000 latency, 5000 bandwidth)
  int tx_depth = 128;              // perftest's default send queue depth for bw tests
  int switches = 1;                // hosts are joined through this many switches in a chain
  uint64_t seed = 1;
  LinkSpec link{Rate::from_gbps(100), Time::from_ns(1000)};
  FabricConfig fabric;
};

struct PerftestResult {
  std::string test;
  int64_t size = 0;
  int iters = 0;
  std::vector<double> latency_us;  // one per iteration (latency tests)
  double bw_avg_mb_s = 0;          // MB = 2^20 bytes, as perftest prints
  double bw_peak_mb_s = 0;
  double gbps = 0;
  double msg_rate_mpps = 0;
  std::string invariant_error;
};

// Throws std::invalid_argument for an unknown test or bad option.
[[nodiscard]] PerftestResult run_perftest(const PerftestOptions& o);
// The result laid out as perftest prints it.
[[nodiscard]] std::string format_perftest(const PerftestResult& r, const PerftestOptions& o);
[[nodiscard]] bool is_latency_test(const std::string& test);

}  // namespace rdmasim
