// fio's output: the real tool's normal and terse output (tests/data/fio,
// sources in tests/data/fio/README.md) through the parsers, and ours back
// through the same parsers to the numbers the run measured.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "storage/fio.h"

namespace rdmasim {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RDMASIM_SOURCE_DIR) + "/tests/data/fio/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FioFormat, ParsesTheRealToolsNormalOutput) {
  const FioParsed a = parse_fio_normal(fixture("normal_randread_pm1733_libaio_qd1_fio-3.28.txt"));
  EXPECT_EQ(a.fio_version, "fio-3.28");
  EXPECT_EQ(a.job, "TEST");
  ASSERT_TRUE(a.has_read);
  EXPECT_FALSE(a.has_write);
  EXPECT_DOUBLE_EQ(a.read.iops, 13400);
  EXPECT_NEAR(a.read.bw_kib_s, 52.5 * 1024, 1e-6);
  EXPECT_DOUBLE_EQ(a.read.clat_min_us, 27);
  EXPECT_DOUBLE_EQ(a.read.clat_max_us, 366);
  EXPECT_DOUBLE_EQ(a.read.clat_mean_us, 69.18);
  EXPECT_DOUBLE_EQ(a.read.clat_stdev_us, 7.59);
  ASSERT_EQ(a.read.percentiles_us.size(), 17u);
  EXPECT_EQ(a.read.percentiles_us.front(), (std::pair<double, double>{1, 62}));
  EXPECT_EQ(a.read.percentiles_us.back(), (std::pair<double, double>{99.99, 105}));
  // clat in nsec with a k suffix on max; percentiles still in usec.
  const FioParsed b = parse_fio_normal(fixture("normal_randread_pm9a3_iouring_qd1_fio-3.28.txt"));
  EXPECT_NEAR(b.read.clat_mean_us, 69.70606, 1e-9);
  EXPECT_NEAR(b.read.clat_max_us, 2036.7, 1e-9);
  EXPECT_DOUBLE_EQ(b.read.iops, 14000);
  const FioParsed c =
      parse_fio_normal(fixture("normal_randread_sata_iouring_qd1_fio-3.32_issue1484_partial.txt"));
  EXPECT_DOUBLE_EQ(c.read.iops, 2977);
  EXPECT_EQ(c.read.percentiles_us.back(), (std::pair<double, double>{99.99, 1090}));
  EXPECT_THROW((void)parse_fio_normal("nothing here\n"), std::invalid_argument);
}

TEST(FioFormat, ParsesTheRealToolsTerseOutput) {
  const FioParsed a = parse_fio_terse(fixture("terse_v3_fio-3.7_issue1226.txt"));
  EXPECT_EQ(a.fio_version, "fio-3.7");
  EXPECT_EQ(a.job, "bio");
  EXPECT_DOUBLE_EQ(a.read.iops, 500);
  EXPECT_DOUBLE_EQ(a.read.bw_kib_s, 159349);
  EXPECT_DOUBLE_EQ(a.read.clat_mean_us, 127194.504051);
  ASSERT_EQ(a.read.percentiles_us.size(), 17u);
  EXPECT_EQ(a.read.percentiles_us[6], (std::pair<double, double>{50, 94896}));
  EXPECT_DOUBLE_EQ(a.write.iops, 498);
  EXPECT_EQ(a.write.percentiles_us.back(), (std::pair<double, double>{99.99, 1501560}));
  const FioParsed b = parse_fio_terse(fixture("terse_v3_fio-3.19-45-gc650_fiovisualizer_pr17.txt"));
  EXPECT_TRUE(b.has_read);
  EXPECT_FALSE(b.has_write);
  EXPECT_DOUBLE_EQ(b.read.iops, 4035);
  EXPECT_THROW((void)parse_fio_terse("2;card0;0;0;7139336\n"), std::invalid_argument);
  EXPECT_THROW((void)parse_fio_terse("3;fio-3.7;job;0;0;1;2\n"), std::invalid_argument);
}

// Our output, read back by the same parsers, gives what the run measured.
TEST(FioFormat, OurOutputParsesToTheMeasuredNumbers) {
  FioOptions o;
  o.fabric = find_profile("ib-ndr").config;
  o.link = o.fabric.link;
  o.params.rw = "randrw";
  o.params.rwmixread = 0.7;
  o.params.iodepth = 8;
  o.params.runtime = Time::from_ms(5);
  const FioRun r = run_fio(o);
  const FioParsed t = parse_fio_terse(format_fio_terse(r.result, "job"));
  EXPECT_EQ(t.job, "job");
  // IOs per second over the 5 ms run.
  EXPECT_DOUBLE_EQ(t.read.iops, static_cast<double>(r.result.read.ios) * 1000.0 / 5.0);
  EXPECT_DOUBLE_EQ(t.write.iops, static_cast<double>(r.result.write.ios) * 1000.0 / 5.0);
  double mean = 0;
  for (const double x : r.result.read.clat_us) mean += x / static_cast<double>(r.result.read.clat_us.size());
  EXPECT_NEAR(t.read.clat_mean_us, mean, 1e-6);
  const std::string normal = format_fio_normal(r.result, "job");
  const FioParsed n = parse_fio_normal(normal);
  ASSERT_TRUE(n.has_read && n.has_write);
  EXPECT_NEAR(n.read.clat_mean_us, mean, 0.01);
  EXPECT_NEAR(n.read.iops, r.result.read.iops, 0.001 * r.result.read.iops + 100);  // 4 significant figures
  // Every percentile is under 100 us, so fio 3.28 prints them in nsec (to
  // the nanosecond); terse v3 gives whole microseconds, rounded down.
  EXPECT_NE(normal.find("clat percentiles (nsec):"), std::string::npos) << normal;
  ASSERT_EQ(n.read.percentiles_us.size(), 17u);
  ASSERT_EQ(t.read.percentiles_us.size(), 17u);
  for (size_t i = 0; i < 17; ++i) {
    EXPECT_EQ(n.read.percentiles_us[i].first, t.read.percentiles_us[i].first);
    EXPECT_EQ(std::floor(n.read.percentiles_us[i].second), t.read.percentiles_us[i].second) << i;
  }
}

// fio 3.28 scales the percentile block by the values' span (stat.c
// show_clat_percentiles): nsec below min 2 us or max 100 us, usec up to min 2
// ms and max 100 ms, msec beyond; each step down rounds up, as fio does.
TEST(FioFormat, PercentileUnitFollowsFio) {
  const auto block = [](double lo_us, double hi_us) {
    NvmeofResult r;
    r.rw = "randread";
    r.bs = 4096;
    r.iodepth = 1;
    r.numjobs = 1;
    r.initiators = 1;
    r.runtime = Time::from_ms(1);
    r.read.ios = 1000;
    // 99% of the IOs at lo_us, the slowest 1% spread up to hi_us.
    for (int i = 0; i < 990; ++i) r.read.clat_us.push_back(lo_us);
    for (int i = 1; i <= 10; ++i) r.read.clat_us.push_back(lo_us + (hi_us - lo_us) * i / 10.0);
    return format_fio_normal(r, "job");
  };
  EXPECT_NE(block(74.85, 96.457).find("clat percentiles (nsec):"), std::string::npos);
  const std::string usec = block(74.85, 150.0);
  EXPECT_NE(usec.find("clat percentiles (usec):"), std::string::npos) << usec;
  // 74.85 us, rounded up as fio rounds: 75, where rounding down said 74.
  EXPECT_NE(usec.find(" 1.00th=[   75]"), std::string::npos) << usec;
  EXPECT_NE(block(2500.0, 150000.0).find("clat percentiles (msec):"), std::string::npos);
  // Parsed back, in microseconds whatever the unit.
  const FioParsed p = parse_fio_normal(block(2500.0, 150000.0));
  ASSERT_FALSE(p.read.percentiles_us.empty());
  EXPECT_GT(p.read.percentiles_us.back().second, 100000.0);
}

}  // namespace
}  // namespace rdmasim
