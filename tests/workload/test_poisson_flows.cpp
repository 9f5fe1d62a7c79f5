#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "workload/poisson_flows.h"

namespace rdmasim {
namespace {

std::vector<int> range_hosts(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

double offered_load(const std::vector<FlowSpec>& flows, size_t hosts, Rate rate, Time duration) {
  double bytes = 0;
  for (const auto& f : flows) bytes += static_cast<double>(f.size_bytes);
  return bytes * 8.0 / (static_cast<double>(hosts) * static_cast<double>(rate.bps()) * duration.sec());
}

TEST(PoissonFlows, OfferedLoadMatchesTarget) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const auto hosts = range_hosts(128);
  const Rate rate = Rate::from_gbps(100);
  const Time duration = Time::from_s(3);
  Rng rng(1, "poisson");
  // ~840k flows; with websearch's CV of 2.3 the load estimate's relative
  // standard deviation is ~0.28%, so 2% is a 7-sigma bound.
  const auto flows = generate_poisson_flows(cdf, hosts, rate, 0.3, Time::zero(), duration, rng);
  EXPECT_GT(flows.size(), 800000u);
  EXPECT_NEAR(offered_load(flows, hosts.size(), rate, duration), 0.3, 0.3 * 0.02);
}

TEST(PoissonFlows, OfferedLoadAtFullLoadWithLightTailedSizes) {
  const FlowSizeCdf cdf({{1000, 0.0}, {3000, 1.0}});
  const std::vector<int> hosts = {3, 17, 40, 41, 99};
  const Rate rate = Rate::from_gbps(25);
  const Time duration = Time::from_ms(100);
  Rng rng(2, "poisson");
  const auto flows = generate_poisson_flows(cdf, hosts, rate, 1.0, Time::from_us(5), duration, rng);
  EXPECT_NEAR(offered_load(flows, hosts.size(), rate, duration), 1.0, 0.02);
}

TEST(PoissonFlows, FlowsAreWellFormedAndSorted) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const std::vector<int> hosts = {10, 11, 12, 20, 21, 22, 30, 31};
  const std::set<int> host_set(hosts.begin(), hosts.end());
  const Time start = Time::from_ms(2);
  const Time duration = Time::from_ms(50);
  Rng rng(3, "poisson");
  const auto flows = generate_poisson_flows(cdf, hosts, Rate::from_gbps(100), 0.5, start, duration, rng);
  ASSERT_FALSE(flows.empty());
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    ASSERT_EQ(f.id, static_cast<int64_t>(i));
    ASSERT_NE(f.src, f.dst);
    ASSERT_TRUE(host_set.count(f.src));
    ASSERT_TRUE(host_set.count(f.dst));
    ASSERT_GE(f.size_bytes, 1);
    ASSERT_GE(f.start, start);
    ASSERT_LT(f.start, start + duration);
    ASSERT_EQ(f.priority, kPoissonFlowPriority);
    ASSERT_EQ(f.dport, kPoissonFlowDport);
    if (i > 0) {
      ASSERT_LE(flows[i - 1].start, f.start);
    }
  }
}

TEST(PoissonFlows, ArrivalsPerHostAndDestinationsAreUniform) {
  const FlowSizeCdf cdf({{1000, 0.0}, {1000, 1.0}});  // every flow 1000 B
  const std::vector<int> hosts = {0, 1, 2, 3};
  const Rate rate = Rate::from_gbps(10);
  const Time duration = Time::from_ms(200);
  Rng rng(4, "poisson");
  const auto flows = generate_poisson_flows(cdf, hosts, rate, 0.5, Time::zero(), duration, rng);
  // Per host: 0.5 * 10 Gb/s / 8000 b = 625k flows/s -> 125k in 200 ms.
  std::map<int, int> per_src;
  std::map<std::pair<int, int>, int> pair_count;
  for (const auto& f : flows) {
    ++per_src[f.src];
    ++pair_count[{f.src, f.dst}];
  }
  for (int h : hosts) {
    EXPECT_NEAR(per_src[h], 125000, 125000 * 0.02) << "host " << h;
    for (int d : hosts) {
      if (d == h) continue;
      EXPECT_NEAR(static_cast<double>(pair_count[{h, d}]) / per_src[h], 1.0 / 3, 0.01) << h << "->" << d;
    }
  }
}

TEST(PoissonFlows, SameSeedSameFlows) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const auto hosts = range_hosts(16);
  auto gen = [&](uint64_t seed) {
    Rng rng(seed, "poisson");
    return generate_poisson_flows(cdf, hosts, Rate::from_gbps(100), 0.3, Time::zero(), Time::from_ms(20),
                                  rng);
  };
  const auto a = gen(5);
  EXPECT_EQ(a, gen(5));
  EXPECT_NE(a, gen(6));
}

TEST(PoissonFlows, LongerWindowOnlyAppends) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const auto hosts = range_hosts(16);
  Rng r1(8, "poisson"), r2(8, "poisson");
  const auto short_run =
      generate_poisson_flows(cdf, hosts, Rate::from_gbps(100), 0.3, Time::zero(), Time::from_ms(5), r1);
  const auto long_run =
      generate_poisson_flows(cdf, hosts, Rate::from_gbps(100), 0.3, Time::zero(), Time::from_ms(10), r2);
  ASSERT_GT(long_run.size(), short_run.size());
  ASSERT_FALSE(short_run.empty());
  for (size_t i = 0; i < short_run.size(); ++i) ASSERT_EQ(short_run[i], long_run[i]) << i;
  EXPECT_GE(long_run[short_run.size()].start, Time::from_ms(5));
}

// Drawn one at a time, a 1 s window read up to 5 ms gives exactly the 5 ms
// window's flows, and says when the next starts: what lets background load
// last a whole evaluation cell while costing only the flows the run reaches.
TEST(PoissonFlows, ArrivalsDrawnOneAtATimeAreTheWindowsPrefix) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const auto hosts = range_hosts(16);
  Rng r1(8, "poisson"), r2(8, "poisson");
  const auto window =
      generate_poisson_flows(cdf, hosts, Rate::from_gbps(100), 0.3, Time::zero(), Time::from_ms(5), r1);
  PoissonArrivals lazy(cdf, hosts, Rate::from_gbps(100), 0.3, Time::zero(), Time::from_ms(1000), r2);
  ASSERT_FALSE(window.empty());
  for (size_t i = 0; i < window.size(); ++i) {
    ASSERT_EQ(lazy.next_start(), window[i].start) << i;
    ASSERT_EQ(lazy.next(), window[i]) << i;
  }
  EXPECT_GE(lazy.next_start(), Time::from_ms(5));
  EXPECT_LT(lazy.next_start(), Time::from_ms(1000));
}

TEST(PoissonFlows, ZeroDurationIsEmpty) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  Rng rng(1, "poisson");
  EXPECT_TRUE(
      generate_poisson_flows(cdf, range_hosts(4), Rate::from_gbps(100), 0.3, Time::zero(), Time::zero(), rng)
          .empty());
}

TEST(PoissonFlows, RejectsBadArguments) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  const auto hosts = range_hosts(4);
  const Rate r = Rate::from_gbps(100);
  const Time d = Time::from_ms(1);
  Rng rng(1, "poisson");
  for (double load : {0.0, -0.1, 1.01, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW((void)generate_poisson_flows(cdf, hosts, r, load, Time::zero(), d, rng),
                 std::invalid_argument)
        << load;
  }
  EXPECT_THROW((void)generate_poisson_flows(cdf, {7}, r, 0.3, Time::zero(), d, rng), std::invalid_argument);
  EXPECT_THROW((void)generate_poisson_flows(cdf, {}, r, 0.3, Time::zero(), d, rng), std::invalid_argument);
  EXPECT_THROW((void)generate_poisson_flows(cdf, {1, 2, 1}, r, 0.3, Time::zero(), d, rng),
               std::invalid_argument);
  EXPECT_THROW((void)generate_poisson_flows(cdf, {1, -2}, r, 0.3, Time::zero(), d, rng),
               std::invalid_argument);
  EXPECT_THROW((void)generate_poisson_flows(cdf, hosts, Rate::from_bps(0), 0.3, Time::zero(), d, rng),
               std::invalid_argument);
  EXPECT_THROW((void)generate_poisson_flows(cdf, hosts, r, 0.3, Time::zero(), Time::from_ps(-1), rng),
               std::invalid_argument);
  const FlowSizeCdf zero_mean({{0, 0.0}, {0, 1.0}});
  EXPECT_THROW((void)generate_poisson_flows(zero_mean, hosts, r, 0.3, Time::zero(), d, rng),
               std::invalid_argument);
}

}  // namespace
}  // namespace rdmasim
