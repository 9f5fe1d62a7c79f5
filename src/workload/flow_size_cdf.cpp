#include "workload/flow_size_cdf.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "config/error.h"
#include "config/input_file.h"

namespace rdmasim {
namespace {

using Point = std::pair<int64_t, double>;

struct Token {
  std::string_view text;
  int column;  // 1-based
};

std::vector<Token> split_ws(std::string_view line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > b) out.push_back({line.substr(b, i - b), static_cast<int>(b) + 1});
  }
  return out;
}

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  T v{};
  const char* end = s.data() + s.size();
  // from_chars rejects a leading '+', which hand-edited files sometimes have.
  const char* begin = (!s.empty() && s[0] == '+') ? s.data() + 1 : s.data();
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  return v;
}

struct Problem {
  const char* key;
  std::string message;
};

// Checks one point against its predecessor; shared by the file reader (which
// adds the line number) and the in-memory constructor.
std::optional<Problem> check_point(const Point* prev, const Point& cur) {
  if (cur.first < 0) {
    return Problem{"size_bytes", "expected a non-negative size, got " + std::to_string(cur.first)};
  }
  if (!std::isfinite(cur.second) || cur.second < 0) {
    return Problem{"cumulative", "expected a non-negative cumulative value"};
  }
  if (prev == nullptr) {
    // traffic_gen.py requires this too: below the first point the inverse CDF
    // would have no segment to interpolate in.
    if (cur.second != 0.0) return Problem{"cumulative", "the first cumulative value must be 0"};
    return std::nullopt;
  }
  if (cur.first < prev->first) {
    return Problem{"size_bytes", "sizes must be non-decreasing, but " + std::to_string(cur.first) +
                                     " follows " + std::to_string(prev->first)};
  }
  if (cur.second < prev->second) {
    return Problem{"cumulative", "cumulative values must be non-decreasing"};
  }
  return std::nullopt;
}

}  // namespace

FlowSizeCdf::FlowSizeCdf(std::vector<std::pair<int64_t, double>> points) : points_(std::move(points)) {
  for (size_t i = 0; i < points_.size(); ++i) {
    if (auto p = check_point(i == 0 ? nullptr : &points_[i - 1], points_[i])) {
      throw std::invalid_argument("FlowSizeCdf point " + std::to_string(i) + ": " + p->message);
    }
  }
  if (points_.size() < 2) throw std::invalid_argument("FlowSizeCdf needs at least 2 points");
  if (points_.back().second != 1.0) {
    throw std::invalid_argument("FlowSizeCdf: the last cumulative fraction must be 1");
  }
  // Each segment is uniform between its end sizes, so it contributes its
  // midpoint times its probability mass.
  for (size_t i = 1; i < points_.size(); ++i) {
    const auto& [x0, y0] = points_[i - 1];
    const auto& [x1, y1] = points_[i];
    mean_bytes_ += 0.5 * (static_cast<double>(x0) + static_cast<double>(x1)) * (y1 - y0);
  }
}

FlowSizeCdf FlowSizeCdf::load(const std::string& path) {
  std::ifstream in = open_input_file(path, "flow-size CDF", kMaxScenarioBytes);
  std::vector<Point> pts;
  std::string line;
  int line_no = 0;
  int last_point_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto toks = split_ws(line);
    if (toks.empty() || toks[0].text[0] == '#') continue;
    if (toks.size() != 2) {
      throw InputError(
          path, line_no, toks.size() > 2 ? toks[2].column : 0, "",
          "expected 2 columns (size in bytes, cumulative share), found " + std::to_string(toks.size()));
    }
    const auto size = parse_number<int64_t>(toks[0].text);
    if (!size) {
      throw InputError(path, line_no, toks[0].column, "size_bytes",
                       "expected an integer number of bytes, got '" + std::string(toks[0].text) + "'");
    }
    const auto cum = parse_number<double>(toks[1].text);
    if (!cum) {
      throw InputError(
          path, line_no, toks[1].column, "cumulative",
          "expected a number (percent 0-100 or fraction 0-1), got '" + std::string(toks[1].text) + "'");
    }
    const Point cur{*size, *cum};
    if (auto p = check_point(pts.empty() ? nullptr : &pts.back(), cur)) {
      const int col = std::string_view(p->key) == "size_bytes" ? toks[0].column : toks[1].column;
      throw InputError(path, line_no, col, p->key, p->message);
    }
    pts.push_back(cur);
    last_point_line = line_no;
  }
  if (pts.size() < 2) {
    throw InputError(
        path, std::max(last_point_line, 1), 0, "",
        "expected at least 2 points (size, cumulative share), found " + std::to_string(pts.size()));
  }
  const double last = pts.back().second;
  if (last != 100.0 && last != 1.0) {
    throw InputError(path, last_point_line, 0, "cumulative",
                     "the last cumulative value must be 100 (percent) or 1 (fraction)");
  }
  if (last == 100.0) {
    for (auto& p : pts) p.second /= 100.0;
  }
  return FlowSizeCdf(std::move(pts));
}

int64_t FlowSizeCdf::sample(Rng& rng) const {
  const double y = rng.uniform01();
  // First point strictly above y: its segment has positive height (so no
  // division by zero on flat stretches) and y0 <= y < y1. Exists because the
  // last fraction is 1 > y; is not the first point because that one is 0 <= y.
  const auto it = std::upper_bound(points_.begin(), points_.end(), y,
                                   [](double v, const Point& p) { return v < p.second; });
  const auto& [x0, y0] = *(it - 1);
  const auto& [x1, y1] = *it;
  const double lo = static_cast<double>(x0);
  const double hi = static_cast<double>(x1);
  const double x = std::clamp(lo + (hi - lo) * (y - y0) / (y1 - y0), lo, hi);
  return std::max<int64_t>(1, static_cast<int64_t>(x));
}

double FlowSizeCdf::cdf_at(int64_t size) const {
  // Last point with size <= `size`; taking the last of equal sizes counts a
  // point mass as included.
  const auto it = std::upper_bound(points_.begin(), points_.end(), size,
                                   [](int64_t v, const Point& p) { return v < p.first; });
  if (it == points_.begin()) return 0.0;
  if (it == points_.end()) return 1.0;
  const auto& [x0, y0] = *(it - 1);
  const auto& [x1, y1] = *it;
  return y0 + (y1 - y0) * static_cast<double>(size - x0) / static_cast<double>(x1 - x0);
}

}  // namespace rdmasim
