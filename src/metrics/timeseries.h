// Queue depth and PFC pause state over time, sampled every `interval` on
// every port: what a switch engineer would pull from queue watermark and PFC
// counters at a fixed polling rate. Only non-empty or paused queues are
// recorded, so an idle fabric costs nothing but the sampling event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "net/network.h"

namespace rdmasim {

class QueueTimeseries final : public EventHandler {
 public:
  static constexpr size_t kMaxRows = 20'000'000;  // ~0.5 GiB; later samples are dropped and counted

  QueueTimeseries(Simulation& sim, const Network& net, Time start, Time interval)
      : sim_(sim), net_(net), interval_(interval) {
    sim.schedule(start, this, 0);
  }
  void on_event(uint32_t, uint64_t) override;

  // time_ns,node,port,tc,queue_bytes,paused
  [[nodiscard]] std::string csv() const;
  // Congestion spreading on the same clock: time_ns,ports_paused,
  // switch_ports_paused,host_ports_paused (ports with any priority paused).
  [[nodiscard]] std::string ports_paused_csv() const;
  [[nodiscard]] uint64_t samples() const { return samples_; }
  [[nodiscard]] uint64_t dropped_rows() const { return dropped_; }

 private:
  struct Row {
    int64_t t_ps;
    uint32_t node;
    uint16_t port;
    uint8_t tc;
    bool paused;
    uint64_t bytes;
  };
  Simulation& sim_;
  const Network& net_;
  Time interval_;
  std::vector<Row> rows_;
  struct Spread {
    int64_t t_ps;
    uint32_t switch_ports;
    uint32_t host_ports;
  };
  std::vector<Spread> spread_;
  uint64_t samples_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace rdmasim
