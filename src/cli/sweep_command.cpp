// rdmasim sweep <scenario or evaluation> --grid key=v1,v2 ... [--seeds 1,2]
// (run/sweep.h, evaluate/evaluation_sweep.h), on one machine's threads or,
// under `mpirun -np N`, over N ranks: rank r runs cells r, r+N, ... on its
// own threads, rank 0 gathers them and writes the merged outputs, the same
// bytes as a run on one machine.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/output_paths.h"
#include "cli/progress.h"
#include "config/error.h"
#include "evaluate/evaluation.h"
#include "evaluate/evaluation_sweep.h"
#include "report/atomic_file.h"
#include "run/mpi_world.h"
#include "run/sweep.h"
#include "run/thread_pool.h"

namespace rdmasim::cli {

void add_sweep_subcommand(CLI::App& app, SweepCli& o) {
  auto* s = app.add_subcommand(
      "sweep",
      "a scenario or an evaluation over a grid of settings x seeds, in parallel threads (and over "
      "machines under `mpirun -np N`): sweep.json and sweep.csv (an evaluation's points also write "
      "their reports under point-<i>/)");
  s->add_option("file", o.scenario, "scenario or evaluation YAML file (an evaluation has `fabrics:`)")
      ->required()
      ->check(CLI::ExistingFile);
  s->add_option("--grid", o.grid,
                "an axis: key=value1,value2,... (any key of the file, list items included, e.g. "
                "workload.0.qps=1,4,8, fabric.pfc.classes=[3],[3,4], or in an evaluation cluster.servers=4,8 "
                "or weights.cost=0,1,4; a value with commas in double quotes, e.g. "
                "workload.0.proto=auto,\"LL,Simple\",^LL128); repeatable, cells are the product")
      ->required();
  s->add_option("--set", o.sets, "override a key in every cell, as `rdmasim run --set`");
  s->add_option("--seeds", o.seeds,
                "seeds, e.g. 1,2,3: every grid point runs once per seed (an evaluation's `seeds:` is then "
                "that one seed)")
      ->delimiter(',')
      ->check(seed_range());
  s->add_option("-o,--out", o.out_dir, "output directory (default out/sweep-<file name>)")
      ->check(non_empty_path());
  s->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  o.jobs = ThreadPool::hardware();
  s->add_option("-j,--jobs", o.jobs,
                "cells run in parallel threads, per MPI rank under mpirun (default: all cores)")
      ->check(CLI::Range(1, 256));
}

int sweep_command(const SweepCli& c, const Context& ctx) {
  std::optional<MpiWorld> world;
  try {
    world.emplace();
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: sweep: %s\n", e.what());
    return kExitBadInput;
  }
  const bool root = world->rank() == 0;
  SweepSpec spec;
  spec.file = c.scenario;
  spec.sets = c.sets;
  spec.seeds = c.seeds;
  std::string dir = c.out_dir;
  size_t cells = 0;
  std::string refused;
  try {
    for (const std::string& g : c.grid) {
      auto axis = parse_grid_axis(g);
      // The seed is the table's own column, given by --seeds: a grid axis
      // of it would be a second column of the same name, and --seeds would
      // override it in every cell.
      if (axis.first == "seed")
        throw std::invalid_argument("--grid seed=...: give the seeds with --seeds " +
                                    g.substr(g.find('=') + 1));
      for (const auto& [key, values] : spec.grid)
        if (key == axis.first) throw std::invalid_argument("--grid " + key + " is given twice");
      spec.grid.push_back(std::move(axis));
    }
    for (size_t i = 0; i < spec.seeds.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (spec.seeds[i] == spec.seeds[j])
          throw std::invalid_argument("--seeds: seed " + std::to_string(spec.seeds[i]) + " is given twice");
    if (dir.empty()) dir = "out/sweep-" + std::filesystem::path(c.scenario).stem().string();
    spec.target = is_evaluation_file(c.scenario) ? evaluation_sweep_target(c.scenario, dir)
                                                 : scenario_sweep_target(c.scenario);
    check_sweep(spec);  // every cell's file loads, or nothing runs
    cells = sweep_cells(spec).size();
    if (root) {  // only rank 0 writes
      for (const char* f : {"sweep.json", "sweep.csv"})
        if (std::filesystem::exists(std::filesystem::path(dir) / f))
          throw std::invalid_argument("-o " + dir + ": already holds " + f +
                                      " from an earlier sweep (remove it or choose another folder)");
      if (const std::string why = check_output_dir(dir, !ctx.check_only); !why.empty())
        throw std::invalid_argument(why);
    }
  } catch (const InputError& e) {
    refused = e.what();
  } catch (const std::invalid_argument& e) {
    refused = e.what();
  }
  // Every rank refuses what rank 0 refuses, so that none waits for the others.
  if (world->broadcast(refused.empty() ? kExitOk : kExitBadInput) != kExitOk || !refused.empty()) {
    if (root) std::fprintf(stderr, "error: sweep: %s\n", refused.c_str());
    return kExitBadInput;
  }
  if (ctx.check_only) {
    if (root) std::printf("ok: %s, %zu cells (outputs to %s)\n", c.scenario.c_str(), cells, dir.c_str());
    return kExitOk;
  }
  Progress progress(ctx.progress_every, c.quiet);
  const std::string who = world->size() > 1 ? fmt::format("[sweep rank {}]", world->rank()) : "[sweep]";
  std::vector<SweepCell> done = run_sweep(
      spec, c.jobs, world->rank(), world->size(),
      [&](const SweepProgress& p) {
        progress.tick([&] {
          std::string line = fmt::format("{} {}/{} cells ({} failed)", who, p.done, p.total, p.failed);
          if (p.inner_total > 0) line += fmt::format(", evaluation {}/{} cells", p.inner_done, p.inner_total);
          return line + fmt::format(", {:.0f} s", progress.seconds());
        });
      },
      ctx.interrupt);
  const std::vector<std::string> shares = world->gather(sweep_share(done, world->rank(), world->size()));
  if (!root) return kExitOk;  // rank 0 reports for the job
  for (size_t r = 1; r < shares.size(); ++r) merge_sweep_share(done, shares[r]);
  write_file_atomic((std::filesystem::path(dir) / "sweep.json").string(), sweep_json(spec, done));
  const std::string csv = sweep_csv(spec, done);
  write_file_atomic((std::filesystem::path(dir) / "sweep.csv").string(), csv);
  std::fputs(csv.c_str(), stdout);
  int failed = 0;
  for (size_t i = 0; i < done.size(); ++i)
    if (!done[i].ok) {
      ++failed;
      // Cells an interruption left unrun are counted, not listed one by one.
      if (done[i].error != kSweepInterrupted)
        std::fprintf(stderr, "error: sweep: cell %zu failed: %s\n", i, done[i].error.c_str());
    }
  const std::string on = world->size() > 1 ? fmt::format(" on {} MPI ranks", world->size()) : "";
  std::printf("%zu cells%s, %d failed; outputs %s/{sweep.json,sweep.csv}\n", done.size(), on.c_str(), failed,
              dir.c_str());
  if (ctx.interrupt != nullptr && ctx.interrupt->load()) {
    // What finished is in the outputs; the rest failed as interrupted.
    std::fprintf(stderr, "sweep: interrupted; the cells that finished are in %s/sweep.json\n", dir.c_str());
    return kExitInterrupted;
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace rdmasim::cli
