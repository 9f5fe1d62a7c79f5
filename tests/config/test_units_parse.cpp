#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "config/units_parse.h"

namespace rdmasim {
namespace {

// The message of the std::invalid_argument thrown by `fn`, or "" if none.
template <typename Fn>
std::string invalid_argument_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ParseTime, ExactDecimalValues) {
  EXPECT_EQ(parse_time("1.5us").ps(), 1'500'000);
  EXPECT_EQ(parse_time("0.3us").ps(), 300'000);
  EXPECT_EQ(parse_time("600ns").ps(), 600'000);
  EXPECT_EQ(parse_time("10ms").ps(), 10'000'000'000);
  EXPECT_EQ(parse_time("2s").ps(), 2'000'000'000'000);
  EXPECT_EQ(parse_time("100ps").ps(), 100);
  EXPECT_EQ(parse_time("0.001ns").ps(), 1);
  EXPECT_EQ(parse_time(".5ns").ps(), 500);
  EXPECT_EQ(parse_time("0s").ps(), 0);
  EXPECT_EQ(parse_time("1.5 us").ps(), 1'500'000);
  EXPECT_EQ(parse_time("0.1s").ps(), 100'000'000'000);
  EXPECT_EQ(parse_time("1.50000000000000000000000000000000000000000000us").ps(), 1'500'000);
}

TEST(ParseTime, MicroSignVariants) {
  EXPECT_EQ(parse_time("2\xC2\xB5s").ps(), 2'000'000);  // U+00B5
  EXPECT_EQ(parse_time("2\xCE\xBCs").ps(), 2'000'000);  // U+03BC
}

// The bounds leave 92x headroom below 2^63 ps, so sums of inputs cannot wrap.
TEST(ParseTime, LargestValues) {
  EXPECT_EQ(parse_time("100000s").ps(), 100'000'000'000'000'000);
  EXPECT_EQ(parse_time("100000000000000000ps").ps(), kMaxInputTimePs);
  EXPECT_GT(std::numeric_limits<int64_t>::max() / kMaxInputTimePs, 91);
  EXPECT_EQ(parse_bytes("1048576GiB").count(), kMaxInputBytes);
  // The bound can be written as the error states it.
  EXPECT_EQ(parse_bytes("1PiB").count(), kMaxInputBytes);
  EXPECT_EQ(parse_bytes("2TiB").count(), int64_t{2} << 40);
  EXPECT_EQ(parse_bytes("3TB").count(), int64_t{3'000'000'000'000});
  EXPECT_EQ(parse_rate("1000Tbps").bps(), kMaxInputBps);
}

TEST(ParseTime, Errors) {
  const std::string kNeedUnit = "expected a time with a unit, e.g. 1.5us";
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("1.5"); }), kNeedUnit);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("600"); }), kNeedUnit);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time(""); }), kNeedUnit);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("us"); }), kNeedUnit);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("-1us"); }), "time must not be negative");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("0.0001ps"); }),
            "time must be a whole number of picoseconds");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("1.0000000000001s"); }),
            "time must be a whole number of picoseconds");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("0.0000000000000000000000000000000000000000001s"); }),
            "time must be a whole number of picoseconds");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("3xs"); }),
            "unknown time unit 'xs' (use ps, ns, us, ms or s)");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("1e3ns"); }),
            "unknown time unit 'e3ns' (use ps, ns, us, ms or s)");
  const std::string kTooLong =
      "time is too large: at most 100000s (about 28 hours; times are counted in 64-bit picoseconds)";
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("100000000000000001ps"); }), kTooLong);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("9000000s"); }), kTooLong);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("9223372036854775808ps"); }), "time is too large");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("9223373s"); }), "time is too large");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_time("99999999999999999999999999999999999999999s"); }),
            "time is too large");
}

TEST(ParseBytes, Values) {
  EXPECT_EQ(parse_bytes("32MiB").count(), 33'554'432);
  EXPECT_EQ(parse_bytes("1.5KiB").count(), 1536);
  EXPECT_EQ(parse_bytes("400KB").count(), 400'000);
  EXPECT_EQ(parse_bytes("4kB").count(), 4000);
  EXPECT_EQ(parse_bytes("1GB").count(), 1'000'000'000);
  EXPECT_EQ(parse_bytes("1GiB").count(), 1'073'741'824);
  EXPECT_EQ(parse_bytes("2.5MB").count(), 2'500'000);
  EXPECT_EQ(parse_bytes("1234B").count(), 1234);
  EXPECT_EQ(parse_bytes("0B").count(), 0);
  // 1 + 2^-30 needs all 30 fractional digits to be exact.
  EXPECT_EQ(parse_bytes("1.000000000931322574615478515625GiB").count(), 1'073'741'825);
}

TEST(ParseBytes, Errors) {
  const std::string kNeedUnit = "expected a size with a unit, e.g. 32MiB or 4KB";
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("1024"); }), kNeedUnit);
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("0.5B"); }), "size must be a whole number of bytes");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("1.0001KiB"); }),
            "size must be a whole number of bytes");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("-4KB"); }), "size must not be negative");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("4kb"); }),
            "unknown size unit 'kb' (use B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("9000000000GiB"); }), "size is too large");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("1048577GiB"); }), "size is too large: at most 1PiB");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_bytes("2PiB"); }), "size is too large: at most 1PiB");
}

TEST(ParseRate, Values) {
  EXPECT_EQ(parse_rate("400Gbps").bps(), 400'000'000'000);
  EXPECT_EQ(parse_rate("2.5Gbps").bps(), 2'500'000'000);
  EXPECT_EQ(parse_rate("100Mbps").bps(), 100'000'000);
  EXPECT_EQ(parse_rate("1.6Tbps").bps(), 1'600'000'000'000);
  EXPECT_EQ(parse_rate("56Kbps").bps(), 56'000);
  EXPECT_EQ(parse_rate("1bps").bps(), 1);
  // Bytes per second, as GPU and NVLink bandwidths are quoted.
  EXPECT_EQ(parse_rate("370.8GB/s").bps(), 2'966'400'000'000);
  EXPECT_EQ(parse_rate("50GB/s").bps(), parse_rate("400Gbps").bps());
  EXPECT_EQ(parse_rate("1.5MB/s").bps(), 12'000'000);
  EXPECT_EQ(parse_rate("1B/s").bps(), 8);
  EXPECT_EQ(format_rate(parse_rate("900GB/s")), "7.2Tbps");
}

TEST(ParseRate, Errors) {
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("400"); }),
            "expected a rate with a unit, e.g. 400Gbps");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("0Gbps"); }), "rate must be greater than 0");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("-1Gbps"); }), "rate must not be negative");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("0.5bps"); }),
            "rate must be a whole number of bits per second");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("400Gb/s"); }),
            "unknown rate unit 'Gb/s' (use bps, Kbps, Mbps, Gbps or Tbps; or bytes per second: B/s, KB/s, "
            "MB/s, GB/s or TB/s)");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("126TB/s"); }), "rate is too large: at most 1000Tbps");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("10000000Tbps"); }), "rate is too large");
  EXPECT_EQ(invalid_argument_of([] { (void)parse_rate("1001Tbps"); }), "rate is too large: at most 1000Tbps");
}

TEST(ParseFraction, FractionsAndPercentages) {
  EXPECT_EQ(parse_fraction_or_percent("0.3"), 0.3);
  EXPECT_EQ(parse_fraction_or_percent("30%"), 0.3);
  EXPECT_EQ(parse_fraction_or_percent("33.3%"), 0.333);
  EXPECT_EQ(parse_fraction_or_percent("0.07%"), 0.0007);
  EXPECT_EQ(parse_fraction_or_percent("100%"), 1.0);
  EXPECT_EQ(parse_fraction_or_percent("0"), 0.0);
  EXPECT_EQ(parse_fraction_or_percent("1"), 1.0);
  EXPECT_EQ(parse_fraction_or_percent("1e-3"), 0.001);
}

TEST(ParseFraction, Errors) {
  const std::string kExpected = "expected a fraction in [0, 1] or a percentage, e.g. 0.3 or 30%";
  for (const char* bad :
       {"1.5", "150%", "-0.1", "-5%", "abc", "", "%", "nan", "inf", "1e1%", "0.3x", "30%%"}) {
    EXPECT_EQ(invalid_argument_of([&] { (void)parse_fraction_or_percent(bad); }), kExpected) << bad;
  }
}

TEST(FormatTime, ShortestExactSpelling) {
  EXPECT_EQ(format_time(Time::from_ps(1'500'000)), "1.5us");
  EXPECT_EQ(format_time(Time::from_ps(600'000)), "600ns");
  EXPECT_EQ(format_time(Time::from_ps(1234)), "1234ps");
  EXPECT_EQ(format_time(Time::from_ps(100)), "100ps");
  EXPECT_EQ(format_time(Time::from_ps(1000)), "1ns");
  EXPECT_EQ(format_time(Time::from_ms(10)), "10ms");
  EXPECT_EQ(format_time(Time::from_ps(2'500'000'000)), "2.5ms");
  EXPECT_EQ(format_time(Time::from_s(2)), "2s");
  EXPECT_EQ(format_time(Time::zero()), "0s");
  EXPECT_EQ(format_time(Time::from_ps(-1500)), "-1.5ns");
  EXPECT_EQ(format_time(Time::from_ps(std::numeric_limits<int64_t>::min())), "-9223372036854775808ps");
}

TEST(FormatBytes, WholeMultiplesOnly) {
  EXPECT_EQ(format_bytes(Bytes(33'554'432)), "32MiB");
  EXPECT_EQ(format_bytes(Bytes(400'000)), "400KB");
  EXPECT_EQ(format_bytes(Bytes(1234)), "1234B");
  EXPECT_EQ(format_bytes(Bytes(1536)), "1536B");
  EXPECT_EQ(format_bytes(Bytes(1024)), "1KiB");
  EXPECT_EQ(format_bytes(Bytes(1'073'741'824)), "1GiB");
  EXPECT_EQ(format_bytes(Bytes(1'024'000)), "1024KB");
  EXPECT_EQ(format_bytes(Bytes(0)), "0B");
  EXPECT_EQ(format_bytes(Bytes(-2048)), "-2KiB");
}

TEST(FormatRate, ShortestExactSpelling) {
  EXPECT_EQ(format_rate(Rate::from_gbps(400)), "400Gbps");
  EXPECT_EQ(format_rate(Rate::from_bps(2'500'000'000)), "2.5Gbps");
  EXPECT_EQ(format_rate(Rate::from_bps(100'000'000)), "100Mbps");
  EXPECT_EQ(format_rate(Rate::from_bps(1'600'000'000'000)), "1.6Tbps");
  EXPECT_EQ(format_rate(Rate::from_bps(1)), "1bps");
}

TEST(FormatAndParse, RoundTrip) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    // Mix magnitudes so every unit gets picked, and keep values in range.
    const int shift = static_cast<int>(rng() % 63);
    const auto v = static_cast<int64_t>(rng() >> (shift + 1));
    const int64_t t = v % (kMaxInputTimePs + 1);
    const int64_t b = v % (kMaxInputBytes + 1);
    const int64_t r = v % kMaxInputBps + 1;
    EXPECT_EQ(parse_time(format_time(Time::from_ps(t))).ps(), t) << format_time(Time::from_ps(t));
    EXPECT_EQ(parse_bytes(format_bytes(Bytes(b))).count(), b) << format_bytes(Bytes(b));
    EXPECT_EQ(parse_rate(format_rate(Rate::from_bps(r))).bps(), r) << format_rate(Rate::from_bps(r));
  }
  EXPECT_EQ(parse_time(format_time(Time::from_ps(kMaxInputTimePs))).ps(), kMaxInputTimePs);
  EXPECT_EQ(parse_bytes(format_bytes(Bytes(kMaxInputBytes))).count(), kMaxInputBytes);
  EXPECT_EQ(parse_rate(format_rate(Rate::from_bps(kMaxInputBps))).bps(), kMaxInputBps);
}

// A whole message too long for 64-bit picoseconds saturates, never wraps.
TEST(RateTxTime, SaturatesInsteadOfWrapping) {
  EXPECT_EQ(Rate::from_bps(1).tx_time(Bytes(kMaxInputBytes)), Time::never());
  EXPECT_EQ(Rate::from_gbps(8).tx_time(Bytes(int64_t{1} << 30)).ps(), (int64_t{1} << 30) * 1000);
}

}  // namespace
}  // namespace rdmasim
