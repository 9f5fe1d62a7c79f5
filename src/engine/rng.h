// Named, seeded random streams. Each consumer draws from its own stream so
// adding a random draw in one model never shifts the numbers another sees.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace rdmasim {

// splitmix64: used to expand seeds; also a good 64-bit mixer for hashing.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr uint64_t mix64(uint64_t x) {
  uint64_t s = x;
  return splitmix64(s);
}

// FNV-1a over a stream name, so stream identity depends only on the name.
constexpr uint64_t hash_name(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// xoshiro256** (Blackman & Vigna); satisfies UniformRandomBitGenerator.
class Rng {
 public:
  using result_type = uint64_t;
  Rng() : Rng(0, "default") {}
  Rng(uint64_t seed, std::string_view stream_name) {
    uint64_t st = seed ^ hash_name(stream_name);
    for (auto& w : s_) w = splitmix64(st);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>((*this)()) * n) >> 64);
  }
  double exponential(double mean) { return -mean * std::log1p(-uniform01()); }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4]{};
};

}  // namespace rdmasim
