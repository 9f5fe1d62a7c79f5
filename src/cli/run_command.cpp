#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "cli/commands.h"
#include "cli/output_paths.h"
#include "cli/progress.h"
#include "config/cfg_node.h"
#include "config/error.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "flow/flow_level_run.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/thread_pool.h"

namespace rdmasim::cli {

namespace {

struct Outcome {
  int code = kExitOk;
  std::string text;  // summary or error message
};

// A scenario loaded and checked, with the folder its outputs go to.
struct Job {
  std::string path;
  std::optional<Scenario> scenario;
  std::string dir;
  Outcome refused;           // code != kExitOk: not run
  bool created_dir = false;  // the output folder did not exist before this invocation
};

// A folder this invocation created and left empty (the run was refused or
// stopped before writing) is removed: a refused run leaves nothing behind.
void remove_if_left_empty(const Job& j) {
  std::error_code ec;
  if (j.created_dir) std::filesystem::remove(j.dir, ec);  // fails, harmlessly, when not empty
}

// Two spellings of one folder compare equal (also folders not created yet).
std::string folder_key(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(dir, ec);
  if (!ec) return canonical.string();
  // Unresolvable (e.g. a name too long for the OS): check_output_dir says why.
  return fs::absolute(dir, ec).lexically_normal().string();
}

// A file the run reads that sits in its output folder under the name of one
// it writes or sweeps away (a flows file saved as ports.csv) would be
// replaced by the run's output, and the next run would read that instead:
// refuse it before anything runs. Any string of the scenario file or of a
// --set value that names an existing file, beside the scenario or from the
// working directory, counts as read. "" when none does.
std::string input_among_outputs(const Job& j, const std::vector<std::string>& sets) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, fs::path>> inputs{{"the scenario file", j.path}};
  const fs::path beside = fs::path(j.path).parent_path();
  const auto note = [&](const std::string& key, const std::string& value) {
    std::error_code ec;
    for (const fs::path& p : {beside / value, fs::path(value)})
      if (!value.empty() && fs::is_regular_file(p, ec)) inputs.emplace_back("key " + key, p);
  };
  std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& n,
                                                                        const std::string& key) {
    if (n.IsScalar()) note(key, n.Scalar());
    if (n.IsSequence())
      for (size_t i = 0; i < n.size(); ++i) walk(n[i], key + "." + std::to_string(i));
    if (n.IsMap())
      for (const auto& kv : n)
        if (kv.first.IsScalar())
          walk(kv.second, key.empty() ? kv.first.Scalar() : key + "." + kv.first.Scalar());
  };
  try {
    walk(CfgNode::load_file(j.path).yaml(), "");
  } catch (const std::exception&) {
    return "";  // loaded once already: cannot fail now but for a race, which the load reports
  }
  for (const std::string& s : sets)
    if (const size_t eq = s.find('='); eq != std::string::npos) note(s.substr(0, eq), s.substr(eq + 1));
  for (const std::string& name : run_output_names()) {
    const fs::path out = fs::path(j.dir) / name;
    std::error_code ec;
    if (!fs::exists(out, ec)) continue;
    for (const auto& [what, in] : inputs)
      if (fs::equivalent(out, in, ec))
        return "output folder '" + j.dir + "' holds '" + name + "', which this run reads (" + what +
               "), and the run would replace it with its own: move the input or write elsewhere (-o)";
  }
  return "";
}

Job load_job(const std::string& path, const RunOptions& o) {
  Job j;
  j.path = path;
  try {
    std::vector<std::string> sets = o.sets;
    if (o.seed >= 0) sets.push_back("seed=" + std::to_string(o.seed));
    j.scenario = load_scenario_file(path, sets);
    j.dir = j.scenario->output.dir;
    if (!o.out_dir.empty())
      j.dir =
          o.scenarios.size() > 1 ? (std::filesystem::path(o.out_dir) / j.scenario->name).string() : o.out_dir;
  } catch (const InputError& err) {
    j.refused = {kExitBadInput, std::string("error: ") + err.what() + "\n"};
  } catch (const std::exception& err) {
    j.refused = {kExitFailure, std::string("error: ") + path + ": " + err.what() + "\n"};
  }
  return j;
}

// Runs and writes one scenario of the flow-level model. Never throws.
Outcome run_flow_level(Job& job, const RunOptions& o, const Context& ctx, std::mutex& err_mu) {
  Outcome out;
  try {
    FlowLevelRun r(std::move(*job.scenario));
    Progress progress(ctx.progress_every, o.quiet, err_mu);
    r.run(
        [&](const FlowLevelRun& x) {
          progress.tick([&] {
            return fmt::format("[{}] simulated {:.3f} of {:.3f} ms, flows {}/{} done, {} rate solves",
                               x.scenario().name, x.now().us() / 1e3, x.scenario().duration.us() / 1e3,
                               x.completed(), x.flows().size(), x.solves());
          });
        },
        ctx.interrupt);
    const double wall = progress.seconds();
    const std::vector<std::string> files = write_flow_level_outputs(r, job.dir);
    out.text = flow_level_summary(r);
    out.text += fmt::format("wall       {:.2f} s  ({:.2f}M flow events/s)\n", wall,
                            static_cast<double>(r.events()) / 1e6 / std::max(wall, 1e-9));
    std::string names;
    for (const std::string& f : files) names += (names.empty() ? "" : ",") + f;
    out.text += "outputs    " + job.dir + "/{" + names + "}\n";
  } catch (const InputError& err) {
    out.code = kExitBadInput;
    out.text = std::string("error: ") + err.what() + "\n";
  } catch (const std::exception& err) {
    out.code = kExitFailure;
    out.text = std::string("error: ") + job.path + ": " + err.what() + "\n";
  }
  return out;
}

// Runs and writes one loaded scenario. Never throws.
Outcome run_one(Job& job, const RunOptions& o, uint64_t max_memory, const Context& ctx, std::mutex& err_mu) {
  Outcome out;
  const std::string& dir = job.dir;
  if (job.scenario->fabric.model == "flow") return run_flow_level(job, o, ctx, err_mu);
  try {
    Experiment e(std::move(*job.scenario), max_memory, ctx.interrupt);
    for (const std::string& w : e.warnings()) {
      if (o.strict) {
        out.code = kExitBadInput;
        out.text += "error: " + job.path + ": " + w + " (--strict)\n";
      } else {
        std::lock_guard<std::mutex> lock(err_mu);
        std::fprintf(stderr, "warning: %s: %s\n", job.path.c_str(), w.c_str());
      }
    }
    if (out.code != kExitOk) return out;
    Progress progress(ctx.progress_every, o.quiet, err_mu);
    e.run(
        [&](const Experiment& x) {
          progress.tick([&] {
            return fmt::format(
                "[{}] simulated {:.3f} of {:.3f} ms, flows {}/{} done, {:.1f}M events ({:.2f}M/s)",
                x.scenario().name, x.sim().now().us() / 1e3, x.scenario().duration.us() / 1e3, x.completed(),
                x.flows().size(), x.sim().events_processed() / 1e6,
                x.sim().events_processed() / 1e6 / progress.seconds());
          });
        },
        ctx.interrupt);
    const double wall = progress.seconds();
    const std::vector<std::string> files = write_outputs(e, dir);
    out.text = summary_text(e);
    // Data packet-hops count completed flows only (docs/PERFORMANCE.md):
    // a run with none (a collective, a benchmark, one cut short) says so.
    const double per_s = 1e-6 / std::max(wall, 1e-9);
    out.text += e.data_packet_hops() > 0
                    ? fmt::format("wall       {:.2f} s  ({:.2f}M events/s, {:.2f}M data packet-hops/s)\n",
                                  wall, e.sim().events_processed() * per_s, e.data_packet_hops() * per_s)
                    : fmt::format(
                          "wall       {:.2f} s  ({:.2f}M events/s; no completed flow to count "
                          "packet-hops by)\n",
                          wall, e.sim().events_processed() * per_s);
    std::string names;
    for (const std::string& f : files) names += (names.empty() ? "" : ",") + f;
    out.text += "outputs    " + dir + "/{" + names + "}\n";
    if (const DeadlockReport* d = e.deadlock(); d != nullptr) {
      out.code = kExitDeadlock;
      out.text += "error: deadlock: cyclic buffer dependency " + d->text() + "\n";
    }
    if (!e.invariant_error().empty()) {
      out.code = kExitInvariant;
      out.text += "error: simulation invariant violated: " + e.invariant_error() + "\n";
    }
  } catch (const InputError& err) {
    out.code = kExitBadInput;
    out.text = std::string("error: ") + err.what() + "\n";
  } catch (const SetupInterrupted& err) {
    out.code = kExitInterrupted;  // stopped before anything ran: nothing to write
    out.text = std::string("error: ") + job.path + ": " + err.what() + "\n";
  } catch (const std::exception& err) {
    out.code = kExitFailure;
    out.text = std::string("error: ") + job.path + ": " + err.what() + "\n";
  }
  return out;
}

}  // namespace

int run_command(const RunOptions& o, const Context& ctx) {
  uint64_t max_memory = 0;
  if (!o.max_memory.empty()) {
    try {
      max_memory = static_cast<uint64_t>(parse_bytes(o.max_memory).count());
    } catch (const std::invalid_argument& err) {
      std::fprintf(stderr, "error: --max-memory: expected a size, e.g. 8GiB (%s)\n", err.what());
      return kExitBadInput;
    }
  }
  // Everything is loaded and checked before anything runs: a batch with one
  // bad scenario, two scenarios writing to one folder, or an output folder
  // that cannot be written runs nothing and touches no earlier results.
  std::vector<Job> jobs;
  for (const std::string& path : o.scenarios) jobs.push_back(load_job(path, o));
  std::map<std::string, size_t> owner;
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& j = jobs[i];
    if (j.refused.code != kExitOk) continue;
    if (auto [it, fresh] = owner.emplace(folder_key(j.dir), i); !fresh) {
      j.refused = {kExitBadInput, "error: " + j.path + ": writes to '" + j.dir + "', as " +
                                      jobs[it->second].path +
                                      " does (give the scenarios different names or output.dir)\n"};
      continue;
    }
    std::error_code ec;
    j.created_dir = !ctx.check_only && !std::filesystem::exists(j.dir, ec);
    if (const std::string why = check_output_dir(j.dir, !ctx.check_only); !why.empty())
      j.refused = {kExitBadInput, "error: " + j.path + ": " + why + "\n"};
    else if (const std::string clash = input_among_outputs(j, o.sets); !clash.empty())
      j.refused = {kExitBadInput, "error: " + j.path + ": " + clash + "\n"};
  }
  if (ctx.check_only && !ctx.check_setup) {
    for (Job& j : jobs) {
      if (j.refused.code != kExitOk) continue;
      if (j.scenario->fabric.model == "flow") continue;  // no packet network to build
      try {
        (void)check_build_memory(*j.scenario, build_topology(*j.scenario), max_memory);
      } catch (const InputError& err) {
        j.refused = {kExitBadInput, std::string("error: ") + err.what() + "\n"};
      }
    }
  }
  if (ctx.check_setup) {
    // A check sets each run up as the run would (network, workloads, the
    // warnings --strict refuses) and stops before simulating, one at a time
    // so that checking a batch needs one run's memory.
    for (Job& j : jobs) {
      if (j.refused.code != kExitOk) continue;
      try {
        if (j.scenario->fabric.model == "flow") {
          const FlowLevelRun r(std::move(*j.scenario));
          continue;
        }
        const Experiment e(std::move(*j.scenario), max_memory, ctx.interrupt);
        for (const std::string& w : e.warnings()) {
          if (o.strict) {
            j.refused = {kExitBadInput, "error: " + j.path + ": " + w + " (--strict)\n"};
            break;
          }
          std::fprintf(stderr, "warning: %s: %s\n", j.path.c_str(), w.c_str());
        }
      } catch (const InputError& err) {
        j.refused = {kExitBadInput, std::string("error: ") + err.what() + "\n"};
      } catch (const SetupInterrupted& err) {
        j.refused = {kExitInterrupted, "error: " + j.path + ": " + err.what() + "\n"};
      } catch (const std::exception& err) {
        j.refused = {kExitFailure, "error: " + j.path + ": " + err.what() + "\n"};
      }
    }
  }
  int refused = kExitOk;
  for (const Job& j : jobs) {
    if (j.refused.code == kExitOk) continue;
    std::fputs(j.refused.text.c_str(), stderr);
    refused = std::max(refused, j.refused.code);
  }
  if (refused != kExitOk) {
    for (const Job& j : jobs) remove_if_left_empty(j);
    return refused;
  }
  if (ctx.check_only) {
    for (const Job& j : jobs) std::printf("ok: %s (outputs to %s)\n", j.path.c_str(), j.dir.c_str());
    return kExitOk;
  }

  std::vector<Outcome> outs(jobs.size());
  std::mutex err_mu;
  ThreadPool(o.jobs).for_each(jobs.size(),
                              [&](size_t i) { outs[i] = run_one(jobs[i], o, max_memory, ctx, err_mu); });
  for (const Job& j : jobs) remove_if_left_empty(j);
  int code = kExitOk;
  for (const auto& r : outs) {
    std::fputs(r.text.c_str(), r.code == kExitOk ? stdout : stderr);
    if (r.code == kExitOk && outs.size() > 1) std::fputs("\n", stdout);
    code = std::max(code, r.code);
  }
  if (ctx.interrupt != nullptr && ctx.interrupt->load()) {
    std::fputs("interrupted: partial results written, marked interrupted\n", stderr);
    code = std::max(code, kExitInterrupted);
  }
  return code;
}

}  // namespace rdmasim::cli
