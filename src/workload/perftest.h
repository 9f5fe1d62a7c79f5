// perftest equivalents (linux-rdma/perftest): ib_write_lat, ib_send_lat,
// ib_read_lat, ib_write_bw, ib_send_bw, ib_read_bw between two hosts.
// Latency tests report what perftest reports: half the round trip for the
// write/send ping-pong, the full completion time for READ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/fabric.h"
#include "workload/workload.h"

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

// Running it is the runner's (run/front_ends.h: run_perftest), through the
// `perftest` workload type below.

// The `perftest` workload type: one perftest between hosts `src` and `dst`
// of the scenario's fabric (the command line's chain topology, or any other).
struct PerftestParams final : WorkloadParams {
  std::string test = "write_lat";
  int64_t size = 2;  // resolved: never -1
  int iters = 1000;
  int tx_depth = 128;
  int src = 0;
  int dst = 1;
};

class PerftestWorkload final : public Workload {
 public:
  explicit PerftestWorkload(const WorkloadSpec& spec);
  ~PerftestWorkload() override;
  void setup(WorkloadContext& ctx) override;
  void start(WorkloadContext& ctx) override;
  [[nodiscard]] bool finished() const override;
  [[nodiscard]] double done_fraction() const override;
  // Polled, so flows beside it (an incast, a flow file) do not end the run
  // with their last completion while its iterations are still going.
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(10); }
  void report(nlohmann::ordered_json& out) const override;
  [[nodiscard]] std::string summary() const override;
  // The measurement (invariant_error is the runner's).
  [[nodiscard]] PerftestResult result() const;

  class Loop;  // the latency or bandwidth loop (perftest.cpp)

 private:
  const PerftestParams& p_;
  std::unique_ptr<Loop> loop_;
};

[[nodiscard]] const WorkloadType& perftest_workload_type();
// Throws std::invalid_argument for an unknown test.
void check_perftest_name(const std::string& test);
// The result laid out as perftest prints it.
[[nodiscard]] std::string format_perftest(const PerftestResult& r, const PerftestOptions& o);
[[nodiscard]] bool is_latency_test(const std::string& test);

}  // namespace rdmasim
