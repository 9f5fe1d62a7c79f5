// Host and NIC latency variability. The doorbell's MMIO write, the PCIe reads
// of WQE and data, the DMA write and the CQE and the application's poll loop
// make every message's latency vary by tens to hundreds of nanoseconds, with
// rare microsecond outliers; queueing in the fabric is not the only source of
// jitter. One distribution, given by its quantiles as perftest reports a
// latency row (typical, 99%, 99.9%, max), is drawn once per doorbell (before
// the first packet of a posted WQE leaves) and once per received packet
// (before the transport sees it). Deliveries stay in arrival order: a packet
// is never handed over before the one that arrived ahead of it.
#pragma once

#include <iterator>

#include "engine/units.h"

namespace rdmasim {

struct NicJitter {
  bool enabled = false;
  // Extra delay above the NIC's fixed tx/rx latency at these quantiles; the
  // quantile function is linear between (0, 0), (0.5, p50), (0.99, p99),
  // (0.999, p999) and (1, max).
  Time p50, p99, p999, max;

  // The delay at quantile u in [0, 1).
  [[nodiscard]] Time at(double u) const {
    struct Knot {
      double q;
      Time t;
    };
    const Knot knots[] = {{0.0, Time::zero()}, {0.5, p50}, {0.99, p99}, {0.999, p999}, {1.0, max}};
    for (size_t i = 1; i < std::size(knots); ++i) {
      if (u > knots[i].q) continue;
      const Knot& a = knots[i - 1];
      const Knot& b = knots[i];
      const double f = (u - a.q) / (b.q - a.q);
      return a.t + Time::from_ps(static_cast<int64_t>(f * static_cast<double>((b.t - a.t).ps())));
    }
    return max;
  }
};

}  // namespace rdmasim
