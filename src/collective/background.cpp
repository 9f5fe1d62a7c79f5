#include "collective/background.h"

#include <numeric>
#include <stdexcept>
#include <utility>

namespace rdmasim {

BackgroundTraffic::BackgroundTraffic(Simulation& sim, Fabric& fabric, int hosts, Rate nic_rate,
                                     const FlowSizeCdf& sizes, const BackgroundConfig& cfg)
    : sim_(sim), fabric_(fabric), rng_(sim.rng("background")) {
  if (!(cfg.load > 0 && cfg.load <= 1)) throw std::invalid_argument("background load must be in (0, 1]");
  std::vector<int> endpoints(hosts);
  std::iota(endpoints.begin(), endpoints.end(), 0);
  arrivals_ = std::make_unique<PoissonArrivals>(sizes, std::move(endpoints), nic_rate, cfg.load, sim.now(),
                                                cfg.horizon, rng_);
  schedule_next();
}

void BackgroundTraffic::schedule_next() {
  if (arrivals_->next_start() == Time::never()) return;
  flows_.push_back(arrivals_->next());
  sim_.schedule(flows_.back().start, this, 0, flows_.size() - 1);
}

void BackgroundTraffic::on_event(uint32_t, uint64_t arg) {
  const FlowSpec& f = flows_[arg];
  const uint64_t key = (static_cast<uint64_t>(f.src) << 32) | static_cast<uint64_t>(f.dst);
  auto it = qps_.find(key);
  if (it == qps_.end()) {
    it = qps_.emplace(key, fabric_.verbs().create_qp(f.src, f.dst, this)).first;
  }
  it->second.post_write(f.size_bytes, arg);
  ++started_;
  schedule_next();
}

void BackgroundTraffic::on_complete(const Completion& c) {
  ++completed_;
  bytes_done_ += c.bytes;
  fct_sum_ += c.completed - flows_[c.wr_id].start;
}

Time BackgroundTraffic::mean_fct() const {
  return completed_ == 0 ? Time::zero() : fct_sum_ / static_cast<int64_t>(completed_);
}

}  // namespace rdmasim
