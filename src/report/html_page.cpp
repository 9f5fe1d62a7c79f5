#include "report/html_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "report/svg_chart.h"

namespace rdmasim {
namespace {

// Clean, printable and readable: numbers right-aligned in tabular digits,
// table headers that stay in view while a long table scrolls, charts that
// shrink with the window, highlights that do not rely on colour alone.
constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #222; line-height: 1.5;
       font-family: "DejaVu Sans", Verdana, Arial, sans-serif; font-size: 15px; }
header, nav.toc, main { max-width: 1240px; margin: 0 auto; padding: 0 24px; }
h1 { font-size: 1.8em; margin: 1.2em 0 0.4em; }
h2 { font-size: 1.35em; margin: 2em 0 0.6em; padding-bottom: 0.2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.1em; margin: 1.6em 0 0.5em; }
p, ul { max-width: 46em; }
nav.toc { margin-top: 1em; }
nav.toc h2 { font-size: 1em; margin: 0; border: none; text-transform: uppercase; letter-spacing: 0.05em; color: #555; }
nav.toc ol { margin: 0.2em 0; padding-left: 1.5em; }
a { color: #0060a0; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
/* A table wider than the page (many fabrics) scrolls on its own, not the page. */
div.table-wrap { overflow-x: auto; max-width: 100%; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.4em; }
th, td { padding: 0.3em 0.75em; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; background: #f2f2f2; border-bottom: 2px solid #bbb; }
tbody tr:nth-child(even) { background: #fafafa; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { background: #d9efe3; font-weight: bold; }
td.worst { background: #fbe2d0; font-style: italic; }
td.muted { color: #888; }
td.strong { font-weight: bold; }
span.cite { font-size: 0.78em; color: #777; }
figure { margin: 1.4em 0; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #555; margin-top: 0.3em; max-width: 46em; }
pre { background: #f5f5f5; padding: 0.6em 0.9em; overflow-x: auto; font-size: 0.88em;
      font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
@media print {
  body { font-size: 10.5pt; }
  header, nav.toc, main { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  thead th { position: static; }
  div.table-wrap { overflow: visible; }
  h2, h3 { break-after: avoid; }
  figure, table, pre { break-inside: avoid; }
}
)css";

// Nothing may be loaded from anywhere: a second line of defence behind
// generating no references at all (a violation shows as a console error).
constexpr std::string_view kPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

std::string class_name(std::string_view requested) {
  std::string out;
  for (char c : requested) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') out += c;
  }
  return out;
}

// "12", "-3.5 µs", "+4%", "≈40", "~2", ".5", "<1": a number first.
bool starts_with_number(std::string_view s) {
  for (std::string_view prefix : {"≈", "~", "−", "-", "+", "<", ">", "≤", "≥"}) {
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  if (!s.empty() && s[0] == '.') s.remove_prefix(1);
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0]));
}

// Whether `s` (between square brackets) is a citation: dotted ids such as
// "ib-ndr.latency.baseline.p50_us" or "low:a.b high:c.d", separated by
// spaces or " / ". A unit ("[us]") or a range ("[1, 2]") is not.
bool is_citation(std::string_view s) {
  if (s.empty() || s.find('.') == std::string_view::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("._-:/@+ ").find(c) != std::string_view::npos;
  });
}

// Escaped text with each citation set as a reference (small and grey, so the
// sentence reads first; the ids stay for whoever looks them up).
std::string with_citations(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('[', at);
    const std::size_t close = open == std::string_view::npos ? open : text.find(']', open);
    if (close == std::string_view::npos) break;
    if (!is_citation(text.substr(open + 1, close - open - 1))) {
      out += xml_escape(text.substr(at, open + 1 - at));
      at = open + 1;
      continue;
    }
    out += xml_escape(text.substr(at, open - at));
    out += "<span class=\"cite\">" + xml_escape(text.substr(open, close + 1 - open)) + "</span>";
    at = close + 1;
  }
  return out + xml_escape(text.substr(std::min(at, text.size())));
}

// The page's own text in a paragraph: escaped, citations marked, line breaks kept.
std::string text_with_breaks(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    out += with_citations(
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    out += "<br>";
    start = nl + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  const auto it =
      std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
      });
  return it != haystack.end();
}

}  // namespace

HtmlPage::HtmlPage(std::string title) : title_(std::move(title)) {}

std::string HtmlPage::unique_id(std::string_view text) const {
  std::string slug;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      slug += static_cast<char>(std::tolower(u));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty() || !std::isalpha(static_cast<unsigned char>(slug[0]))) slug = "s-" + slug;
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  const auto taken = [this](const std::string& id) {
    return id == "contents" ||
           std::any_of(headings_.begin(), headings_.end(), [&](const Heading& h) { return h.id == id; });
  };
  std::string id = slug;
  for (int n = 2; taken(id); ++n) id = fmt::format("{}-{}", slug, n);
  return id;
}

void HtmlPage::open_heading(int level, std::string_view text) {
  // Close what is open at this level or deeper, then open the new one.
  for (; open_level_ >= level; --open_level_) body_ += "</section>\n";
  if (level == 3 && open_level_ < 2) {  // a subsection before any section: it opens an untitled one
    body_ += "<section>\n";
    open_level_ = 2;
  }
  Heading h{level, std::string(text), unique_id(text)};
  body_ += fmt::format("<section id=\"{}\">\n<h{}>{}</h{}>\n", h.id, level, xml_escape(text), level);
  headings_.push_back(std::move(h));
  open_level_ = level;
}

void HtmlPage::section(std::string_view heading) { open_heading(2, heading); }
void HtmlPage::subsection(std::string_view heading) { open_heading(3, heading); }

void HtmlPage::paragraph(std::string_view text) {
  (open_level_ == 1 ? intro_ : body_) += fmt::format("<p>{}</p>\n", text_with_breaks(text));
}

void HtmlPage::paragraph(std::string_view strong, std::string_view text) {
  (open_level_ == 1 ? intro_ : body_) +=
      fmt::format("<p><strong>{}</strong>{}</p>\n", xml_escape(strong), text_with_breaks(text));
}

void HtmlPage::bullets(const std::vector<std::string>& items) {
  if (items.empty()) return;
  std::string& out = open_level_ == 1 ? intro_ : body_;
  out += "<ul>\n";
  for (const auto& item : items) out += fmt::format("<li>{}</li>\n", xml_escape(item));
  out += "</ul>\n";
}

void HtmlPage::preformatted(std::string_view text) {
  (open_level_ == 1 ? intro_ : body_) += fmt::format("<pre>{}</pre>\n", xml_escape(text));
}

void HtmlPage::table(const Table& table) {
  std::size_t columns = table.header.size();
  for (const auto& row : table.rows) columns = std::max(columns, row.size());
  if (columns == 0) return;
  std::vector<bool> numeric(columns, false);
  for (std::size_t c = 0; c < columns; ++c) {
    std::vector<std::string_view> cells;
    for (const auto& row : table.rows)
      if (c < row.size()) cells.emplace_back(row[c].text);
    numeric[c] = numeric_column(cells);
  }
  std::string out = "<div class=\"table-wrap\"><table>\n";
  if (!table.caption.empty()) out += fmt::format("<caption>{}</caption>\n", xml_escape(table.caption));
  if (!table.header.empty()) {
    out += "<thead><tr>";
    for (std::size_t c = 0; c < columns; ++c) {
      const std::string_view text = c < table.header.size() ? std::string_view(table.header[c]) : "";
      out += fmt::format("<th scope=\"col\"{}>{}</th>", numeric[c] ? " class=\"num\"" : "", xml_escape(text));
    }
    out += "</tr></thead>\n";
  }
  out += "<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < columns; ++c) {
      std::string classes = numeric[c] ? "num" : "";
      std::string_view text;
      if (c < row.size()) {
        text = row[c].text;
        const std::string extra = class_name(row[c].css_class);
        if (!extra.empty()) classes += (classes.empty() ? "" : " ") + extra;
      }
      out += fmt::format("<td{}>{}</td>", classes.empty() ? "" : fmt::format(" class=\"{}\"", classes),
                         with_citations(text));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
  (open_level_ == 1 ? intro_ : body_) += out;
}

void HtmlPage::chart(std::string_view svg, std::string_view caption) {
  const std::string_view markup = trim(svg);
  const bool one_svg =
      markup.substr(0, 5) == "<svg " && markup.size() >= 6 && markup.substr(markup.size() - 6) == "</svg>";
  if (!one_svg || contains_ci(markup, "<script") || contains_ci(markup, "href") ||
      contains_ci(markup, "<foreignObject") || contains_ci(markup, "<image") || contains_ci(markup, "url(")) {
    throw std::invalid_argument("HtmlPage::chart: expected one <svg> element from render_svg()");
  }
  std::string out = "<figure>\n";
  out += markup;
  out += '\n';
  if (!caption.empty()) out += fmt::format("<figcaption>{}</figcaption>\n", text_with_breaks(caption));
  out += "</figure>\n";
  (open_level_ == 1 ? intro_ : body_) += out;
  ++charts_;
}

std::string HtmlPage::id_of(std::string_view heading) const {
  for (const auto& h : headings_) {
    if (h.text == heading) return h.id;
  }
  return "";
}

std::string HtmlPage::render() const {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
      kPolicy, xml_escape(title_), kStyle, xml_escape(title_));
  out += intro_;
  out += "</header>\n";
  if (!headings_.empty()) {
    out += "<nav class=\"toc\" aria-labelledby=\"contents\">\n<h2 id=\"contents\">Contents</h2>\n<ol>\n";
    int level = 2;  // the list level open
    bool first = true;
    for (const auto& h : headings_) {
      if (h.level > level) {
        out += first ? "<li>\n<ol>\n" : "\n<ol>\n";  // first: a subsection before any section
      } else if (h.level < level) {
        out += "</li>\n</ol>\n</li>\n";
      } else if (!first) {
        out += "</li>\n";
      }
      level = h.level;
      first = false;
      out += fmt::format("<li><a href=\"#{}\">{}</a>", h.id, xml_escape(h.text));
    }
    out += "</li>\n";
    if (level == 3) out += "</ol>\n</li>\n";
    out += "</ol>\n</nav>\n";
  }
  out += "<main>\n";
  out += body_;
  for (int l = open_level_; l > 1; --l) out += "</section>\n";
  out += "</main>\n</body>\n</html>\n";
  return out;
}

bool numeric_column(const std::vector<std::string_view>& cells) {
  bool any = false;
  for (std::string_view cell : cells) {
    const std::string_view t = trim(cell);
    if (t.empty()) continue;
    if (!starts_with_number(t)) return false;
    any = true;
  }
  return any;
}

}  // namespace rdmasim
