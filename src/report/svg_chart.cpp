#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

namespace rdmasim {
namespace {

constexpr double kTickFont = 11;
constexpr double kLegendFont = 11;
constexpr double kTitleFont = 14;
constexpr double kCharWidth = 0.6;  // average glyph width in ems (DejaVu Sans is a little wider than most)
constexpr std::size_t kMaxLabelChars = 32;
constexpr std::string_view kAxisColor = "#444";
constexpr std::string_view kGridColor = "#e3e3e3";
constexpr std::string_view kTextColor = "#222";

// Coordinates far outside the plot are held to this, so a wild value cannot
// print hundreds of digits (the plot clips them anyway).
constexpr double kPixelLimit = 1e6;

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// A glyph's advance in ems in DejaVu Sans, the charts' first font, by
// class: its digits are 0.64 em, "m" 0.97 and "i" 0.28, so a flat average
// put "200ms" and "5.95ms" over neighbouring bars as not touching when they
// ran together. Characters outside ASCII take the digits' width.
double glyph_em(unsigned char c) {
  constexpr std::string_view kNarrow = " .,:;'|!ijlIJ";
  constexpr std::string_view kSemiNarrow = "frt()[]{}/\\-\"";
  constexpr std::string_view kWide = "mwMW%@";
  const char ch = static_cast<char>(c);
  if (c >= 0x80) return 0.64;
  if (kNarrow.find(ch) != std::string_view::npos) return 0.31;
  if (kSemiNarrow.find(ch) != std::string_view::npos) return 0.38;
  if (kWide.find(ch) != std::string_view::npos) return 0.92;
  return c >= 'A' && c <= 'Z' ? 0.72 : 0.62;
}

double text_width(std::string_view s, double font_size) {
  double em = 0;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u & 0xC0) != 0x80) em += glyph_em(u);  // one per code point: continuation bytes add nothing
  }
  return em * font_size;
}

// At most `max_chars` code points, the last one "…" when it had to cut.
std::string shorten(std::string_view s, std::size_t max_chars) {
  if (code_points(s) <= max_chars) return std::string(s);
  std::string out;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool starts_char = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (starts_char && ++kept == max_chars) break;
    out += s[i];
  }
  return out + "…";
}

// A pixel coordinate with two decimals; never "-0.00", never huge.
std::string px(double v) {
  v = std::clamp(v, -kPixelLimit, kPixelLimit);
  if (std::abs(v) < 0.005) v = 0;
  return fmt::format("{:.2f}", v);
}

// `v` with up to `significant` significant digits, trailing zeros dropped.
std::string trim_number(double v, int significant) {
  if (v == 0) return "0";
  const double magnitude = std::floor(std::log10(std::abs(v)));
  if (magnitude >= 15 || magnitude < -9) return fmt::format("{:.3g}", v);
  const int decimals = std::clamp(significant - 1 - static_cast<int>(magnitude), 0, 9);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

struct Prefix {
  double factor;
  std::string_view suffix;
};

// The first prefix whose factor |v| reaches, else the last one.
template <std::size_t N>
std::string with_prefix(double v, const Prefix (&prefixes)[N], int significant) {
  for (const Prefix& p : prefixes) {
    if (std::abs(v) >= p.factor * (1 - 1e-12))
      return trim_number(v / p.factor, significant) + std::string(p.suffix);
  }
  const Prefix& last = prefixes[N - 1];
  return trim_number(v / last.factor, significant) + std::string(last.suffix);
}

bool is_log(AxisScale s) { return s != AxisScale::kLinear; }
double log_base(AxisScale s) { return s == AxisScale::kLog2 ? 2.0 : 10.0; }
double log_in(AxisScale s, double v) { return s == AxisScale::kLog2 ? std::log2(v) : std::log10(v); }
double power_of(AxisScale s, double exponent) {
  return s == AxisScale::kLog2 ? std::ldexp(1.0, static_cast<int>(exponent)) : std::pow(10.0, exponent);
}

// A value an axis of this scale can show.
bool showable(AxisScale s, double v) { return std::isfinite(v) && (!is_log(s) || v > 0); }

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  if (f <= 1 + 1e-9) return magnitude;
  if (f <= 2 + 1e-9) return 2 * magnitude;
  if (f <= 5 + 1e-9) return 5 * magnitude;
  return 10 * magnitude;
}

std::vector<double> linear_ticks(double& lo, double& hi, int target, bool keep_lo, bool keep_hi) {
  const double step = nice_step((hi - lo) / std::max(1, target - 1));
  const double first = std::floor(lo / step + 1e-9);
  const double last = std::ceil(hi / step - 1e-9);
  // A range too wide for doubles, or too narrow for its magnitude, gets no
  // round ticks: its ends stand in for them.
  if (!std::isfinite(step) || step <= 0 || !std::isfinite(first * step) || !std::isfinite(last * step) ||
      last - first > 1000 || first + 1 == first) {
    return {lo, hi};
  }
  if (!keep_lo) lo = first * step;
  if (!keep_hi) hi = last * step;
  std::vector<double> ticks;
  const double from = std::ceil(lo / step - 1e-9);
  const auto count = static_cast<int>(std::floor(hi / step + 1e-9) - from);
  for (int k = 0; k <= count; ++k) {
    const double t = (from + k) * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::vector<double> log_ticks(AxisScale scale, double& lo, double& hi, int target, bool keep_lo,
                              bool keep_hi) {
  const double lo_exp = std::floor(log_in(scale, lo) + 1e-9);
  double hi_exp = std::ceil(log_in(scale, hi) - 1e-9);
  if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;
  // Every power when few enough, else every k-th (for base 2: k = 2, 5, 10 or
  // 20 so that 1K, 1M and 1G stay among the ticks where they can).
  const double max_ticks = std::max(2, 2 * target);
  double k = 1;
  const double candidates[] = {1, 2, 5, 10, 20, 50, 100};
  for (double c : candidates) {
    k = c;
    if ((hi_exp - lo_exp) / c + 1 <= max_ticks) break;
  }
  const double first = std::floor(lo_exp / k) * k;
  const double last = std::ceil(hi_exp / k) * k;
  if (!keep_lo) lo = power_of(scale, first);
  if (!keep_hi) hi = power_of(scale, last);
  std::vector<double> ticks;
  for (double e = first; e <= last; e += k) {
    const double t = power_of(scale, e);
    if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
  }
  return ticks;
}

// The data range of one axis: the fixed limits where given, else the range of
// `values` (those the scale can show), never empty or inverted.
void settle_range(const Axis& axis, const std::vector<double>& values, double& lo, double& hi, bool& keep_lo,
                  bool& keep_hi) {
  const AxisScale s = axis.scale;
  lo = std::numeric_limits<double>::infinity();
  hi = -std::numeric_limits<double>::infinity();
  for (double v : values) {
    if (!showable(s, v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (axis.include_zero && !is_log(s)) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  keep_lo = axis.min && showable(s, *axis.min);
  keep_hi = axis.max && showable(s, *axis.max);
  if (keep_lo) lo = *axis.min;
  if (keep_hi) hi = *axis.max;
  if (!std::isfinite(lo) && !std::isfinite(hi)) {  // nothing to show
    lo = is_log(s) ? 1 : 0;
    hi = is_log(s) ? 10 : 1;
  } else if (!std::isfinite(lo)) {
    lo = is_log(s) ? hi / 10 : hi - 1;
  } else if (!std::isfinite(hi)) {
    hi = is_log(s) ? lo * 10 : lo + 1;
  }
  if (hi < lo) {
    std::swap(lo, hi);
    keep_lo = keep_hi = false;
  }
  if (hi == lo) {  // all values equal: a band around them
    if (is_log(s)) {
      lo /= log_base(s);
      hi *= log_base(s);
    } else {
      const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
      lo = (axis.include_zero && lo == 0) ? 0 : lo - pad;
      hi = hi + pad;
    }
    keep_lo = keep_hi = false;
  }
}

AxisMap make_map(const Axis& axis, const std::vector<double>& values, int target_ticks) {
  AxisMap m;
  m.scale = axis.scale;
  bool keep_lo = false;
  bool keep_hi = false;
  settle_range(axis, values, m.lo, m.hi, keep_lo, keep_hi);
  m.ticks = nice_ticks(axis.scale, m.lo, m.hi, target_ticks, keep_lo, keep_hi);
  return m;
}

double widest_label(const AxisMap& m, AxisUnit unit) {
  double w = 0;
  for (double t : m.ticks) w = std::max(w, text_width(format_value(t, unit, m.scale), kTickFont));
  return w;
}

// A growing SVG document.
class Svg {
 public:
  void raw(std::string_view s) { out_ += s; }
  void line(double x1, double y1, double x2, double y2, std::string_view stroke,
            std::string_view extra = "") {
    out_ += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"{}/>)", px(x1), px(y1), px(x2),
                        px(y2), stroke, extra);
    out_ += '\n';
  }
  // `anchor` is start, middle or end; `extra` more attributes.
  void text(double x, double y, std::string_view content, std::string_view anchor,
            std::string_view extra = "") {
    out_ += fmt::format(R"(<text x="{}" y="{}" text-anchor="{}"{}>{}</text>)", px(x), px(y), anchor, extra,
                        xml_escape(content));
    out_ += '\n';
  }
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra = "") {
    out_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}/>)", px(x), px(y),
                        px(std::max(0.0, w)), px(std::max(0.0, h)), fill, extra);
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

constexpr double kNoteFont = 11;
constexpr double kNoteLine = 14;
constexpr std::string_view kNoteColor = "#555";

// `text` in lines that fit `width` pixels, broken between words; at most
// `max_lines`, the last one cut short with "…" when the text runs on.
std::vector<std::string> wrap(std::string_view text, double width, double font_size, std::size_t max_lines) {
  const auto fits = static_cast<std::size_t>(std::max(8.0, width / (font_size * kCharWidth)));
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && code_points(line) + 1 + code_points(word) > fits) {
      lines.push_back(std::move(line));
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  if (!line.empty()) lines.push_back(std::move(line));
  if (lines.size() > max_lines) {
    lines.resize(max_lines);
    lines.back() = shorten(lines.back() + " …", fits);
  }
  for (auto& l : lines) l = shorten(l, fits);
  return lines;
}

constexpr double kTitleLine = 17;

// The title in at most two lines that fit the chart's width: a title cut to
// "…" loses the part that tells charts apart (the condition, the axis cut).
std::vector<std::string> title_lines(std::string_view title, const ChartSize& size) {
  if (title.empty()) return {};
  return wrap(title, size.width - 24, kTitleFont, 2);
}

// The <svg> element's opening, its accessible name and a white background.
// `more`: sentences the description ends with.
void open_svg(Svg& svg, const ChartSize& size, std::string_view title, std::string_view kind,
              const std::vector<std::string>& names, std::string_view more = "") {
  const std::string name = title.empty() ? std::string(kind) : std::string(title);
  std::string desc(kind);
  if (!names.empty()) {
    desc += ". Series: ";
    for (std::size_t i = 0; i < names.size(); ++i) desc += (i ? ", " : "") + names[i];
  }
  if (!more.empty()) desc += ". " + std::string(more);
  svg.raw(fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {w} {h}" )"
      R"(width="{w}" height="{h}" role="img" aria-label="{name}" )"
      R"(font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="{font}" fill="{text}">)"
      "\n<title>{name}</title>\n<desc>{desc}</desc>\n",
      fmt::arg("w", px(size.width)), fmt::arg("h", px(size.height)), fmt::arg("name", xml_escape(name)),
      fmt::arg("desc", xml_escape(desc)), fmt::arg("font", px(kTickFont)), fmt::arg("text", kTextColor)));
  svg.rect(0, 0, size.width, size.height, "#fff");
  const auto lines = title_lines(title, size);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    svg.text(size.width / 2, 22 + kTitleLine * static_cast<double>(k), lines[k], "middle",
             fmt::format(R"( font-size="{}" font-weight="bold")", px(kTitleFont)));
  }
}

double top_margin(std::string_view title, const ChartSize& size) {
  const auto lines = title_lines(title, size);
  if (lines.empty()) return 14;
  return 38 + kTitleLine * static_cast<double>(lines.size() - 1);
}

std::vector<std::string> note_lines(const LineChart& chart) {
  return wrap(chart.note, chart.size.width - 28, kNoteFont, 2);
}

// The plot area as a nested viewport: what is drawn inside is clipped to it
// (no ids needed, so many charts can share a page). Inside, coordinates stay
// those of the whole chart.
void open_plot(Svg& svg, const PlotRect& r) {
  svg.raw(
      fmt::format(R"(<svg class="plot" x="{x}" y="{y}" width="{w}" height="{h}" viewBox="{x} {y} {w} {h}">)",
                  fmt::arg("x", px(r.left)), fmt::arg("y", px(r.top)), fmt::arg("w", px(r.width)),
                  fmt::arg("h", px(r.height))));
  svg.raw("\n");
}

// Grid lines and labels for the ticks of `m`, along the bottom (horizontal)
// or the left side, then the axis line and title.
void draw_axis(Svg& svg, const AxisMap& m, const PlotRect& r, bool horizontal, AxisUnit unit,
               std::string_view title, bool grid) {
  const double bottom = r.top + r.height;
  for (double t : m.ticks) {
    const auto p = m.map(t);
    if (!p) continue;
    if (horizontal) {
      if (grid) svg.line(*p, r.top, *p, bottom, kGridColor);
      svg.line(*p, bottom, *p, bottom + 4, kAxisColor);
      svg.text(*p, bottom + 16, format_value(t, unit, m.scale), "middle");
    } else {
      if (grid) svg.line(r.left, *p, r.left + r.width, *p, kGridColor);
      svg.line(r.left - 4, *p, r.left, *p, kAxisColor);
      svg.text(r.left - 7, *p + 4, format_value(t, unit, m.scale), "end");
    }
  }
  if (horizontal) {
    svg.line(r.left, bottom, r.left + r.width, bottom, kAxisColor);
    if (!title.empty()) svg.text(r.left + r.width / 2, bottom + 34, shorten(title, 90), "middle");
  } else {
    svg.line(r.left, r.top, r.left, bottom, kAxisColor);
    if (!title.empty()) {
      svg.raw(fmt::format(
          R"svg(<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>)svg",
          px(r.top + r.height / 2), xml_escape(shorten(title, 60))));
      svg.raw("\n");
    }
  }
}

constexpr double kLegendNoteFont = 10;

// `notes`: empty, or one per name ("" for none), each printed under its name.
double legend_width(const std::vector<std::string>& names, const std::vector<std::string>& notes = {}) {
  double w = 0;
  for (const auto& n : names) w = std::max(w, text_width(shorten(n, kMaxLabelChars), kLegendFont));
  for (const auto& n : notes) w = std::max(w, text_width(shorten(n, kMaxLabelChars), kLegendNoteFont));
  return w == 0 ? 0 : w + 30;
}

// The legend in the right margin: a swatch (a line for line charts, a square
// for bars) and the name of each series, with its note (if any) under it.
void draw_legend(Svg& svg, const PlotRect& r, const std::vector<std::string>& names,
                 const SeriesColors& colors, bool as_lines, const std::vector<std::string>& notes = {}) {
  const double x = r.left + r.width + 14;
  double y = r.top + 8 - 18;
  for (std::size_t i = 0; i < names.size(); ++i) {
    y += 18;
    if (names[i].empty()) continue;
    const std::size_t slot = colors.slot(names[i], names);
    const std::string_view color = SeriesColors::color(slot);
    if (as_lines) {
      const std::string_view dash = SeriesColors::dash(slot);
      svg.line(x, y, x + 18, y, color,
               dash.empty() ? R"( stroke-width="2.5")"
                            : fmt::format(R"( stroke-width="2.5" stroke-dasharray="{}")", dash));
    } else {
      svg.rect(x + 3, y - 6, 12, 12, color);
    }
    svg.text(x + 24, y + 4, shorten(names[i], kMaxLabelChars), "start");
    if (i < notes.size() && !notes[i].empty()) {
      y += 13;
      svg.text(x + 24, y + 4, shorten(notes[i], kMaxLabelChars), "start",
               fmt::format(R"( font-size="{}" fill="{}")", px(kLegendNoteFont), kNoteColor));
    }
  }
}

void no_data_note(Svg& svg, const PlotRect& r) {
  svg.text(r.left + r.width / 2, r.top + r.height / 2, "no data", "middle", R"( fill="#888")");
}

std::vector<std::string> names_of(const std::vector<LineSeries>& series) {
  std::vector<std::string> names;
  names.reserve(series.size());
  for (const auto& s : series) names.push_back(s.name);
  return names;
}

std::vector<std::string> names_of(const std::vector<BarSeries>& series) {
  std::vector<std::string> names;
  names.reserve(series.size());
  for (const auto& s : series) names.push_back(s.name);
  return names;
}

bool any_named(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [](const std::string& n) { return !n.empty(); });
}

double value_at(const std::vector<double>& values, std::size_t i) {
  return i < values.size() ? values[i] : std::numeric_limits<double>::quiet_NaN();
}

std::optional<ValueRange> range_at(const BarSeries& s, std::size_t i) {
  if (i >= s.ranges.size() || !s.ranges[i]) return std::nullopt;
  const ValueRange r = *s.ranges[i];
  if (!std::isfinite(r.low) || !std::isfinite(r.high)) return std::nullopt;
  return ValueRange{std::min(r.low, r.high), std::max(r.low, r.high)};
}

// One bar's value label.
struct BarLabel {
  std::size_t category = 0;
  std::size_t slot = 0;   // the bar's place in its group
  std::size_t group = 1;  // bars per group
  double end = 0;         // the value it sits past, held to the axis's fixed ends
  bool negative = false;  // past the bar's end below zero
  std::string text;
};

// A bar the fixed axis end cuts short: it runs on past the plot.
bool past_axis_end(double v, const Axis& axis) {
  return (axis.max && v > *axis.max) || (axis.min && v < *axis.min);
}

// The value the label of a bar reaching `v` sits past: a cut bar's label
// sits at the cut, inside the chart, not off the canvas where the bar's own
// end would put it.
double held_to_axis(double v, const Axis& axis) {
  if (axis.max && v > *axis.max) v = *axis.max;
  if (axis.min && v < *axis.min) v = *axis.min;
  return v;
}

// The unit a title ends with in brackets ("completion [us]" gives "us"), or "".
std::string_view unit_in_title(std::string_view title) {
  if (title.empty() || title.back() != ']') return {};
  const std::size_t open = title.rfind('[');
  if (open == std::string_view::npos) return {};
  return title.substr(open + 1, title.size() - open - 2);
}

// The value of a bar past the cut: it cannot be read off the axis, so it
// carries the axis's unit, and a time reads as one ("63ms", as on the time
// axes of the other charts) rather than as a count of microseconds ("63k").
std::string cut_value_text(double v, const Axis& axis) {
  if (axis.unit != AxisUnit::kNone) return format_value(v, axis.unit);
  const std::string_view unit = unit_in_title(axis.title);
  static constexpr std::pair<std::string_view, double> kTimeUnits[] = {
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}};
  for (const auto& [name, seconds] : kTimeUnits)
    if (unit == name) return format_value(v * seconds, AxisUnit::kSeconds);
  const std::string number = format_value(v, AxisUnit::kNone);
  return unit.empty() ? number : number + " " + std::string(unit);
}

std::vector<BarLabel> bar_labels(const BarChart& chart) {
  std::vector<BarLabel> out;
  if (!chart.value_labels) return out;
  const Axis& axis = chart.value_axis;
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const BarSeries& s = chart.series[si];
    for (std::size_t ci = 0; ci < chart.categories.size(); ++ci) {
      const double v = value_at(s.values, ci);
      if (!std::isfinite(v)) continue;
      double end = v;
      if (const auto range = range_at(s, ci))
        end = v < 0 ? std::min(v, range->low) : std::max(v, range->high);
      out.push_back({ci, si, chart.series.size(), held_to_axis(end, axis), v < 0,
                     past_axis_end(v, axis) ? cut_value_text(v, axis) : format_value(v, axis.unit)});
    }
  }
  return out;
}

double stack_total(const StackedBarChart& chart, std::size_t category) {
  double total = 0;
  for (const auto& s : chart.series) {
    const double v = value_at(s.values, category);
    if (std::isfinite(v) && v > 0) total += v;
  }
  return total;
}

std::vector<BarLabel> bar_labels(const StackedBarChart& chart) {
  std::vector<BarLabel> out;
  if (!chart.value_labels) return out;
  const Axis& axis = chart.value_axis;
  for (std::size_t ci = 0; ci < chart.categories.size(); ++ci) {
    const double total = stack_total(chart, ci);
    if (total <= 0) continue;
    out.push_back(
        {ci, 0, 1, held_to_axis(total, axis), false,
         past_axis_end(total, axis) ? cut_value_text(total, axis) : format_value(total, axis.unit)});
  }
  return out;
}

struct Box {
  double x0 = 0;
  double y0 = 0;
  double x1 = 0;
  double y1 = 0;
};

// Where the text of a label over an upright bar lands in pixels, reading
// across: ascent 0.8 and descent 0.2 of the font.
Box upright_label_box(const BarLayout& l, const BarLabel& lb, double font) {
  const double p = l.value.map(lb.end).value_or(0);
  const double centre = l.bar_center(lb.category, lb.slot, lb.group);
  const double w = text_width(lb.text, font);
  const double base = lb.negative ? p + 2 + font : p - 4;
  return Box{centre - w / 2, base - 0.8 * font, centre + w / 2, base + 0.2 * font};
}

// Glyphs run a little wider or narrower than text_width guesses: labels
// closer than this may touch.
constexpr double kLabelGap = 3;

bool labels_collide(const BarLayout& l, const std::vector<BarLabel>& labels, double font) {
  std::vector<Box> boxes;
  boxes.reserve(labels.size());
  for (const auto& lb : labels) boxes.push_back(upright_label_box(l, lb, font));
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const Box& a = boxes[i];
      const Box& b = boxes[j];
      if (a.x0 < b.x1 + kLabelGap && b.x0 < a.x1 + kLabelGap && a.y0 < b.y1 + kLabelGap &&
          b.y0 < a.y1 + kLabelGap)
        return true;
    }
  return false;
}

constexpr double kValueFont = 10;

// Value labels side by side over a group of thin bars run together into one
// unreadable string ("63k63k200k5952"): when any two would touch, every label
// of the chart stands on end (the same direction throughout reads best),
// in a font no wider than its bar, and the plot moves down to give the
// tallest bars' labels room under the title.
void place_labels(BarLayout& l, const std::vector<BarLabel>& labels) {
  l.label_font = kValueFont;
  l.vertical_labels = false;
  if (labels.empty()) return;
  if (l.horizontal) {  // one label per bar, each in its bar's row
    l.label_font = std::clamp(l.bar_width, 6.0, kValueFont);
    return;
  }
  if (!labels_collide(l, labels, kValueFont)) return;
  l.vertical_labels = true;
  l.label_font = std::clamp(l.bar_width - kLabelGap, 6.0, kValueFont);
  // A label at fraction t of the plot's height from its bottom sits
  // (1 - t) * (height - extra) below the top after the plot gives up `extra`
  // at its top: solve for the extra that fits the label above its bar.
  const double height = l.plot.height;
  const double bottom = l.plot.top + height;
  double extra = 0;
  for (const auto& lb : labels) {
    if (lb.negative) continue;
    const auto p = l.value.map(lb.end);
    if (!p) continue;
    const double need = text_width(lb.text, l.label_font) + 4 + 2 - (*p - l.plot.top);
    const double t = (bottom - *p) / height;
    if (need > 0 && t > 0) extra = std::max(extra, need / t);
  }
  extra = std::min(extra, height / 2);
  l.plot.top += extra;
  l.plot.height -= extra;
  l.value.pixel_hi = l.plot.top;
}

// The layout shared by grouped and stacked bars: the value axis along the
// bottom (horizontal) or the left side, the categories along the other.
BarLayout bar_layout(std::string_view title, const std::vector<std::string>& categories,
                     const std::vector<std::string>& names, const Axis& value_axis,
                     const std::vector<double>& extent, bool horizontal, const ChartSize& size,
                     std::size_t group_size, double fill, const std::vector<BarLabel>& labels) {
  Axis axis = value_axis;
  axis.scale = AxisScale::kLinear;  // bars start at zero
  axis.include_zero = true;
  BarLayout l;
  l.horizontal = horizontal;
  l.value = make_map(axis, extent, 6);

  double widest_category = 0;
  for (const auto& c : categories)
    widest_category = std::max(widest_category, text_width(shorten(c, kMaxLabelChars), kTickFont));
  const double legend = any_named(names) ? legend_width(names) : 0;
  const double top = top_margin(title, size);
  const double right = 20 + legend;
  double left = 0;
  double bottom = 0;
  const double n = static_cast<double>(std::max<std::size_t>(1, categories.size()));
  if (horizontal) {
    left = 14 + widest_category;
    bottom = 28 + (value_axis.title.empty() ? 0 : 18);
  } else {
    left = 14 + widest_label(l.value, value_axis.unit) + (value_axis.title.empty() ? 0 : 20);
    const double band = (size.width - left - right) / n;
    // Category names too wide for their band are slanted by 30 degrees.
    const double slant_drop = widest_category > band - 6 ? widest_category * 0.5 : 0;
    bottom = 28 + slant_drop;
  }
  l.plot = PlotRect{left, top, std::max(10.0, size.width - left - right),
                    std::max(10.0, size.height - top - bottom)};
  if (horizontal) {
    l.value.pixel_lo = l.plot.left;
    l.value.pixel_hi = l.plot.left + l.plot.width;
    l.band = l.plot.height / n;
  } else {
    l.value.pixel_lo = l.plot.top + l.plot.height;
    l.value.pixel_hi = l.plot.top;
    l.band = l.plot.width / n;
  }
  l.bar_width = l.band * fill / static_cast<double>(std::max<std::size_t>(1, group_size));
  place_labels(l, labels);
  return l;
}

// The category names along the category axis.
void draw_categories(Svg& svg, const BarLayout& l, const std::vector<std::string>& categories) {
  const double bottom = l.plot.top + l.plot.height;
  double widest = 0;
  for (const auto& c : categories)
    widest = std::max(widest, text_width(shorten(c, kMaxLabelChars), kTickFont));
  const bool slant = !l.horizontal && widest > l.band - 6;
  for (std::size_t i = 0; i < categories.size(); ++i) {
    const double centre = l.bar_center(i, 0, 1);
    const std::string label = shorten(categories[i], kMaxLabelChars);
    if (l.horizontal) {
      svg.text(l.plot.left - 7, centre + 4, label, "end");
    } else if (slant) {
      svg.raw(
          fmt::format(R"svg(<text transform="translate({} {}) rotate(-30)" text-anchor="end">{}</text>)svg",
                      px(centre + 4), px(bottom + 14), xml_escape(label)));
      svg.raw("\n");
    } else {
      svg.text(centre, bottom + 16, label, "middle");
    }
  }
  if (l.horizontal) {
    svg.line(l.plot.left, l.plot.top, l.plot.left, bottom, kAxisColor);
  }
}

// A bar from `from` to `to` along the value axis, centred at `centre` on the
// category axis.
void draw_bar(Svg& svg, const BarLayout& l, double centre, double from, double to, std::string_view color,
              std::string_view tooltip) {
  const auto a = l.value.map(from);
  const auto b = l.value.map(to);
  if (!a || !b) return;
  const std::string title = fmt::format("<title>{}</title>", xml_escape(tooltip));
  const double lo = std::min(*a, *b);
  const double len = std::abs(*b - *a);
  if (l.horizontal) {
    svg.raw(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}">{}</rect>)", px(lo),
                        px(centre - l.bar_width / 2), px(len), px(l.bar_width), color, title));
  } else {
    svg.raw(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}">{}</rect>)",
                        px(centre - l.bar_width / 2), px(lo), px(l.bar_width), px(len), color, title));
  }
  svg.raw("\n");
}

void draw_value_labels(Svg& svg, const BarLayout& l, const std::vector<BarLabel>& labels) {
  const double f = l.label_font;
  const std::string extra = fmt::format(R"( class="value" font-size="{}")", trim_number(f, 3));
  for (const auto& lb : labels) {
    const auto p = l.value.map(lb.end);
    if (!p) continue;
    const double centre = l.bar_center(lb.category, lb.slot, lb.group);
    if (l.horizontal) {
      svg.text(lb.negative ? *p - 4 : *p + 4, centre + 0.35 * f, lb.text, lb.negative ? "end" : "start",
               extra);
    } else if (l.vertical_labels) {
      // Rotated a quarter turn anticlockwise, the text reads upwards from its
      // baseline; the baseline sits right of centre so the digits centre on the bar.
      svg.raw(
          fmt::format(R"svg(<text transform="translate({} {}) rotate(-90)" text-anchor="{}"{}>{}</text>)svg",
                      px(centre + 0.35 * f), px(lb.negative ? *p + 4 : *p - 4), lb.negative ? "end" : "start",
                      extra, xml_escape(lb.text)));
      svg.raw("\n");
    } else {
      svg.text(centre, lb.negative ? *p + 2 + f : *p - 4, lb.text, "middle", extra);
    }
  }
}

// A break across a bar where the axis cuts it, two white slashes just inside
// the plot's end: the bar runs on, its length is not to be read off the axis.
void draw_cut_mark(Svg& svg, const BarLayout& l, double centre, double v, const Axis& axis) {
  const double end = held_to_axis(v, axis);
  const auto p = l.value.map(end);
  if (!p) return;
  const double half = l.bar_width / 2;
  const double slant = std::min(4.0, l.bar_width * 0.2);
  constexpr std::string_view kMark = R"( class="cut-mark" stroke-width="2")";
  // Inwards from the cut, towards zero.
  const double sign = v < 0 ? -1 : 1;
  for (double d : {7.0, 12.0}) {
    if (l.horizontal) {
      const double x = *p - sign * d;
      svg.line(x - slant, centre + half, x + slant, centre - half, "#fff", kMark);
    } else {
      const double y = *p + sign * d;
      svg.line(centre - half, y + slant, centre + half, y - slant, "#fff", kMark);
    }
  }
}

// Lines closer than this everywhere read as one: the later one covers the
// earlier (a line is 2 pixels wide).
constexpr double kSameLinePx = 3;
// The dash of each line in a shared line's turns.
constexpr double kTurnPx = 8;

// The pixels of the points of `s` both axes can show, in order.
std::vector<Point> pixels_of(const LineSeries& s, const AxisMap& x, const AxisMap& y) {
  std::vector<Point> out;
  for (const Point& p : s.points) {
    const auto px_x = x.map(p.x);
    const auto px_y = y.map(p.y);
    if (px_x && px_y) out.push_back({*px_x, *px_y});
  }
  return out;
}

std::vector<std::size_t> shared_lines(const std::vector<LineSeries>& series, const AxisMap& x,
                                      const AxisMap& y) {
  std::vector<std::vector<Point>> pixels;
  pixels.reserve(series.size());
  for (const auto& s : series) pixels.push_back(pixels_of(s, x, y));
  const auto close = [](const std::vector<Point>& a, const std::vector<Point>& b) {
    if (a.empty() || a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::abs(a[i].x - b[i].x) > kSameLinePx || std::abs(a[i].y - b[i].y) > kSameLinePx) return false;
    return true;
  };
  std::vector<std::size_t> with(series.size(), std::string::npos);
  // Each line is compared with the first of every group, so a group's lines
  // all lie within the tolerance of one line, not drifting along a chain.
  for (std::size_t i = 0; i < series.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (with[j] == std::string::npos && close(pixels[j], pixels[i])) {
        with[i] = j;
        break;
      }
  return with;
}

std::vector<std::string> shared_line_notes(const std::vector<LineSeries>& series,
                                           const std::vector<std::size_t>& with) {
  std::vector<std::string> notes(series.size());
  for (std::size_t i = 0; i < series.size(); ++i)
    if (with[i] != std::string::npos)
      notes[i] = "same line as " + (series[with[i]].name.empty() ? "another" : series[with[i]].name);
  return notes;
}

std::string line_points(const std::vector<Point>& pts) {
  std::string s;
  for (const Point& p : pts) {
    if (!s.empty()) s += ' ';
    s += px(p.x) + "," + px(p.y);
  }
  return s;
}

struct CutLabel {
  double y;  // pixel of the line at the cut
  std::string text;
  std::string_view color;
};

// The series that run past a fixed x.max, each labelled with its name and
// where it ends, at the height its line leaves the plot.
std::vector<CutLabel> cut_labels(const LineChart& chart, const LineLayout& l, const SeriesColors& colors) {
  std::vector<CutLabel> out;
  if (!chart.x.max) return out;
  const auto names = names_of(chart.series);
  for (const auto& s : chart.series) {
    std::optional<Point> before;  // the last point at or before the cut
    std::optional<Point> after;   // the first point past it
    double end = -std::numeric_limits<double>::infinity();
    for (const Point& p : s.points) {
      if (!showable(chart.x.scale, p.x) || !showable(chart.y.scale, p.y)) continue;
      end = std::max(end, p.x);
      if (p.x <= l.x.hi) {
        before = p;
      } else if (!after) {
        after = p;
      }
    }
    if (!after) continue;
    // Where the drawn line crosses the plot's edge.
    double y = after->y;
    if (before) {
      y = before->y;
      if (!chart.step && after->x > before->x)
        y += (after->y - before->y) * (l.x.hi - before->x) / (after->x - before->x);
    }
    const double at =
        std::clamp(l.y.map(y).value_or(l.plot.top + l.plot.height), l.plot.top, l.plot.top + l.plot.height);
    const std::string ends = "→ " + format_value(end, chart.x.unit, chart.x.scale);
    out.push_back({at, s.name.empty() ? ends : shorten(s.name, kMaxLabelChars) + " " + ends,
                   SeriesColors::color(colors.slot(s.name, names))});
  }
  return out;
}

// The labels at the right edge of the plot, just above their lines, moved
// apart where they would overlap and kept inside the plot.
void draw_cut_labels(Svg& svg, const PlotRect& r, std::vector<CutLabel> labels) {
  constexpr double kFont = 10;
  constexpr double kApart = 13;
  std::stable_sort(labels.begin(), labels.end(),
                   [](const CutLabel& a, const CutLabel& b) { return a.y < b.y; });
  std::vector<double> base;  // text baselines, top to bottom
  base.reserve(labels.size());
  for (const auto& lb : labels) base.push_back(std::max(lb.y - 5, r.top + kFont + 2));
  for (std::size_t i = 1; i < base.size(); ++i) base[i] = std::max(base[i], base[i - 1] + kApart);
  const double lowest = r.top + r.height - 4;
  for (std::size_t i = base.size(); i-- > 0;)
    base[i] = std::min(base[i], i + 1 < base.size() ? base[i + 1] - kApart : lowest);
  // Each label sits just above where its own line leaves the plot, so lines
  // run through it: a white box (and the text's white halo) over the lines
  // keeps it readable. Boxes first, so none covers a neighbour's text.
  const double right = r.left + r.width - 4;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double w = text_width(labels[i].text, kFont);
    svg.rect(right - w - 3, base[i] - 0.8 * kFont - 1.5, w + 6, kFont + 3, "#fff",
             R"( class="cut-bg" fill-opacity="0.9" rx="2")");
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    svg.text(right, base[i], labels[i].text, "end",
             fmt::format(R"( class="cut" font-size="{}" fill="{}" stroke="#fff" stroke-width="3" )"
                         R"(paint-order="stroke")",
                         px(kFont), labels[i].color));
  }
}

}  // namespace

std::optional<double> cut_x_axis_end(const std::vector<LineSeries>& series, double gap) {
  double start = std::numeric_limits<double>::infinity();
  std::vector<double> ends;
  for (const auto& s : series) {
    double end = -std::numeric_limits<double>::infinity();
    for (const Point& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      start = std::min(start, p.x);
      end = std::max(end, p.x);
    }
    if (std::isfinite(end)) ends.push_back(end);
  }
  if (ends.size() < 2) return std::nullopt;
  start = std::min(start, 0.0);  // time and sizes run from zero
  std::sort(ends.begin(), ends.end());
  for (std::size_t i = 0; i + 1 < ends.size(); ++i) {
    const double span = ends[i] - start;
    if (span <= 0 || ends[i + 1] - start <= gap * span) continue;
    // A little room past the last line kept whole, to a round tick.
    double lo = start;
    double hi = start + span * 1.05;
    nice_ticks(AxisScale::kLinear, lo, hi, 7);
    return hi;
  }
  return std::nullopt;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::size_t SeriesColors::slot(std::string_view name, const std::vector<std::string>& chart_names) const {
  const auto listed = std::find(order_.begin(), order_.end(), name);
  if (listed != order_.end()) return static_cast<std::size_t>(std::distance(order_.begin(), listed));
  // Unlisted: the rank of this name among the unlisted names of the chart.
  std::vector<std::string_view> unlisted;
  for (const auto& n : chart_names) {
    if (n == name) break;
    const bool in_order = std::find(order_.begin(), order_.end(), n) != order_.end();
    const bool seen = std::find(unlisted.begin(), unlisted.end(), n) != unlisted.end();
    if (!in_order && !seen) unlisted.push_back(n);
  }
  return order_.size() + unlisted.size();
}

std::string_view SeriesColors::color(std::size_t slot) {
  constexpr std::size_t n = std::size(kChartPalette);
  return kChartPalette[slot % n];
}

std::string_view SeriesColors::dash(std::size_t slot) {
  constexpr std::size_t n = std::size(kChartPalette);
  constexpr std::string_view patterns[] = {"7 4", "2 3", "9 3 2 3"};
  if (slot < n) return "";
  return patterns[(slot / n - 1) % std::size(patterns)];
}

std::optional<double> AxisMap::map(double value) const {
  if (!showable(scale, value)) return std::nullopt;
  double t = 0;
  if (is_log(scale)) {
    t = (std::log(value) - std::log(lo)) / (std::log(hi) - std::log(lo));
  } else {
    t = (value - lo) / (hi - lo);
  }
  const double p = pixel_lo + t * (pixel_hi - pixel_lo);
  if (!std::isfinite(p)) return std::nullopt;
  return p;
}

std::vector<double> nice_ticks(AxisScale scale, double& lo, double& hi, int target, bool keep_lo,
                               bool keep_hi) {
  if (!showable(scale, lo) || !showable(scale, hi) || hi <= lo) {
    lo = is_log(scale) ? 1 : 0;
    hi = is_log(scale) ? 10 : 1;
    keep_lo = keep_hi = false;
  }
  target = std::max(2, target);
  std::vector<double> ticks = is_log(scale) ? log_ticks(scale, lo, hi, target, keep_lo, keep_hi)
                                            : linear_ticks(lo, hi, target, keep_lo, keep_hi);
  if (ticks.empty()) ticks = {lo, hi};  // a fixed range narrower than one step
  return ticks;
}

std::string format_value(double value, AxisUnit unit, AxisScale scale) {
  if (!std::isfinite(value)) return "";
  switch (unit) {
    case AxisUnit::kNone: {
      if (std::abs(value) < 1e4) return trim_number(value, 4);
      static constexpr Prefix kSi[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
      return with_prefix(value, kSi, 3);
    }
    case AxisUnit::kBytes: {
      static constexpr Prefix kBinary[] = {
          {1099511627776.0, "T"}, {1073741824.0, "G"}, {1048576.0, "M"}, {1024.0, "K"}};
      static constexpr Prefix kDecimal[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
      const bool binary = scale == AxisScale::kLog2;
      if (std::abs(value) < (binary ? 1024 : 1000)) return trim_number(value, 3);
      return binary ? with_prefix(value, kBinary, 3) : with_prefix(value, kDecimal, 3);
    }
    case AxisUnit::kSeconds: {
      if (value == 0) return "0";
      static constexpr Prefix kTime[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};
      return with_prefix(value, kTime, 3);
    }
    case AxisUnit::kPercent:
      return trim_number(value, 4) + "%";
    case AxisUnit::kTimes:
      return trim_number(value, 3) + "×";
  }
  return trim_number(value, 4);
}

double BarLayout::bar_center(std::size_t category, std::size_t series, std::size_t series_count) const {
  const double start = horizontal ? plot.top : plot.left;
  const double group = bar_width * static_cast<double>(std::max<std::size_t>(1, series_count));
  return start + band * static_cast<double>(category) + (band - group) / 2 +
         bar_width * (static_cast<double>(series) + 0.5);
}

namespace {

// A series with no points has no line to show: a legend entry for it would
// send the reader looking for a line that is not there.
LineChart without_empty_series(const LineChart& chart) {
  LineChart out = chart;
  out.series.clear();
  for (const auto& s : chart.series)
    if (!s.points.empty()) out.series.push_back(s);
  return out;
}

LineLayout layout_of_drawn(const LineChart& chart) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& s : chart.series) {
    for (const Point& p : s.points) {
      // A point counts towards the ranges only when both axes can show it.
      if (!showable(chart.x.scale, p.x) || !showable(chart.y.scale, p.y)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  LineLayout l;
  l.x = make_map(chart.x, xs, 7);
  l.y = make_map(chart.y, ys, 6);
  const auto names = names_of(chart.series);
  const double top =
      top_margin(chart.title, chart.size) + kNoteLine * static_cast<double>(note_lines(chart).size());
  const double left = 14 + widest_label(l.y, chart.y.unit) + (chart.y.title.empty() ? 0 : 20);
  const double bottom = 28 + (chart.x.title.empty() ? 0 : 18);
  const auto place = [&](const std::vector<std::string>& notes) {
    const double right = 24 + (any_named(names) ? legend_width(names, notes) : 0);
    l.plot = PlotRect{left, top, std::max(10.0, chart.size.width - left - right),
                      std::max(10.0, chart.size.height - top - bottom)};
    l.x.pixel_lo = l.plot.left;
    l.x.pixel_hi = l.plot.left + l.plot.width;
    l.y.pixel_lo = l.plot.top + l.plot.height;
    l.y.pixel_hi = l.plot.top;
  };
  place({});
  // Which lines coincide is judged where they land without the legend's
  // notes; the notes then narrow the plot a little, which moves every line
  // alike.
  l.shares_line_with = shared_lines(chart.series, l.x, l.y);
  const auto notes = shared_line_notes(chart.series, l.shares_line_with);
  if (std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return !n.empty(); })) place(notes);
  return l;
}

}  // namespace

LineLayout layout_of(const LineChart& chart) {
  LineLayout l = layout_of_drawn(without_empty_series(chart));
  // Back to the caller's numbering of the series, the empty ones included.
  std::vector<std::size_t> drawn;  // caller's index of each drawn series
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    if (!chart.series[i].points.empty()) drawn.push_back(i);
  std::vector<std::size_t> with(chart.series.size(), std::string::npos);
  for (std::size_t k = 0; k < drawn.size(); ++k)
    if (l.shares_line_with[k] != std::string::npos) with[drawn[k]] = drawn[l.shares_line_with[k]];
  l.shares_line_with = std::move(with);
  return l;
}

BarLayout layout_of(const BarChart& chart) {
  std::vector<double> extent;
  for (const auto& s : chart.series) {
    for (std::size_t i = 0; i < chart.categories.size(); ++i) {
      extent.push_back(value_at(s.values, i));
      if (const auto r = range_at(s, i)) {
        extent.push_back(r->low);
        extent.push_back(r->high);
      }
    }
  }
  return bar_layout(chart.title, chart.categories, names_of(chart.series), chart.value_axis, extent,
                    chart.horizontal, chart.size, chart.series.size(), 0.8, bar_labels(chart));
}

BarLayout layout_of(const StackedBarChart& chart) {
  std::vector<double> extent;
  for (std::size_t i = 0; i < chart.categories.size(); ++i) extent.push_back(stack_total(chart, i));
  return bar_layout(chart.title, chart.categories, names_of(chart.series), chart.value_axis, extent,
                    chart.horizontal, chart.size, 1, 0.6, bar_labels(chart));
}

std::string render_svg(const LineChart& input, const SeriesColors& colors) {
  const LineChart chart = without_empty_series(input);
  const LineLayout l = layout_of_drawn(chart);
  const auto names = names_of(chart.series);
  const auto shared_notes = shared_line_notes(chart.series, l.shares_line_with);
  std::string more = chart.note;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!shared_notes[i].empty())
      more +=
          (more.empty() ? "" : ". ") + (names[i].empty() ? "a series" : names[i]) + ": " + shared_notes[i];
  Svg svg;
  open_svg(svg, chart.size, chart.title, chart.step ? "Step chart" : "Line chart", names, more);
  const auto notes = note_lines(chart);
  for (std::size_t k = 0; k < notes.size(); ++k) {
    const double y = top_margin(chart.title, chart.size) + kNoteLine * static_cast<double>(k) +
                     (chart.title.empty() ? 10 : 2);
    svg.text(chart.size.width / 2, y, notes[k], "middle",
             fmt::format(R"( class="note" font-size="{}" fill="{}")", px(kNoteFont), kNoteColor));
  }
  draw_axis(svg, l.y, l.plot, false, chart.y.unit, chart.y.title, true);
  draw_axis(svg, l.x, l.plot, true, chart.x.unit, chart.x.title, true);
  open_plot(svg, l.plot);
  // Lines that share a line take turns along it: with k of them, each draws
  // every k-th dash, so every colour shows.
  std::vector<std::size_t> turns(chart.series.size(), 1);  // lines in the group
  std::vector<std::size_t> turn(chart.series.size(), 0);   // this line's place in it
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const std::size_t first = l.shares_line_with[i];
    if (first == std::string::npos) continue;
    turn[i] = turns[first]++;
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    if (l.shares_line_with[i] != std::string::npos) turns[i] = turns[l.shares_line_with[i]];
  bool drew = false;
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const LineSeries& s = chart.series[si];
    const std::size_t slot = colors.slot(s.name, names);
    const std::string_view color = SeriesColors::color(slot);
    std::string dash_attrs;
    if (turn[si] > 0) {
      const auto k = static_cast<double>(turns[si]);
      dash_attrs = fmt::format(R"( stroke-dasharray="{} {}" stroke-dashoffset="{}")", px(kTurnPx),
                               px(kTurnPx * (k - 1)), px(kTurnPx * (k - static_cast<double>(turn[si]))));
    } else if (const std::string_view dash = SeriesColors::dash(slot); !dash.empty()) {
      dash_attrs = fmt::format(R"( stroke-dasharray="{}")", dash);
    }
    svg.raw(
        fmt::format(R"(<g class="series" fill="none" stroke="{}" stroke-width="2"{}>)", color, dash_attrs));
    svg.raw(fmt::format("<title>{}</title>\n", xml_escape(s.name)));
    // Runs of showable points; a point an axis cannot show ends a run.
    std::vector<std::vector<Point>> runs(1);
    for (const Point& p : s.points) {
      const auto x = l.x.map(p.x);
      const auto y = l.y.map(p.y);
      if (!x || !y) {
        if (!runs.back().empty()) runs.emplace_back();
        continue;
      }
      runs.back().push_back({*x, *y});
    }
    std::vector<Point> dots;
    for (const auto& run : runs) {
      if (run.empty()) continue;
      drew = true;
      std::vector<Point> path;
      for (std::size_t i = 0; i < run.size(); ++i) {
        if (chart.step && i > 0) path.push_back({run[i].x, run[i - 1].y});
        path.push_back(run[i]);
      }
      if (path.size() > 1) svg.raw(fmt::format("<polyline points=\"{}\"/>\n", line_points(path)));
      // A lone point has no line: it always gets its dot.
      if (chart.markers || run.size() == 1) dots.insert(dots.end(), run.begin(), run.end());
    }
    for (const Point& d : dots) {
      svg.raw(
          fmt::format(R"(<circle cx="{}" cy="{}" r="3" fill="{}" stroke="none"/>)", px(d.x), px(d.y), color));
      svg.raw("\n");
    }
    svg.raw("</g>\n");
  }
  // Over the lines, so a fault's moment reads even where a line sits on it
  // (the label haloed in white); labels alternate sides of the line so two
  // close marks do not overprint.
  for (std::size_t i = 0; i < chart.marks.size(); ++i) {
    const auto x = l.x.map(chart.marks[i].x);
    if (!x || *x < l.plot.left || *x > l.plot.left + l.plot.width) continue;
    svg.raw(R"(<g class="mark">)");
    svg.line(*x, l.plot.top, *x, l.plot.top + l.plot.height, kNoteColor,
             R"( stroke-width="1.5" stroke-dasharray="6 4")");
    const bool right = i % 2 == 0 && *x < l.plot.left + 0.75 * l.plot.width;
    svg.text(*x + (right ? 4 : -4), l.plot.top + 12, chart.marks[i].label, right ? "start" : "end",
             fmt::format(R"( font-size="{}" fill="{}" stroke="white" stroke-width="3" paint-order="stroke")",
                         px(kNoteFont), kNoteColor));
    svg.raw("</g>\n");
  }
  svg.raw("</svg>\n");
  draw_cut_labels(svg, l.plot, cut_labels(chart, l, colors));
  if (!drew) no_data_note(svg, l.plot);
  if (any_named(names)) draw_legend(svg, l.plot, names, colors, true, shared_notes);
  svg.raw("</svg>\n");
  return svg.take();
}

std::string render_svg(const BarChart& chart, const SeriesColors& colors) {
  const BarLayout l = layout_of(chart);
  const auto names = names_of(chart.series);
  Svg svg;
  open_svg(svg, chart.size, chart.title, "Bar chart", names);
  draw_axis(svg, l.value, l.plot, l.horizontal, chart.value_axis.unit, chart.value_axis.title, true);
  draw_categories(svg, l, chart.categories);
  open_plot(svg, l.plot);
  bool drew = false;
  Svg over;  // whiskers and labels: drawn last, over the bars and outside the clip
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const BarSeries& s = chart.series[si];
    const std::string_view color = SeriesColors::color(colors.slot(s.name, names));
    for (std::size_t ci = 0; ci < chart.categories.size(); ++ci) {
      const double v = value_at(s.values, ci);
      if (!std::isfinite(v)) continue;
      drew = true;
      const double centre = l.bar_center(ci, si, chart.series.size());
      const auto range = range_at(s, ci);
      std::string tooltip = fmt::format("{}: {}", s.name.empty() ? chart.categories[ci] : s.name,
                                        format_value(v, chart.value_axis.unit));
      if (range) {
        tooltip += fmt::format(" ({} to {})", format_value(range->low, chart.value_axis.unit),
                               format_value(range->high, chart.value_axis.unit));
      }
      draw_bar(svg, l, centre, 0, v, color, tooltip);
      if (range) {
        const auto a = l.value.map(range->low);
        const auto b = l.value.map(range->high);
        const double cap = std::max(2.0, l.bar_width * 0.25);
        if (a && b) {
          constexpr std::string_view kWhisker = R"( class="whisker" stroke-width="1.5")";
          if (l.horizontal) {
            over.line(*a, centre, *b, centre, kAxisColor, kWhisker);
            over.line(*a, centre - cap, *a, centre + cap, kAxisColor, kWhisker);
            over.line(*b, centre - cap, *b, centre + cap, kAxisColor, kWhisker);
          } else {
            over.line(centre, *a, centre, *b, kAxisColor, kWhisker);
            over.line(centre - cap, *a, centre + cap, *a, kAxisColor, kWhisker);
            over.line(centre - cap, *b, centre + cap, *b, kAxisColor, kWhisker);
          }
        }
      }
      if (past_axis_end(v, chart.value_axis)) draw_cut_mark(over, l, centre, v, chart.value_axis);
    }
  }
  draw_value_labels(over, l, bar_labels(chart));
  svg.raw("</svg>\n");
  if (const auto zero = l.value.map(0)) {  // the zero line over the bars
    if (l.horizontal) {
      svg.line(*zero, l.plot.top, *zero, l.plot.top + l.plot.height, kAxisColor);
    } else {
      svg.line(l.plot.left, *zero, l.plot.left + l.plot.width, *zero, kAxisColor);
    }
  }
  svg.raw(over.take());
  if (!drew) no_data_note(svg, l.plot);
  if (any_named(names)) draw_legend(svg, l.plot, names, colors, false);
  svg.raw("</svg>\n");
  return svg.take();
}

std::string render_svg(const StackedBarChart& chart, const SeriesColors& colors) {
  const BarLayout l = layout_of(chart);
  const auto names = names_of(chart.series);
  Svg svg;
  open_svg(svg, chart.size, chart.title, "Stacked bar chart", names);
  draw_axis(svg, l.value, l.plot, l.horizontal, chart.value_axis.unit, chart.value_axis.title, true);
  draw_categories(svg, l, chart.categories);
  open_plot(svg, l.plot);
  Svg over;
  bool drew = false;
  for (std::size_t ci = 0; ci < chart.categories.size(); ++ci) {
    const double centre = l.bar_center(ci, 0, 1);
    double base = 0;
    for (const auto& s : chart.series) {
      const double v = value_at(s.values, ci);
      if (!std::isfinite(v) || v <= 0) continue;
      drew = true;
      const std::string_view color = SeriesColors::color(colors.slot(s.name, names));
      draw_bar(
          svg, l, centre, base, base + v, color,
          fmt::format("{}, {}: {}", chart.categories[ci], s.name, format_value(v, chart.value_axis.unit)));
      base += v;
    }
    if (base > 0 && past_axis_end(base, chart.value_axis))
      draw_cut_mark(over, l, centre, base, chart.value_axis);
  }
  draw_value_labels(over, l, bar_labels(chart));
  svg.raw("</svg>\n");
  svg.raw(over.take());
  if (!drew) no_data_note(svg, l.plot);
  if (any_named(names)) draw_legend(svg, l.plot, names, colors, false);
  svg.raw("</svg>\n");
  return svg.take();
}

}  // namespace rdmasim
