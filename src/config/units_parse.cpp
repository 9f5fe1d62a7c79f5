#include "config/units_parse.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

namespace rdmasim {
namespace {

using Wide = __int128;  // Wide enough for any int64 value times any unit scale.

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct Unit {
  std::string_view suffix;
  int64_t scale;
};

// What one kind of quantity is called, so the shared parser can say what it
// expected in the user's terms.
struct Quantity {
  std::string_view noun;
  std::string_view expected;
  std::string_view whole_of;
  std::string_view unit_names;
  std::span<const Unit> units;
  // Inclusive upper bound in base units and how the refusal states it. The
  // bounds keep every sum of a few inputs inside 64-bit picoseconds and
  // bytes, so no later arithmetic can wrap.
  int64_t max;
  std::string_view max_text;
};

constexpr Unit kTimeUnits[] = {
    {"ps", 1},
    {"ns", 1'000},
    {"us", 1'000'000},
    {"\xC2\xB5s", 1'000'000},  // MICRO SIGN
    {"\xCE\xBCs", 1'000'000},  // GREEK SMALL LETTER MU, which keyboards often produce instead
    {"ms", 1'000'000'000},
    {"s", 1'000'000'000'000},
};
constexpr Unit kByteUnits[] = {
    {"B", 1},
    {"KB", 1'000},
    {"kB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"PB", 1'000'000'000'000'000},
    {"KiB", int64_t{1} << 10},
    {"MiB", int64_t{1} << 20},
    {"GiB", int64_t{1} << 30},
    {"TiB", int64_t{1} << 40},
    {"PiB", int64_t{1} << 50},  // the largest size a value may be (kMaxInputBytes): it can be written
};
// Bits per second, and bytes per second (8 bits each): GPU and NVLink
// bandwidths are quoted in GB/s, as nccl-tests prints busbw. Rates are shown
// in bits per second (format_rate) whichever way they were written.
constexpr Unit kRateUnits[] = {
    {"bps", 1},          {"Kbps", 1'000},         {"kbps", 1'000},
    {"Mbps", 1'000'000}, {"Gbps", 1'000'000'000}, {"Tbps", 1'000'000'000'000},
    {"B/s", 8},          {"KB/s", 8'000},         {"kB/s", 8'000},
    {"MB/s", 8'000'000}, {"GB/s", 8'000'000'000}, {"TB/s", 8'000'000'000'000},
};

constexpr Quantity kTime{"time",
                         "expected a time with a unit, e.g. 1.5us",
                         "picoseconds",
                         "ps, ns, us, ms or s",
                         kTimeUnits,
                         kMaxInputTimePs,
                         "100000s (about 28 hours; times are counted in 64-bit picoseconds)"};
constexpr Quantity kBytes{"size",     "expected a size with a unit, e.g. 32MiB or 4KB",
                          "bytes",    "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB",
                          kByteUnits, kMaxInputBytes,
                          "1PiB"};
constexpr Quantity kRate{"rate",
                         "expected a rate with a unit, e.g. 400Gbps",
                         "bits per second",
                         "bps, Kbps, Mbps, Gbps or Tbps; or bytes per second: B/s, KB/s, MB/s, GB/s or TB/s",
                         kRateUnits,
                         kMaxInputBps,
                         "1000Tbps"};

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view take_digits(std::string_view& s) {
  size_t n = 0;
  while (n < s.size() && is_digit(s[n])) ++n;
  std::string_view digits = s.substr(0, n);
  s.remove_prefix(n);
  return digits;
}

// A non-negative decimal number split at the point, e.g. "1.50" -> {"1", "50"}.
struct Decimal {
  std::string_view int_digits;
  std::string_view frac_digits;
};

Wide gcd(Wide a, Wide b) {
  while (b != 0) {
    const Wide r = a % b;
    a = b;
    b = r;
  }
  return a;
}

Wide pow10(size_t n) {
  Wide p = 1;
  for (size_t i = 0; i < n; ++i) p *= 10;
  return p;
}

enum class Scaled { kOk, kNotWhole, kOverflow };

// Computes number * scale exactly. Working on digit strings rather than a
// double is what makes "0.3us" exactly 300000 ps.
Scaled scale_decimal(Decimal number, int64_t scale, int64_t& out) {
  Wide whole = 0;
  for (char c : number.int_digits) {
    whole = whole * 10 + (c - '0');
    if (whole > kInt64Max) return Scaled::kOverflow;
  }
  std::string_view frac = number.frac_digits;
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  // With k significant fractional digits the product is whole only if 10^k
  // divides frac * scale; every scale here divides 2^30 * 10^12, which bounds
  // k by 30. Longer fractions cannot be whole, and rejecting them early keeps
  // 10^k inside 128 bits.
  if (frac.size() > 36) return Scaled::kNotWhole;
  Wide frac_value = 0;
  for (char c : frac) frac_value = frac_value * 10 + (c - '0');
  const Wide denominator = pow10(frac.size());
  const Wide common = gcd(denominator, scale);
  const Wide reduced = denominator / common;
  if (frac_value % reduced != 0) return Scaled::kNotWhole;
  // frac_value / reduced < common, so this term stays below `scale`.
  const Wide total = whole * scale + (frac_value / reduced) * (scale / common);
  if (total > kInt64Max) return Scaled::kOverflow;
  out = static_cast<int64_t>(total);
  return Scaled::kOk;
}

const Unit* find_unit(std::span<const Unit> units, std::string_view suffix) {
  for (const Unit& u : units) {
    if (u.suffix == suffix) return &u;
  }
  return nullptr;
}

int64_t parse_quantity(std::string_view text, const Quantity& q) {
  std::string_view rest = trim(text);
  if (!rest.empty() && rest.front() == '-') fail(std::string(q.noun) + " must not be negative");
  Decimal number;
  number.int_digits = take_digits(rest);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    number.frac_digits = take_digits(rest);
  }
  if (number.int_digits.empty() && number.frac_digits.empty()) fail(std::string(q.expected));
  const std::string_view suffix = trim(rest);
  if (suffix.empty()) fail(std::string(q.expected));
  const Unit* unit = find_unit(q.units, suffix);
  if (unit == nullptr) {
    fail("unknown " + std::string(q.noun) + " unit '" + std::string(suffix) + "' (use " +
         std::string(q.unit_names) + ")");
  }
  int64_t value = 0;
  switch (scale_decimal(number, unit->scale, value)) {
    case Scaled::kOk:
      if (value > q.max) fail(std::string(q.noun) + " is too large: at most " + std::string(q.max_text));
      return value;
    case Scaled::kNotWhole:
      fail(std::string(q.noun) + " must be a whole number of " + std::string(q.whole_of));
    case Scaled::kOverflow:
      break;
  }
  fail(std::string(q.noun) + " is too large");
}

// Renders magnitude / scale (scale a power of ten) without trailing zeros.
std::string decimal_string(uint64_t magnitude, uint64_t scale) {
  std::string s = std::to_string(magnitude / scale);
  const uint64_t frac = magnitude % scale;
  if (frac == 0) return s;
  std::string digits = std::to_string(frac);
  const size_t width = std::to_string(scale).size() - 1;
  digits.insert(0, width - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return s + "." + digits;
}

// |v| without overflow for INT64_MIN.
uint64_t magnitude_of(int64_t v) {
  return v >= 0 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(-(v + 1)) + 1;
}

// Picks the shortest spelling over `units`; on a tie the earlier unit wins, so
// list units smallest first to prefer "600ns" over "0.6us".
std::string shortest_decimal(int64_t value, std::span<const Unit> units) {
  const uint64_t mag = magnitude_of(value);
  std::string best;
  for (const Unit& u : units) {
    std::string s = decimal_string(mag, static_cast<uint64_t>(u.scale)) + std::string(u.suffix);
    if (best.empty() || s.size() < best.size()) best = std::move(s);
  }
  return value < 0 ? "-" + best : best;
}

}  // namespace

Time parse_time(std::string_view text) { return Time::from_ps(parse_quantity(text, kTime)); }

Bytes parse_bytes(std::string_view text) { return Bytes(parse_quantity(text, kBytes)); }

Rate parse_rate(std::string_view text) {
  const int64_t bps = parse_quantity(text, kRate);
  if (bps == 0) fail("rate must be greater than 0");
  return Rate::from_bps(bps);
}

double parse_fraction_or_percent(std::string_view text) {
  constexpr std::string_view kExpected = "expected a fraction in [0, 1] or a percentage, e.g. 0.3 or 30%";
  std::string number(trim(text));
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) {
    number.pop_back();
    number = std::string(trim(number));
    // Shifting the decimal point in the text, instead of dividing by 100,
    // keeps "33.3%" the double nearest to 0.333.
    if (number.find_first_of("eE") != std::string::npos) fail(std::string(kExpected));
    number += "e-2";
  }
  double value = 0;
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, value);
  if (number.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    fail(std::string(kExpected));
  }
  if (value < 0 || value > 1) fail(std::string(kExpected));
  return value;
}

std::string format_time(Time t) {
  static constexpr Unit kShown[] = {
      {"ps", 1}, {"ns", 1'000}, {"us", 1'000'000}, {"ms", 1'000'000'000}, {"s", 1'000'000'000'000}};
  return shortest_decimal(t.ps(), kShown);
}

std::string format_rate(Rate r) {
  static constexpr Unit kShown[] = {
      {"bps", 1}, {"Kbps", 1'000}, {"Mbps", 1'000'000}, {"Gbps", 1'000'000'000}, {"Tbps", 1'000'000'000'000}};
  return shortest_decimal(r.bps(), kShown);
}

std::string format_bytes(Bytes b) {
  // Only whole multiples: "1.5KiB" reads back fine but sizes are usually
  // compared by eye against powers of two, where "1536B" is clearer.
  static constexpr Unit kShown[] = {
      {"B", 1},      {"KiB", int64_t{1} << 10}, {"MiB", int64_t{1} << 20}, {"GiB", int64_t{1} << 30},
      {"KB", 1'000}, {"MB", 1'000'000},         {"GB", 1'000'000'000}};
  const uint64_t mag = magnitude_of(b.count());
  std::string best;
  for (const Unit& u : kShown) {
    const auto scale = static_cast<uint64_t>(u.scale);
    if (mag % scale != 0) continue;
    std::string s = std::to_string(mag / scale) + std::string(u.suffix);
    if (best.empty() || s.size() < best.size()) best = std::move(s);
  }
  return b.count() < 0 ? "-" + best : best;
}

}  // namespace rdmasim
