#include <gtest/gtest.h>

#include <algorithm>

#include "fabric/profiles.h"
#include "nic/nic_jitter.h"
#include "run/front_ends.h"

namespace rdmasim {
namespace {

NicJitter knots() {
  NicJitter j;
  j.enabled = true;
  j.p50 = Time::from_ns(5);
  j.p99 = Time::from_ns(120);
  j.p999 = Time::from_ns(300);
  j.max = Time::from_us(1);
  return j;
}

// The quantile function passes through the stated quantiles and is linear
// between them.
TEST(NicJitter, QuantileFunctionPassesThroughItsKnots) {
  const NicJitter j = knots();
  EXPECT_EQ(j.at(0.0), Time::zero());
  EXPECT_EQ(j.at(0.25), Time::from_ps(2500));
  EXPECT_EQ(j.at(0.5), Time::from_ns(5));
  EXPECT_EQ(j.at(0.99), Time::from_ns(120));
  EXPECT_EQ(j.at(0.999), Time::from_ns(300));
  EXPECT_EQ(j.at(0.9995), Time::from_ns(650));
  EXPECT_EQ(j.at(1.0), Time::from_us(1));
}

// perftest with jitter: no sample is faster than the fixed-latency run, the
// fastest equals it to within the jitter's lowest draws, and the spread is
// the distribution's (median of four draws' half-sum above the minimum).
TEST(NicJitter, AddsOnlyDelayAndSpreadsPerftest) {
  PerftestOptions o;
  o.fabric = find_profile("rocev2-dcqcn-400g").config;
  o.link = o.fabric.link;
  o.iters = 5000;
  o.fabric.nic.jitter.enabled = false;
  const PerftestResult fixed = run_perftest(o);
  o.fabric.nic.jitter = knots();
  const PerftestResult jittered = run_perftest(o);
  const double base = fixed.latency_us.front();
  for (double v : fixed.latency_us) EXPECT_DOUBLE_EQ(v, base);
  std::vector<double> v = jittered.latency_us;
  std::sort(v.begin(), v.end());
  EXPECT_GE(v.front(), base);
  EXPECT_LT(v.front() - base, 0.005);
  EXPECT_GT(v[v.size() / 2] - base, 0.03);
  EXPECT_LT(v.back() - base, 2 * 1.0);  // four draws of at most 1 us, halved
}

// Deliveries keep arrival order and the link layer takes packets at once, so
// jitter costs a bulk transfer no throughput: a 256 MiB ring AllReduce keeps its
// bus bandwidth to 0.1%.
TEST(NicJitter, CostsBulkTransfersNoThroughput) {
  NcclTestsOptions o;
  o.algo = Algo::kRing;
  o.proto = Proto::kSimple;
  o.min_bytes = o.max_bytes = int64_t{256} << 20;
  o.fabric = find_profile("ib-ndr").config;
  o.fabric.nic.jitter.enabled = false;
  const double fixed = run_nccl_tests(o).rows[0].busbw;
  o.fabric.nic.jitter = knots();
  const NcclTestsResult r = run_nccl_tests(o);
  EXPECT_NEAR(r.rows[0].busbw, fixed, 0.001 * fixed);
}

}  // namespace
}  // namespace rdmasim
