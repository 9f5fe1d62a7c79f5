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
// flattened, the values `rdmasim profiles` lists), and ParamSchema lists the
// keys with their form and words (the key reference). The part's header needs none of this file: it only
// calls methods on V.
//
// A key is declared as its name, or as {name, what it does[, kRequired]}:
// the second form feeds the key reference (`rdmasim schema`, docs/SCENARIO.md,
// built by ParamSchema), so the words cannot drift from the parser either.
//
// The vocabulary: real, count, flag, time, rate, size, fraction, path, text; time_or, time_auto, size_or,
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
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/cfg_node.h"
#include "config/units_parse.h"
#include "engine/units.h"

namespace rdmasim {

inline constexpr bool kPositive = true;  // for time(): zero and below are refused
inline constexpr bool kRequired = true;  // for Key: a scenario must give it

// A key as a part declares it.
struct Key {
  Key(const char* n) : name(n) {}  // NOLINT(google-explicit-constructor): a bare name is a key
  Key(const char* n, const char* d, bool req = false) : name(n), doc(d), required(req) {}
  const char* name;
  const char* doc = "";  // one line: what the key does
  bool required = false;
};

// A data file named in a scenario: relative to the scenario's folder first,
// then to the working directory. Throws InputError located at `key`.
[[nodiscard]] std::string resolve_data_path(const CfgNode& n, std::string_view key, const std::string& value);

// The names of an enumeration (or a bool) as choice() reads and writes them.
template <typename T>
using Names = std::initializer_list<std::pair<const char*, T>>;

template <typename T>
const char* name_of(const T& x, Names<T> names) {
  for (const auto& [n, v] : names)
    if (v == x) return n;
  return names.begin()->first;
}

// A size field as bytes: an integer, or Bytes.
template <typename T>
int64_t bytes_of(const T& x) {
  if constexpr (std::is_same_v<T, Bytes>)
    return x.count();
  else
    return static_cast<int64_t>(x);
}
template <typename T>
T as_size(int64_t v) {
  if constexpr (std::is_same_v<T, Bytes>)
    return Bytes(v);
  else
    return static_cast<T>(v);
}

// Traffic classes 0..7 as a bit mask, from a YAML list such as [3, 4].
uint8_t read_tc_set(const CfgNode& n, const char* key);
nlohmann::ordered_json tc_set_json(uint8_t mask);

// Reads a part's block; what the block leaves out keeps its current value (a
// required key it leaves out is an error).
class ParamReader {
 public:
  // A visit may set defaults that follow from a key read before them (a
  // perftest's size from its test) only when the visitor reads:
  //   if constexpr (V::kReads) ...
  static constexpr bool kReads = true;
  static constexpr bool kEchoes = false;
  explicit ParamReader(const CfgNode& node) : n_(node) {}

  void real(const Key& k, double& x, double min, double max) {
    x = k.required ? n_.real(k.name, min, max) : n_.real(k.name, x, min, max);
  }
  template <typename T>
  void count(const Key& k, T& x, int64_t min, int64_t max) {
    x = static_cast<T>(k.required ? n_.integer(k.name, min, max)
                                  : n_.integer(k.name, static_cast<int64_t>(x), min, max));
  }
  void flag(const Key& k, bool& x) { x = k.required ? n_.boolean(k.name) : n_.boolean(k.name, x); }
  void time(const Key& k, Time& x, bool positive = false) {
    x = k.required ? n_.time(k.name) : n_.time(k.name, x);
    if (positive && x <= Time::zero()) throw n_.error(k.name, "expected a positive time");
  }
  void rate(const Key& k, Rate& x) { x = k.required ? n_.rate(k.name) : n_.rate(k.name, x); }
  // A size in bytes, at most `max`; `positive`: zero is refused with that message.
  template <typename T>
  void size(const Key& k, T& x, int64_t max = std::numeric_limits<int64_t>::max(),
            const char* positive = nullptr) {
    const int64_t v = (k.required ? n_.bytes(k.name) : n_.bytes(k.name, Bytes(bytes_of(x)))).count();
    if (v > max) throw n_.error(k.name, "expected at most " + std::to_string(max) + " B");
    if (positive != nullptr && v <= 0) throw n_.error(k.name, positive);
    x = as_size<T>(v);
  }
  // 0.3 or 30%, within [0, 1].
  void fraction(const Key& k, double& x) { x = k.required ? n_.fraction(k.name) : n_.fraction(k.name, x); }
  // A data file, resolved beside the scenario (resolve_data_path).
  void path(const Key& k, std::string& x) {
    if (k.required || n_.has(k.name)) x = resolve_data_path(n_, k.name, n_.str(k.name));
  }
  // Free text, e.g. an output folder.
  void text(const Key& k, std::string& x) { x = k.required ? n_.str(k.name) : n_.str(k.name, x); }
  // A time, or `word` (stored as zero), e.g. base_rtt: auto. A written 0s
  // would be stored as the word and quietly mean it (pcap end: 0s captured
  // the whole run), so a time given here must be positive: every key that
  // takes this form has no meaningful zero distinct from its word (a key
  // whose zero means something declares time() or time_auto() instead).
  void time_or(const Key& k, Time& x, const char* word) {
    if (!n_.has(k.name)) return;
    if (n_.str(k.name) == word) {
      x = Time::zero();
      return;
    }
    x = n_.time(k.name, x);
    if (x <= Time::zero()) throw n_.error(k.name, std::string("expected a positive time, or ") + word);
  }
  // A time, or auto (stored as Time::never()): a default the part derives
  // from other settings, where zero is a meaningful value of its own.
  void time_auto(const Key& k, Time& x) {
    if (!n_.has(k.name)) return;
    x = n_.str(k.name) == "auto" ? Time::never() : n_.time(k.name, x);
  }
  // A size, or `word` (stored as zero), e.g. byte_counter: off.
  template <typename T>
  void size_or(const Key& k, T& x, const char* word) {
    if (!n_.has(k.name)) return;
    const std::string text = n_.str(k.name);
    if (text == word) {
      x = 0;
      return;
    }
    int64_t v = 0;
    try {
      v = parse_bytes(text).count();
    } catch (const std::invalid_argument& err) {
      throw n_.error(k.name, std::string("expected a size, e.g. 10MB, or ") + word + " (" + err.what() + ")");
    }
    if (v <= 0) throw n_.error(k.name, std::string("expected a positive size, or ") + word);
    x = static_cast<T>(v);
  }
  // A rate, or `word` (stored as zero), e.g. reference_rate: none.
  void rate_or(const Key& k, Rate& x, const char* word) {
    if (!n_.has(k.name)) return;
    const std::string text = n_.str(k.name);
    if (text == word) {
      x = Rate::from_bps(0);
      return;
    }
    try {
      x = parse_rate(text);
    } catch (const std::invalid_argument& err) {
      throw n_.error(k.name,
                     std::string("expected a rate, e.g. 100Gbps, or ") + word + " (" + err.what() + ")");
    }
  }
  template <typename T>
  void choice(const Key& k, T& x, Names<T> names) {
    std::vector<std::string> allowed;
    for (const auto& [n, v] : names) allowed.emplace_back(n);
    const std::string picked = pick(k, allowed, name_of(x, names));
    for (const auto& [n, v] : names)
      if (picked == n) x = v;
  }
  // A name from a list (e.g. a registry's, known at run time).
  void choice(const Key& k, std::string& x, const std::vector<std::string>& names) { x = pick(k, names, x); }
  void tc_set(const Key& k, uint8_t& mask) {
    if (n_.has(k.name)) mask = read_tc_set(n_, k.name);
  }
  template <typename T, typename Codec>
  void custom(const Key& k, T& x, Codec) {
    if (k.required || n_.has(k.name)) Codec::read(n_, k.name, x);
  }
  // A nested map; what it leaves out keeps its value, keys it does not declare are refused.
  template <typename F>
  void block(const Key& k, F&& visit) {
    if (auto child = k.required ? std::optional<CfgNode>(n_.child(k.name)) : n_.opt_child(k.name)) {
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
  void count_or(const Key& k, T& x, const char* word, int64_t min, int64_t max) {
    if (!n_.has(k.name)) return;
    const std::string text = n_.str(k.name);
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
      throw n_.error(k.name, std::string("expected '") + word + "' or a count between " +
                                 std::to_string(min) + " and " + std::to_string(max));
    x = static_cast<T>(v);
  }
  // A constraint between keys, reported at `key`.
  void check(bool ok, const char* key, const std::string& message) {
    if (!ok) throw n_.error(key, message);
  }

 private:
  std::string pick(const Key& k, const std::vector<std::string>& allowed, const std::string& current) {
    if (!k.required) return n_.choice(k.name, allowed, current);
    return n_.choice(k.name, std::vector<std::string_view>(allowed.begin(), allowed.end()));
  }

  const CfgNode& n_;
};

// Writes a part's block as results.json records it, in declaration order.
class ParamEcho {
 public:
  static constexpr bool kReads = false;
  static constexpr bool kEchoes = true;  // a key echoed only when set tests this
  explicit ParamEcho(nlohmann::ordered_json& out) : j_(out) {}

  void real(const Key& k, const double& x, double, double) { j_[k.name] = x; }
  template <typename T>
  void count(const Key& k, const T& x, int64_t, int64_t) {
    j_[k.name] = x;
  }
  void flag(const Key& k, const bool& x) { j_[k.name] = x; }
  void time(const Key& k, const Time& x, bool = false) { j_[k.name] = format_time(x); }
  void rate(const Key& k, const Rate& x) { j_[k.name] = format_rate(x); }
  template <typename T>
  void size(const Key& k, const T& x, int64_t = 0, const char* = nullptr) {
    j_[k.name] = format_bytes(Bytes(bytes_of(x)));
  }
  void fraction(const Key& k, const double& x) { j_[k.name] = x; }
  void path(const Key& k, const std::string& x) { j_[k.name] = x; }
  void text(const Key& k, const std::string& x) { j_[k.name] = x; }
  void time_or(const Key& k, const Time& x, const char* word) {
    j_[k.name] = x == Time::zero() ? std::string(word) : format_time(x);
  }
  void time_auto(const Key& k, const Time& x) { j_[k.name] = x == Time::never() ? "auto" : format_time(x); }
  template <typename T>
  void size_or(const Key& k, const T& x, const char* word) {
    j_[k.name] = x == 0 ? std::string(word) : format_bytes(Bytes(static_cast<int64_t>(x)));
  }
  void rate_or(const Key& k, const Rate& x, const char* word) {
    j_[k.name] = x.bps() == 0 ? std::string(word) : format_rate(x);
  }
  template <typename T>
  void choice(const Key& k, const T& x, Names<T> names) {
    j_[k.name] = name_of(x, names);
  }
  void choice(const Key& k, const std::string& x, const std::vector<std::string>&) { j_[k.name] = x; }
  void tc_set(const Key& k, const uint8_t& mask) { j_[k.name] = tc_set_json(mask); }
  template <typename T, typename Codec>
  void custom(const Key& k, const T& x, Codec) {
    j_[k.name] = Codec::echo(x);
  }
  template <typename F>
  void block(const Key& k, F&& visit) {
    nlohmann::ordered_json sub = nlohmann::ordered_json::object();
    ParamEcho e(sub);
    visit(e);
    j_[k.name] = std::move(sub);
  }
  void refuse(const char*, const std::string&) {}
  template <typename T>
  void count_or(const Key& k, const T& x, const char* word, int64_t, int64_t) {
    if (x == 0)
      j_[k.name] = word;
    else
      j_[k.name] = x;
  }
  void check(bool, const char*, const std::string&) {}

 private:
  nlohmann::ordered_json& j_;
};

// What the reference says of one key.
struct KeyInfo {
  std::string key;   // dotted from the visited block, e.g. "pfc.xoff"
  std::string form;  // what a value looks like, e.g. "time", "integer 1..64", "write | read"
  std::string doc;   // what it does
  bool required = false;
  std::string refused;  // non-empty: refused in this configuration, and why
};

// The keys a part accepts, in declaration order, with their form and words.
class ParamSchema {
 public:
  static constexpr bool kReads = false;
  static constexpr bool kEchoes = false;
  void real(const Key& k, const double&, double min, double max) { add(k, "number " + range(min, max)); }
  template <typename T>
  void count(const Key& k, const T&, int64_t min, int64_t max) {
    add(k, "integer " + int_range(min, max));
  }
  void flag(const Key& k, const bool&) { add(k, "true | false"); }
  void time(const Key& k, const Time&, bool positive = false) {
    add(k, positive ? "time > 0, e.g. 10us" : "time, e.g. 10us");
  }
  void rate(const Key& k, const Rate&) { add(k, "rate, e.g. 100Gbps"); }
  template <typename T>
  void size(const Key& k, const T&, int64_t max = std::numeric_limits<int64_t>::max(),
            const char* positive = nullptr) {
    std::string f = positive != nullptr ? "size > 0" : "size";
    if (max != std::numeric_limits<int64_t>::max()) f += " up to " + format_bytes(Bytes(max));
    add(k, f + ", e.g. 64KB");
  }
  void fraction(const Key& k, const double&) { add(k, "fraction 0..1 or percentage, e.g. 0.3 or 30%"); }
  void path(const Key& k, const std::string&) {
    add(k, "file path (beside the scenario, else the working directory)");
  }
  void text(const Key& k, const std::string&) { add(k, "text"); }
  void time_or(const Key& k, const Time&, const char* word) { add(k, std::string("time > 0 | ") + word); }
  void time_auto(const Key& k, const Time&) { add(k, "time | auto"); }
  template <typename T>
  void size_or(const Key& k, const T&, const char* word) {
    add(k, std::string("size | ") + word);
  }
  void rate_or(const Key& k, const Rate&, const char* word) { add(k, std::string("rate | ") + word); }
  template <typename T>
  void count_or(const Key& k, const T&, const char* word, int64_t min, int64_t max) {
    add(k, std::string("integer ") + int_range(min, max) + " | " + word);
  }
  template <typename T>
  void choice(const Key& k, const T&, Names<T> names) {
    std::string f;
    for (const auto& [n, v] : names) f += (f.empty() ? "" : " | ") + std::string(n);
    add(k, f);
  }
  void choice(const Key& k, const std::string&, const std::vector<std::string>& names) {
    std::string f;
    for (const auto& n : names) f += (f.empty() ? "" : " | ") + n;
    add(k, f);
  }
  void tc_set(const Key& k, const uint8_t&) { add(k, "list of traffic classes 0..7, e.g. [3]"); }
  template <typename T, typename Codec>
  void custom(const Key& k, const T&, Codec) {
    add(k, Codec::form());
  }
  template <typename F>
  void block(const Key& k, F&& visit) {
    add(k, "map");
    ParamSchema sub;
    visit(sub);
    for (KeyInfo& i : sub.keys) {
      i.key = std::string(k.name) + "." + i.key;
      keys.push_back(std::move(i));
    }
  }
  void refuse(const char* key, const std::string& why) {
    KeyInfo i;
    i.key = key;
    i.refused = why;
    keys.push_back(std::move(i));
  }
  void check(bool, const char*, const std::string&) {}

  std::vector<KeyInfo> keys;

 private:
  static std::string range(double min, double max);
  static std::string int_range(int64_t min, int64_t max);
  void add(const Key& k, std::string form) {
    keys.push_back(KeyInfo{k.name, std::move(form), k.doc, k.required, {}});
  }
};

// The names of the keys a value can be given to (blocks and refusals left out), dotted.
std::vector<std::string> key_names(const std::vector<KeyInfo>& keys);

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
