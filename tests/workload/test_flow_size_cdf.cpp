#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/error.h"
#include "support/temp_file.h"
#include "workload/flow_size_cdf.h"

namespace rdmasim {
namespace {

using testing::TempFile;

std::vector<int64_t> draw(const FlowSizeCdf& cdf, int n, uint64_t seed) {
  Rng rng(seed, "flow_size_test");
  std::vector<int64_t> v(n);
  for (auto& x : v) x = cdf.sample(rng);
  std::sort(v.begin(), v.end());
  return v;
}

double empirical_at(const std::vector<int64_t>& sorted, int64_t size) {
  const auto n = std::upper_bound(sorted.begin(), sorted.end(), size) - sorted.begin();
  return static_cast<double>(n) / static_cast<double>(sorted.size());
}

TEST(FlowSizeCdf, LoadsPercentFile) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  ASSERT_EQ(cdf.points().size(), 12u);
  EXPECT_EQ(cdf.points().front(), (std::pair<int64_t, double>{0, 0.0}));
  EXPECT_EQ(cdf.points()[5].first, 80000);
  EXPECT_DOUBLE_EQ(cdf.points()[5].second, 0.53);
  EXPECT_EQ(cdf.points().back(), (std::pair<int64_t, double>{30000000, 1.0}));
}

TEST(FlowSizeCdf, LoadsFractionFile) {
  const auto cdf = FlowSizeCdf::load("data/cdf/vl2_datamining.txt");
  ASSERT_EQ(cdf.points().size(), 13u);
  EXPECT_EQ(cdf.points()[5].first, 1100);
  EXPECT_DOUBLE_EQ(cdf.points()[5].second, 0.5);
  EXPECT_EQ(cdf.points().back(), (std::pair<int64_t, double>{1000000000, 1.0}));
}

TEST(FlowSizeCdf, AllShippedFilesLoad) {
  for (const char* f : {"data/cdf/websearch.txt", "data/cdf/fb_hadoop.txt", "data/cdf/alistorage2019.txt",
                        "data/cdf/googlerpc2008.txt", "data/cdf/vl2_datamining.txt"}) {
    SCOPED_TRACE(f);
    const auto cdf = FlowSizeCdf::load(f);
    EXPECT_GE(cdf.points().size(), 2u);
    EXPECT_EQ(cdf.points().back().second, 1.0);
    EXPECT_GT(cdf.mean_bytes(), 0.0);
  }
}

// VALIDATION: sampled sizes reproduce each published distribution at every
// listed point to within one percentage point.
TEST(FlowSizeCdf, EmpiricalCdfMatchesEveryListedPoint) {
  for (const char* f : {"data/cdf/websearch.txt", "data/cdf/vl2_datamining.txt", "data/cdf/fb_hadoop.txt",
                        "data/cdf/alistorage2019.txt", "data/cdf/googlerpc2008.txt"}) {
    SCOPED_TRACE(f);
    const auto cdf = FlowSizeCdf::load(f);
    const auto s = draw(cdf, 100000, 42);
    for (const auto& [size, frac] : cdf.points()) {
      EXPECT_NEAR(empirical_at(s, size), frac, 0.01) << "at size " << size;
    }
  }
}

TEST(FlowSizeCdf, Vl2PublishedAnchors) {
  const auto cdf = FlowSizeCdf::load("data/cdf/vl2_datamining.txt");
  EXPECT_DOUBLE_EQ(cdf.cdf_at(1100), 0.5);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(10000), 0.8);
  const auto s = draw(cdf, 100000, 7);
  EXPECT_NEAR(empirical_at(s, 1100), 0.50, 0.01);
  EXPECT_NEAR(empirical_at(s, 10000), 0.80, 0.01);
}

TEST(FlowSizeCdf, WebsearchPublishedAnchors) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  EXPECT_DOUBLE_EQ(cdf.cdf_at(10000), 0.15);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(80000), 0.53);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(10000000), 0.97);
  const auto s = draw(cdf, 100000, 7);
  EXPECT_NEAR(empirical_at(s, 10000), 0.15, 0.01);
  EXPECT_NEAR(empirical_at(s, 80000), 0.53, 0.01);
  EXPECT_NEAR(empirical_at(s, 10000000), 0.97, 0.01);
}

TEST(FlowSizeCdf, MeanOfTinyCdfByHand) {
  // Half the mass uniform on [0, 100] (mean 50), half on [100, 300] (mean 200).
  const FlowSizeCdf cdf({{0, 0.0}, {100, 0.5}, {300, 1.0}});
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 0.5 * 50 + 0.5 * 200);
}

TEST(FlowSizeCdf, MeanWithPointMassAndFlatStretch) {
  // Nothing below 1000, half exactly 1000, half uniform on [1000, 3000].
  const FlowSizeCdf cdf({{0, 0.0}, {1000, 0.0}, {1000, 0.5}, {3000, 1.0}});
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 0.5 * 1000 + 0.5 * 2000);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(999), 0.0);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(1000), 0.5);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(2000), 0.75);
  const auto s = draw(cdf, 100000, 3);
  EXPECT_GE(s.front(), 1000);
  EXPECT_LE(s.back(), 3000);
  EXPECT_NEAR(empirical_at(s, 1000), 0.5, 0.01);
}

TEST(FlowSizeCdf, WebsearchSampleMeanMatchesModel) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 1711250.0);  // sum of segment midpoints x mass
  // Coefficient of variation is ~2.3, so 1e6 draws put 1% at ~4 sigma.
  Rng rng(11, "mean");
  double sum = 0;
  constexpr int kN = 1000000;
  for (int i = 0; i < kN; ++i) sum += static_cast<double>(cdf.sample(rng));
  EXPECT_NEAR(sum / kN, cdf.mean_bytes(), 0.01 * cdf.mean_bytes());
}

TEST(FlowSizeCdf, CdfAtInterpolatesAndClamps) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  EXPECT_DOUBLE_EQ(cdf.cdf_at(-5), 0.0);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(0), 0.0);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(15000), 0.175);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(30000000), 1.0);
  EXPECT_DOUBLE_EQ(cdf.cdf_at(40000000), 1.0);
}

TEST(FlowSizeCdf, SamplesAreWholePositiveBytesWithinRange) {
  const FlowSizeCdf cdf({{0, 0.0}, {10, 1.0}});
  Rng rng(5, "range");
  bool saw_one = false;
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = cdf.sample(rng);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 10);
    saw_one |= v == 1;
  }
  EXPECT_TRUE(saw_one);  // draws below one byte are raised to 1
}

TEST(FlowSizeCdf, SameSeedSameSequence) {
  const auto cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  Rng a(9, "x"), b(9, "x"), c(10, "x");
  std::vector<int64_t> va, vb, vc;
  for (int i = 0; i < 1000; ++i) {
    va.push_back(cdf.sample(a));
    vb.push_back(cdf.sample(b));
    vc.push_back(cdf.sample(c));
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
}

TEST(FlowSizeCdf, ConstructorRejectsBadPoints) {
  using P = std::vector<std::pair<int64_t, double>>;
  EXPECT_THROW(FlowSizeCdf(P{}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.0}}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.0}, {10, 0.5}}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.0}, {10, 100.0}}), std::invalid_argument);  // percent is for files only
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.1}, {10, 1.0}}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{-1, 0.0}, {10, 1.0}}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.0}, {20, 0.5}, {10, 1.0}}), std::invalid_argument);
  EXPECT_THROW(FlowSizeCdf(P{{0, 0.0}, {10, 0.6}, {20, 0.5}, {30, 1.0}}), std::invalid_argument);
}

struct BadFile {
  const char* name;
  const char* contents;
  int line;
  const char* key;
};

TEST(FlowSizeCdf, MalformedFilesReportLine) {
  const BadFile cases[] = {
      {"empty", "", 1, ""},
      {"only comments", "# nothing\n\n", 1, ""},
      {"single point", "0 0\n", 1, ""},
      {"garbage size", "0 0\nabc 50\n100 100\n", 2, "size_bytes"},
      {"fractional size", "0 0\n10.5 50\n100 100\n", 2, "size_bytes"},
      {"garbage cumulative", "0 0\n10 fifty\n100 100\n", 2, "cumulative"},
      {"trailing junk", "0 0\n10 50x\n100 100\n", 2, "cumulative"},
      {"three columns", "0 0\n10 50 7\n100 100\n", 2, ""},
      {"one column", "0 0\n10\n100 100\n", 2, ""},
      {"negative size", "0 0\n-10 50\n100 100\n", 2, "size_bytes"},
      {"negative cumulative", "0 0\n10 -5\n100 100\n", 2, "cumulative"},
      {"nan cumulative", "0 0\n10 nan\n100 100\n", 2, "cumulative"},
      {"first not zero", "5 10\n100 100\n", 1, "cumulative"},
      {"sizes decrease", "0 0\n50 20\n40 60\n100 100\n", 3, "size_bytes"},
      {"cumulative decreases", "0 0\n50 20\n60 10\n100 100\n", 3, "cumulative"},
      {"last is 99", "0 0\n50 20\n100 99\n", 3, "cumulative"},
      {"last is 0.5", "0 0\n50 0.2\n100 0.5\n", 3, "cumulative"},
      {"over 100", "0 0\n50 120\n100 100\n", 3, "cumulative"},
      {"line numbers skip comments and blanks", "# header\n0 0\n\n50 x\n", 4, "cumulative"},
      {"last line after blank", "0 0\n\n100 50\n\n", 3, "cumulative"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempFile f(c.contents);
    try {
      (void)FlowSizeCdf::load(f.path());
      ADD_FAILURE() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), f.path());
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_EQ(e.key(), c.key) << e.what();
      EXPECT_FALSE(e.message().empty());
    }
  }
}

TEST(FlowSizeCdf, AcceptsCommentsBlankLinesAndCrlf) {
  TempFile f("# size pct\r\n0 0\r\n\r\n10\t50\r\n100 100\r\n");
  const auto cdf = FlowSizeCdf::load(f.path());
  ASSERT_EQ(cdf.points().size(), 3u);
  EXPECT_DOUBLE_EQ(cdf.points()[1].second, 0.5);
}

TEST(FlowSizeCdf, MissingFileIsInputError) {
  EXPECT_THROW((void)FlowSizeCdf::load("data/cdf/does_not_exist.txt"), InputError);
}

}  // namespace
}  // namespace rdmasim
