// Strict reader for scenario YAML. Every value is fetched through a typed
// getter that knows what it expected, so a bad input is reported once, with
// file:line:column, the full dotted key and the expected form, instead of
// surfacing later as a wrong simulation. Keys nobody asked for are reported by
// finish(), which is how typos like "rat: 400Gbps" get caught.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/error.h"
#include "engine/units.h"

namespace rdmasim {

class CfgNode {
 public:
  // The document must be a single YAML map. Syntax errors, duplicate keys and
  // non-string keys are reported here, before any value is read.
  [[nodiscard]] static CfgNode load_file(const std::string& path);
  [[nodiscard]] static CfgNode load_string(const std::string& text, const std::string& pseudo_file);

  // Getters take a key of this map (and throw if this node is not a map). Each records the key as accepted
  // here (also when it is absent and the default is used), which is what finish() checks against. An
  // explicitly empty value ("key:") is an error, not a request for the default.
  [[nodiscard]] bool has(std::string_view key) const;
  // Whether `key` is present and holds a map (for data whose shape varies).
  [[nodiscard]] bool has_map(std::string_view key) const;

  [[nodiscard]] Time time(std::string_view key) const;
  [[nodiscard]] Time time(std::string_view key, Time def) const;
  [[nodiscard]] Bytes bytes(std::string_view key) const;
  [[nodiscard]] Bytes bytes(std::string_view key, Bytes def) const;
  [[nodiscard]] Rate rate(std::string_view key) const;
  [[nodiscard]] Rate rate(std::string_view key, Rate def) const;
  [[nodiscard]] int64_t integer(std::string_view key, int64_t min, int64_t max) const;
  [[nodiscard]] int64_t integer(std::string_view key, int64_t def, int64_t min, int64_t max) const;
  [[nodiscard]] double real(std::string_view key, double min, double max) const;
  [[nodiscard]] double real(std::string_view key, double def, double min, double max) const;
  // Only true/false (any case): yes/no/on/off are too easy to write by accident.
  [[nodiscard]] bool boolean(std::string_view key) const;
  [[nodiscard]] bool boolean(std::string_view key, bool def) const;
  [[nodiscard]] std::string str(std::string_view key) const;
  [[nodiscard]] std::string str(std::string_view key, std::string def) const;
  [[nodiscard]] std::string choice(std::string_view key,
                                   std::initializer_list<std::string_view> allowed) const;
  [[nodiscard]] std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                                   std::string_view def) const;
  // Choices known at run time (e.g. the names a registry holds).
  [[nodiscard]] std::string choice(std::string_view key, const std::vector<std::string>& allowed,
                                   std::string_view def) const;
  // The same for a set of names known only at run time (e.g. a registry's).
  [[nodiscard]] std::string choice(std::string_view key, const std::vector<std::string_view>& allowed) const;
  // 0.3 or 30%, within [0, 1].
  [[nodiscard]] double fraction(std::string_view key) const;
  [[nodiscard]] double fraction(std::string_view key, double def) const;

  // A nested map; required unless opt_.
  [[nodiscard]] CfgNode child(std::string_view key) const;
  [[nodiscard]] std::optional<CfgNode> opt_child(std::string_view key) const;
  // A YAML sequence (a lone map is rejected, not wrapped); items are named
  // "key[i]". opt_list returns an empty vector when the key is absent.
  [[nodiscard]] std::vector<CfgNode> list(std::string_view key) const;
  [[nodiscard]] std::vector<CfgNode> opt_list(std::string_view key) const;
  // Items of a node that is itself a sequence.
  [[nodiscard]] std::vector<CfgNode> elements() const;

  [[nodiscard]] bool is_map() const;
  [[nodiscard]] bool is_list() const;
  [[nodiscard]] bool is_scalar() const;
  // The text of a node that is itself a scalar.
  [[nodiscard]] std::string scalar() const;
  // Keys of this map in document order. Marks them all as accepted: a caller
  // that enumerates a map treats its keys as data (e.g. host names), not as a
  // fixed schema.
  [[nodiscard]] std::vector<std::string> keys() const;

  // The node as parsed, overrides applied: for loaders that pass parts of
  // the document through as data (an evaluation's scenario keys).
  [[nodiscard]] const YAML::Node& yaml() const { return node_; }

  // Dotted path from the document root, e.g. "workload[2].size"; "" for the root.
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const;
  // 1-based; 0 when the node came from a --set override.
  [[nodiscard]] int line() const;
  [[nodiscard]] int column() const;

  // Throws for the first key of this map that no getter asked about, listing
  // the accepted keys and suggesting the nearest one. No-op for non-maps.
  void finish() const;

  // An error located at `key`'s value (at this node when the key is empty or
  // absent), for semantic checks the getters cannot make.
  [[nodiscard]] InputError error(std::string_view key, std::string message) const;

 private:
  struct Shared;
  struct Entry {
    YAML::Node key;
    YAML::Node value;
    // An empty value ("key:") carries the position of whatever follows it,
    // often the next line, so errors about it point at the key instead.
    [[nodiscard]] const YAML::Node& position() const { return value.IsNull() ? key : value; }
  };

  CfgNode(std::shared_ptr<Shared> shared, const YAML::Node& node, std::string path);

  friend void apply_override(CfgNode& root, std::string_view dotted_key, std::string_view value);

  [[nodiscard]] static std::optional<Entry> find_entry(const YAML::Node& map, std::string_view key);
  [[nodiscard]] std::optional<Entry> lookup(std::string_view key) const;
  [[nodiscard]] Entry require(std::string_view key, std::string_view expected) const;
  [[nodiscard]] std::string scalar_of(const Entry& e, std::string_view key, std::string_view expected) const;
  [[nodiscard]] std::string key_path(std::string_view key) const;
  [[nodiscard]] InputError error_at(const YAML::Node& where, std::string_view key, std::string message) const;
  [[nodiscard]] CfgNode map_child(const Entry& e, std::string_view key) const;
  [[nodiscard]] std::vector<CfgNode> sequence_items(const YAML::Node& seq, const std::string& seq_path) const;

  template <typename T, typename Parse>
  [[nodiscard]] T parse_value(const Entry& e, std::string_view key, std::string_view expected,
                              Parse parse) const;

  std::shared_ptr<Shared> shared_;
  YAML::Node node_;
  std::string path_;
};

// Implements --set: sets `dotted_key` (e.g. "topology.link.rate",
// "workload[0].size" or "workload.0.size": a number after a dot indexes a
// list when the node there is one), relative to `root`, to `value` parsed as
// a YAML scalar or a list of scalars ("[3, 4]"), creating missing maps on the
// way; an index one past the end appends. Maps as values are refused (nested
// keys are set one at a time). Call before reading. Errors name the file
// "<--set>".
void apply_override(CfgNode& root, std::string_view dotted_key, std::string_view value);
// Each of `overrides` ("key=value", as --set takes them), in order.
void apply_overrides(CfgNode& root, const std::vector<std::string>& overrides);

}  // namespace rdmasim
