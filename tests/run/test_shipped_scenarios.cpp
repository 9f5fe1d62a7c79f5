// Every scenario the project ships loads, validates and builds its fabric and
// workloads: a renamed key or a moved data file fails here, not in a user's run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "evaluate/cells.h"
#include "evaluate/evaluation.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

TEST(ShippedScenarios, EveryScenarioLoadsAndBuilds) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RDMASIM_SOURCE_DIR) / "scenarios"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    try {
      const Experiment e(load_scenario_file(f.string()));
      // Something to do: flows to start, or a collective/training job not yet done.
      EXPECT_TRUE(!e.flows().empty() || !e.all_done());
    } catch (const std::exception& err) {
      ADD_FAILURE() << err.what();
    }
  }
}

TEST(ShippedScenarios, VictimFlowRunsAsTheValidateCaseDoes) {
  // The victim 0 -> 10 shares no bottleneck with the 8-to-1 incast into host 9;
  // PFC + DCQCN still stretches its 4 MiB to several times its ideal FCT.
  Experiment e(load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/victim-flow.yaml"));
  e.run();
  ASSERT_EQ(e.flows().size(), 9u);
  const auto& victim = e.flows()[0];
  ASSERT_EQ(victim.spec.src, 0);
  ASSERT_EQ(victim.spec.dst, 10);
  ASSERT_TRUE(victim.finished());
  const double slowdown = static_cast<double>(victim.fct().ps()) / static_cast<double>(victim.ideal.ps());
  EXPECT_GT(slowdown, 2.0);
  EXPECT_EQ(e.invariant_error(), "");
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Every evaluation the project ships loads and every cell's scenario checks.
TEST(ShippedScenarios, EveryEvaluationLoadsAndItsCellsCheck) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(RDMASIM_SOURCE_DIR) / "evaluations")) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    SCOPED_TRACE(e.path().string());
    ++n;
    try {
      const Evaluation ev = load_evaluation_file(e.path().string());
      EXPECT_TRUE(is_evaluation_file(e.path().string()));
      check_cells(ev, eval_cells(ev));
    } catch (const std::exception& err) {
      ADD_FAILURE() << err.what();
    }
  }
  EXPECT_GE(n, 2u);
}

}  // namespace
}  // namespace rdmasim
