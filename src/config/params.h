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
// with file:line:column), ParamEcho writes the block into results.json (and,
// flattened, the values `rdmasim profiles` lists), and ParamKeys lists the
// keys. The part's header needs none of this file: it only calls methods on V.
//
// The vocabulary: real, count, flag, time, rate, size; time_or, size_or,
// rate_or, count_or (a value or a word such as "auto", stored as zero);
// choice (a name from a table), tc_set (a list of traffic classes), custom (a
// value with its own codec: read(node, key, x) and json echo(x)); block (a
// nested map, visited by a function of the same visitor type), refuse (a key
// that has no effect in this configuration) and check (a constraint between
// keys).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/cfg_node.h"
#include "config/units_parse.h"
#include "engine/units.h"

namespace rdmasim {

inline constexpr bool kPositive = true;  // for time(): zero and below are refused

// The names of an enumeration (or a bool) as choice() reads and writes them.
template <typename T>
using Names = std::initializer_list<std::pair<const char*, T>>;

template <typename T>
const char* name_of(const T& x, Names<T> names) {
  for (const auto& [n, v] : names)
    if (v == x) return n;
  return names.begin()->first;
}

// Traffic classes 0..7 as a bit mask, from a YAML list such as [3, 4].
uint8_t read_tc_set(const CfgNode& n, const char* key);
nlohmann::ordered_json tc_set_json(uint8_t mask);

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
  template <typename T>
  void size_or(const char* key, T& x, const char* word) {
    if (!n_.has(key)) return;
    const std::string text = n_.str(key);
    if (text == word) {
      x = 0;
      return;
    }
    int64_t v = 0;
    try {
      v = parse_bytes(text).count();
    } catch (const std::invalid_argument& err) {
      throw n_.error(key, std::string("expected a size, e.g. 10MB, or ") + word + " (" + err.what() + ")");
    }
    if (v <= 0) throw n_.error(key, std::string("expected a positive size, or ") + word);
    x = static_cast<T>(v);
  }
  // A rate, or `word` (stored as zero), e.g. reference_rate: none.
  void rate_or(const char* key, Rate& x, const char* word) {
    if (!n_.has(key)) return;
    const std::string text = n_.str(key);
    if (text == word) {
      x = Rate::from_bps(0);
      return;
    }
    try {
      x = parse_rate(text);
    } catch (const std::invalid_argument& err) {
      throw n_.error(key, std::string("expected a rate, e.g. 100Gbps, or ") + word + " (" + err.what() + ")");
    }
  }
  template <typename T>
  void choice(const char* key, T& x, Names<T> names) {
    std::vector<std::string> allowed;
    for (const auto& [n, v] : names) allowed.emplace_back(n);
    const std::string picked = n_.choice(key, allowed, name_of(x, names));
    for (const auto& [n, v] : names)
      if (picked == n) x = v;
  }
  // A name from a list known at run time (e.g. a registry's).
  void choice(const char* key, std::string& x, const std::vector<std::string>& names) {
    x = n_.choice(key, names, x);
  }
  void tc_set(const char* key, uint8_t& mask) {
    if (n_.has(key)) mask = read_tc_set(n_, key);
  }
  template <typename T, typename Codec>
  void custom(const char* key, T& x, Codec) {
    if (n_.has(key)) Codec::read(n_, key, x);
  }
  // A nested map; what it leaves out keeps its value, keys it does not declare are refused.
  template <typename F>
  void block(const char* key, F&& visit) {
    if (auto child = n_.opt_child(key)) {
      ParamReader r(*child);
      visit(r);
      child->finish();
    }
  }
  void refuse(const char* key, const std::string& why) {
    if (n_.has(key)) throw n_.error(key, why);
  }
  // A count, or `word` (stored as zero), e.g. initial_window: auto.
  template <typename T>
  void count_or(const char* key, T& x, const char* word, int64_t min, int64_t max) {
    if (!n_.has(key)) return;
    const std::string text = n_.str(key);
    if (text == word) {
      x = T{0};
      return;
    }
    int64_t v = 0;
    bool ok = false;
    try {
      size_t used = 0;
      v = std::stoll(text, &used);
      ok = used == text.size() && v >= min && v <= max;
    } catch (const std::exception&) {
    }
    if (!ok)
      throw n_.error(key, std::string("expected '") + word + "' or a count between " + std::to_string(min) +
                              " and " + std::to_string(max));
    x = static_cast<T>(v);
  }
  // A constraint between keys, reported at `key`.
  void check(bool ok, const char* key, const std::string& message) {
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
  template <typename T>
  void size_or(const char* key, const T& x, const char* word) {
    j_[key] = x == 0 ? std::string(word) : format_bytes(Bytes(static_cast<int64_t>(x)));
  }
  void rate_or(const char* key, const Rate& x, const char* word) {
    j_[key] = x.bps() == 0 ? std::string(word) : format_rate(x);
  }
  template <typename T>
  void choice(const char* key, const T& x, Names<T> names) {
    j_[key] = name_of(x, names);
  }
  void choice(const char* key, const std::string& x, const std::vector<std::string>&) { j_[key] = x; }
  void tc_set(const char* key, const uint8_t& mask) { j_[key] = tc_set_json(mask); }
  template <typename T, typename Codec>
  void custom(const char* key, const T& x, Codec) {
    j_[key] = Codec::echo(x);
  }
  template <typename F>
  void block(const char* key, F&& visit) {
    nlohmann::ordered_json sub = nlohmann::ordered_json::object();
    ParamEcho e(sub);
    visit(e);
    j_[key] = std::move(sub);
  }
  void refuse(const char*, const std::string&) {}
  template <typename T>
  void count_or(const char* key, const T& x, const char* word, int64_t, int64_t) {
    if (x == 0)
      j_[key] = word;
    else
      j_[key] = x;
  }
  void check(bool, const char*, const std::string&) {}

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
  template <typename... A>
  void rate_or(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename T>
  void choice(const char* key, T&, Names<T>) {
    keys.emplace_back(key);
  }
  void choice(const char* key, std::string&, const std::vector<std::string>&) { keys.emplace_back(key); }
  template <typename... A>
  void tc_set(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename... A>
  void custom(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  // A block's keys are listed dotted: "pfc.xoff".
  template <typename F>
  void block(const char* key, F&& visit) {
    ParamKeys sub;
    visit(sub);
    for (const std::string& k : sub.keys) keys.push_back(std::string(key) + "." + k);
  }
  void refuse(const char*, const std::string&) {}
  void check(bool, const char*, const std::string&) {}

  std::vector<std::string> keys;
};

// Visits a const struct with an echo visitor (visit() is written for
// mutable references; echo only reads).
template <typename P, typename V>
void visit_const(const P& p, V& v) {
  const_cast<P&>(p).visit(v);  // NOLINT(cppcoreguidelines-pro-type-const-cast): V does not write
}

// An echo flattened to (dotted key, value as a user would write it) pairs,
// in declaration order: what `rdmasim profiles` lists.
std::vector<std::pair<std::string, std::string>> flatten_params(const nlohmann::ordered_json& echo,
                                                                const std::string& prefix);

}  // namespace rdmasim
