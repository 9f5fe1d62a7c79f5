#include "evaluate/evaluation_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "evaluate/cells.h"
#include "evaluate/evaluation.h"
#include "evaluate/matrix.h"
#include "evaluate/report.h"
#include "evaluate/summary.h"
#include "report/atomic_file.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// A figure as sweep.json keeps it: NaN (not measured) is null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

class EvaluationSweep final : public SweepTarget {
 public:
  EvaluationSweep(std::string path, std::string out_dir) : path_(std::move(path)), out_(std::move(out_dir)) {}

  [[nodiscard]] const char* kind() const override { return "evaluation"; }
  // An evaluation averages over its seeds; a sweep's seed is one point's only seed.
  [[nodiscard]] std::string seed_set(long long seed) const override {
    return "seeds=[" + std::to_string(seed) + "]";
  }
  void check(const std::vector<std::string>& sets) const override {
    const Evaluation ev = load_evaluation_file(path_, sets);
    check_cells(ev, eval_cells(ev));
  }
  [[nodiscard]] long long file_seed(const std::vector<std::string>& /*sets*/) const override { return -1; }
  [[nodiscard]] bool parallel_within_point() const override { return true; }

  void run(SweepCell& c, const std::vector<std::string>& sets, size_t index, int threads,
           const std::function<void(size_t, size_t)>& inner,
           const std::atomic<bool>* interrupt) const override {
    const Evaluation ev = load_evaluation_file(path_, sets);
    const std::vector<EvalCell> cells = eval_cells(ev);
    const std::string dir = (fs::path(out_) / fmt::format("point-{}", index)).string();
    // Cells another point already simulated (the same scenario: a sweep of
    // weights or of costs changes none) are copied, not run again.
    std::vector<std::string> others;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out_, ec))
      if (e.is_directory(ec) && e.path().filename().string().rfind("point-", 0) == 0 &&
          e.path() != fs::path(dir))
        others.push_back(e.path().string());
    std::sort(others.begin(), others.end());
    const std::vector<CellOutcome> outcomes = run_matrix(
        cells, dir, threads, [&](const MatrixProgress& p) { inner(p.done, p.total); }, interrupt, others);
    // Its finished cells stay in `dir`; a later sweep point reuses them.
    if (interrupt != nullptr && interrupt->load())
      throw std::runtime_error("interrupted: the evaluation's finished cells are in " + dir);
    const EvalSummary summary = summarize(ev, cells, outcomes);
    const EvalReportInput in{ev, cells, outcomes, summary};
    write_file_atomic((fs::path(dir) / "evaluation.json").string(), evaluation_json(in).dump(2) + "\n");
    write_file_atomic((fs::path(dir) / "report.md").string(), report_markdown(in));
    write_file_atomic((fs::path(dir) / "report.html").string(), report_html(in));

    json r;
    r["dir"] = fmt::format("point-{}", index);
    r["cells"] = cells.size();
    r["recommendation"] = ev.fabrics[summary.best].name;
    json fabrics = json::array();
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      json fj;
      fj["name"] = ev.fabrics[f].name;
      fj["profile"] = ev.fabrics[f].profile;
      fj["total"] = number(summary.total[f]);
      json scores = json::object();
      for (const EvalScore& sc : summary.scores)
        scores[sc.criterion] = {{"value", number(sc.value[f])},
                                {"unit", sc.unit},
                                {"score", number(sc.score[f])},
                                {"weight", sc.weight}};
      fj["scores"] = std::move(scores);
      fabrics.push_back(std::move(fj));
    }
    r["fabrics"] = std::move(fabrics);
    r["failed_cells"] = summary.failed_cells;
    c.results = std::move(r);
    c.ok = summary.failed_cells.empty();
    if (!c.ok)
      c.error = fmt::format("{} of {} cells failed, first: {}", summary.failed_cells.size(), cells.size(),
                            summary.failed_cells.front());
  }

  // Per point and fabric: its total, whether it is the recommendation, and
  // each criterion's score (0..100, best 100; empty: not scored).
  [[nodiscard]] std::vector<std::string> csv_columns() const override {
    std::vector<std::string> cols = {"fabric", "profile", "total_score", "recommended"};
    for (const auto& [criterion, what] : eval_criteria()) cols.push_back(criterion + "_score");
    return cols;
  }

  [[nodiscard]] std::vector<std::vector<std::string>> csv_rows(const SweepCell& c) const override {
    std::vector<std::vector<std::string>> rows;
    if (!c.results.is_object() || !c.results.contains("fabrics")) return rows;
    const std::string best = c.results.value("recommendation", "");
    for (const json& f : c.results["fabrics"]) {
      const auto name = f["name"].get<std::string>();
      std::vector<std::string> row = {name, f["profile"].get<std::string>(), score_text(f["total"]),
                                      name == best ? "yes" : "no"};
      for (const auto& [criterion, what] : eval_criteria())
        row.push_back(f["scores"].contains(criterion) ? score_text(f["scores"][criterion]["score"]) : "");
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  static std::string score_text(const json& v) {
    return v.is_number() ? fmt::format("{:.2f}", v.get<double>()) : "";
  }

  std::string path_;
  std::string out_;
};

}  // namespace

std::shared_ptr<const SweepTarget> evaluation_sweep_target(const std::string& path,
                                                           const std::string& out_dir) {
  return std::make_shared<EvaluationSweep>(path, out_dir);
}

}  // namespace rdmasim
