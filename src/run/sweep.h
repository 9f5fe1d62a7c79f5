// `rdmasim sweep`: a file over a grid of settings x seeds. The file is a
// scenario (each point runs as `rdmasim run --set ...` would run it) or an
// evaluation (each point is a whole evaluation with its report:
// evaluate/evaluation_sweep.h); what runs at a point is a SweepTarget. Points
// run side by side on a thread pool (an evaluation's point uses the threads
// itself) and the merged table comes out in cell order, so it is the same
// bytes whatever the number of threads or MPI ranks. A cell that fails to
// run is reported in its row and does not stop the others; a grid that names
// a key or value the file refuses is refused before anything runs.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace rdmasim {

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members have no noexcept default constructor
struct SweepCell {
  std::vector<std::string> sets;  // the grid's key=value for this cell, axis order
  long long seed = -1;            // -1: the file's own, until a run reads it (an evaluation: stays -1)
  bool ok = false;
  std::string error;               // when !ok
  nlohmann::ordered_json results;  // what the target measured (a scenario's results.json)
};

// What runs at each point of a sweep's grid.
class SweepTarget {
 public:
  SweepTarget() = default;
  SweepTarget(const SweepTarget&) = delete;
  SweepTarget& operator=(const SweepTarget&) = delete;
  virtual ~SweepTarget() = default;

  // "scenario" or "evaluation", as sweep.json names the file.
  [[nodiscard]] virtual const char* kind() const = 0;
  // The override that gives a point the seed `seed`.
  [[nodiscard]] virtual std::string seed_set(long long seed) const = 0;
  // Loads the file with `sets` applied: throws InputError for what it refuses.
  virtual void check(const std::vector<std::string>& sets) const = 0;
  // The seed the file runs a point with when no --seeds are given; -1 when
  // a point has no single seed (an evaluation averages over its own).
  [[nodiscard]] virtual long long file_seed(const std::vector<std::string>& sets) const = 0;
  // Runs cell `index` (its settings `sets`, seed included) on up to
  // `threads` threads, filling `cell` (ok, error, results); `inner(done,
  // total)` is told of the parts a long point has (an evaluation's cells) as
  // they finish. May throw: the cell then failed with the exception's text.
  // `interrupt`, if given, is polled: once it is true the point stops early
  // and throws (an interrupted point has no results).
  virtual void run(SweepCell& cell, const std::vector<std::string>& sets, size_t index, int threads,
                   const std::function<void(size_t, size_t)>& inner,
                   const std::atomic<bool>* interrupt = nullptr) const = 0;
  // True when a point keeps all the threads busy itself (an evaluation's
  // matrix): points then run one after another.
  [[nodiscard]] virtual bool parallel_within_point() const = 0;
  // sweep.csv: the columns after the cell's settings, seed and status, and
  // a cell's rows of them (none for a cell that has no results; fields are
  // quoted by the caller).
  [[nodiscard]] virtual std::vector<std::string> csv_columns() const = 0;
  [[nodiscard]] virtual std::vector<std::vector<std::string>> csv_rows(const SweepCell& cell) const = 0;
};

// The scenario at `path`, each point run as `rdmasim run --set ...`.
[[nodiscard]] std::shared_ptr<const SweepTarget> scenario_sweep_target(const std::string& path);

struct SweepSpec {
  std::string file;               // the scenario or evaluation file
  std::vector<std::string> sets;  // applied to every cell (key=value)
  // Axes in order: key and its values; cells are their product, the last
  // axis varying fastest, then the seeds.
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  std::vector<long long> seeds;  // empty: the file's own
  // What runs at a point (scenario_sweep_target(file), or an evaluation's).
  std::shared_ptr<const SweepTarget> target;
};

// Splits `key=v1,v2,...` into the key and its values; commas inside [] or {}
// belong to a value (`fabric.pfc.classes=[3],[3,4]`). Throws
// std::invalid_argument naming what is wrong.
[[nodiscard]] std::pair<std::string, std::vector<std::string>> parse_grid_axis(const std::string& text);

// The cells of `spec` (overrides and seed), unrun.
[[nodiscard]] std::vector<SweepCell> sweep_cells(const SweepSpec& spec);
// Loads every cell's file: throws std::invalid_argument naming the first
// cell the file refuses and why (file:line, key, what was expected).
void check_sweep(const SweepSpec& spec);
// Where a sweep is, for a progress line: this rank's cells done, failed and
// in all, and the parts of the point running now (an evaluation's cells).
struct SweepProgress {
  size_t done = 0;
  size_t failed = 0;
  size_t total = 0;
  size_t inner_done = 0;
  size_t inner_total = 0;
};

// Runs the cells i with i % ranks == rank (all of them by default) on `jobs`
// threads and returns every cell, the others unrun; never throws for a
// cell's failure. `on_progress` is called (under a lock, from any thread)
// after each cell and each part of a point. Once `interrupt` (if given) is
// true, running cells stop and fail, and the rest fail unrun
// (kSweepInterrupted); the finished ones keep their results.
inline constexpr const char* kSweepInterrupted = "not run: the sweep was interrupted";
[[nodiscard]] std::vector<SweepCell> run_sweep(
    const SweepSpec& spec, int jobs, int rank = 0, int ranks = 1,
    const std::function<void(const SweepProgress&)>& on_progress = {},
    const std::atomic<bool>* interrupt = nullptr);
// The cells rank `rank` of `ranks` ran, as text for the trip to rank 0, and
// their merge into the full list there (run_sweep's cells, in place). The
// results survive the trip byte for byte (JSON numbers round-trip exactly).
[[nodiscard]] std::string sweep_share(const std::vector<SweepCell>& cells, int rank, int ranks);
void merge_sweep_share(std::vector<SweepCell>& cells, const std::string& share);

// The merged outputs: sweep.json (every cell's settings, status and full
// results) and sweep.csv (one row per cell, or per cell and fabric for an
// evaluation: its settings and the headline figures).
[[nodiscard]] std::string sweep_json(const SweepSpec& spec, const std::vector<SweepCell>& cells);
[[nodiscard]] std::string sweep_csv(const SweepSpec& spec, const std::vector<SweepCell>& cells);

// A CSV field, quoted when it holds a comma, quote or newline.
[[nodiscard]] std::string csv_field(const std::string& s);

}  // namespace rdmasim
