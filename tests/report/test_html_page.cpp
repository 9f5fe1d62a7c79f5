// The self-contained HTML page of report.html: nothing outside the file is
// referenced, text is escaped, the markup it generates is balanced, and a
// sample page (one chart of each kind) can be written for tools/browser-check
// (ctest report-browser-sample).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "report/html_page.h"
#include "report/svg_chart.h"
#include "support/count.h"

namespace rdmasim {
namespace {

using testing::count;

// Every element opened is closed, in order. Void elements (meta, br) and
// self-closing SVG elements ("/>") open nothing; the style sheet is skipped.
// Returns "" when balanced, else what went wrong.
std::string unbalanced_tags(const std::string& html) {
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = html.find('<', at)) != std::string::npos) {
    if (html.compare(at, 2, "<!") == 0) {
      at = html.find('>', at);
      continue;
    }
    const std::size_t end = html.find('>', at);
    if (end == std::string::npos) return "unterminated tag";
    const std::string tag = html.substr(at + 1, end - at - 1);
    at = end + 1;
    const bool closing = tag[0] == '/';
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" \n/", closing ? 1 : 0) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else if (tag.back() != '/' && name != "meta" && name != "br") {
      open.push_back(name);
      if (name == "style") {  // CSS is no markup: jump to its end
        at = html.find("</style>", at);
        if (at == std::string::npos) return "unclosed style";
      }
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

// A page with one chart of each kind and every other kind of content.
HtmlPage sample_page() {
  const SeriesColors colors({"lossy RoCE (DCQCN)", "lossless RoCE (PFC)", "InfiniBand", "ideal"});
  HtmlPage page("rdmasim evaluate: sample report");
  page.paragraph("A sample of every part the report toolkit draws. The numbers are made up.");

  page.section("Latency");
  LineChart cdf{.title = "RPC latency CDF",
                .x = Axis{.title = "latency", .scale = AxisScale::kLog10, .unit = AxisUnit::kSeconds},
                .y = Axis{.title = "fraction of RPCs", .min = 0, .max = 1},
                .step = true};
  for (const auto& [name, base, tail] :
       {std::tuple{"lossy RoCE (DCQCN)", 4e-6, 3.0}, std::tuple{"lossless RoCE (PFC)", 3.5e-6, 1.6},
        std::tuple{"ideal", 3e-6, 0.4}}) {
    LineSeries s{name, {}};
    for (int i = 0; i <= 200; ++i) {
      const double f = i / 200.0;
      s.points.push_back({base * (1 + tail * -std::log(1.0 - f * 0.995)), f});
    }
    cdf.series.push_back(s);
  }
  page.chart(render_svg(cdf, colors), "Fraction of RPCs finished within a latency (log scale).");

  page.subsection("Slowdown by flow size");
  LineChart slowdown{
      .title = "p99 slowdown by flow size",
      .x = Axis{.title = "flow size (bytes)", .scale = AxisScale::kLog2, .unit = AxisUnit::kBytes},
      .y = Axis{.title = "p99 slowdown", .scale = AxisScale::kLog10, .unit = AxisUnit::kTimes},
      .markers = true};
  for (const auto& [name, k] : {std::pair{"lossy RoCE (DCQCN)", 30.0}, std::pair{"InfiniBand", 8.0}}) {
    LineSeries s{name, {}};
    for (int e = 10; e <= 28; e += 2) s.points.push_back({std::ldexp(1.0, e), 1 + k / (1 + (e - 10) * 0.6)});
    slowdown.series.push_back(s);
  }
  page.chart(render_svg(slowdown, colors));

  page.section("Collectives");
  LineChart busbw{
      .title = "all-reduce bus bandwidth",
      .x = Axis{.title = "message size (bytes)", .scale = AxisScale::kLog2, .unit = AxisUnit::kBytes},
      .y = Axis{.title = "busbw (GB/s)", .include_zero = true},
      .markers = true};
  for (const auto& [name, peak, half] :
       {std::tuple{"lossless RoCE (PFC)", 45.0, 4e6}, std::tuple{"InfiniBand", 48.0, 2e6}}) {
    LineSeries s{name, {}};
    for (int e = 10; e <= 30; ++e) {
      const double size = std::ldexp(1.0, e);
      s.points.push_back({size, peak * size / (size + half)});
    }
    busbw.series.push_back(s);
  }
  page.chart(render_svg(busbw, colors), "Bus bandwidth as nccl-tests reports it.");
  page.table(Table{.caption = "busbw at 1 GiB",
                   .header = {"fabric", "busbw (GB/s)", "vs ideal"},
                   .rows = {{"InfiniBand", TableCell("47.9", "best"), "99.8%"},
                            {"lossless RoCE (PFC)", "44.8", "93.3%"},
                            {"lossy RoCE (DCQCN)", TableCell("31.2", "worst"), "65.0%"},
                            {"ideal", "48.0", TableCell("—", "muted")}}});

  page.section("Training");
  StackedBarChart breakdown{.title = "iteration time breakdown",
                            .categories = {"lossy RoCE (DCQCN)", "lossless RoCE (PFC)", "InfiniBand"},
                            .series = {{"compute", {0.180, 0.180, 0.180}, {}},
                                       {"exposed communication", {0.062, 0.031, 0.024}, {}}},
                            .value_axis = Axis{.title = "time per iteration", .unit = AxisUnit::kSeconds},
                            .value_labels = true};
  page.chart(render_svg(breakdown, colors));

  page.section("Recovery");
  LineChart recovery{.title = "throughput around a link failure at 5 ms",
                     .x = Axis{.title = "time", .unit = AxisUnit::kSeconds},
                     .y = Axis{.title = "goodput (Gb/s)", .include_zero = true}};
  for (const auto& [name, dip] : {std::pair{"lossy RoCE (DCQCN)", 2.5e-3}, std::pair{"InfiniBand", 0.6e-3}}) {
    LineSeries s{name, {}};
    for (int i = 0; i <= 100; ++i) {
      const double t = i * 1e-4;
      const double g =
          t < 5e-3 ? 390 : (t < 5e-3 + dip ? 120 : 390 - 200 * std::exp(-(t - 5e-3 - dip) / 5e-4));
      s.points.push_back({t, g});
    }
    recovery.series.push_back(s);
  }
  page.chart(render_svg(recovery, colors));

  page.section("Cost");
  StackedBarChart cost{.title = "cost per GPU over 5 years",
                       .categories = {"lossy RoCE (DCQCN)", "lossless RoCE (PFC)", "InfiniBand"},
                       .series = {{"switches", {2100, 2100, 3300}, {}},
                                  {"NICs and optics", {1900, 1900, 2600}, {}},
                                  {"power (5 y)", {700, 720, 650}, {}}},
                       .value_axis = Axis{.title = "US$ per GPU"},
                       .horizontal = true,
                       .value_labels = true};
  page.chart(render_svg(cost, colors));
  BarChart jct{.title = "job completion time with assumption ranges",
               .categories = {"GPT 7B", "GPT 70B"},
               .series = {{"lossy RoCE (DCQCN)", {41, 120}, {ValueRange{36, 49}, ValueRange{104, 141}}},
                          {"InfiniBand", {37, 104}, {ValueRange{35, 40}, ValueRange{99, 112}}}},
               .value_axis = Axis{.title = "hours"},
               .value_labels = true};
  page.chart(render_svg(jct, colors), "Whiskers: the range over the cost and failure-rate assumptions.");
  page.bullets({"capex: list prices of 2024", "opex: $0.10 per kWh"});
  page.preformatted("rdmasim evaluate --out out/eval");
  return page;
}

TEST(HtmlPage, ReferencesNothingOutsideTheFile) {
  std::string html = sample_page().render();
  // The SVG namespace names no resource; nothing else may look like an address.
  for (std::size_t at; (at = html.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;) {
    html.erase(at, 34);
  }
  for (const char* bad : {"http://", "https://", "src=", "url(", "@import", "<script", "<link", "<img",
                          "<iframe", "<object", "<embed", "//fonts", "file:"}) {
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  }
  // Links only jump within the page.
  for (auto at = html.find("href=\""); at != std::string::npos; at = html.find("href=\"", at + 1)) {
    EXPECT_EQ(html[at + 6], '#') << html.substr(at, 40);
  }
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
}

TEST(HtmlPage, GeneratedMarkupIsBalanced) {
  const std::string html = sample_page().render();
  EXPECT_EQ(unbalanced_tags(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(count(html, "<figure>"), 7u);
  EXPECT_EQ(sample_page().chart_count(), 7u);

  // Subsections before any section, and pages without any headings, too.
  HtmlPage odd("odd");
  odd.subsection("early");
  odd.paragraph("x");
  odd.section("later");
  odd.subsection("a");
  odd.subsection("b");
  EXPECT_EQ(unbalanced_tags(odd.render()), "");
  HtmlPage bare("bare");
  bare.paragraph("only text");
  bare.table(Table{});
  EXPECT_EQ(unbalanced_tags(bare.render()), "");
  EXPECT_EQ(bare.render().find("<nav"), std::string::npos);
}

TEST(HtmlPage, EscapesAllText) {
  const std::string evil = R"(<b onclick="x">&amp;</b>)";
  const std::string escaped = "&lt;b onclick=&quot;x&quot;&gt;&amp;amp;&lt;/b&gt;";
  HtmlPage page(evil);
  page.section(evil);
  page.paragraph(evil);
  page.bullets({evil});
  page.preformatted(evil);
  page.table(Table{.caption = evil, .header = {evil}, .rows = {{TableCell(evil, "best\" onclick=\"y")}}});
  const std::string html = page.render();
  EXPECT_EQ(html.find("<b "), std::string::npos);
  EXPECT_EQ(html.find("onclick=\""), std::string::npos);
  EXPECT_GE(count(html, escaped),
            9u);  // title twice, heading twice (and TOC), paragraph, list, pre, table x3
  EXPECT_NE(html.find(R"(<td class="bestonclicky">)"), std::string::npos);
  EXPECT_EQ(unbalanced_tags(html), "");
}

TEST(HtmlPage, NumericColumnsAlignRight) {
  rdmasim::HtmlPage page("t");
  page.table(Table{.header = {"name", "value", "mixed"},
                   .rows = {{"a", "1.5 µs", "3"}, {"b", "−2", "n/a"}, {"c", "≈40%", ""}, {"d", "", "7"}}});
  const std::string html = page.render();
  EXPECT_NE(html.find(R"(<th scope="col" class="num">value</th>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<th scope="col">name</th>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<th scope="col">mixed</th>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<td class="num">1.5 µs</td>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<td class="num">≈40%</td>)"), std::string::npos);
}

TEST(HtmlPage, ContentsLinkToUniqueIds) {
  rdmasim::HtmlPage page("t");
  page.section("Latency & tails");
  page.subsection("p99");
  page.section("Latency & tails");
  page.section("2024 cost");
  const std::string html = page.render();
  EXPECT_EQ(page.id_of("Latency & tails"), "latency-tails");
  EXPECT_EQ(page.id_of("2024 cost"), "s-2024-cost");
  EXPECT_NE(html.find(R"(<a href="#latency-tails-2">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<section id="latency-tails-2">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<li><a href="#latency-tails">Latency &amp; tails</a>
<ol>
<li><a href="#p99">p99</a></li>
</ol>
</li>)"),
            std::string::npos)
      << html;
}

TEST(HtmlPage, ChartTakesOnlySvgMarkup) {
  rdmasim::HtmlPage page("t");
  EXPECT_THROW(page.chart("<p>no</p>"), std::invalid_argument);
  EXPECT_THROW(page.chart("<svg ><script>alert(1)</script></svg>"), std::invalid_argument);
  EXPECT_THROW(page.chart(R"(<svg ><a href="https://example.com">x</a></svg>)"), std::invalid_argument);
  EXPECT_NO_THROW(page.chart(render_svg(LineChart{})));
  EXPECT_EQ(page.chart_count(), 1u);
}

// Writes the sample page to $RDMASIM_SAMPLE_REPORT for ctest report-browser-sample,
// which opens it in headless chromium (tools/browser-check --min-svgs 7).
TEST(HtmlPage, WritesSampleReport) {
  const char* path = std::getenv("RDMASIM_SAMPLE_REPORT");
  if (path == nullptr || *path == '\0') GTEST_SKIP() << "RDMASIM_SAMPLE_REPORT is not set";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out) << path;
  out << sample_page().render();
  out.close();
  ASSERT_TRUE(out) << path;
}

}  // namespace
}  // namespace rdmasim

// A column is right-aligned when every cell with text starts with a number;
// blanks do not count either way, and a column of blanks is not numeric.
TEST(HtmlPage, NumericColumnIsEveryNonBlankCellANumber) {
  EXPECT_TRUE(rdmasim::numeric_column({"12", " -3.5 us", "", "≈40%", ".5"}));
  EXPECT_FALSE(rdmasim::numeric_column({"12", "partly supported"}));
  EXPECT_FALSE(rdmasim::numeric_column({"", "  "}));
  EXPECT_FALSE(rdmasim::numeric_column({}));
}

// A paragraph's bold lead-in is set in <strong>, escaped like the rest.
TEST(HtmlPage, AParagraphCanOpenInBold) {
  rdmasim::HtmlPage page("t");
  page.section("s");
  page.paragraph("Recommendation: a<b", ", with the highest score.");
  const std::string html = page.render();
  EXPECT_NE(html.find("<p><strong>Recommendation: a&lt;b</strong>, with the highest score.</p>"),
            std::string::npos)
      << html;
}

// A citation of figure ids ("[fabric.workload.condition.metric ...]") is set
// as a small grey reference, in paragraphs and table cells alike, so the
// sentence reads first; a unit or a list in brackets is left as it is.
TEST(HtmlPage, CitationsAreSetAsReferences) {
  rdmasim::HtmlPage page("t");
  page.section("s");
  page.paragraph("ib-ndr 1.993 us [ib-ndr.latency.baseline.p50_us low:a.b] in [us], over [1, 2] & [x");
  page.table(rdmasim::Table{{}, {"v"}, {{"5 GB/s [f.w.c.busbw_GBps]"}}});
  const std::string html = page.render();
  EXPECT_NE(
      html.find("ib-ndr 1.993 us <span class=\"cite\">[ib-ndr.latency.baseline.p50_us low:a.b]</span> in "
                "[us], over [1, 2] &amp; [x</p>"),
      std::string::npos)
      << html;
  EXPECT_NE(html.find("5 GB/s <span class=\"cite\">[f.w.c.busbw_GBps]</span></td>"), std::string::npos)
      << html;
}
