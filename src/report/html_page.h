// One self-contained HTML document for report.html: inline CSS, a table of
// contents built from the section headings, paragraphs, tables and inline SVG
// charts (report/svg_chart.h). Nothing outside the file is referenced: no
// fonts, scripts, style sheets or images, and a Content-Security-Policy that
// forbids loading any, so the page opens offline and looks the same
// everywhere. It has no script at all. Every piece of text is escaped.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmasim {

struct TableCell {
  TableCell(std::string text_in, std::string css_class_in = {})  // NOLINT: implicit on purpose
      : text(std::move(text_in)), css_class(std::move(css_class_in)) {}
  TableCell(const char* text_in) : text(text_in) {}  // NOLINT: implicit on purpose

  std::string text;
  // "" or a class the page styles: "best" (bold on green), "worst" (italic
  // on orange), "muted" (grey), "strong" (bold: a total). Characters other than letters, digits, '-'
  // and '_' are dropped.
  std::string css_class;
};

// Columns whose body cells all start with a number ("12", "-3.5 µs", "≈40%")
// are right-aligned with tabular digits.
struct Table {
  std::string caption{};
  std::vector<std::string> header{};
  std::vector<std::vector<TableCell>> rows{};  // short rows are padded with empty cells
};

// Whether a column of these cells reads as numbers, and is right-aligned: some
// cell is not blank and every such cell starts with a number. The Markdown
// copy of a table aligns its columns by the same rule.
[[nodiscard]] bool numeric_column(const std::vector<std::string_view>& cells);

class HtmlPage {
 public:
  explicit HtmlPage(std::string title);

  // A new top-level section (<h2>), listed in the table of contents. Content
  // added before the first section goes between the title and the contents.
  void section(std::string_view heading);
  // A subsection (<h3>) of the current section, listed under it.
  void subsection(std::string_view heading);
  void paragraph(std::string_view text);
  // A paragraph whose opening words are set in bold (a verdict, a lead-in),
  // then `text`.
  void paragraph(std::string_view strong, std::string_view text);
  void bullets(const std::vector<std::string>& items);
  void preformatted(std::string_view text);  // commands, configuration excerpts
  void table(const Table& table);
  // `svg` is markup from render_svg(); throws std::invalid_argument for
  // anything that is not one <svg> element without scripts or links.
  void chart(std::string_view svg, std::string_view caption = {});

  // The id a heading got (for links between sections), "" if none has that text.
  [[nodiscard]] std::string id_of(std::string_view heading) const;
  [[nodiscard]] std::size_t chart_count() const { return charts_; }

  [[nodiscard]] std::string render() const;

 private:
  struct Heading {
    int level;  // 2 or 3
    std::string text;
    std::string id;
  };

  void open_heading(int level, std::string_view text);
  [[nodiscard]] std::string unique_id(std::string_view text) const;

  std::string title_;
  std::string intro_;  // content before the first section
  std::string body_;   // the sections
  std::vector<Heading> headings_;
  int open_level_ = 1;  // 1: no section open, 2: a section, 3: a subsection within one
  std::size_t charts_ = 0;
};

}  // namespace rdmasim
