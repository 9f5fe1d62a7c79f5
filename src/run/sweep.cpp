#include "run/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "config/cfg_node.h"
#include "config/error.h"
#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/thread_pool.h"

namespace rdmasim {
namespace {

std::vector<std::string> cell_sets(const SweepSpec& spec, const SweepCell& c) {
  std::vector<std::string> sets = spec.sets;
  sets.insert(sets.end(), c.sets.begin(), c.sets.end());
  if (c.seed >= 0) sets.push_back(spec.target->seed_set(c.seed));
  return sets;
}

// A number from results.json, or empty when the run has no such figure.
std::string figure(const nlohmann::ordered_json& j, std::initializer_list<const char*> path) {
  const nlohmann::ordered_json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return "";
    at = &(*at)[k];
  }
  if (at->is_number_integer()) return std::to_string(at->get<long long>());
  if (at->is_number()) return fmt::format("{:.6g}", at->get<double>());
  if (at->is_boolean()) return at->get<bool>() ? "true" : "false";
  return "";
}

// A scenario at each point, run as `rdmasim run --set ...` runs it.
class ScenarioSweep final : public SweepTarget {
 public:
  explicit ScenarioSweep(std::string path) : path_(std::move(path)) {}

  [[nodiscard]] const char* kind() const override { return "scenario"; }
  [[nodiscard]] std::string seed_set(long long seed) const override { return "seed=" + std::to_string(seed); }
  void check(const std::vector<std::string>& sets) const override {
    // A cell keeps its results.json in memory for sweep.json and sweep.csv
    // and writes no run outputs: an output key, in the file or in a cell's
    // settings, would be read and do nothing.
    const char* why =
        "has no effect in a sweep, which writes only sweep.json and sweep.csv (run one cell with `rdmasim "
        "run --set ...` for its outputs)";
    for (const std::string& s : sets)
      if (s.rfind("output", 0) == 0 && (s.size() == 6 || s[6] == '.' || s[6] == '=' || s[6] == '['))
        throw std::invalid_argument("'" + s.substr(0, s.find('=')) + "' " + why);
    if (const CfgNode root = CfgNode::load_file(path_); root.has("output"))
      throw std::invalid_argument(root.error("output", why).what());
    (void)load_scenario_file(path_, sets);
  }
  [[nodiscard]] long long file_seed(const std::vector<std::string>& sets) const override {
    return static_cast<long long>(load_scenario_file(path_, sets).seed);
  }
  [[nodiscard]] bool parallel_within_point() const override { return false; }

  void run(SweepCell& c, const std::vector<std::string>& sets, size_t /*index*/, int /*threads*/,
           const std::function<void(size_t, size_t)>& /*inner*/,
           const std::atomic<bool>* interrupt) const override {
    Experiment e(load_scenario_file(path_, sets), 0, interrupt);
    e.run({}, interrupt);
    if (e.interrupted())
      throw std::runtime_error(fmt::format("interrupted at {:.3f} us of simulated time", e.sim().now().us()));
    c.results = results_json(e);
    c.ok = e.invariant_error().empty() && e.deadlock() == nullptr;
    if (!e.invariant_error().empty()) c.error = "simulation invariant violated: " + e.invariant_error();
    if (e.deadlock() != nullptr) c.error = "deadlock: cyclic buffer dependency " + e.deadlock()->text();
  }

  [[nodiscard]] std::vector<std::string> csv_columns() const override {
    return {
        "simulated_end_ns",    "flows_completed", "flows_total",        "fct_mean_ns",           "fct_p99_ns",
        "slowdown_p50",        "slowdown_p99",    "goodput_gbps",       "retransmitted_packets", "timeouts",
        "switch_buffer_drops", "pfc_xoff_frames", "collective_time_us", "collective_busbw_GBps"};
  }

  [[nodiscard]] std::vector<std::vector<std::string>> csv_rows(const SweepCell& c) const override {
    const auto& j = c.results;
    std::vector<std::string> row;
    std::string end = figure(j, {"run", "simulated_end_ps"});
    if (!end.empty()) end = fmt::format("{:.3f}", std::stod(end) / 1e3);
    row.push_back(end);
    for (auto path : {std::initializer_list<const char*>{"flows", "completed"},
                      {"flows", "total"},
                      {"flows", "fct_ns", "mean"},
                      {"flows", "fct_ns", "p99"},
                      {"flows", "slowdown", "p50"},
                      {"flows", "slowdown", "p99"},
                      {"throughput", "goodput_gbps"},
                      {"network", "retransmitted_packets"},
                      {"network", "timeouts"},
                      {"network", "switch_buffer_drops"},
                      {"network", "pfc_xoff_frames"}})
      row.push_back(figure(j, path));
    // The first collective's figures, when the scenario has one.
    std::string ct, cb;
    if (j.is_object() && j.contains("workload_results"))
      for (const auto& w : j["workload_results"])
        if (w.value("type", "") == "collective") {
          ct = figure(w, {"time_us"});
          cb = figure(w, {"busbw_GBps"});
          break;
        }
    row.push_back(ct);
    row.push_back(cb);
    return {row};
  }

 private:
  std::string path_;
};

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::shared_ptr<const SweepTarget> scenario_sweep_target(const std::string& path) {
  return std::make_shared<ScenarioSweep>(path);
}

std::pair<std::string, std::vector<std::string>> parse_grid_axis(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("'" + text +
                                "': expected key=value1,value2,... e.g. fabric.ecn.kmin=100KB,400KB");
  std::pair<std::string, std::vector<std::string>> axis{text.substr(0, eq), {}};
  // A comma inside brackets or double quotes belongs to the value: a list
  // ([3,4]) or a string that holds commas ("LL,Simple", NCCL_PROTO's list).
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (size_t i = eq + 1; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '[' || c == '{')) ++depth;
    if (!quoted && (c == ']' || c == '}')) --depth;
    if (c == ',' && depth == 0 && (!quoted || i == text.size())) {
      if (cur.empty()) throw std::invalid_argument("'" + text + "': an empty value");
      // Two cells with the same settings would only run the same thing twice.
      if (std::find(axis.second.begin(), axis.second.end(), cur) != axis.second.end())
        throw std::invalid_argument(fmt::format("'{}': the value {} is given twice", text, cur));
      axis.second.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted) throw std::invalid_argument("'" + text + "': an unclosed double quote");
  if (depth != 0) throw std::invalid_argument("'" + text + "': unbalanced brackets");
  return axis;
}

std::vector<SweepCell> sweep_cells(const SweepSpec& spec) {
  std::vector<SweepCell> cells(1);
  for (const auto& [key, values] : spec.grid) {
    std::vector<SweepCell> next;
    for (const SweepCell& c : cells)
      for (const std::string& v : values) {
        SweepCell n = c;
        std::string set = key;
        set += '=';
        set += v;
        n.sets.push_back(std::move(set));
        next.push_back(n);
      }
    cells = std::move(next);
  }
  if (spec.seeds.empty()) return cells;
  std::vector<SweepCell> seeded;
  for (const SweepCell& c : cells)
    for (long long s : spec.seeds) {
      SweepCell n = c;
      n.seed = s;
      seeded.push_back(n);
    }
  return seeded;
}

void check_sweep(const SweepSpec& spec) {
  for (const SweepCell& c : sweep_cells(spec)) {
    try {
      spec.target->check(cell_sets(spec, c));
    } catch (const InputError& e) {
      std::string at;
      for (const std::string& s : c.sets) at += (at.empty() ? "" : " ") + s;
      throw std::invalid_argument("the cell " + at + ": " + e.what());
    }
  }
}

std::vector<SweepCell> run_sweep(const SweepSpec& spec, int jobs, int rank, int ranks,
                                 const std::function<void(const SweepProgress&)>& on_progress,
                                 const std::atomic<bool>* interrupt) {
  std::vector<SweepCell> cells = sweep_cells(spec);
  const size_t mine =
      cells.size() > static_cast<size_t>(rank)
          ? (cells.size() - static_cast<size_t>(rank) + ranks - 1) / static_cast<size_t>(ranks)
          : 0;
  const bool inside = spec.target->parallel_within_point();
  std::mutex mu;
  SweepProgress progress;
  progress.total = mine;
  const auto inner = [&](size_t done, size_t total) {
    const std::lock_guard<std::mutex> lock(mu);
    progress.inner_done = done;
    progress.inner_total = total;
    if (on_progress) on_progress(progress);
  };
  const auto run_one = [&](size_t k) {
    const size_t i = static_cast<size_t>(rank) + k * static_cast<size_t>(ranks);
    SweepCell& c = cells[i];
    try {
      // Before anything can fail or be interrupted, so that every row says
      // which seed reruns it.
      if (c.seed < 0) c.seed = spec.target->file_seed(cell_sets(spec, c));
      if (interrupt != nullptr && interrupt->load()) throw std::runtime_error(kSweepInterrupted);
      spec.target->run(c, cell_sets(spec, c), i, inside ? jobs : 1, inner, interrupt);
    } catch (const std::exception& err) {
      c.ok = false;
      c.error = err.what();
    }
    const std::lock_guard<std::mutex> lock(mu);
    ++progress.done;
    progress.failed += c.ok ? 0 : 1;
    progress.inner_done = progress.inner_total = 0;
    if (on_progress) on_progress(progress);
  };
  if (inside) {
    for (size_t k = 0; k < mine; ++k) run_one(k);
  } else {
    ThreadPool(jobs).for_each(mine, run_one);
  }
  return cells;
}

std::string sweep_share(const std::vector<SweepCell>& cells, int rank, int ranks) {
  nlohmann::ordered_json share = nlohmann::ordered_json::array();
  for (size_t i = static_cast<size_t>(rank); i < cells.size(); i += static_cast<size_t>(ranks)) {
    const SweepCell& c = cells[i];
    share.push_back(
        {{"cell", i}, {"seed", c.seed}, {"ok", c.ok}, {"error", c.error}, {"results", c.results}});
  }
  return share.dump();
}

void merge_sweep_share(std::vector<SweepCell>& cells, const std::string& share) {
  for (auto& r : nlohmann::ordered_json::parse(share)) {
    const auto i = r["cell"].get<size_t>();
    if (i >= cells.size()) throw std::runtime_error("sweep: a rank returned cell " + std::to_string(i));
    cells[i].seed = r["seed"].get<long long>();
    cells[i].ok = r["ok"].get<bool>();
    cells[i].error = r["error"].get<std::string>();
    cells[i].results = std::move(r["results"]);
  }
}

std::string sweep_json(const SweepSpec& spec, const std::vector<SweepCell>& cells) {
  nlohmann::ordered_json j;
  j["schema"] = "rdmasim.sweep/1";
  j[spec.target->kind()] = spec.file;
  j["set"] = spec.sets;
  nlohmann::ordered_json grid = nlohmann::ordered_json::object();
  for (const auto& [key, values] : spec.grid) grid[key] = values;
  j["grid"] = grid;
  j["seeds"] = spec.seeds;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < cells.size(); ++i) {
    const SweepCell& c = cells[i];
    nlohmann::ordered_json r;
    r["cell"] = i;
    r["set"] = c.sets;
    if (c.seed >= 0) r["seed"] = c.seed;
    r["status"] = c.ok ? "ok" : "failed";
    if (!c.error.empty()) r["error"] = c.error;
    if (!c.results.is_null()) r["results"] = c.results;
    rows.push_back(std::move(r));
  }
  j["cells"] = std::move(rows);
  return j.dump(2) + "\n";
}

std::string sweep_csv(const SweepSpec& spec, const std::vector<SweepCell>& cells) {
  std::string s = "cell";
  for (const auto& axis : spec.grid) s += "," + csv_field(axis.first);
  const std::vector<std::string> columns = spec.target->csv_columns();
  s += ",seed,status";
  for (const std::string& col : columns) s += "," + csv_field(col);
  s += ",error\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    const SweepCell& c = cells[i];
    std::string head = std::to_string(i);
    for (const std::string& set : c.sets) head += "," + csv_field(set.substr(set.find('=') + 1));
    const std::string seed = c.seed >= 0 ? std::to_string(c.seed) : "";
    head += "," + seed + "," + (c.ok ? "ok" : "failed");
    std::vector<std::vector<std::string>> rows = spec.target->csv_rows(c);
    if (rows.empty()) rows.emplace_back();
    for (std::vector<std::string>& row : rows) {
      row.resize(columns.size());  // a cell without results: empty fields
      s += head;
      for (const std::string& f : row) s += "," + csv_field(f);
      s += ',';
      s += csv_field(c.error);
      s += '\n';
    }
  }
  return s;
}

}  // namespace rdmasim
