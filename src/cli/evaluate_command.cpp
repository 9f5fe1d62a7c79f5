#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "cli/output_paths.h"
#include "cli/progress.h"
#include "config/error.h"
#include "evaluate/cells.h"
#include "evaluate/evaluation.h"
#include "evaluate/matrix.h"
#include "evaluate/report.h"
#include "evaluate/summary.h"
#include "report/atomic_file.h"

namespace rdmasim::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The evaluation an earlier run wrote into `dir`, and the file that names
// it: its evaluation.json, or, when a run stopped before writing that, the
// first cell scenario of another evaluation than `name` (else of `name`).
// Empty when no file names one.
std::pair<std::string, fs::path> held_evaluation(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  const fs::path report = dir / "evaluation.json";
  if (fs::is_regular_file(report, ec)) {
    const auto j = nlohmann::json::parse(read_text(report), nullptr, false);
    if (j.is_object() && j.contains("evaluation") && j["evaluation"].is_object() &&
        j["evaluation"].contains("name") && j["evaluation"]["name"].is_string())
      return {j["evaluation"]["name"].get<std::string>(), report};
  }
  std::pair<std::string, fs::path> held;
  for (const auto& e : fs::directory_iterator(dir / "cells", ec)) {
    const fs::path scenario = e.path() / "scenario.yaml";
    std::ifstream in(scenario, std::ios::binary);
    std::string first;
    if (!in || !std::getline(in, first)) continue;
    const std::string of = cell_scenario_evaluation(first);
    if (of.empty()) continue;
    if (of != name) return {of, scenario};
    if (held.first.empty()) held = {of, scenario};
  }
  return held;
}

// An evaluation writes into its own folder: a new one, or one an earlier run
// of the same evaluation wrote (then finished cells are reused: an
// interrupted run resumes, a changed one reruns what changed). Another
// evaluation's folder is refused rather than mixed into: its report would be
// overwritten and its cells left beside the new ones.
std::string check_eval_dir(const std::string& dir, const std::string& name) {
  std::error_code ec;
  if (!fs::exists(dir, ec) || fs::is_empty(dir, ec)) return {};
  if (!fs::is_directory(fs::path(dir) / "cells", ec))
    return "'" + dir + "' holds files that are not an evaluation's (no cells/ folder): choose another -o";
  const auto [held, source] = held_evaluation(dir, name);
  if (!held.empty() && held != name)
    return fmt::format(
        "'{}' holds the evaluation '{}' ({} names it), not '{}': expected a new folder or one an earlier run "
        "of '{}' wrote; choose another -o, or delete '{}' to start '{}' there",
        dir, held, source.string(), name, name, dir, name);
  return {};
}

std::string bar(const MatrixProgress& p, double seconds) {
  constexpr int kWidth = 30;
  const int filled = p.total == 0 ? kWidth : static_cast<int>(kWidth * p.done / p.total);
  return fmt::format("evaluate: [{}{}] {}/{} cells ({} reused, {} failed), {:.0f} s",
                     std::string(filled, '#'), std::string(kWidth - filled, '.'), p.done, p.total, p.reused,
                     p.failed, seconds);
}

}  // namespace

int evaluate_command(const EvaluateCli& o, const Context& ctx) {
  Evaluation ev;
  std::vector<EvalCell> cells;
  try {
    ev = o.builtin_text.empty() ? load_evaluation_file(o.file) : load_evaluation_text(o.builtin_text, o.file);
    cells = eval_cells(ev);
    check_cells(ev, cells);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  const std::string out = o.out_dir.empty() ? "out/" + ev.name : o.out_dir;
  if (std::string why = check_output_dir(out, !ctx.check_only);
      !why.empty() || !(why = check_eval_dir(out, ev.name)).empty()) {
    std::fprintf(stderr, "error: evaluate: -o/--out: %s\n", why.c_str());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;

  std::mutex stderr_mu;
  Progress progress(ctx.progress_every, o.quiet, stderr_mu);
  const bool tty = !o.quiet && isatty(STDERR_FILENO) != 0;
  MatrixProgress last;
  const std::vector<CellOutcome> outcomes = run_matrix(
      cells, out, o.jobs,
      [&](const MatrixProgress& p) {
        last = p;
        if (tty) {
          std::fprintf(stderr, "\r%s", bar(p, progress.seconds()).c_str());
          std::fflush(stderr);
        } else {
          progress.tick([&] { return bar(p, progress.seconds()); });
        }
      },
      ctx.interrupt);
  if (tty) std::fprintf(stderr, "\n");
  if (ctx.interrupt != nullptr && ctx.interrupt->load()) {
    std::fprintf(stderr,
                 "evaluate: interrupted with %zu of %zu cells finished; run the same command again to resume "
                 "(finished cells are reused)\n",
                 last.done - last.failed, last.total);
    return kExitInterrupted;
  }

  const EvalSummary summary = summarize(ev, cells, outcomes);
  const EvalReportInput in{ev, cells, outcomes, summary};
  try {
    write_file_atomic((fs::path(out) / "evaluation.json").string(), evaluation_json(in).dump(2) + "\n");
    write_file_atomic((fs::path(out) / "report.md").string(), report_markdown(in));
    write_file_atomic((fs::path(out) / "report.html").string(), report_html(in));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: evaluate: %s\n", e.what());
    return kExitFailure;
  }
  std::printf(
      "rdmasim evaluate %s: %zu cells (%zu simulated, %zu reused)\n\n%s\nrecommendation: %s\n\nreport: %s\n",
      ev.name.c_str(), cells.size(), cells.size() - last.reused, last.reused, headline_text(in).c_str(),
      ev.fabrics[summary.best].name.c_str(), (fs::path(out) / "report.html").string().c_str());
  if (!summary.failed_cells.empty()) {
    for (const auto& f : summary.failed_cells) std::fprintf(stderr, "error: cell %s\n", f.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace rdmasim::cli
