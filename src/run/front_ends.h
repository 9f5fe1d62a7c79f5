// perftest, nccl-tests and train as scenarios: each builds the Scenario its options
// describe (the cluster's topology, the fabric profile, a `collective` or
// `training` or `perftest` workload and, when asked for, a `background` one) and runs it
// through the one runner, Experiment. A YAML scenario with the same
// topology, fabric and workload keys therefore gives the same numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "collective/nccl_tests.h"
#include "config/scenario.h"
#include "mpi/osu.h"
#include "storage/nvmeof.h"
#include "training/iteration.h"
#include "workload/perftest.h"

namespace rdmasim {

class Experiment;

// Called now and then while a run goes on (Experiment::run's progress hook),
// e.g. to print progress.
using RunProgress = std::function<void(const Experiment&)>;
// The same for a sweep: `index` is the size of nccl_tests_sizes() running in
// the experiment.
using SizeProgress = std::function<void(size_t index, const Experiment&)>;

// The sizes of the sweep; throws std::invalid_argument for options
// run_nccl_tests refuses before it runs anything.
[[nodiscard]] std::vector<int64_t> check_nccl_tests(const NcclTestsOptions& o);
// The scenario of one nccl-tests size. Throws std::invalid_argument for an
// invalid cluster.
[[nodiscard]] Scenario nccl_tests_scenario(const NcclTestsOptions& o, int64_t bytes);
// The sweep: every size on a fresh, idle fabric (the simulation is
// deterministic, so nccl-tests' -n iterations would repeat it), `jobs` sizes
// at a time; the result does not depend on `jobs`. Throws
// std::invalid_argument for bad options.
[[nodiscard]] NcclTestsResult run_nccl_tests(const NcclTestsOptions& o, int jobs = 1,
                                             const SizeProgress& progress = {});

// The scenario of one training iteration.
[[nodiscard]] Scenario training_scenario(const TrainingRunOptions& o);
// Throws std::invalid_argument for an invalid layout.
[[nodiscard]] TrainingResult run_training_iteration(const TrainingRunOptions& o,
                                                    const RunProgress& progress = {});

// The scenario of one perftest: two hosts joined through o.switches switches.
[[nodiscard]] Scenario perftest_scenario(const PerftestOptions& o);
// Throws std::invalid_argument for an unknown test or bad option.
[[nodiscard]] PerftestResult run_perftest(const PerftestOptions& o, const RunProgress& progress = {});

// rdmasim osu: an OSU benchmark's sweep on `np` hosts, one rank each, under
// leaf switches of `hosts_per_leaf` hosts (one switch when they fit under one,
// a non-blocking leaf-spine otherwise).
struct OsuOptions {
  OsuParams params;
  int np = 2;
  int hosts_per_leaf = 32;
  uint64_t seed = 1;
  FabricConfig fabric;
  LinkSpec link;
};
[[nodiscard]] Scenario osu_scenario(const OsuOptions& o);
struct OsuRun {
  OsuResult result;
  std::string invariant_error;
};
// Throws std::invalid_argument for bad options, std::runtime_error for a
// run that did not finish.
[[nodiscard]] OsuRun run_osu(const OsuOptions& o, const RunProgress& progress = {});

// rdmasim fio: NVMe-oF jobs from `initiators` hosts to `targets` hosts, all
// under one switch.
struct FioOptions {
  NvmeofParams params;
  int initiators = 1;
  int targets = 1;
  uint64_t seed = 1;
  FabricConfig fabric;
  LinkSpec link;
};
[[nodiscard]] Scenario fio_scenario(const FioOptions& o);
struct FioRun {
  NvmeofResult result;
  std::string invariant_error;
};
[[nodiscard]] FioRun run_fio(const FioOptions& o, const RunProgress& progress = {});

}  // namespace rdmasim
