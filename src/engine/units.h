// Strong types for simulated time, byte counts and link rates.
// Time is an integer count of picoseconds: at 800 Gb/s one byte is 10 ps, so
// every rate we model serializes a byte in a whole or near-whole number of ps.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace rdmasim {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_ps(int64_t ps) { return Time(ps); }
  static constexpr Time from_ns(int64_t ns) { return Time(ns * 1'000); }
  static constexpr Time from_us(int64_t us) { return Time(us * 1'000'000); }
  static constexpr Time from_ms(int64_t ms) { return Time(ms * 1'000'000'000); }
  static constexpr Time from_s(int64_t s) { return Time(s * 1'000'000'000'000); }
  static constexpr Time from_sec_f(double s) {
    return Time(static_cast<int64_t>(s * 1e12 + (s >= 0 ? 0.5 : -0.5)));
  }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time never() { return Time(std::numeric_limits<int64_t>::max()); }

  [[nodiscard]] constexpr int64_t ps() const { return ps_; }
  [[nodiscard]] constexpr double ns() const { return static_cast<double>(ps_) / 1e3; }
  [[nodiscard]] constexpr double us() const { return static_cast<double>(ps_) / 1e6; }
  [[nodiscard]] constexpr double sec() const { return static_cast<double>(ps_) / 1e12; }

  constexpr Time& operator+=(Time o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps_ -= o.ps_;
    return *this;
  }
  friend constexpr Time operator+(Time a, Time b) { return Time(a.ps_ + b.ps_); }
  friend constexpr Time operator-(Time a, Time b) { return Time(a.ps_ - b.ps_); }
  friend constexpr Time operator*(Time a, int64_t k) { return Time(a.ps_ * k); }
  friend constexpr Time operator*(int64_t k, Time a) { return Time(a.ps_ * k); }
  friend constexpr Time operator/(Time a, int64_t k) { return Time(a.ps_ / k); }
  friend constexpr auto operator<=>(Time,
                                    Time) = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 bug

 private:
  constexpr explicit Time(int64_t ps) : ps_(ps) {}
  int64_t ps_ = 0;
};

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(int64_t n) : n_(n) {}
  [[nodiscard]] constexpr int64_t count() const { return n_; }
  constexpr Bytes& operator+=(Bytes o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    n_ -= o.n_;
    return *this;
  }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes(a.n_ + b.n_); }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes(a.n_ - b.n_); }
  friend constexpr Bytes operator*(Bytes a, int64_t k) { return Bytes(a.n_ * k); }
  friend constexpr auto operator<=>(Bytes,
                                    Bytes) = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 bug

 private:
  int64_t n_ = 0;
};

// A link or pacing rate in bits per second.
class Rate {
 public:
  constexpr Rate() = default;
  static constexpr Rate from_bps(int64_t bps) { return Rate(bps); }
  static constexpr Rate from_gbps(int64_t g) { return Rate(g * 1'000'000'000); }
  [[nodiscard]] constexpr int64_t bps() const { return bps_; }
  [[nodiscard]] constexpr double gbps() const { return static_cast<double>(bps_) / 1e9; }

  // Time to put `b` on the wire, rounded up to a whole picosecond.
  [[nodiscard]] constexpr Time tx_time(Bytes b) const {
    // Packet-sized values fit 64-bit arithmetic (2^20 B x 8e12 < 2^63);
    // 128-bit division is a library call, far slower on the per-packet path.
    if (b.count() >= 0 && b.count() < (int64_t{1} << 20)) {
      const int64_t bits_ps64 = b.count() * 8 * 1'000'000'000'000LL;
      return Time::from_ps((bits_ps64 + bps_ - 1) / bps_);
    }
    // Whole messages (ideal completion times) take this path; one too long
    // for 64-bit picoseconds saturates to never() instead of wrapping.
    const __int128 bits_ps = static_cast<__int128>(b.count()) * 8 * 1'000'000'000'000LL;
    const __int128 ps = (bits_ps + bps_ - 1) / bps_;
    return ps >= std::numeric_limits<int64_t>::max() ? Time::never()
                                                     : Time::from_ps(static_cast<int64_t>(ps));
  }
  // Bytes carried in `t` at this rate (rounded down).
  [[nodiscard]] constexpr Bytes bytes_in(Time t) const {
    const __int128 v = static_cast<__int128>(t.ps()) * bps_ / (8 * 1'000'000'000'000LL);
    return Bytes(static_cast<int64_t>(v));
  }
  friend constexpr auto operator<=>(Rate,
                                    Rate) = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 bug

 private:
  constexpr explicit Rate(int64_t bps) : bps_(bps) {}
  int64_t bps_ = 0;
};

}  // namespace rdmasim
