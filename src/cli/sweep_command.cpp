// rdmasim sweep <scenario> --grid key=v1,v2 ... [--seeds 1,2] (run/sweep.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/output_paths.h"
#include "config/error.h"
#include "report/atomic_file.h"
#include "run/sweep.h"
#include "run/thread_pool.h"

namespace rdmasim::cli {

void add_sweep_subcommand(CLI::App& app, SweepCli& o) {
  auto* s = app.add_subcommand(
      "sweep", "one scenario over a grid of settings x seeds, in parallel threads: sweep.json and sweep.csv");
  s->add_option("scenario", o.scenario, "scenario YAML file")->required()->check(CLI::ExistingFile);
  s->add_option("--grid", o.grid,
                "an axis: key=value1,value2,... (any scenario key, list items included, e.g. "
                "workload.0.qps=1,4,8 or fabric.pfc.classes=[3],[3,4]); repeatable, cells are the product")
      ->required();
  s->add_option("--set", o.sets, "override a key in every cell, as `rdmasim run --set`");
  s->add_option("--seeds", o.seeds, "seeds, e.g. 1,2,3: every grid point runs once per seed")->delimiter(',');
  s->add_option("-o,--out", o.out_dir, "output directory (default out/sweep-<scenario name>)");
  o.jobs = ThreadPool::hardware();
  s->add_option("-j,--jobs", o.jobs, "cells run in parallel threads (default: all cores)")
      ->check(CLI::Range(1, 256));
}

int sweep_command(const SweepCli& c, const Context& ctx) {
  SweepSpec spec;
  spec.scenario = c.scenario;
  spec.sets = c.sets;
  spec.seeds = c.seeds;
  std::string dir = c.out_dir;
  size_t cells = 0;
  try {
    for (const std::string& g : c.grid) {
      auto axis = parse_grid_axis(g);
      for (const auto& [key, values] : spec.grid)
        if (key == axis.first) throw std::invalid_argument("--grid " + key + " is given twice");
      spec.grid.push_back(std::move(axis));
    }
    for (long long s : spec.seeds)
      if (s < 0) throw std::invalid_argument("--seeds: expected seeds >= 0, got " + std::to_string(s));
    check_sweep(spec);  // every cell's scenario loads, or nothing runs
    cells = sweep_cells(spec).size();
    if (dir.empty()) dir = "out/sweep-" + std::filesystem::path(c.scenario).stem().string();
    for (const char* f : {"sweep.json", "sweep.csv"})
      if (std::filesystem::exists(std::filesystem::path(dir) / f))
        throw std::invalid_argument("-o " + dir + ": already holds " + f +
                                    " from an earlier sweep (remove it or choose another folder)");
    if (const std::string why = check_output_dir(dir, !ctx.check_only); !why.empty())
      throw std::invalid_argument(why);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: sweep: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: sweep: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) {
    std::printf("ok: %s, %zu cells (outputs to %s)\n", c.scenario.c_str(), cells, dir.c_str());
    return kExitOk;
  }
  const std::vector<SweepCell> done = run_sweep(spec, c.jobs);
  write_file_atomic((std::filesystem::path(dir) / "sweep.json").string(), sweep_json(spec, done));
  const std::string csv = sweep_csv(spec, done);
  write_file_atomic((std::filesystem::path(dir) / "sweep.csv").string(), csv);
  std::fputs(csv.c_str(), stdout);
  int failed = 0;
  for (size_t i = 0; i < done.size(); ++i)
    if (!done[i].ok) {
      ++failed;
      std::fprintf(stderr, "error: sweep: cell %zu failed: %s\n", i, done[i].error.c_str());
    }
  std::printf("%zu cells, %d failed; outputs %s/{sweep.json,sweep.csv}\n", done.size(), failed, dir.c_str());
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace rdmasim::cli
