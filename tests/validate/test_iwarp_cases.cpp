// The §E validate cases pass on their own, and the incast curve has the
// shape the paper reports: flat at line rate for one server, collapsing with
// a 200 ms RTO floor once the buffer overflows, and not with 200 us.
#include <gtest/gtest.h>

#include <cstdio>

#include "validate/iwarp_cases.h"

namespace rdmasim {
namespace {

TEST(IwarpValidate, EveryCasePasses) {
  std::vector<ValidationResult> out;
  iwarp_cases(out, false);
  ASSERT_GE(out.size(), 7u);
  for (const auto& r : out) {
    std::printf("%-5s %-70s %-40s %s\n", r.id.c_str(), r.name.c_str(), r.measured.c_str(),
                r.expected.c_str());
    EXPECT_TRUE(r.pass) << r.id << " " << r.name << ": " << r.measured << " vs " << r.expected;
  }
}

TEST(IwarpValidate, IncastCollapsesOnlyWithTheCoarseRto) {
  const double line = 10.0 * 1440 / 1538;
  const IncastPoint one = tcp_incast(1, Time::from_ms(200), 4);
  EXPECT_GT(one.goodput_gbps, 0.8 * line) << "one server: no overflow, no timeout";
  EXPECT_EQ(one.timeouts, 0u);
  const IncastPoint coarse = tcp_incast(32, Time::from_ms(200), 4);
  const IncastPoint fine = tcp_incast(32, Time::from_us(200), 4);
  EXPECT_GT(coarse.timeouts, 0u);
  EXPECT_GT(fine.goodput_gbps, 4 * coarse.goodput_gbps);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// The whole curve for docs/IWARP.md (disabled: run with
// --gtest_also_run_disabled_tests --gtest_filter='*IncastCurve*').
TEST(IwarpValidate, DISABLED_IncastCurve) {
  std::printf("N,goodput_200ms_gbps,rtos_200ms,goodput_200us_gbps,rtos_200us\n");
  for (int n = 1; n <= 48; ++n) {
    const IncastPoint a = tcp_incast(n, Time::from_ms(200), 4);
    const IncastPoint b = tcp_incast(n, Time::from_us(200), 4);
    std::printf("%d,%.3f,%llu,%.3f,%llu\n", n, a.goodput_gbps, static_cast<unsigned long long>(a.timeouts),
                b.goodput_gbps, static_cast<unsigned long long>(b.timeouts));
  }
}

}  // namespace
}  // namespace rdmasim
