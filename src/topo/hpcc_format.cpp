#include "topo/hpcc_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_set>

#include "config/error.h"
#include "config/input_file.h"

namespace rdmasim {
namespace {

// Offsets rather than string_views: Line is moved into a vector, and moving a
// short (SSO) string would leave views dangling.
struct Token {
  size_t pos;
  size_t len;
  int column() const { return static_cast<int>(pos) + 1; }
};

struct Line {
  int number;  // 1-based
  std::string text;
  std::vector<Token> tokens;
  std::string_view token(size_t i) const {
    return std::string_view(text).substr(tokens[i].pos, tokens[i].len);
  }
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads the file as its non-blank lines; blank lines carry no data in these
// formats (the HPCC files end with one) and ns-3 itself reads with >>.
std::vector<Line> read_lines(const std::string& path, const char* what) {
  std::ifstream in = open_input_file(path, what, kMaxTableBytes);
  std::vector<Line> out;
  std::string s;
  int n = 0;
  while (std::getline(in, s)) {
    ++n;
    Line l{n, std::move(s), {}};
    const std::string_view v = l.text;
    size_t i = 0;
    while (i < v.size()) {
      while (i < v.size() && is_space(v[i])) ++i;
      const size_t b = i;
      while (i < v.size() && !is_space(v[i])) ++i;
      if (i > b) l.tokens.push_back({b, i - b});
    }
    if (!l.tokens.empty()) out.push_back(std::move(l));
    s.clear();
  }
  return out;
}

class LineReader {
 public:
  LineReader(const std::string& file, const Line& line) : file_(file), line_(line) {}
  [[noreturn]] void fail(size_t tok, const char* key, const std::string& msg) const {
    const int col = tok < line_.tokens.size() ? line_.tokens[tok].column() : 0;
    throw InputError(file_, line_.number, col, key, msg);
  }
  void expect_columns(size_t n, const char* layout) const {
    if (line_.tokens.size() != n) {
      fail(line_.tokens.size() > n ? n : line_.tokens.size(), "",
           "expected " + std::to_string(n) + (n == 1 ? " column (" : " columns (") + layout + "), found " +
               std::to_string(line_.tokens.size()));
    }
  }
  // Integer in [lo, hi]; `expect` describes it for the message.
  int64_t integer(size_t tok, const char* key, int64_t lo, int64_t hi, const std::string& expect) const {
    const std::string_view s = line_.token(tok);
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) {
      fail(tok, key, "expected " + expect + ", got '" + std::string(s) + "'");
    }
    return v;
  }
  std::string_view text(size_t tok) const { return line_.token(tok); }

 private:
  const std::string& file_;
  const Line& line_;
};

// value(s) * 10^exp10 as an exact integer, from a plain decimal such as
// "2.000000962". Going through double would lose picoseconds at 2 s.
std::optional<int64_t> scaled_decimal(std::string_view s, int exp10) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const size_t dot = s.find('.');
  const std::string_view ip = s.substr(0, dot);
  const std::string_view fp = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (ip.empty() && fp.empty()) return std::nullopt;
  __int128 v = 0;
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  for (char c : ip) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > kMax) return std::nullopt;
  }
  int e = exp10;
  for (char c : fp) {
    if (c < '0' || c > '9') return std::nullopt;
    if (e > 0) {
      v = v * 10 + (c - '0');
      if (v > kMax) return std::nullopt;
      --e;
    } else if (c != '0') {
      return std::nullopt;  // finer than the target unit
    }
  }
  for (; e > 0; --e) {
    v *= 10;
    if (v > kMax) return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

struct Unit {
  std::string_view suffix;
  int exp10;
};

// Splits "100Gbps" into number and unit and scales to the base unit.
std::optional<int64_t> with_unit(std::string_view s, std::initializer_list<Unit> units) {
  size_t i = 0;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '+')) ++i;
  const std::string_view unit = s.substr(i);
  for (const Unit& u : units) {
    if (unit == u.suffix) return scaled_decimal(s.substr(0, i), u.exp10);
  }
  return std::nullopt;
}

constexpr int kMaxPriority = 7;  // eight PFC priority classes
constexpr int kMaxPort = 65535;

}  // namespace

EdgeListTopology load_edge_list_topology(const std::string& path) {
  const std::vector<Line> lines = read_lines(path, "topology");
  EdgeListTopology topo;
  topo.file = path;
  if (lines.empty()) throw InputError(path, 1, 0, "", "empty file: expected a 'nodes switches links' line");

  const Line& header = lines[0];
  const LineReader h(path, header);
  h.expect_columns(3, "nodes switches links");
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  topo.num_nodes = static_cast<int>(h.integer(0, "nodes", 1, kIntMax, "a positive node count"));
  const int num_switches = static_cast<int>(
      h.integer(1, "switches", 0, topo.num_nodes, "a switch count between 0 and the node count"));
  const int num_links = static_cast<int>(h.integer(2, "links", 0, kIntMax, "a non-negative link count"));

  size_t next = 1;
  if (num_switches > 0) {
    if (next >= lines.size()) {
      throw InputError(
          path, header.number, header.tokens[1].column(), "switches",
          "header declares " + std::to_string(num_switches) + " switches but the file has no switch id line");
    }
    const Line& sl = lines[next++];
    const LineReader e(path, sl);
    if (sl.tokens.size() != static_cast<size_t>(num_switches)) {
      e.fail(0, "switches",
             "expected the " + std::to_string(num_switches) + " switch ids declared in the header, found " +
                 std::to_string(sl.tokens.size()) + " values");
    }
    std::unordered_set<int> seen;
    for (size_t t = 0; t < sl.tokens.size(); ++t) {
      const int id =
          static_cast<int>(e.integer(t, "switches", 0, topo.num_nodes - 1,
                                     "a switch id between 0 and " + std::to_string(topo.num_nodes - 1)));
      if (!seen.insert(id).second)
        e.fail(t, "switches", "switch id " + std::to_string(id) + " is listed twice");
      topo.switch_ids.push_back(id);
    }
  }

  const std::string node_range = "a node id between 0 and " + std::to_string(topo.num_nodes - 1);
  // Bounded by the file, not the header, so a corrupt count cannot make us
  // allocate gigabytes before failing.
  topo.links.reserve(std::min(static_cast<size_t>(num_links), lines.size()));
  for (int k = 0; k < num_links; ++k) {
    if (next >= lines.size()) {
      throw InputError(path, header.number, header.tokens[2].column(), "links",
                       "header declares " + std::to_string(num_links) + " links but only " +
                           std::to_string(k) + " link lines follow");
    }
    const Line& ll = lines[next++];
    const LineReader e(path, ll);
    e.expect_columns(5, "a b rate delay error_rate");
    EdgeListTopology::Link link;
    link.line = ll.number;
    link.a = static_cast<int>(e.integer(0, "a", 0, topo.num_nodes - 1, node_range));
    link.b = static_cast<int>(e.integer(1, "b", 0, topo.num_nodes - 1, node_range));
    if (link.a == link.b)
      e.fail(1, "b", "a link must join two different nodes (self-link on " + std::to_string(link.a) + ")");
    const auto bps =
        with_unit(e.text(2), {{"bps", 0}, {"Kbps", 3}, {"kbps", 3}, {"Mbps", 6}, {"Gbps", 9}, {"Tbps", 12}});
    if (!bps || *bps <= 0) {
      e.fail(2, "rate",
             "expected a positive rate in whole bits/s such as 100Gbps (units bps, Kbps, Mbps, Gbps, Tbps), "
             "got '" +
                 std::string(e.text(2)) + "'");
    }
    link.rate = Rate::from_bps(*bps);
    const auto ps = with_unit(e.text(3), {{"ps", 0}, {"ns", 3}, {"us", 6}, {"ms", 9}, {"s", 12}});
    if (!ps) {
      e.fail(3, "delay",
             "expected a delay in whole picoseconds such as 1000ns (units ps, ns, us, ms, s), got '" +
                 std::string(e.text(3)) + "'");
    }
    link.delay = Time::from_ps(*ps);
    double err = 0.0;
    const std::string_view es = e.text(4);
    const auto [p, ec] = std::from_chars(es.data(), es.data() + es.size(), err);
    if (ec != std::errc() || p != es.data() + es.size() || !(err >= 0.0 && err <= 1.0)) {
      e.fail(4, "error_rate", "expected a probability between 0 and 1, got '" + std::string(es) + "'");
    }
    link.error_rate = err;
    topo.links.push_back(link);
  }
  if (next < lines.size()) {
    LineReader(path, lines[next])
        .fail(0, "",
              "unexpected line: the header declares " + std::to_string(num_links) +
                  " links and they have all been read");
  }
  // A connected network of L links joins at most L + 1 nodes; a header
  // claiming far more would have us allocate them all before failing. (A few
  // too many are left to the connectivity check, which names the lone host.)
  if (static_cast<int64_t>(topo.num_nodes) > 2 * (int64_t{num_links} + 1))
    throw InputError(path, header.number, header.tokens[0].column(), "nodes",
                     "header declares " + std::to_string(topo.num_nodes) + " nodes but only " +
                         std::to_string(num_links) + " links: a connected network of " +
                         std::to_string(num_links) + " links has at most " +
                         std::to_string(int64_t{num_links} + 1) + " nodes");
  return topo;
}

std::vector<FlowSpec> load_hpcc_flows(const std::string& path, double time_offset_seconds) {
  if (!std::isfinite(time_offset_seconds)) {
    throw std::invalid_argument("load_hpcc_flows: time_offset_seconds must be finite");
  }
  const Time offset = Time::from_sec_f(time_offset_seconds);
  const std::vector<Line> lines = read_lines(path, "flow");
  if (lines.empty())
    throw InputError(path, 1, 0, "", "empty file: expected the flow count on the first line");

  const Line& header = lines[0];
  const LineReader h(path, header);
  h.expect_columns(1, "flow count");
  const int64_t count =
      h.integer(0, "flow_count", 0, std::numeric_limits<int32_t>::max(), "a non-negative flow count");

  std::vector<FlowSpec> flows;
  flows.reserve(std::min(static_cast<size_t>(count), lines.size()));
  constexpr int64_t kNodeMax = std::numeric_limits<int>::max();
  for (int64_t k = 0; k < count; ++k) {
    if (static_cast<size_t>(k) + 1 >= lines.size()) {
      throw InputError(path, header.number, header.tokens[0].column(), "flow_count",
                       "header declares " + std::to_string(count) + " flows but only " + std::to_string(k) +
                           " flow lines follow");
    }
    const Line& fl = lines[static_cast<size_t>(k) + 1];
    const LineReader e(path, fl);
    e.expect_columns(6, "src dst priority dport size_bytes start_seconds");
    FlowSpec f;
    f.id = k;
    f.src = static_cast<int>(e.integer(0, "src", 0, kNodeMax, "a non-negative node id"));
    f.dst = static_cast<int>(e.integer(1, "dst", 0, kNodeMax, "a non-negative node id"));
    if (f.src == f.dst) e.fail(1, "dst", "a flow's destination must differ from its source");
    f.priority = static_cast<int>(e.integer(2, "priority", 0, kMaxPriority, "a priority between 0 and 7"));
    f.dport = static_cast<int>(e.integer(3, "dport", 0, kMaxPort, "a port between 0 and 65535"));
    f.size_bytes =
        e.integer(4, "size_bytes", 1, std::numeric_limits<int64_t>::max(), "a positive byte count");
    const auto start_ps = scaled_decimal(e.text(5), 12);
    if (!start_ps) {
      e.fail(5, "start_seconds",
             "expected non-negative decimal seconds with at most 12 fractional digits (1 ps), got '" +
                 std::string(e.text(5)) + "'");
    }
    const __int128 rel = static_cast<__int128>(*start_ps) - offset.ps();
    if (rel < 0) {
      e.fail(5, "start_seconds",
             "start " + std::string(e.text(5)) + " s is before the time offset of " +
                 std::to_string(time_offset_seconds) + " s");
    }
    if (rel > std::numeric_limits<int64_t>::max()) {
      e.fail(5, "start_seconds", "start time is too large to represent in picoseconds");
    }
    f.start = Time::from_ps(static_cast<int64_t>(rel));
    if (!flows.empty() && f.start < flows.back().start) {
      e.fail(5, "start_seconds",
             "start times must be non-decreasing (the HPCC simulator reads flows in order)");
    }
    flows.push_back(f);
  }
  if (static_cast<size_t>(count) + 1 < lines.size()) {
    LineReader(path, lines[static_cast<size_t>(count) + 1])
        .fail(0, "",
              "unexpected line: the header declares " + std::to_string(count) +
                  " flows and they have all been read");
  }
  return flows;
}

Topology topology_from_edge_list(const EdgeListTopology& e) {
  Topology t;
  t.description = "edge list " + e.file + " (" + std::to_string(e.num_nodes) + " nodes)";
  std::vector<char> is_switch(static_cast<size_t>(e.num_nodes), 0);
  for (int s : e.switch_ids) is_switch[s] = 1;
  for (int n = 0; n < e.num_nodes; ++n) {
    if (is_switch[n])
      t.add_node(TopoNodeKind::kSwitch, "sw" + std::to_string(n), 1);
    else
      t.add_node(TopoNodeKind::kHost, "n" + std::to_string(n), 0);
  }
  for (const auto& l : e.links) t.add_link(l.a, l.b, l.rate, l.delay, l.error_rate);
  return t;
}

}  // namespace rdmasim
