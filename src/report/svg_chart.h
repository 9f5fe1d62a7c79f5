// Charts for report.html as inline SVG markup: line charts (latency CDFs,
// busbw by message size, slowdown by flow size, throughput over time), grouped
// bar charts with optional error whiskers, and stacked bar charts (iteration
// breakdown, cost). Each render function returns one self-contained <svg>
// element: a viewBox so it scales, <title> and aria-label for screen readers,
// every text escaped, no scripts, fonts or links to anything outside it.
//
// Output is deterministic: the same chart gives the same bytes (coordinates
// are printed with two decimals). Bad input never crashes and never prints
// "nan" or "inf": NaN and infinite values are skipped, and so are points at
// or below zero on a logarithmic axis (a line is broken where a point is
// skipped, so a gap shows where the data is missing). An empty chart renders
// its frame and a "no data" note.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmasim {

// Escapes &, <, >, " and ' for use in XML/HTML text and attribute values.
// Control characters other than tab, newline and carriage return (not
// allowed in XML) become U+FFFD.
std::string xml_escape(std::string_view text);

// The Okabe–Ito colour-blind-safe palette, in the order series get it
// (black last; yellow, hard to see on white, near the end).
inline constexpr std::string_view kChartPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                     "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

// Gives each series name the same colour in every chart of a report: the
// caller lists the names once, in order, and passes the map to every render
// call. A name not listed gets the palette slots after the listed ones, in the
// order it first appears in that chart. Past the eighth colour the palette
// repeats and lines get a dash pattern to stay distinguishable.
class SeriesColors {
 public:
  SeriesColors() = default;
  explicit SeriesColors(std::vector<std::string> order) : order_(std::move(order)) {}

  // The slot (index into an endless repetition of the palette) of `name`,
  // given the names of the chart's series in drawing order.
  [[nodiscard]] std::size_t slot(std::string_view name, const std::vector<std::string>& chart_names) const;
  [[nodiscard]] static std::string_view color(std::size_t slot);
  // "" for the first pass through the palette, a stroke-dasharray after it.
  [[nodiscard]] static std::string_view dash(std::size_t slot);

 private:
  std::vector<std::string> order_;
};

enum class AxisScale {
  kLinear,
  kLog10,  // ticks at powers of ten
  kLog2,   // ticks at powers of two (message sizes)
};

// How tick labels (and bar value labels) print a value.
enum class AxisUnit {
  kNone,     // 0.25, 40, 1.5k, 20M
  kBytes,    // 512, 1K, 64K, 1M, 1G (see format_value)
  kSeconds,  // the value is in seconds: 500ns, 20µs, 1.5ms, 2s
  kPercent,  // the value is already a percentage: 50%
  kTimes,    // a ratio such as a slowdown: 1×, 2.5×
};

struct Axis {
  std::string title{};
  AxisScale scale = AxisScale::kLinear;
  AxisUnit unit = AxisUnit::kNone;
  // A fixed range; when unset the range covers the data, widened to the
  // nearest ticks. On a log axis a limit at or below zero is ignored.
  std::optional<double> min{};
  std::optional<double> max{};
  bool include_zero = false;  // linear axes: stretch the data range to zero
};

// The pixel box of a chart's plot area (y grows downwards, as in SVG).
struct PlotRect {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;
};

// The mapping from data values to pixels along one axis, after the range is
// settled. map() returns nothing for values the axis cannot show (NaN, inf,
// at or below zero on a log axis); values outside the range map outside the
// pixel span (the chart clips them).
struct AxisMap {
  AxisScale scale = AxisScale::kLinear;
  double lo = 0;  // data range
  double hi = 1;
  double pixel_lo = 0;  // pixel of lo
  double pixel_hi = 1;  // pixel of hi
  std::vector<double> ticks;

  [[nodiscard]] std::optional<double> map(double value) const;
};

// "Nice" ticks: about `target` round values (1, 2 or 5 times a power of ten)
// covering [lo, hi] on a linear axis, powers of ten or two on a log axis.
// Returns the ticks; `lo` and `hi` are widened to the outer ticks unless the
// corresponding `keep_*` is set. Never empty for a finite range.
std::vector<double> nice_ticks(AxisScale scale, double& lo, double& hi, int target = 6, bool keep_lo = false,
                               bool keep_hi = false);

// A tick or value label: "1K", "20µs", "0.25", "50%", "2×"; "" for NaN and
// infinities. Bytes take binary prefixes (1K = 1024) on a log2 axis, whose
// ticks are powers of two, and decimal ones (1K = 1000) on other axes, whose
// ticks are round decimal numbers.
std::string format_value(double value, AxisUnit unit, AxisScale scale = AxisScale::kLinear);

struct ChartSize {
  double width = 640;
  double height = 360;
};

struct Point {
  double x = 0;
  double y = 0;
};

struct LineSeries {
  std::string name{};
  // Drawn in the given order. Every point becomes markup: thin long series
  // first (a CDF reads well from a few hundred points).
  std::vector<Point> points{};
};

// A line chart. Two things it does so that no series goes unseen:
// - A series that runs past a fixed x.max is cut at the plot's edge and
//   labelled there with its name and the x it runs to (as a bar past the
//   value axis's end is labelled at the cut).
// - A series whose every point lies within a few pixels of an earlier
//   series's would hide it (or be hidden): such lines are drawn in turns, in
//   interleaved dashes of each one's colour, and the legend says which line
//   each one shares.
// A series with no points is left out, of the plot and of the legend.
struct LineChart {
  std::string title{};  // shown above the plot (wrapped to two lines at most) and used as the accessible name
  Axis x{};
  Axis y{};
  std::vector<LineSeries> series{};
  bool step = false;     // draw steps (hold y until the next x), as for a CDF
  bool markers = false;  // a dot at every point
  ChartSize size{};
  // Under the title (wrapped to two lines at most): what a reader must know
  // to read the chart right, such as where and why an axis was cut.
  std::string note{};
  // Moments to mark across the plot (a fault, its repair): a dashed vertical
  // line at x, labelled at the top. One outside the x axis is not drawn.
  struct Mark {
    double x = 0;
    std::string label{};
  };
  std::vector<Mark> marks{};
};

// Where to end a linear x axis so that a few series that run far longer than
// the others do not squash them into the first pixels: at the first gap in the
// series' end points (the x of their last point) where the next end is more
// than `gap` times the one before, widened to a round tick. Nothing when the
// ends have no such gap (or fewer than two series have points).
[[nodiscard]] std::optional<double> cut_x_axis_end(const std::vector<LineSeries>& series, double gap = 4);

// An error range drawn as a whisker over a bar (e.g. the spread of an
// estimate under different assumptions).
struct ValueRange {
  double low = 0;
  double high = 0;
};

struct BarSeries {
  std::string name{};
  std::vector<double> values{};                     // one per category; NaN leaves a gap
  std::vector<std::optional<ValueRange>> ranges{};  // empty, or one per category
};

struct BarChart {
  std::string title{};
  std::vector<std::string> categories{};
  std::vector<BarSeries> series{};  // grouped side by side within a category
  Axis value_axis{};                // linear only (bars start at zero)
  bool horizontal = false;          // categories down the left, bars to the right
  // Print each bar's value at its end. A bar past a fixed axis end is cut
  // there with a break mark; its label sits at the cut and carries the axis's
  // unit (from `unit`, else from a bracketed unit ending the title, as in
  // "completion [us]"; a time prints as one: "63ms").
  bool value_labels = false;
  ChartSize size{};
};

struct StackedBarChart {
  std::string title{};
  std::vector<std::string> categories{};
  // Each series is one segment kind (e.g. "compute", "exposed comm"), one value
  // per category, stacked in series order. Negative and NaN values add nothing.
  std::vector<BarSeries> series{};  // ranges are ignored
  Axis value_axis{};
  bool horizontal = false;
  bool value_labels = false;  // print each stack's total at its end
  ChartSize size{};
};

// Where things land: exposed for tests and for callers that annotate charts.
struct LineLayout {
  PlotRect plot;
  AxisMap x;
  AxisMap y;
  // Per series: the index of the earlier series whose line it shares (every
  // point within a few pixels of that one's), or npos.
  std::vector<std::size_t> shares_line_with;
};
struct BarLayout {
  PlotRect plot;
  AxisMap value;
  double band = 0;       // pixels per category along the category axis
  double bar_width = 0;  // thickness of one bar
  // The centre of the bar of `series` in `category` along the category axis.
  [[nodiscard]] double bar_center(std::size_t category, std::size_t series, std::size_t series_count) const;
  bool horizontal = false;
  // Value labels: their font size, and whether they stand on end (rotated a
  // quarter turn, reading upwards) because side by side they would touch.
  double label_font = 10;
  bool vertical_labels = false;
};

LineLayout layout_of(const LineChart& chart);
BarLayout layout_of(const BarChart& chart);
BarLayout layout_of(const StackedBarChart& chart);

std::string render_svg(const LineChart& chart, const SeriesColors& colors = {});
std::string render_svg(const BarChart& chart, const SeriesColors& colors = {});
std::string render_svg(const StackedBarChart& chart, const SeriesColors& colors = {});

}  // namespace rdmasim
