#include "config/cfg_node.h"

#include <fmt/core.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "config/input_file.h"
#include "config/join.h"
#include "config/units_parse.h"

namespace rdmasim {

struct CfgNode::Shared {
  std::string file;
  // Keys asked about, per map path. Kept here rather than in each CfgNode so
  // that every CfgNode for the same map (copies, or child("a") called twice)
  // feeds one record.
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> accepted;
};

namespace {

constexpr std::string_view kOverrideFile = "<--set>";
constexpr std::string_view kTimeExpected = "a time with a unit, e.g. 1.5us";
constexpr std::string_view kBytesExpected = "a size with a unit, e.g. 32MiB or 4KB";
constexpr std::string_view kRateExpected = "a rate with a unit, e.g. 400Gbps";
constexpr std::string_view kFractionExpected = "a fraction in [0, 1] or a percentage, e.g. 0.3 or 30%";
constexpr std::string_view kBoolExpected = "true or false";
constexpr std::string_view kStringExpected = "a string";

// Guards the load-time walk against alias cycles ("&a [*a]") and alias
// fan-out that would expand a small file into billions of nodes.
constexpr int kMaxDepth = 64;
constexpr int64_t kMaxVisitedNodes = 1'000'000;

// A parse failure whose offending text is a number and reads better unquoted
// ("got 65" rather than "got \"65\"").
class NumericRangeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

int one_based(int zero_based) { return zero_based >= 0 ? zero_based + 1 : 0; }

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

// Cuts overly long input so one bad value cannot flood the terminal, without
// splitting a UTF-8 sequence.
std::string quote_text(std::string_view text) {
  constexpr size_t kMaxShown = 60;
  bool cut = false;
  if (text.size() > kMaxShown) {
    size_t n = kMaxShown;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    text = text.substr(0, n);
    cut = true;
  }
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + (cut ? "...\"" : "\"");
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return quote_text(node.Scalar());
    default:
      return "an empty value";
  }
}

std::optional<YAML::Node> find_value(const YAML::Node& map, std::string_view key) {
  for (const auto& kv : map) {
    if (kv.first.Scalar() == key) return kv.second;
  }
  return std::nullopt;
}

// Optimal string alignment distance: Levenshtein plus adjacent
// transpositions, the commonest typing slip ("raet" for "rate").
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// "; did you mean 'rate'?" when some candidate is a likely typo of `word`.
template <typename Range>
std::string suggestion(std::string_view word, const Range& candidates) {
  constexpr size_t kMaxDistance = 2;
  std::string_view best;
  size_t best_distance = kMaxDistance + 1;
  for (std::string_view c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (best_distance > kMaxDistance) return "";
  return "; did you mean '" + std::string(best) + "'?";
}

// Words the field uses for a key under another name: "did you mean" by
// spelling cannot get from "bandwidth" to "rate". Each is offered only where
// its key is accepted, and only when no key is spelled like the word.
struct KeySynonym {
  std::string_view word;
  std::string_view key;
};
constexpr KeySynonym kKeySynonyms[] = {
    {"bandwidth", "rate"},          {"speed", "rate"},       {"link_rate", "rate"},
    {"capacity", "rate"},           {"latency", "delay"},    {"propagation", "delay"},
    {"propagation_delay", "delay"}, {"prop_delay", "delay"}, {"congestion_control", "cc"},
    {"random_seed", "seed"},        {"rng_seed", "seed"},    {"buffer_size", "buffer"},
};

// suggestion() for an unknown key, then the key a synonym (or a slip of a
// long one, "bandwith") names. Short synonyms must match whole: "seed" is a
// slip away from "speed".
template <typename Range>
std::string key_suggestion(std::string_view word, const Range& accepted) {
  std::string s = suggestion(word, accepted);
  if (!s.empty()) return s;
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::tolower(c)); });
  for (const KeySynonym& syn : kKeySynonyms) {
    const size_t slips = syn.word.size() >= 7 ? 1 : 0;
    if (edit_distance(lower, syn.word) > slips) continue;
    if (std::find(accepted.begin(), accepted.end(), syn.key) == accepted.end()) continue;
    return "; did you mean '" + std::string(syn.key) + "'?";
  }
  return "";
}

std::string integer_expected(int64_t min, int64_t max) {
  const bool has_min = min != std::numeric_limits<int64_t>::min();
  const bool has_max = max != std::numeric_limits<int64_t>::max();
  if (has_min && has_max) return fmt::format("an integer in [{}, {}]", min, max);
  if (has_min) return fmt::format("an integer >= {}", min);
  if (has_max) return fmt::format("an integer <= {}", max);
  return "an integer";
}

std::string real_expected(double min, double max) {
  const bool has_min = std::isfinite(min) && min != std::numeric_limits<double>::lowest();
  const bool has_max = std::isfinite(max) && max != std::numeric_limits<double>::max();
  if (has_min && has_max) return fmt::format("a number in [{}, {}]", min, max);
  if (has_min) return fmt::format("a number >= {}", min);
  if (has_max) return fmt::format("a number <= {}", max);
  return "a number";
}

int64_t parse_integer(const std::string& text, int64_t min, int64_t max) {
  const std::string expected = "expected " + integer_expected(min, max);
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) throw NumericRangeError(expected);
  if (text.empty() || ec != std::errc() || ptr != end) throw std::invalid_argument(expected);
  if (value < min || value > max) throw NumericRangeError(expected);
  return value;
}

double parse_real(const std::string& text, double min, double max) {
  const std::string expected = "expected " + real_expected(min, max);
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw std::invalid_argument(expected);
  }
  if (value < min || value > max) throw NumericRangeError(expected);
  return value;
}

bool parse_boolean(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true") return true;
  if (lower == "false") return false;
  throw std::invalid_argument("expected " + std::string(kBoolExpected));
}

// Rejects what yaml-cpp lets through but a scenario must not contain:
// duplicate keys (yaml-cpp keeps both, so which one wins would depend on the
// getter) and keys that are maps, lists or empty.
class TreeChecker {
 public:
  explicit TreeChecker(const std::string& file) : file_(file) {}

  void check(const YAML::Node& node, const std::string& path, int depth) {
    if (depth > kMaxDepth) fail(node, path, "nesting is too deep (or an alias refers to itself)");
    if (++visited_ > kMaxVisitedNodes)
      fail(node, path, "the document is too large once aliases are expanded");
    if (node.IsMap()) check_map(node, path, depth);
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i)
        check(node[i], path + "[" + std::to_string(i) + "]", depth + 1);
    }
  }

 private:
  void check_map(const YAML::Node& map, const std::string& path, int depth) {
    std::map<std::string, int, std::less<>> first_line;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, path, "map keys must be plain strings");
      const std::string key_path = join_path(path, kv.first.Scalar());
      const auto [it, inserted] = first_line.emplace(kv.first.Scalar(), one_based(kv.first.Mark().line));
      if (!inserted)
        fail(kv.first, key_path, fmt::format("duplicate key (first defined on line {})", it->second));
      check(kv.second, key_path, depth + 1);
    }
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path, std::string message) const {
    throw InputError(file_, one_based(at.Mark().line), one_based(at.Mark().column), path, std::move(message));
  }

  const std::string& file_;
  int64_t visited_ = 0;
};

// Records where each document starts; nothing else is needed to count them.
class DocumentStarts : public YAML::EventHandler {
 public:
  [[nodiscard]] const std::vector<YAML::Mark>& marks() const { return marks_; }

  void OnDocumentStart(const YAML::Mark& mark) override { marks_.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
  }
  void OnMapEnd() override {}

 private:
  std::vector<YAML::Mark> marks_;
};

// Rejects multi-document streams and syntax yaml-cpp 0.7 does not. Its
// LoadAll never returns on a stray ',' at block level: the parser keeps
// producing empty documents that all start at the same place. Scanning a
// bounded number of documents and treating "no progress" as a syntax error
// avoids that hang.
void check_single_document(const std::string& text, const std::string& file) {
  constexpr size_t kMaxScanned = 3;
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts docs;
  while (docs.marks().size() < kMaxScanned && parser.HandleNextDocument(docs)) {
    const std::vector<YAML::Mark>& m = docs.marks();
    if (m.size() < 2 || m[m.size() - 1].pos != m[m.size() - 2].pos) continue;
    const YAML::Mark& at = m.back();
    const auto pos = static_cast<size_t>(at.pos);
    const bool printable = pos < text.size() && text[pos] > ' ' && text[pos] < 0x7F;
    throw InputError(file, one_based(at.line), one_based(at.column), "",
                     printable ? fmt::format("invalid YAML: unexpected '{}'", text[pos]) : "invalid YAML");
  }
  if (docs.marks().size() > 1) {
    throw InputError(file, one_based(docs.marks()[1].line), 0, "",
                     "expected a single YAML document, but another one starts here");
  }
}

YAML::Node parse_document(const std::string& text, const std::string& file) {
  try {
    check_single_document(text, file);
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, one_based(e.mark.line), one_based(e.mark.column), "", "invalid YAML: " + e.msg);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in = open_input_file(path, "scenario", kMaxScenarioBytes, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, 0, "", "error while reading the file");
  return text.str();
}

// One step of a --set key: a map key or a list index.
struct PathStep {
  std::string key;
  std::optional<size_t> index;
};

[[noreturn]] void override_error(std::string_view key, std::string message) {
  throw InputError(std::string(kOverrideFile), 0, 0, std::string(key), std::move(message));
}

std::vector<PathStep> parse_override_key(std::string_view dotted) {
  constexpr std::string_view kForm = "malformed key: expected names separated by '.', e.g. workload[0].size";
  std::vector<PathStep> steps;
  size_t pos = 0;
  while (true) {
    const size_t name_end = std::min(dotted.find_first_of(".[]", pos), dotted.size());
    if (name_end == pos) override_error(dotted, std::string(kForm));
    steps.push_back({std::string(dotted.substr(pos, name_end - pos)), std::nullopt});
    pos = name_end;
    while (pos < dotted.size() && dotted[pos] == '[') {
      const size_t close = dotted.find(']', pos);
      if (close == std::string_view::npos) override_error(dotted, std::string(kForm));
      size_t index = 0;
      const char* first = dotted.data() + pos + 1;
      const char* last = dotted.data() + close;
      const auto [ptr, ec] = std::from_chars(first, last, index);
      if (first == last || ec != std::errc() || ptr != last) override_error(dotted, std::string(kForm));
      steps.push_back({"", index});
      pos = close + 1;
    }
    if (pos == dotted.size()) return steps;
    if (dotted[pos] != '.') override_error(dotted, std::string(kForm));
    ++pos;
  }
}

// A fresh scalar with the text of `parsed`, which must be a scalar.
// A fresh node has no source position, which is how errors about it later
// know to blame "<--set>".
YAML::Node fresh_scalar(const YAML::Node& parsed) { return YAML::Node(parsed.Scalar()); }

// The value as a fresh scalar node, or a fresh list of scalars for a YAML
// sequence such as [3, 4]. Maps, and lists holding anything but scalars, are
// refused: nested keys are set one at a time.
YAML::Node parse_override_value(std::string_view key, std::string_view value) {
  const YAML::Node parsed = [&] {
    try {
      return YAML::Load(std::string(value));
    } catch (const YAML::Exception& e) {
      override_error(key, "invalid value: " + e.msg);
    }
  }();
  constexpr std::string_view kExpected = "expected a single value or a list of single values after '='";
  if (parsed.IsScalar()) return fresh_scalar(parsed);
  if (!parsed.IsSequence()) {
    override_error(key,
                   std::string(kExpected) + " (got " + describe(parsed) + "); set nested keys one at a time");
  }
  YAML::Node list(YAML::NodeType::Sequence);
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (!parsed[i].IsScalar()) {
      override_error(key,
                     fmt::format("{}: item {} is {}, not a single value", kExpected, i, describe(parsed[i])));
    }
    list.push_back(fresh_scalar(parsed[i]));
  }
  return list;
}

// Makes an empty container for the step after `next`, or the value itself.
YAML::Node make_node(const PathStep* next, const YAML::Node& value) {
  if (next == nullptr) return value;
  return YAML::Node(next->index ? YAML::NodeType::Sequence : YAML::NodeType::Map);
}

// "0", "12": a dotted segment that indexes a list when the node there is one.
std::optional<size_t> numeric_segment(const std::string& key) {
  size_t index = 0;
  const char* first = key.data();
  const char* last = key.data() + key.size();
  const auto [ptr, ec] = std::from_chars(first, last, index);
  if (first == last || ec != std::errc() || ptr != last) return std::nullopt;
  return index;
}

// The list index `step` takes at `cur`: [i], or a number after a dot
// (workload.0.qps) when `cur` is a list; nullopt for a map key.
std::optional<size_t> step_index(const YAML::Node& cur, const PathStep& step) {
  if (step.index) return step.index;
  return cur.IsSequence() ? numeric_segment(step.key) : std::nullopt;
}

// Descends one step from `cur`, creating what is missing; at the last step
// stores `value` instead.
void step_into(YAML::Node& cur, const PathStep& step, const PathStep* next, const YAML::Node& value,
               std::string_view dotted, const std::string& walked) {
  const std::string where = walked.empty() ? "the top level" : "'" + walked + "'";
  const std::optional<size_t> index = step_index(cur, step);
  if (index) {
    if (!cur.IsSequence() && !cur.IsNull()) {
      override_error(dotted, where + " is " + describe(cur) + ", not a list");
    }
    const size_t size = cur.IsSequence() ? cur.size() : 0;
    if (*index > size) {
      override_error(dotted, fmt::format("index {} is out of range ({} has {} items)", *index, where, size));
    }
    if (*index == size) cur.push_back(make_node(next, value));
    YAML::Node item = cur[*index];
    if (next == nullptr) item = value;  // yaml-cpp assignment writes through to the stored item.
    cur.reset(item);
    return;
  }
  if (cur.IsSequence()) {
    override_error(dotted, fmt::format("{} is a list, not a map: index it with a number, e.g. {}.0 or {}[0]",
                                       where, walked, walked));
  }
  if (!cur.IsMap() && !cur.IsNull()) override_error(dotted, where + " is " + describe(cur) + ", not a map");
  std::optional<YAML::Node> found = cur.IsMap() ? find_value(cur, step.key) : std::nullopt;
  if (!found) {
    cur[step.key] = make_node(next, value);
    found = find_value(cur, step.key);
  } else if (next == nullptr) {
    *found = value;  // Writes through to the stored value, as above.
  }
  cur.reset(*found);
}

}  // namespace

CfgNode::CfgNode(std::shared_ptr<Shared> shared, const YAML::Node& node, std::string path)
    : shared_(std::move(shared)), node_(node), path_(std::move(path)) {}

CfgNode CfgNode::load_file(const std::string& path) { return load_string(read_file(path), path); }

CfgNode CfgNode::load_string(const std::string& text, const std::string& pseudo_file) {
  const YAML::Node root = parse_document(text, pseudo_file);
  if (root.IsNull()) {
    throw InputError(pseudo_file, 0, 0, "", "the document is empty; expected a map of settings");
  }
  if (!root.IsMap()) {
    throw InputError(pseudo_file, one_based(root.Mark().line), one_based(root.Mark().column), "",
                     "expected a map of settings at the top level (got " + describe(root) + ")");
  }
  TreeChecker(pseudo_file).check(root, "", 0);
  auto shared = std::make_shared<Shared>();
  shared->file = pseudo_file;
  return CfgNode(std::move(shared), root, "");
}

const std::string& CfgNode::file() const { return shared_->file; }

int CfgNode::line() const { return one_based(node_.Mark().line); }

int CfgNode::column() const { return one_based(node_.Mark().column); }

bool CfgNode::is_map() const { return node_.IsMap(); }

bool CfgNode::is_list() const { return node_.IsSequence(); }

bool CfgNode::is_scalar() const { return node_.IsScalar(); }

std::string CfgNode::key_path(std::string_view key) const {
  return key.empty() ? path_ : join_path(path_, key);
}

InputError CfgNode::error_at(const YAML::Node& where, std::string_view key, std::string message) const {
  const YAML::Mark mark = where.Mark();
  if (mark.is_null()) {
    return InputError(std::string(kOverrideFile), 0, 0, key_path(key), std::move(message));
  }
  return InputError(shared_->file, one_based(mark.line), one_based(mark.column), key_path(key),
                    std::move(message));
}

std::optional<CfgNode::Entry> CfgNode::find_entry(const YAML::Node& map, std::string_view key) {
  for (const auto& kv : map) {
    if (kv.first.Scalar() == key) return Entry{kv.first, kv.second};
  }
  return std::nullopt;
}

InputError CfgNode::error(std::string_view key, std::string message) const {
  if (!key.empty() && node_.IsMap()) {
    if (const std::optional<Entry> e = find_entry(node_, key)) {
      return error_at(e->position(), key, std::move(message));
    }
  }
  return error_at(node_, key, std::move(message));
}

std::optional<CfgNode::Entry> CfgNode::lookup(std::string_view key) const {
  if (!node_.IsMap()) {
    throw error_at(node_, "",
                   "expected a map containing '" + std::string(key) + "' (got " + describe(node_) + ")");
  }
  shared_->accepted[path_].emplace(key);
  return find_entry(node_, key);
}

CfgNode::Entry CfgNode::require(std::string_view key, std::string_view expected) const {
  std::optional<Entry> e = lookup(key);
  if (!e) throw error_at(node_, key, "missing required key (expected " + std::string(expected) + ")");
  return *e;
}

std::string CfgNode::scalar_of(const Entry& e, std::string_view key, std::string_view expected) const {
  if (e.value.IsScalar()) return e.value.Scalar();
  throw error_at(e.position(), key, "expected " + std::string(expected) + " (got " + describe(e.value) + ")");
}

template <typename T, typename Parse>
T CfgNode::parse_value(const Entry& e, std::string_view key, std::string_view expected, Parse parse) const {
  const std::string text = scalar_of(e, key, expected);
  try {
    return parse(text);
  } catch (const NumericRangeError& ex) {
    throw error_at(e.value, key, std::string(ex.what()) + " (got " + text + ")");
  } catch (const std::invalid_argument& ex) {
    throw error_at(e.value, key, std::string(ex.what()) + " (got " + quote_text(text) + ")");
  }
}

bool CfgNode::has(std::string_view key) const { return lookup(key).has_value(); }

Time CfgNode::time(std::string_view key) const {
  return parse_value<Time>(require(key, kTimeExpected), key, kTimeExpected, parse_time);
}

Time CfgNode::time(std::string_view key, Time def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? parse_value<Time>(*v, key, kTimeExpected, parse_time) : def;
}

Bytes CfgNode::bytes(std::string_view key) const {
  return parse_value<Bytes>(require(key, kBytesExpected), key, kBytesExpected, parse_bytes);
}

Bytes CfgNode::bytes(std::string_view key, Bytes def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? parse_value<Bytes>(*v, key, kBytesExpected, parse_bytes) : def;
}

Rate CfgNode::rate(std::string_view key) const {
  return parse_value<Rate>(require(key, kRateExpected), key, kRateExpected, parse_rate);
}

Rate CfgNode::rate(std::string_view key, Rate def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? parse_value<Rate>(*v, key, kRateExpected, parse_rate) : def;
}

int64_t CfgNode::integer(std::string_view key, int64_t min, int64_t max) const {
  const std::string expected = integer_expected(min, max);
  return parse_value<int64_t>(require(key, expected), key, expected,
                              [&](const std::string& t) { return parse_integer(t, min, max); });
}

int64_t CfgNode::integer(std::string_view key, int64_t def, int64_t min, int64_t max) const {
  const std::optional<Entry> v = lookup(key);
  if (!v) return def;
  return parse_value<int64_t>(*v, key, integer_expected(min, max),
                              [&](const std::string& t) { return parse_integer(t, min, max); });
}

double CfgNode::real(std::string_view key, double min, double max) const {
  const std::string expected = real_expected(min, max);
  return parse_value<double>(require(key, expected), key, expected,
                             [&](const std::string& t) { return parse_real(t, min, max); });
}

double CfgNode::real(std::string_view key, double def, double min, double max) const {
  const std::optional<Entry> v = lookup(key);
  if (!v) return def;
  return parse_value<double>(*v, key, real_expected(min, max),
                             [&](const std::string& t) { return parse_real(t, min, max); });
}

bool CfgNode::boolean(std::string_view key) const {
  return parse_value<bool>(require(key, kBoolExpected), key, kBoolExpected, parse_boolean);
}

bool CfgNode::boolean(std::string_view key, bool def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? parse_value<bool>(*v, key, kBoolExpected, parse_boolean) : def;
}

std::string CfgNode::str(std::string_view key) const {
  return scalar_of(require(key, kStringExpected), key, kStringExpected);
}

std::string CfgNode::str(std::string_view key, std::string def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? scalar_of(*v, key, kStringExpected) : std::move(def);
}

namespace {

template <typename Range>
std::string choice_expected(const Range& allowed) {
  return "one of: " + join_names(allowed);
}

}  // namespace

std::string CfgNode::choice(std::string_view key, std::initializer_list<std::string_view> allowed) const {
  return choice(key, std::vector<std::string_view>(allowed));
}

std::string CfgNode::choice(std::string_view key, const std::vector<std::string_view>& allowed) const {
  const std::string expected = choice_expected(allowed);
  const Entry e = require(key, expected);
  std::string text = scalar_of(e, key, expected);
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  throw error_at(e.value, key,
                 "expected " + expected + " (got " + quote_text(text) + ")" + suggestion(text, allowed));
}

std::string CfgNode::choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                            std::string_view def) const {
  return has(key) ? choice(key, allowed) : std::string(def);
}

std::string CfgNode::choice(std::string_view key, const std::vector<std::string>& allowed,
                            std::string_view def) const {
  if (!has(key)) return std::string(def);
  const std::string expected = choice_expected(allowed);
  const Entry e = require(key, expected);
  std::string text = scalar_of(e, key, expected);
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  throw error_at(e.value, key,
                 "expected " + expected + " (got " + quote_text(text) + ")" + suggestion(text, allowed));
}

double CfgNode::fraction(std::string_view key) const {
  return parse_value<double>(require(key, kFractionExpected), key, kFractionExpected,
                             parse_fraction_or_percent);
}

double CfgNode::fraction(std::string_view key, double def) const {
  const std::optional<Entry> v = lookup(key);
  return v ? parse_value<double>(*v, key, kFractionExpected, parse_fraction_or_percent) : def;
}

CfgNode CfgNode::map_child(const Entry& e, std::string_view key) const {
  if (!e.value.IsMap()) throw error_at(e.position(), key, "expected a map (got " + describe(e.value) + ")");
  return CfgNode(shared_, e.value, key_path(key));
}

bool CfgNode::has_map(std::string_view key) const {
  const std::optional<Entry> v = lookup(key);
  return v && v->value.IsMap();
}

CfgNode CfgNode::child(std::string_view key) const { return map_child(require(key, "a map"), key); }

std::optional<CfgNode> CfgNode::opt_child(std::string_view key) const {
  const std::optional<Entry> v = lookup(key);
  if (!v) return std::nullopt;
  return map_child(*v, key);
}

std::vector<CfgNode> CfgNode::sequence_items(const YAML::Node& seq, const std::string& seq_path) const {
  std::vector<CfgNode> items;
  items.reserve(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) {
    items.push_back(CfgNode(shared_, seq[i], seq_path + "[" + std::to_string(i) + "]"));
  }
  return items;
}

std::vector<CfgNode> CfgNode::list(std::string_view key) const {
  const Entry e = require(key, "a list");
  if (!e.value.IsSequence())
    throw error_at(e.position(), key, "expected a list (got " + describe(e.value) + ")");
  return sequence_items(e.value, key_path(key));
}

std::vector<CfgNode> CfgNode::opt_list(std::string_view key) const {
  return has(key) ? list(key) : std::vector<CfgNode>{};
}

std::vector<CfgNode> CfgNode::elements() const {
  if (!node_.IsSequence()) throw error_at(node_, "", "expected a list (got " + describe(node_) + ")");
  return sequence_items(node_, path_);
}

std::string CfgNode::scalar() const {
  if (!node_.IsScalar()) throw error_at(node_, "", "expected a single value (got " + describe(node_) + ")");
  return node_.Scalar();
}

std::vector<std::string> CfgNode::keys() const {
  if (!node_.IsMap()) throw error_at(node_, "", "expected a map (got " + describe(node_) + ")");
  std::vector<std::string> out;
  auto& accepted = shared_->accepted[path_];
  for (const auto& kv : node_) {
    out.push_back(kv.first.Scalar());
    accepted.insert(kv.first.Scalar());
  }
  return out;
}

void CfgNode::finish() const {
  if (!node_.IsMap()) return;
  const auto& accepted = shared_->accepted[path_];
  for (const auto& kv : node_) {
    const std::string& key = kv.first.Scalar();
    if (accepted.contains(key)) continue;
    const std::string known =
        accepted.empty() ? "no keys are accepted here" : "accepted keys here: " + join_names(accepted);
    throw error_at(kv.first, key, "unknown key" + key_suggestion(key, accepted) + " (" + known + ")");
  }
}

void apply_override(CfgNode& root, std::string_view dotted_key, std::string_view value) {
  const std::vector<PathStep> steps = parse_override_key(dotted_key);
  const YAML::Node new_value = parse_override_value(dotted_key, value);
  YAML::Node cur;
  cur.reset(root.node_);
  std::string walked = root.path_;
  for (size_t i = 0; i < steps.size(); ++i) {
    const PathStep* next = i + 1 < steps.size() ? &steps[i + 1] : nullptr;
    const std::optional<size_t> index = step_index(cur, steps[i]);
    step_into(cur, steps[i], next, new_value, dotted_key, walked);
    if (index)
      walked += "[" + std::to_string(*index) + "]";
    else
      walked = join_path(walked, steps[i].key);
  }
}

void apply_overrides(CfgNode& root, const std::vector<std::string>& overrides) {
  // A key set twice would keep only its last value, silently: refused, as a
  // file refuses a duplicate key. workload[0].qps and workload.0.qps are one key.
  std::vector<std::string> seen;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("<--set>", 0, 0, o, "expected key=value, e.g. --set topology.k=8");
    std::string canonical;
    for (const char c : o.substr(0, eq)) {
      if (c == '[') {
        canonical += '.';
      } else if (c != ']') {
        canonical += c;
      }
    }
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end())
      throw InputError("<--set>", 0, 0, o.substr(0, eq), "is given twice: give each key once");
    seen.push_back(canonical);
    apply_override(root, o.substr(0, eq), o.substr(eq + 1));
  }
}

}  // namespace rdmasim
