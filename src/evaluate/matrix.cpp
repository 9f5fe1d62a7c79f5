#include "evaluate/matrix.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "config/error.h"
#include "config/scenario.h"
#include "report/atomic_file.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/thread_pool.h"

namespace rdmasim {

std::string cell_dir(const std::string& out_dir, const EvalCell& c) {
  return (std::filesystem::path(out_dir) / "cells" / c.id).string();
}

namespace {

namespace fs = std::filesystem;

constexpr const char* kMarker = "cell.json";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A finished cell of an earlier run with the same scenario by the same
// build of rdmasim, or null. Another build may model the same scenario
// differently, so its results are not taken for this one's.
nlohmann::ordered_json reusable(const fs::path& dir, const EvalCell& c, const std::string& build) {
  std::error_code ec;
  if (!fs::exists(dir / kMarker, ec) || read_text(dir / "scenario.yaml") != c.scenario) return nullptr;
  try {
    const auto marker = nlohmann::ordered_json::parse(read_text(dir / kMarker));
    if (build == "unknown" || !marker.is_object() || marker.value("build", std::string()) != build)
      return nullptr;
    return nlohmann::ordered_json::parse(read_text(dir / "results.json"));
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // damaged by hand: run it again
  }
}

std::string incident_of(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "incident.csv", ec) ? read_text(dir / "incident.csv") : std::string();
}

// Copies a finished cell's folder from `from` into `dir`, its marker last so
// that a copy cut short is not taken for a finished cell.
void copy_cell(const fs::path& from, const fs::path& dir) {
  fs::create_directories(dir);
  fs::remove(dir / kMarker);
  for (const auto& e : fs::directory_iterator(from))
    if (e.is_regular_file() && e.path().filename() != kMarker)
      fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  fs::copy_file(from / kMarker, dir / kMarker, fs::copy_options::overwrite_existing);
}

CellOutcome run_cell(const EvalCell& c, const fs::path& dir, const std::vector<std::string>& reuse_from,
                     const std::string& build) {
  CellOutcome o;
  if (reusable(dir, c, build).is_null())
    for (const std::string& other : reuse_from) {
      const fs::path from = cell_dir(other, c);
      if (reusable(from, c, build).is_null()) continue;
      try {
        copy_cell(from, dir);
      } catch (const fs::filesystem_error&) {
        continue;  // not copied: run it here
      }
      break;
    }
  if (auto r = reusable(dir, c, build); !r.is_null()) {
    o.results = std::move(r);
    o.incident_csv = incident_of(dir);
    o.ok = o.results.value("invariants", nlohmann::ordered_json::object()).value("ok", false);
    if (!o.ok) o.error = "invariant violated (see results.json)";
    return o;
  }
  o.ran = true;
  std::error_code ec;
  fs::remove(dir / kMarker, ec);  // a half-redone cell must not look finished
  fs::create_directories(dir, ec);
  const std::string scenario_path = (dir / "scenario.yaml").string();
  write_file_atomic(scenario_path, c.scenario);
  try {
    // Named relative to the evaluation's folder, so results.json does not
    // depend on where that folder is.
    Experiment e(load_scenario_text(c.scenario, "cells/" + c.id + "/scenario.yaml"));
    e.run();
    write_outputs(e, dir.string());
    o.results = results_json(e);
    o.incident_csv = incident_of(dir);
    o.ok = e.invariant_error().empty();
    if (!o.ok) o.error = e.invariant_error();
  } catch (const std::exception& err) {
    o.error = err.what();
    return o;  // no marker: a later run tries again
  }
  nlohmann::ordered_json marker{{"cell", c.id}, {"ok", o.ok}, {"error", o.error}, {"build", build}};
  write_file_atomic((dir / kMarker).string(), marker.dump(2) + "\n");
  return o;
}

}  // namespace

namespace {

std::string hash_executable() {
  // FNV-1a over the running executable's bytes: any change to the code
  // changes it.
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "unknown";
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t h = 0xcbf29ce484222325ULL;
  std::vector<char> buf(size_t{1} << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<size_t>(in.gcount());
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * kPrime;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

std::string simulator_build() {
  // The executable does not change under a running process: read it once
  // (a sweep runs a matrix per point; a sanitizer build is ~100 MiB).
  static const std::string build = hash_executable();
  return build;
}

std::vector<CellOutcome> run_matrix(const std::vector<EvalCell>& cells, const std::string& out_dir, int jobs,
                                    const std::function<void(const MatrixProgress&)>& on_cell,
                                    const std::atomic<bool>* interrupt,
                                    const std::vector<std::string>& reuse_from) {
  std::vector<CellOutcome> out(cells.size());
  const std::string build = simulator_build();
  std::mutex mu;
  MatrixProgress progress;
  progress.total = cells.size();
  ThreadPool(jobs).for_each(cells.size(), [&](size_t i) {
    if (interrupt != nullptr && interrupt->load()) {
      out[i].error = "interrupted";
    } else {
      out[i] = run_cell(cells[i], cell_dir(out_dir, cells[i]), reuse_from, build);
    }
    std::lock_guard<std::mutex> lock(mu);
    ++progress.done;
    if (!out[i].ran && out[i].error != "interrupted") ++progress.reused;
    if (!out[i].ok) ++progress.failed;
    if (on_cell) on_cell(progress);
  });
  return out;
}

}  // namespace rdmasim
