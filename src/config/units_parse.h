// Parsing and printing of user-facing quantities ("1.5us", "32MiB",
// "400Gbps"). Parsing is exact decimal arithmetic so that what the user wrote
// is what the simulator uses: a binary double cannot hold 0.3us, and a
// rounding error of one picosecond changes event order.
//
// Parse errors throw std::invalid_argument whose what() is a short phrase
// saying what was expected; callers add the offending text and location.
#pragma once

#include <string>
#include <string_view>

#include "engine/units.h"

namespace rdmasim {

// The largest value any input may carry. 10^5 s is 10^17 ps, so a sum of up
// to 92 input times still fits 64 bits; a PiB is more than any run can move.
inline constexpr int64_t kMaxInputTimePs = 100'000LL * 1'000'000'000'000LL;
inline constexpr int64_t kMaxInputBytes = int64_t{1} << 50;
inline constexpr int64_t kMaxInputBps = 1'000LL * 1'000'000'000'000LL;

// Units: ps, ns, us (or µs), ms, s. The value must be non-negative and a
// whole number of picoseconds, at most kMaxInputTimePs; a unit is mandatory.
[[nodiscard]] Time parse_time(std::string_view text);

// Units: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024). The
// value must be non-negative, a whole number of bytes, at most kMaxInputBytes.
[[nodiscard]] Bytes parse_bytes(std::string_view text);

// Units: bps, Kbps, Mbps, Gbps, Tbps (powers of 1000), or bytes per second
// B/s, KB/s, MB/s, GB/s, TB/s (8 bits to the byte). The value must be a
// positive whole number of bits per second, at most kMaxInputBps.
[[nodiscard]] Rate parse_rate(std::string_view text);

// "0.3" or "30%", both meaning 0.3. The result must lie in [0, 1].
[[nodiscard]] double parse_fraction_or_percent(std::string_view text);

// Shortest exact spelling that the matching parse_* reads back unchanged.
[[nodiscard]] std::string format_time(Time t);
[[nodiscard]] std::string format_bytes(Bytes b);
[[nodiscard]] std::string format_rate(Rate r);

}  // namespace rdmasim
