// The transport's own per-connection time series (TCP: cwnd, SRTT, segments
// in flight), sampled on the queue time series' clock, like polling `ss -ti`
// on every host at a fixed rate. Rows are text from the start: a sample is
// a few connections' worth, and the cap bounds the file, not the run.
#pragma once

#include <cstdint>
#include <string>

#include "engine/simulation.h"
#include "verbs/verbs.h"

namespace rdmasim {

class TransportSeries final : public EventHandler {
 public:
  static constexpr size_t kMaxBytes = size_t{512} << 20;  // later samples are dropped and counted

  TransportSeries(Simulation& sim, Verbs v, Time start, Time interval)
      : sim_(sim), v_(v), interval_(interval), table_(v.series_header()) {
    sim.schedule(start, this, 0);
  }
  void on_event(uint32_t /*kind*/, uint64_t /*arg*/) override {
    if (table_.csv.size() < kMaxBytes)
      v_.sample_series(sim_.now(), table_.csv);
    else
      ++dropped_;
    ++samples_;
    sim_.schedule_in(interval_, this, 0);
  }
  // The file name and its text (header and rows).
  [[nodiscard]] const Transport::Table& table() const { return table_; }
  [[nodiscard]] uint64_t samples() const { return samples_; }
  [[nodiscard]] uint64_t dropped_samples() const { return dropped_; }

 private:
  Simulation& sim_;
  Verbs v_;
  Time interval_;
  Transport::Table table_;
  uint64_t samples_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace rdmasim
