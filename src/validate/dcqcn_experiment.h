// N long DCQCN flows into one 40 Gb/s port with the DCQCN paper's parameters
// (VALIDATION.md §B.5). Measures, over the second half of the run, the time-
// averaged bottleneck queue and each flow's throughput.
#pragma once

#include <memory>
#include <vector>

#include "cc/dcqcn.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"

namespace rdmasim {

struct DcqcnRun {
  double mean_queue_bytes = 0;
  double below_kmin = 0;     // share of the measured window the queue spent at or under Kmin (no marks)
  std::vector<double> gbps;  // per flow, measured window
  double jain = 0;
  uint64_t cnps = 0;
  uint64_t drops = 0;
  std::string invariants;
};

class QueueSampler : public EventHandler {
 public:
  QueueSampler(Simulation& sim, const Mmu& mmu, uint16_t port, uint8_t tc, Time from, Time every)
      : sim_(sim), mmu_(mmu), port_(port), tc_(tc), every_(every) {
    sim.schedule(from, this, 0);
  }
  void on_event(uint32_t, uint64_t) override {
    const uint64_t q = mmu_.egress_bytes(port_, tc_);
    sum_ += static_cast<double>(q);
    if (q <= low_) ++n_low_;
    ++n_;
    sim_.schedule_in(every_, this, 0);
  }
  [[nodiscard]] double mean() const { return n_ ? sum_ / n_ : 0; }
  // Share of samples at or under `low` bytes.
  void count_at_most(uint64_t low) { low_ = low; }
  [[nodiscard]] double share_low() const { return n_ ? static_cast<double>(n_low_) / n_ : 0; }

 private:
  Simulation& sim_;
  const Mmu& mmu_;
  uint16_t port_;
  uint8_t tc_;
  Time every_;
  double sum_ = 0;
  uint64_t n_ = 0;
  uint64_t low_ = 0;
  uint64_t n_low_ = 0;
};

inline DcqcnRun run_dcqcn_incast(int n, Time duration, const DcqcnConfig& dcqcn = DcqcnConfig{},
                                 uint64_t seed = 3, bool mark_on_dequeue = true) {
  Simulation sim(seed);
  FabricConfig cfg;
  cfg.rc.mtu = 1000;
  cfg.sw.mmu.lossless_mask = 1u << cfg.rc.data_tc;  // PFC on, as in the paper's testbed
  cfg.sw.ecn.enabled = true;
  cfg.sw.ecn.kmin_bytes = 5'000;  // DCQCN paper: Kmin 5 KB, Kmax 200 KB, Pmax 1%
  cfg.sw.ecn.kmax_bytes = 200'000;
  cfg.sw.ecn.pmax = 0.01;
  cfg.sw.ecn.reference_rate = Rate::from_bps(0);
  cfg.sw.ecn.mark_on_dequeue = mark_on_dequeue;
  cfg.cc = "dcqcn";
  cfg.dcqcn = dcqcn;
  Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(40), Time::from_ns(1000)}), cfg);
  struct : CompletionSink {
    void on_complete(const Completion&) override {}
  } rec;
  std::vector<QueuePair> qps;
  for (int s = 1; s <= n; ++s) {
    qps.push_back(f.verbs().create_qp(s, 0, &rec, cfg.rc.data_tc));
    qps.back().post_write(int64_t{1} << 40, 0);  // never finishes in the run
  }
  const Switch& sw = *f.switches()[0];
  const Time half = duration / 2;
  QueueSampler q(sim, sw.mmu(), 0, cfg.rc.data_tc, half, Time::from_us(1));
  q.count_at_most(cfg.sw.ecn.kmin_bytes);
  sim.run(half);
  std::vector<uint64_t> at_half;
  for (int s = 1; s <= n; ++s) at_half.push_back(f.nic(s).port(0).counters().tx_data_payload_bytes);
  sim.run(duration);
  DcqcnRun r;
  r.mean_queue_bytes = q.mean();
  r.below_kmin = q.share_low();
  double sum = 0, sq = 0;
  for (int s = 1; s <= n; ++s) {
    const double g =
        (f.nic(s).port(0).counters().tx_data_payload_bytes - at_half[s - 1]) * 8.0 / half.sec() / 1e9;
    r.gbps.push_back(g);
    sum += g;
    sq += g * g;
  }
  r.jain = sum * sum / (n * sq);
  for (const QueuePair& qp : qps) r.cnps += qp.stats().cnps_received;
  r.drops = sw.counters().buffer_drops;
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
