#include "cli/app.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/progress.h"
#include "fabric/profiles.h"
#include "run/thread_pool.h"
#include "validate/validate.h"

namespace rdmasim::cli {
namespace {

int validate_command(bool full, const std::vector<std::string>& only, bool list, const Context& ctx) {
  if (list) {
    for (const std::string& g : validation_groups()) std::printf("%s\n", g.c_str());
    return kExitOk;
  }
  Progress progress(ctx.progress_every, false);
  std::vector<ValidationResult> results;
  try {
    results = run_validation(
        full,
        [&](size_t done, size_t total, const char* group) {
          progress.tick([&] {
            return fmt::format("[validate] {} of {} groups done, now {}, {:.0f} s", done, total, group,
                               progress.seconds());
          });
        },
        only);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: validate: --only: %s\n", e.what());
    return kExitBadInput;
  }
  int failed = 0, gaps = 0;
  std::printf("%-5s %-58s %-22s %-24s %s\n", "case", "what", "measured", "expected", "verdict");
  for (const auto& r : results) {
    const bool gap = !r.pass && !r.gap.empty();
    std::printf("%-5s %-58s %-22s %-24s %s\n", r.id.c_str(), r.name.c_str(), r.measured.c_str(),
                r.expected.c_str(),
                r.pass ? "ok"
                : gap  ? ("gap: " + r.gap).c_str()
                       : "FAIL");
    failed += r.pass || gap ? 0 : 1;
    gaps += gap ? 1 : 0;
  }
  std::printf("\n%zu passed, %d failed, %d known gaps\n", results.size() - failed - gaps, failed, gaps);
  return failed == 0 ? kExitOk : kExitFailure;
}

int profiles_command() {
  for (const auto& n : profile_names()) {
    const Profile p = find_profile(n);
    std::printf("%s: %s\n", p.name.c_str(), p.summary.c_str());
    const std::vector<ProfileDefault> defaults = profile_defaults(p);
    int key_w = 0, value_w = 0;
    for (const auto& d : defaults) {
      key_w = std::max(key_w, static_cast<int>(d.key.size()));
      value_w = std::max(value_w, static_cast<int>(d.value.size()));
    }
    for (const auto& d : defaults)
      std::printf("  %-*s %-*s %s%s\n", key_w, d.key.c_str(), value_w, d.value.c_str(), d.source.c_str(),
                  d.low.empty() ? "" : (" [range " + d.low + ".." + d.high + "]").c_str());
  }
  return kExitOk;
}

// RDMASIM_PROGRESS_INTERVAL: a plain number of seconds, 0 for every update.
std::optional<std::chrono::steady_clock::duration> progress_interval(const std::string& text) {
  double s = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
  if (ec != std::errc() || end != text.data() + text.size() || !(s >= 0 && s <= 1e6)) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

int command_line(int argc, const char* const* argv, const Process& process, bool check_only) {
  std::string families;
  for (const std::string& f : fabric_families()) families += (families.empty() ? "" : ", ") + f;
  CLI::App app{"rdmasim: packet-level simulator for RDMA fabrics (" + families + ")"};
  app.require_subcommand(1);
  app.set_version_flag("--version", process.version);

  RunOptions ro;
  bool run_check = false;
  auto* run = app.add_subcommand("run", "run scenario files and write results.json, flows.csv, ports.csv");
  run->add_option("scenario", ro.scenarios, "scenario YAML file(s)")->required()->check(CLI::ExistingFile);
  run->add_option("-o,--out", ro.out_dir, "output directory (default: the scenario's output.dir)")
      ->check(non_empty_path());
  run->add_option("--seed", ro.seed, "override the scenario's seed")->check(seed_range());
  run->add_option("--set", ro.sets,
                  "override a scenario key, e.g. --set topology.k=8, --set workload.0.qps=8, --set "
                  "fabric.pfc.classes=[3,4] (repeatable)");
  run->add_option("-j,--jobs", ro.jobs, "scenarios run in parallel threads")->check(CLI::Range(1, 256));
  run->add_flag("-q,--quiet", ro.quiet, "no progress on stderr");
  run->add_option(
      "--max-memory", ro.max_memory,
      "refuse a network whose estimated build needs more, e.g. 8GiB (default: the memory available)");
  run->add_flag("--strict", ro.strict,
                "refuse a scenario the run cannot carry out as written (e.g. flows starting after its end)");
  run->add_flag("--check", run_check,
                "check the flags, scenarios and output folders and set each run up as it would be (network, "
                "workloads), print ok; simulate and write nothing");

  PerftestCli perftest;
  add_perftest_subcommand(app, perftest);
  OsuCli osu;
  add_osu_subcommand(app, osu);
  FioCli fio;
  add_fio_subcommand(app, fio);

  std::string demo_out = "out/demo";
  int demo_jobs = 2;
  auto* demo = app.add_subcommand(
      "demo", "the default evaluation: every fabric on one GPU cluster (evaluations/demo.yaml), report.html");
  demo->add_option("-o,--out", demo_out, "output directory")->check(non_empty_path());
  demo->add_option("-j,--jobs", demo_jobs, "parallel threads")->check(CLI::Range(1, 256));

  EvaluateCli eval;
  eval.jobs = ThreadPool::hardware();
  auto* evaluate = app.add_subcommand(
      "evaluate",
      "compare fabrics on one cluster: run the evaluation matrix, write report.html/.md, evaluation.json");
  evaluate->add_option("file", eval.file, "evaluation YAML file")->required()->check(CLI::ExistingFile);
  evaluate->add_option("-o,--out", eval.out_dir, "output directory (default out/<name>); rerun to resume")
      ->check(non_empty_path());
  evaluate->add_option("-j,--jobs", eval.jobs, "cells run in parallel threads (default: all cores)")
      ->check(CLI::Range(1, 256));
  evaluate->add_flag("-q,--quiet", eval.quiet, "no progress bar on stderr");

  std::vector<std::string> only;
  bool list = false;
  auto* bench = app.add_subcommand("bench", "speed benchmark: events/s, data packet-hops/s, peak RSS");
  bench->add_option("--only", only, "run only these bench scenarios (by name)");
  bench->add_flag("--list", list, "list the bench scenarios");
  bool scale = false;
  bench->add_flag("--scale", scale,
                  "also the 8,192-host runs of scenarios/bench/scale (minutes each; --only names them too)");

  NcclTestsCli nccl;
  add_nccl_tests_subcommand(app, nccl);
  SweepCli sweep;
  add_sweep_subcommand(app, sweep);
  TrainCli train;
  add_train_subcommand(app, train);

  auto* profiles =
      app.add_subcommand("profiles", "list built-in fabric profiles and the sources of their defaults");
  auto* schema = app.add_subcommand(
      "schema", "print the reference of every scenario key (type, unit, default per profile, what it does)");
  auto* validate = app.add_subcommand(
      "validate",
      "run the validation cases (published results, exact values, conservation): measured vs expected");
  bool full = false;
  validate->add_flag("--full", full, "paper-sized topologies where the default is scaled down (slow)");
  std::vector<std::string> validate_only;
  bool validate_list = false;
  validate->add_option("--only", validate_only,
                       "run only these groups of cases (by name, e.g. collectives; --list names them)");
  validate->add_flag("--list", validate_list, "list the groups of cases, in the order they run");

  // CLI11 would only say "a subcommand is required" for a misspelt one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::fprintf(stderr, "error: unknown command '%s' (commands: %s)\n", argv[1], known.c_str());
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  Context ctx;
  ctx.check_only = check_only || run_check;
  ctx.check_setup = run_check && !check_only;
  ctx.interrupt = process.interrupt;
  if (!process.progress_interval.empty()) {
    const auto every = progress_interval(process.progress_interval);
    if (!every) {
      std::fprintf(stderr, "error: RDMASIM_PROGRESS_INTERVAL: expected seconds, e.g. 5 or 0.5 (got '%s')\n",
                   process.progress_interval.c_str());
      return kExitBadInput;
    }
    ctx.progress_every = *every;
  }
  // Commands that write results stop gracefully on SIGINT/SIGTERM; the rest
  // (and every check) end at once, as a signal's default action does.
  const bool graceful = !ctx.check_only && (*run || *evaluate || *demo || *app.get_subcommand("sweep"));
  if (!graceful && process.release_stop_signals) process.release_stop_signals();
  if (*run) return run_command(ro, ctx);
  if (*evaluate) return evaluate_command(eval, ctx);
  if (*demo) return demo_command(demo_out, demo_jobs, ctx);
  if (*app.get_subcommand("sweep")) return sweep_command(sweep, ctx);
  if (*app.get_subcommand("perftest")) return perftest_command(perftest, ctx);
  if (*app.get_subcommand("osu")) return osu_command(osu, ctx);
  if (*app.get_subcommand("fio")) return fio_command(fio, ctx);
  if (*app.get_subcommand("nccl-tests")) return nccl_tests_command(nccl, ctx);
  if (*app.get_subcommand("train")) return train_command(train, ctx);
  if (*bench) return bench_command(only, list, scale, ctx);
  if (ctx.check_only) return kExitOk;  // the rest have no input beyond their flags
  if (*validate) return validate_command(full, validate_only, validate_list, ctx);
  if (*schema) return schema_command();
  if (*profiles) return profiles_command();
  return kExitOk;
}

}  // namespace rdmasim::cli
