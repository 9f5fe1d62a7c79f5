// The `stream` workload type: a real-time stream, the traffic of sensor
// feeds, video and control loops that must arrive on time. Every `period`
// the source posts `burst` messages of `size` (constant bit rate when burst
// is 1, a periodic burst otherwise), `count` periods in all; each message
// has `deadline` from its posting to its last byte landing. It reports the
// latency distribution, jitter (RFC 3550's mean difference of consecutive
// latencies) and how many messages missed the deadline, whatever else
// shares the fabric.
#pragma once

#include <string>

#include "engine/units.h"
#include "workload/workload.h"

namespace rdmasim {

struct StreamParams final : WorkloadParams {
  int src = 0;
  int dst = 1;
  int64_t size = 4096;
  Time period = Time::from_us(10);
  int burst = 1;
  int64_t count = 1000;
  Time deadline = Time::from_us(20);
  std::string op = "write";  // write | send
  int traffic_class = -1;    // -1: the fabric's data class
};

struct StreamResult {
  int64_t sent = 0, delivered = 0, missed = 0;  // missed: late, or not delivered by the run's end
  std::vector<double> latency_us;               // per delivered message, in posting order
};

[[nodiscard]] StreamResult stream_result(const Workload& w);
[[nodiscard]] const WorkloadType& stream_workload_type();

}  // namespace rdmasim
