// The SVG chart toolkit of report.html: where values land in pixels, which
// ticks an axis gets, how labels read, and that bad input still gives valid,
// deterministic markup.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "report/svg_chart.h"
#include "support/count.h"

namespace rdmasim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string px(double v) { return fmt::format("{:.2f}", v); }

using testing::count;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Valid enough: one outer <svg>, every opened element closed, nothing that
// printed a NaN or an infinity.
void expect_clean_svg(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u) << svg.substr(0, 80);
  EXPECT_EQ(count(svg, "<svg "), count(svg, "</svg>"));
  EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
  EXPECT_EQ(count(svg, "<text "), count(svg, "</text>"));
  EXPECT_EQ(count(svg, "<title>"), count(svg, "</title>"));
  const std::string l = lower(svg);
  EXPECT_EQ(l.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(l.find("inf"), std::string::npos) << svg;
  EXPECT_NE(svg.find("viewBox=\"0 0 "), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\""), std::string::npos);
}

std::vector<double> ticks_of(AxisScale scale, double lo, double hi, double& out_lo, double& out_hi,
                             int target = 6) {
  out_lo = lo;
  out_hi = hi;
  return nice_ticks(scale, out_lo, out_hi, target);
}

TEST(SvgChart, EscapesXmlSpecialCharacters) {
  EXPECT_EQ(xml_escape(R"(a<b>&"c'd)"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(xml_escape("µs ≤ 5"), "µs ≤ 5");  // UTF-8 passes through
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz", 5)), "x\xEF\xBF\xBDy\tz");
}

TEST(SvgChart, LinearTicksAreNiceNumbers) {
  double lo = 0;
  double hi = 0;
  EXPECT_EQ(ticks_of(AxisScale::kLinear, 0.3, 9.2, lo, hi), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 10);
  const auto fractions = ticks_of(AxisScale::kLinear, 0, 1, lo, hi);
  ASSERT_EQ(fractions.size(), 6u);
  for (std::size_t i = 0; i < fractions.size(); ++i)
    EXPECT_NEAR(fractions[i], 0.2 * static_cast<double>(i), 1e-12);
  EXPECT_EQ(ticks_of(AxisScale::kLinear, 130, 870, lo, hi),
            (std::vector<double>{0, 200, 400, 600, 800, 1000}));
  EXPECT_EQ(ticks_of(AxisScale::kLinear, -35, 42, lo, hi), (std::vector<double>{-40, -20, 0, 20, 40, 60}));
}

TEST(SvgChart, FixedLimitsAreKept) {
  double lo = 0.05;
  double hi = 0.95;
  const auto ticks = nice_ticks(AxisScale::kLinear, lo, hi, 6, true, true);
  EXPECT_EQ(lo, 0.05);
  EXPECT_EQ(hi, 0.95);
  ASSERT_FALSE(ticks.empty());
  EXPECT_GE(ticks.front(), 0.05);
  EXPECT_LE(ticks.back(), 0.95);
}

TEST(SvgChart, LogTicksArePowers) {
  double lo = 0;
  double hi = 0;
  EXPECT_EQ(ticks_of(AxisScale::kLog10, 3, 4000, lo, hi), (std::vector<double>{1, 10, 100, 1000, 10000}));
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 10000);
  // 1 KiB to 1 GiB: 21 powers of two are too many, every second one keeps 1K, 1M and 1G.
  const auto sizes = ticks_of(AxisScale::kLog2, 1024, 1 << 30, lo, hi);
  ASSERT_EQ(sizes.size(), 11u);
  std::vector<std::string> labels;
  labels.reserve(sizes.size());
  for (double t : sizes) labels.push_back(format_value(t, AxisUnit::kBytes, AxisScale::kLog2));
  EXPECT_EQ(labels, (std::vector<std::string>{"1K", "4K", "16K", "64K", "256K", "1M", "4M", "16M", "64M",
                                              "256M", "1G"}));
  EXPECT_EQ(ticks_of(AxisScale::kLog2, 3, 60, lo, hi), (std::vector<double>{2, 4, 8, 16, 32, 64}));
}

TEST(SvgChart, BadRangesStillGiveTicks) {
  double lo = 0;
  double hi = 0;
  for (auto [a, b] :
       std::vector<std::pair<double, double>>{{kNaN, 1}, {5, 5}, {-kInf, kInf}, {0, 0}, {-1e308, 1e308}}) {
    for (AxisScale s : {AxisScale::kLinear, AxisScale::kLog10, AxisScale::kLog2}) {
      const auto ticks = ticks_of(s, a, b, lo, hi);
      EXPECT_FALSE(ticks.empty());
      EXPECT_TRUE(std::isfinite(lo) && std::isfinite(hi) && lo < hi) << a << " " << b;
      for (double t : ticks) EXPECT_TRUE(std::isfinite(t));
    }
  }
}

TEST(SvgChart, LabelsReadWithTheirUnit) {
  EXPECT_EQ(format_value(512, AxisUnit::kBytes, AxisScale::kLog2), "512");
  EXPECT_EQ(format_value(1536, AxisUnit::kBytes, AxisScale::kLog2), "1.5K");
  EXPECT_EQ(format_value(1 << 20, AxisUnit::kBytes, AxisScale::kLog2), "1M");
  EXPECT_EQ(format_value(1e6, AxisUnit::kBytes, AxisScale::kLog10), "1M");
  EXPECT_EQ(format_value(4e9, AxisUnit::kBytes), "4G");
  EXPECT_EQ(format_value(2e-5, AxisUnit::kSeconds), "20µs");
  EXPECT_EQ(format_value(1.5e-3, AxisUnit::kSeconds), "1.5ms");
  EXPECT_EQ(format_value(5e-7, AxisUnit::kSeconds), "500ns");
  EXPECT_EQ(format_value(2, AxisUnit::kSeconds), "2s");
  EXPECT_EQ(format_value(0, AxisUnit::kSeconds), "0");
  EXPECT_EQ(format_value(0.25, AxisUnit::kNone), "0.25");
  EXPECT_EQ(format_value(1500, AxisUnit::kNone), "1500");
  EXPECT_EQ(format_value(20000, AxisUnit::kNone), "20k");
  EXPECT_EQ(format_value(2.5e7, AxisUnit::kNone), "25M");
  EXPECT_EQ(format_value(-0.0, AxisUnit::kNone), "0");
  EXPECT_EQ(format_value(50, AxisUnit::kPercent), "50%");
  EXPECT_EQ(format_value(2.5, AxisUnit::kTimes), "2.5×");
  EXPECT_EQ(format_value(kNaN, AxisUnit::kNone), "");
  EXPECT_EQ(format_value(kInf, AxisUnit::kBytes), "");
}

TEST(SvgChart, LinearPointLandsOnItsPixel) {
  LineChart c;
  c.title = "one point";
  c.x = Axis{.title = "x", .min = 0, .max = 10};
  c.y = Axis{.title = "y", .min = 0, .max = 100};
  c.series = {{"s", {{5, 25}, {10, 100}}}};
  c.markers = true;
  const LineLayout l = layout_of(c);
  // The plot sits inside the chart with room for labels on the left and below.
  EXPECT_GT(l.plot.left, 20);
  EXPECT_GT(l.plot.top, 20);
  EXPECT_LT(l.plot.left + l.plot.width, c.size.width);
  EXPECT_LT(l.plot.top + l.plot.height, c.size.height - 20);
  const double x = l.plot.left + l.plot.width * 0.5;
  const double y = l.plot.top + l.plot.height * 0.75;
  EXPECT_DOUBLE_EQ(*l.x.map(5), x);
  EXPECT_DOUBLE_EQ(*l.y.map(25), y);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  EXPECT_NE(svg.find(fmt::format(R"(<circle cx="{}" cy="{}")", px(x), px(y))), std::string::npos) << svg;
  // The line runs from that point to the plot's top right corner.
  EXPECT_NE(svg.find(fmt::format(R"(points="{},{} {},{}")", px(x), px(y), px(l.plot.left + l.plot.width),
                                 px(l.plot.top))),
            std::string::npos);
}

TEST(SvgChart, LogPointLandsOnItsPixel) {
  LineChart c;
  c.x = Axis{.scale = AxisScale::kLog10, .min = 1, .max = 1000};
  c.y = Axis{.scale = AxisScale::kLog2, .min = 1, .max = 16};
  c.series = {{"s", {{10, 4}}}};
  const LineLayout l = layout_of(c);
  const double x = l.plot.left + l.plot.width / 3;
  const double y = l.plot.top + l.plot.height / 2;
  EXPECT_NEAR(*l.x.map(10), x, 1e-9);
  EXPECT_NEAR(*l.y.map(4), y, 1e-9);
  EXPECT_EQ(l.x.ticks, (std::vector<double>{1, 10, 100, 1000}));
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  // A lone point has no line to draw, so it gets a dot even without markers.
  EXPECT_NE(svg.find(fmt::format(R"(<circle cx="{}" cy="{}")", px(x), px(y))), std::string::npos) << svg;
}

TEST(SvgChart, StepLineHoldsUntilTheNextX) {
  LineChart c;
  c.x = Axis{.min = 0, .max = 4};
  c.y = Axis{.min = 0, .max = 1};
  c.step = true;
  c.series = {{"cdf", {{1, 0.5}, {3, 1}}}};
  const LineLayout l = layout_of(c);
  const auto x = [&](double v) { return px(*l.x.map(v)); };
  const auto y = [&](double v) { return px(*l.y.map(v)); };
  const std::string svg = render_svg(c);
  EXPECT_NE(svg.find(fmt::format(R"(points="{},{} {},{} {},{}")", x(1), y(0.5), x(3), y(0.5), x(3), y(1))),
            std::string::npos)
      << svg;
}

// A marked moment (a link going down) is a vertical line across the plot at
// its x, labelled; one past the x axis is left out rather than drawn on the
// plot's edge as if it happened there.
TEST(SvgChart, AMarkIsAVerticalLineAtItsX) {
  LineChart c;
  c.x = Axis{.min = 0, .max = 100};
  c.y = Axis{.min = 0, .max = 400};
  c.series = {{"ib", {{0, 400}, {50, 0}, {100, 400}}}};
  c.marks = {{20, "link down"}, {500, "link up"}};
  const LineLayout l = layout_of(c);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const std::string x = px(*l.x.map(20));
  EXPECT_NE(svg.find(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}")", x, px(l.plot.top), x,
                                 px(l.plot.top + l.plot.height))),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">link down</text>"), std::string::npos);
  EXPECT_EQ(svg.find("link up"), std::string::npos);  // at 500, past the axis's 100
}

TEST(SvgChart, ZerosOnLogAxisAreSkippedAndBreakTheLine) {
  LineChart c;
  c.x = Axis{.scale = AxisScale::kLog10};
  c.y = Axis{};
  c.series = {{"s", {{0, 1}, {1, 2}, {10, 3}, {-5, 4}, {100, 5}, {kNaN, 6}, {1000, kInf}}}};
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  // Two runs: 1..10 (a line) and 100 alone (a dot).
  EXPECT_EQ(count(svg, "<polyline"), 1u);
  EXPECT_EQ(count(svg, "<circle"), 1u);
  const LineLayout l = layout_of(c);
  EXPECT_EQ(l.x.lo, 1);  // the range ignores what the axis cannot show
  EXPECT_EQ(l.x.hi, 100);
}

TEST(SvgChart, EdgeCasesGiveValidMarkup) {
  std::vector<LineChart> lines(6);
  lines[1].series = {{"empty", {}}};
  lines[2].series = {{"one", {{3, 3}}}};
  lines[3].series = {{"flat", {{1, 7}, {2, 7}, {3, 7}}}};
  lines[4].series = {{"bad", {{kNaN, kNaN}, {kInf, 1}, {1, -kInf}}}};
  lines[5].x.scale = AxisScale::kLog2;
  lines[5].y.scale = AxisScale::kLog10;
  lines[5].series = {{"zeros", {{0, 0}, {0, 1}}}, {"", {{1, 1}}}};
  for (const auto& c : lines) {
    const std::string svg = render_svg(c);
    expect_clean_svg(svg);
  }
  EXPECT_NE(render_svg(lines[0]).find(">no data<"), std::string::npos);
  EXPECT_NE(render_svg(lines[4]).find(">no data<"), std::string::npos);
  EXPECT_EQ(render_svg(lines[3]).find(">no data<"), std::string::npos);

  BarChart empty_bars;
  expect_clean_svg(render_svg(empty_bars));
  BarChart bad_bars{.categories = {"a", "b", "c"},
                    .series = {{"s", {kNaN, kInf}, {ValueRange{kNaN, 1}}}, {"t", {0, 0, 0}, {}}},
                    .value_labels = true};
  expect_clean_svg(render_svg(bad_bars));
  bad_bars.horizontal = true;
  expect_clean_svg(render_svg(bad_bars));
  StackedBarChart stacked{.categories = {"a", "b"}, .series = {{"s", {-1, kNaN}, {}}}, .value_labels = true};
  expect_clean_svg(render_svg(stacked));
}

TEST(SvgChart, SameInputSameBytes) {
  const auto make = [] {
    LineChart c;
    c.title = "busbw";
    c.x = Axis{.title = "size", .scale = AxisScale::kLog2, .unit = AxisUnit::kBytes};
    c.y = Axis{.title = "GB/s", .include_zero = true};
    for (int e = 10; e <= 30; ++e) {
      const double size = std::ldexp(1.0, e);
      c.series.resize(2);
      c.series[0].name = "ring";
      c.series[1].name = "tree";
      c.series[0].points.push_back({size, 40 * size / (size + 1e6)});
      c.series[1].points.push_back({size, 35 * size / (size + 2e5)});
    }
    c.markers = true;
    return c;
  };
  const std::string a = render_svg(make());
  EXPECT_EQ(a, render_svg(make()));
  expect_clean_svg(a);
  EXPECT_NE(a.find(">1G<"), std::string::npos);
  EXPECT_NE(a.find(">1M<"), std::string::npos);
}

TEST(SvgChart, SeriesKeepTheirColourAcrossCharts) {
  const SeriesColors colors({"RoCE", "IB"});
  const std::vector<std::string> chart = {"IB", "other", "RoCE", "more"};
  EXPECT_EQ(colors.slot("RoCE", chart), 0u);
  EXPECT_EQ(colors.slot("IB", chart), 1u);
  EXPECT_EQ(colors.slot("other", chart), 2u);
  EXPECT_EQ(colors.slot("more", chart), 3u);
  EXPECT_EQ(SeriesColors::color(1), "#E69F00");
  EXPECT_EQ(SeriesColors::color(9), SeriesColors::color(1));
  EXPECT_EQ(SeriesColors::dash(1), "");
  EXPECT_NE(SeriesColors::dash(9), "");

  LineChart c;
  c.series = {{"IB", {{1, 1}, {2, 2}}}};
  EXPECT_NE(render_svg(c, colors).find(R"(stroke="#E69F00")"), std::string::npos);
  BarChart b{.categories = {"x"}, .series = {{"IB", {1}, {}}}};
  EXPECT_NE(render_svg(b, colors).find(R"(fill="#E69F00")"), std::string::npos);
}

TEST(SvgChart, TextIsEscapedEverywhere) {
  const std::string evil = R"(<script>alert("x")</script> & more)";
  LineChart c{
      .title = evil, .x = Axis{.title = evil}, .y = Axis{.title = evil}, .series = {{evil, {{1, 1}}}}};
  BarChart b{
      .title = evil, .categories = {evil}, .series = {{evil, {1}, {}}}, .value_axis = Axis{.title = evil}};
  for (const std::string& svg : {render_svg(c), render_svg(b)}) {
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    EXPECT_NE(svg.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"), std::string::npos);
    expect_clean_svg(svg);
  }
}

TEST(SvgChart, WhiskersSitOnTheirRange) {
  BarChart b{.categories = {"a", "b"},
             .series = {{"cost", {10, 20}, {std::nullopt, ValueRange{30, 15}}}},
             .value_axis = Axis{.min = 0, .max = 40}};
  const BarLayout l = layout_of(b);
  const double centre = l.bar_center(1, 0, 1);
  EXPECT_NEAR(centre, l.plot.left + l.plot.width * 0.75, 1e-9);  // the middle of the second of two bands
  const double low = *l.value.map(15);
  const double high = *l.value.map(30);
  EXPECT_NEAR(low, l.plot.top + l.plot.height * (1 - 15.0 / 40), 1e-9);
  const std::string svg = render_svg(b);
  expect_clean_svg(svg);
  EXPECT_EQ(count(svg, "class=\"whisker\""), 3u);  // one range: a stem and two caps
  EXPECT_NE(
      svg.find(fmt::format(R"(<line x1="{c}" y1="{lo}" x2="{c}" y2="{hi}" stroke="#444" class="whisker")",
                           fmt::arg("c", px(centre)), fmt::arg("lo", px(low)), fmt::arg("hi", px(high)))),
      std::string::npos)
      << svg;
  // The bar itself reaches from zero up to 20.
  EXPECT_NE(
      svg.find(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}")", px(centre - l.bar_width / 2),
                           px(*l.value.map(20)), px(l.bar_width), px(*l.value.map(0) - *l.value.map(20)))),
      std::string::npos);

  b.horizontal = true;
  const BarLayout h = layout_of(b);
  const double middle = h.bar_center(1, 0, 1);
  const std::string hsvg = render_svg(b);
  EXPECT_NE(
      hsvg.find(fmt::format(R"(<line x1="{lo}" y1="{c}" x2="{hi}" y2="{c}" stroke="#444" class="whisker")",
                            fmt::arg("c", px(middle)), fmt::arg("lo", px(*h.value.map(15))),
                            fmt::arg("hi", px(*h.value.map(30))))),
      std::string::npos)
      << hsvg;
}

TEST(SvgChart, GroupedBarsSitSideBySide) {
  BarChart b{.categories = {"a"}, .series = {{"x", {1}, {}}, {"y", {2}, {}}}, .value_axis = Axis{.max = 2}};
  const BarLayout l = layout_of(b);
  const double left = l.bar_center(0, 0, 2);
  const double right = l.bar_center(0, 1, 2);
  EXPECT_NEAR(right - left, l.bar_width, 1e-9);
  EXPECT_NEAR((left + right) / 2, l.plot.left + l.plot.width / 2, 1e-9);
}

// A bar past a fixed axis end is cut by the plot's clip; its value label
// sits at the cut, inside the chart, not off the canvas where the bar's own
// end would put it.
TEST(SvgChart, ABarPastTheAxisEndIsLabelledAtTheCut) {
  BarChart c{.categories = {"a", "b"},
             .series = {{"s", {5, 1000}, {}}},
             .value_axis = Axis{.min = 0, .max = 10},
             .value_labels = true};
  const BarLayout l = layout_of(c);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const std::string label =
      fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" class="value" font-size="10">1000</text>)",
                  px(l.bar_center(1, 0, 1)), px(*l.value.map(10) - 4));
  EXPECT_NE(svg.find(label), std::string::npos) << svg;
}

// Two lines on an x axis fixed at 2.5 s: "short" ends inside, "long" runs to 100 s.
LineChart cut_chart() {
  // Member by member: GCC 12 warns of a designated initializer's omitted y
  // axis (its title string) as maybe uninitialized, a false positive.
  LineChart c;
  c.x = Axis{.unit = AxisUnit::kSeconds, .min = 0, .max = 2.5};
  c.series = {{"short", {{0, 1}, {1, 2}, {2, 1}}}, {"long", {{0, 1}, {1, 1}, {100, 3}}}};
  return c;
}

// As a bar past the axis end: a line that runs past a fixed x.max is cut at
// the plot's edge and labelled there, just above where it leaves the plot,
// with its name and the x it runs to; a line that ends inside gets no label.
TEST(SvgChart, ALinePastTheAxisEndIsLabelledAtTheCut) {
  LineChart c = cut_chart();
  const LineLayout l = layout_of(c);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const double y_at_cut = 1 + 2 * (2.5 - 1) / (100 - 1);
  const std::string label = fmt::format(
      R"(<text x="{}" y="{}" text-anchor="end" class="cut" font-size="10.00" fill="{}" stroke="#fff")",
      px(l.plot.left + l.plot.width - 4), px(*l.y.map(y_at_cut) - 5), kChartPalette[1]);
  EXPECT_NE(svg.find(label), std::string::npos) << svg;
  EXPECT_NE(svg.find(">long → 100s</text>"), std::string::npos) << svg;
  EXPECT_EQ(count(svg, R"(class="cut")"), 1u) << svg;
  // Two lines leaving at the same height: their labels do not overlap.
  c.series[0].points.push_back({50, 3});
  const std::string both = render_svg(c);
  EXPECT_EQ(count(both, R"(class="cut")"), 2u) << both;
  EXPECT_NE(both.find(">short → 50s</text>"), std::string::npos) << both;
}

// The axis end that keeps short lines readable beside a straggler: the first
// gap of more than 4x between where the lines end, to a round tick; none
// when the ends are close.
TEST(SvgChart, TheXAxisIsCutAtTheFirstBigGapBetweenLineEnds) {
  const auto ends = [](const std::vector<double>& xs) {
    std::vector<LineSeries> s;
    s.reserve(xs.size());
    for (double x : xs) s.push_back({"", {{0, 1}, {x, 1}}});
    return s;
  };
  EXPECT_EQ(cut_x_axis_end(ends({80e-6, 90e-6, 0.2})), std::optional<double>(100e-6));
  EXPECT_EQ(cut_x_axis_end(ends({0.2, 5.9, 63, 200})), std::optional<double>(0.25));
  EXPECT_EQ(cut_x_axis_end(ends({4.2, 4.3, 4.5})), std::nullopt);
  EXPECT_EQ(cut_x_axis_end(ends({1000})), std::nullopt);
  EXPECT_EQ(cut_x_axis_end({}), std::nullopt);
}

// Lines on top of one another (the same points, or within a few pixels) would
// show only the last drawn: they take turns in dashes, each its own colour
// and place in the pattern, and the legend and description say which line
// each shares. A line a little further off is drawn as it is.
TEST(SvgChart, CoincidingLinesTakeTurnsAndTheLegendSaysSo) {
  const std::vector<Point> pts = {{0, 0}, {1, 10}, {2, 5}, {3, 0}};
  std::vector<Point> near = pts;
  near[1].y += 0.05;  // a fraction of a pixel
  std::vector<Point> apart = pts;
  apart[1].y -= 2;  // tens of pixels
  LineChart c{.series = {{"a", pts}, {"b", near}, {"c", apart}, {"d", pts}}};
  const LineLayout l = layout_of(c);
  EXPECT_EQ(l.shares_line_with, (std::vector<std::size_t>{std::string::npos, 0, std::string::npos, 0}));
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  // Three lines on one: a draws whole, b and d every third dash, in turn.
  EXPECT_NE(svg.find(fmt::format(R"(<g class="series" fill="none" stroke="{}" stroke-width="2">)",
                                 kChartPalette[0])),
            std::string::npos);
  EXPECT_NE(svg.find(fmt::format(R"(stroke="{}" stroke-width="2" stroke-dasharray="8.00 16.00" )"
                                 R"(stroke-dashoffset="16.00">)",
                                 kChartPalette[1])),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(fmt::format(R"(stroke="{}" stroke-width="2" stroke-dasharray="8.00 16.00" )"
                                 R"(stroke-dashoffset="8.00">)",
                                 kChartPalette[3])),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(fmt::format(R"(<g class="series" fill="none" stroke="{}" stroke-width="2">)",
                                 kChartPalette[2])),
            std::string::npos);
  EXPECT_EQ(count(svg, ">same line as a</text>"), 2u) << svg;
  EXPECT_NE(svg.find("b: same line as a. d: same line as a</desc>"), std::string::npos) << svg;
  // The legend's notes take room: the plot is narrower than without them.
  LineChart apart_only{.series = {{"a", pts}, {"b", apart}, {"c", apart}, {"d", pts}}};
  apart_only.series[2].points[2].y += 3;
  apart_only.series[3].points[2].y -= 3;
  EXPECT_EQ(count(render_svg(apart_only), "same line"), 0u);
  EXPECT_LT(l.plot.width, layout_of(apart_only).plot.width);
}

// A note under the title says what the reader must know (here, that an axis
// was cut); it wraps to at most two lines and is in the description too.
TEST(SvgChart, ANoteSitsUnderTheTitleAndInTheDescription) {
  LineChart c{.title = "t", .series = {{"a", {{0, 1}, {1, 2}}}}, .note = "Time axis cut at 1s"};
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  EXPECT_NE(
      svg.find(
          R"(text-anchor="middle" class="note" font-size="11.00" fill="#555">Time axis cut at 1s</text>)"),
      std::string::npos)
      << svg;
  EXPECT_NE(svg.find("Series: a. Time axis cut at 1s</desc>"), std::string::npos) << svg;
  // Below the note, not over it.
  EXPECT_GT(layout_of(c).plot.top, layout_of(LineChart{.title = "t", .series = c.series}).plot.top);
  c.note = std::string(400, 'x') + " " + std::string(20, 'y') + " " + std::string(20, 'z');
  EXPECT_EQ(count(render_svg(c), R"(class="note")"), 2u);
}

struct LabelBox {
  std::string text;
  double x0, y0, x1, y1;
};

// The boxes the value labels of a bar chart take, measured a little wider
// (0.62 em a glyph) than the renderer guesses, so touching shows as overlap.
std::vector<LabelBox> value_label_boxes(const std::string& svg) {
  std::vector<LabelBox> out;
  const std::regex upright(
      R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="middle" class="value" font-size="([0-9.]+)">([^<]*)</text>)re");
  const std::regex on_end(
      R"re(<text transform="translate\(([-0-9.]+) ([-0-9.]+)\) rotate\(-90\)" text-anchor="start" class="value" font-size="([0-9.]+)">([^<]*)</text>)re");
  const auto width = [](const std::string& t, double f) {
    const auto chars = std::count_if(t.begin(), t.end(), [](char c) { return (c & 0xC0) != 0x80; });
    return static_cast<double>(chars) * 0.62 * f;
  };
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), upright); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), f = std::stod((*it)[3]);
    const double w = width((*it)[4], f);
    out.push_back({(*it)[4], x - w / 2, y - 0.8 * f, x + w / 2, y + 0.2 * f});
  }
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), on_end); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), f = std::stod((*it)[3]);
    const double w = width((*it)[4], f);
    out.push_back({(*it)[4], x - 0.8 * f, y - w, x + 0.2 * f, y});
  }
  return out;
}

// As the evaluate report draws a metric per condition: five fabrics side by
// side in each of six conditions, values of similar height and long labels.
// Side by side the labels ran together ("174.4177.5194.8"); now they stand on
// end, no two touch, and the plot makes room for them under the title.
TEST(SvgChart, GroupedBarLabelsNeverTouch) {
  // The first condition has the long tails past the axis cut (labelled with
  // their unit at the cut), the others bars of much the same height.
  BarChart c{.title = "t",
             .categories = {"link flap", "baseline", "incast", "congested", "lossy", "mixed"},
             .value_axis = Axis{.title = "completion [us]", .max = 800},
             .value_labels = true,
             .size = {900, 380}};
  const std::vector<double> cut = {63000, 63100, 241000, 3465, 5952};
  const std::vector<double> base = {174.4, 177.5, 194.8, 181.25, 176.3};
  for (std::size_t f = 0; f < base.size(); ++f) {
    BarSeries s{"fabric-" + std::to_string(f), {cut[f]}, {}};
    for (std::size_t k = 1; k < c.categories.size(); ++k)
      s.values.push_back(base[f] + static_cast<double>(k));
    c.series.push_back(s);
  }
  const BarLayout l = layout_of(c);
  EXPECT_TRUE(l.vertical_labels);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const auto boxes = value_label_boxes(svg);
  ASSERT_EQ(boxes.size(), 30u) << svg;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const LabelBox& a = boxes[i];
    EXPECT_GT(a.y0, 22 + 4) << a.text << " runs into the title";
    for (std::size_t j = 0; j < i; ++j) {
      const LabelBox& b = boxes[j];
      const bool overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
      EXPECT_FALSE(overlap) << a.text << " [" << a.x0 << ", " << a.x1 << "] x [" << a.y0 << ", " << a.y1
                            << "] touches " << b.text << " [" << b.x0 << ", " << b.x1 << "] x [" << b.y0
                            << ", " << b.y1 << "]";
    }
  }
  for (const char* text : {">63ms<", ">63.1ms<", ">241ms<", ">3.46ms<", ">5.95ms<"})
    EXPECT_EQ(count(svg, text), 1u) << text;
  // The first fabric's bar in the second condition: its label stands on end
  // just above the bar, centred on it.
  const double centre = l.bar_center(1, 0, 5);
  EXPECT_NE(svg.find(fmt::format(R"re(<text transform="translate({} {}) rotate(-90)" text-anchor="start" )re"
                                 R"(class="value" font-size="{}">175.4</text>)",
                                 px(centre + 0.35 * l.label_font), px(*l.value.map(175.4) - 4),
                                 fmt::format("{:g}", l.label_font))),
            std::string::npos)
      << svg;

  // Labels with room beside one another keep reading across.
  BarChart few{.categories = {"a", "b"}, .series = {{"s", {174.4, 177.5}, {}}}, .value_labels = true};
  EXPECT_FALSE(layout_of(few).vertical_labels);
  EXPECT_EQ(count(render_svg(few), "rotate(-90)\" text-anchor=\"start\" class=\"value\""), 0u);
}

// The demo's incast chart: five fabrics' completion per condition, the
// link-down bars cut at 1214 us. Their labels ("63ms", "200ms", "5.95ms")
// are wider in DejaVu Sans than a flat 0.6 em a glyph guesses ("m" alone is
// 0.97 em): side by side they ran into "200ms5.95ms", so they stand on end.
TEST(SvgChart, CutLabelsOfNeighbouringBarsStandOnEndWhenTheirGlyphsWouldTouch) {
  BarChart c{.categories = {"baseline", "load-50", "link-down"},
             .series = {{"ib-ndr", {174.4, 303.4, 201.5}, {}},
                        {"rocev2-dcqcn-400g", {177.5, 552.5, 63000}, {}},
                        {"rocev2-hpcc-400g", {194.8, 533.8, 63000}, {}},
                        {"iwarp-dctcp-400g", {192.9, 290.3, 200000}, {}},
                        {"uet-nscc", {200.8, 318.5, 5950}, {}}},
             .value_axis = Axis{.title = "completion [us]", .max = 1214},
             .value_labels = true,
             .size = {900, 380}};
  EXPECT_TRUE(layout_of(c).vertical_labels);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  EXPECT_NE(svg.find(">200ms</text>"), std::string::npos) << svg;
}

// A bar past the axis cut gets a break mark (two white slashes just inside
// the plot's top) and its label carries the axis's unit: a time in us reads
// as a time, as on the time axes ("63ms", not "63k").
TEST(SvgChart, ACutBarHasABreakMarkAndItsLabelCarriesTheUnit) {
  BarChart c{.categories = {"a", "b"},
             .series = {{"s", {5, 63000}, {}}},
             .value_axis = Axis{.title = "completion [us]", .min = 0, .max = 10},
             .value_labels = true};
  const BarLayout l = layout_of(c);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const double centre = l.bar_center(1, 0, 1);
  const double half = l.bar_width / 2;
  const double slant = std::min(4.0, l.bar_width * 0.2);
  EXPECT_EQ(count(svg, R"(class="cut-mark")"), 2u) << svg;
  for (double d : {7.0, 12.0}) {
    const double y = l.plot.top + d;
    EXPECT_NE(svg.find(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#fff" class="cut-mark")",
                                   px(centre - half), px(y + slant), px(centre + half), px(y - slant))),
              std::string::npos)
        << svg;
  }
  // The mark is drawn over the bar, outside the plot's clip.
  EXPECT_GT(svg.find(R"(class="cut-mark")"), svg.find("</svg>"));
  EXPECT_NE(svg.find(">63ms</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(class="value" font-size="10">5</text>)"), std::string::npos) << svg;  // not cut

  const auto cut_label = [&](const Axis& axis, double v) {
    BarChart b = c;
    b.value_axis = axis;
    b.value_axis.max = 10;
    b.series[0].values[1] = v;
    const std::string out = render_svg(b);
    const auto end = out.rfind("</text>", out.find("<rect", out.find(R"(class="value")")));
    const auto start = out.rfind('>', end) + 1;
    return out.substr(start, end - start);
  };
  EXPECT_EQ(cut_label(Axis{.title = "iteration [ms]"}, 2500), "2.5s");
  EXPECT_EQ(cut_label(Axis{.title = "drops [pkts]"}, 241000), "241k pkts");
  EXPECT_EQ(cut_label(Axis{.title = "slowdown p99"}, 63000), "63k");
  EXPECT_EQ(cut_label(Axis{.unit = AxisUnit::kSeconds}, 0.5), "500ms");
  // No bar past the axis end, no mark.
  c.series[0].values[1] = 9;
  EXPECT_EQ(count(render_svg(c), "cut-mark"), 0u);
}

// A label at the cut sits on its own line: a white box behind it, drawn
// after every line, keeps the lines from crossing its text.
TEST(SvgChart, ACutLabelHasAWhiteBoxOverTheLines) {
  const LineChart c = cut_chart();
  const LineLayout l = layout_of(c);
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const double base = *l.y.map(1 + 2 * (2.5 - 1) / (100 - 1)) - 5;
  const double right = l.plot.left + l.plot.width - 4;
  // "long → 100s" in DejaVu Sans ems: l, o n g, space, →, space, 1 0 0, s.
  const double w = (0.31 + 3 * 0.62 + 0.31 + 0.64 + 0.31 + 3 * 0.62 + 0.62) * 10;
  const std::string box = fmt::format(
      R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#fff" class="cut-bg" fill-opacity="0.9")",
      px(right - w - 3), px(base - 9.5), px(w + 6), px(13));
  const auto at = svg.find(box);
  ASSERT_NE(at, std::string::npos) << svg;
  EXPECT_GT(at, svg.rfind("<polyline"));
  EXPECT_LT(at, svg.find(">long → 100s</text>"));
  EXPECT_EQ(count(svg, R"(class="cut-bg")"), 1u);
}

// A title too long for the chart wraps to a second line, whole, and the plot
// moves down to make room; it is no longer cut to "…".
TEST(SvgChart, ALongTitleWrapsToTwoLines) {
  const std::string first = "permutation: throughput delivered to hosts over time, link flap, 4 ToRs";
  const std::string second = "(link down at 1ms, back at 3ms)";
  const std::vector<LineSeries> series = {{"a", {{0, 1}, {1, 2}}}};
  LineChart c{.title = first + " " + second, .series = series};
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  const std::string bold = R"(" text-anchor="middle" font-size="14.00" font-weight="bold">)";
  EXPECT_NE(svg.find(R"(<text x="320.00" y="22.00)" + bold + first + "</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(<text x="320.00" y="39.00)" + bold + second + "</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("…"), std::string::npos);
  EXPECT_DOUBLE_EQ(layout_of(c).plot.top,
                   layout_of(LineChart{.title = "short", .series = series}).plot.top + 17);
  // Bar charts too.
  BarChart b{.title = c.title, .categories = {"x"}, .series = {{"s", {1}, {}}}};
  const std::string bars = render_svg(b);
  EXPECT_NE(bars.find(R"(<text x="320.00" y="39.00)" + bold + second + "</text>"), std::string::npos) << bars;
  EXPECT_DOUBLE_EQ(
      layout_of(b).plot.top,
      layout_of(BarChart{.title = "short", .categories = {"x"}, .series = b.series}).plot.top + 17);
}

// A series with no points has nothing to show: no legend entry, no group in
// the plot, no mention in the description; the others keep their places.
TEST(SvgChart, ASeriesWithNoPointsIsLeftOut) {
  LineChart c{.series = {{"a", {{0, 1}, {1, 2}}}, {"ghost", {}}, {"b", {{0, 1}, {1, 2}}}}};
  const std::string svg = render_svg(c);
  expect_clean_svg(svg);
  EXPECT_EQ(svg.find("ghost"), std::string::npos) << svg;
  EXPECT_NE(svg.find("Series: a, b. b: same line as a</desc>"), std::string::npos) << svg;
  EXPECT_EQ(count(svg, R"(<g class="series")"), 2u);
  // The legend lists a and b in consecutive rows.
  const LineLayout l = layout_of(c);
  EXPECT_NE(svg.find(fmt::format(R"(<text x="{}" y="{}" text-anchor="start">b</text>)",
                                 px(l.plot.left + l.plot.width + 14 + 24), px(l.plot.top + 8 + 18 + 4))),
            std::string::npos)
      << svg;
  // b shares a's line: the layout still numbers the series as given.
  EXPECT_EQ(l.shares_line_with, (std::vector<std::size_t>{std::string::npos, std::string::npos, 0}));
  EXPECT_EQ(l.plot.width, layout_of(LineChart{.series = {c.series[0], c.series[2]}}).plot.width);
}

TEST(SvgChart, StackedSegmentsStartWhereTheLastEnded) {
  StackedBarChart s{.categories = {"step"},
                    .series = {{"compute", {6}, {}}, {"exposed comm", {4}, {}}},
                    .value_axis = Axis{.min = 0, .max = 10},
                    .value_labels = true};
  const BarLayout l = layout_of(s);
  const double centre = l.bar_center(0, 0, 1);
  const std::string svg = render_svg(s);
  expect_clean_svg(svg);
  // "exposed comm" spans 6..10.
  EXPECT_NE(svg.find(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}")",
                                 px(centre - l.bar_width / 2), px(*l.value.map(10)), px(l.bar_width),
                                 px(*l.value.map(6) - *l.value.map(10)), kChartPalette[1])),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(R"(font-size="10">10</text>)"), std::string::npos);  // the stack's total
}

}  // namespace
}  // namespace rdmasim
