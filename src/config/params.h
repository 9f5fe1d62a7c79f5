// One schema per part: a part's parameter struct declares each key once, in
// a member template
//
//   template <class V> void visit(V& v) {
//     v.real("g", g, 1e-6, 1.0);
//     v.time("alpha_timer", alpha_timer, kPositive);
//     ...
//   }
//
// and every use of the keys comes from that declaration: ParamReader parses
// a YAML block strictly (unknown keys, types, units and ranges are errors
// with file:line:column), ParamEcho writes the block into results.json, and
// ParamKeys lists the keys. The part's header needs none of this file: it
// only calls methods on V.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "config/cfg_node.h"
#include "config/units_parse.h"
#include "engine/units.h"

namespace rdmasim {

inline constexpr bool kPositive = true;  // for time(): zero and below are refused

// Reads a part's block; what the block leaves out keeps its current value.
class ParamReader {
 public:
  explicit ParamReader(const CfgNode& node) : n_(node) {}

  void real(const char* key, double& x, double min, double max) { x = n_.real(key, x, min, max); }
  template <typename T>
  void count(const char* key, T& x, int64_t min, int64_t max) {
    x = static_cast<T>(n_.integer(key, static_cast<int64_t>(x), min, max));
  }
  void flag(const char* key, bool& x) { x = n_.boolean(key, x); }
  void time(const char* key, Time& x, bool positive = false) {
    x = n_.time(key, x);
    if (positive && x <= Time::zero()) throw n_.error(key, "expected a positive time");
  }
  void rate(const char* key, Rate& x) { x = n_.rate(key, x); }
  // A size in bytes, at most `max`; `positive`: zero is refused with that message.
  template <typename T>
  void size(const char* key, T& x, int64_t max = std::numeric_limits<int64_t>::max(),
            const char* positive = nullptr) {
    const int64_t v = n_.bytes(key, Bytes(static_cast<int64_t>(x))).count();
    if (v > max) throw n_.error(key, "expected at most " + std::to_string(max) + " B");
    if (positive != nullptr && v <= 0) throw n_.error(key, positive);
    x = static_cast<T>(v);
  }
  // A time, or `word` (stored as zero), e.g. base_rtt: auto.
  void time_or(const char* key, Time& x, const char* word) {
    if (!n_.has(key)) return;
    x = n_.str(key) == word ? Time::zero() : n_.time(key, x);
  }
  // A size, or `word` (stored as zero), e.g. byte_counter: off.
  void size_or(const char* key, int64_t& x, const char* word) {
    if (!n_.has(key)) return;
    const std::string text = n_.str(key);
    if (text == word) {
      x = 0;
      return;
    }
    try {
      x = parse_bytes(text).count();
    } catch (const std::invalid_argument& err) {
      throw n_.error(key, std::string("expected a size, e.g. 10MB, or ") + word + " (" + err.what() + ")");
    }
    if (x <= 0) throw n_.error(key, std::string("expected a positive size, or ") + word);
  }
  // A count, or `word` (stored as zero), e.g. initial_window: auto.
  template <typename T>
  void count_or(const char* key, T& x, const char* word, int64_t min, int64_t max) {
    if (!n_.has(key)) return;
    x = n_.str(key) == word ? T{0} : static_cast<T>(n_.integer(key, min, max));
  }
  // A constraint between keys, reported at `key`.
  void check(bool ok, const char* key, const char* message) {
    if (!ok) throw n_.error(key, message);
  }

 private:
  const CfgNode& n_;
};

// Writes a part's block as results.json records it, in declaration order.
class ParamEcho {
 public:
  explicit ParamEcho(nlohmann::ordered_json& out) : j_(out) {}

  void real(const char* key, const double& x, double, double) { j_[key] = x; }
  template <typename T>
  void count(const char* key, const T& x, int64_t, int64_t) {
    j_[key] = x;
  }
  void flag(const char* key, const bool& x) { j_[key] = x; }
  void time(const char* key, const Time& x, bool = false) { j_[key] = format_time(x); }
  void rate(const char* key, const Rate& x) { j_[key] = format_rate(x); }
  template <typename T>
  void size(const char* key, const T& x, int64_t = 0, const char* = nullptr) {
    j_[key] = format_bytes(Bytes(static_cast<int64_t>(x)));
  }
  void time_or(const char* key, const Time& x, const char* word) {
    j_[key] = x == Time::zero() ? std::string(word) : format_time(x);
  }
  void size_or(const char* key, const int64_t& x, const char* word) {
    j_[key] = x == 0 ? std::string(word) : format_bytes(Bytes(x));
  }
  template <typename T>
  void count_or(const char* key, const T& x, const char* word, int64_t, int64_t) {
    if (x == 0)
      j_[key] = word;
    else
      j_[key] = x;
  }
  void check(bool, const char*, const char*) {}

 private:
  nlohmann::ordered_json& j_;
};

// The keys a part accepts, in declaration order.
class ParamKeys {
 public:
  template <typename... A>
  void real(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void count(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void flag(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void time(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void rate(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void size(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void time_or(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void size_or(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void count_or(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  void check(bool, const char*, const char*) {}

  std::vector<std::string> keys;
};

// Visits a const struct with an echo visitor (visit() is written for
// mutable references; echo only reads).
template <typename P, typename V>
void visit_const(const P& p, V& v) {
  const_cast<P&>(p).visit(v);  // NOLINT(cppcoreguidelines-pro-type-const-cast): V does not write
}

}  // namespace rdmasim
