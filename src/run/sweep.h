// `rdmasim sweep`: one scenario over a grid of settings x seeds. Every cell
// is the scenario with its `--set` overrides (any key, list items included)
// and its seed, run as `rdmasim run` would run it; cells run side by side on
// a thread pool and the merged table comes out in cell order, so it is the
// same bytes whatever the number of threads. A cell that fails to run is
// reported in its row and does not stop the others; a grid that names a key
// or value the scenario refuses is refused before anything runs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace rdmasim {

struct SweepSpec {
  std::string scenario;           // the scenario file
  std::vector<std::string> sets;  // applied to every cell (key=value)
  // Axes in order: key and its values; cells are their product, the last
  // axis varying fastest, then the seeds.
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  std::vector<long long> seeds;  // empty: the scenario's own
};

// Splits `key=v1,v2,...` into the key and its values; commas inside [] or {}
// belong to a value (`fabric.pfc.classes=[3],[3,4]`). Throws
// std::invalid_argument naming what is wrong.
[[nodiscard]] std::pair<std::string, std::vector<std::string>> parse_grid_axis(const std::string& text);

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members have no noexcept default constructor
struct SweepCell {
  std::vector<std::string> sets;  // the grid's key=value for this cell, axis order
  long long seed = -1;            // -1: the scenario's
  bool ok = false;
  std::string error;               // when !ok
  nlohmann::ordered_json results;  // results.json of the run when ok
};

// The cells of `spec` (overrides and seed), unrun.
[[nodiscard]] std::vector<SweepCell> sweep_cells(const SweepSpec& spec);
// Loads every cell's scenario: throws std::invalid_argument naming the first
// cell the scenario refuses and why (file:line, key, what was expected).
void check_sweep(const SweepSpec& spec);
// Runs the cells i with i % ranks == rank (all of them by default) on `jobs`
// threads and returns every cell, the others unrun; never throws for a
// cell's failure.
[[nodiscard]] std::vector<SweepCell> run_sweep(const SweepSpec& spec, int jobs, int rank = 0, int ranks = 1);
// The cells rank `rank` of `ranks` ran, as text for the trip to rank 0, and
// their merge into the full list there (run_sweep's cells, in place). The
// results survive the trip byte for byte (JSON numbers round-trip exactly).
[[nodiscard]] std::string sweep_share(const std::vector<SweepCell>& cells, int rank, int ranks);
void merge_sweep_share(std::vector<SweepCell>& cells, const std::string& share);

// The merged outputs: sweep.json (every cell's settings, status and full
// results) and sweep.csv (one row per cell: its settings and the headline
// figures).
[[nodiscard]] std::string sweep_json(const SweepSpec& spec, const std::vector<SweepCell>& cells);
[[nodiscard]] std::string sweep_csv(const SweepSpec& spec, const std::vector<SweepCell>& cells);

}  // namespace rdmasim
