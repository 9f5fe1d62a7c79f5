// rdmasim sweep over an evaluation (evaluate/evaluation_sweep.h): each point
// is the evaluation `rdmasim evaluate` gives for the file with the point's
// settings written into it, the merged table does not depend on threads, a
// sweep run again reuses its points' cells, and a setting the evaluation
// refuses stops the sweep before it runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/error.h"
#include "config/shipped_path.h"
#include "evaluate/cells.h"
#include "evaluate/evaluation.h"
#include "evaluate/evaluation_sweep.h"
#include "evaluate/matrix.h"
#include "evaluate/report.h"
#include "evaluate/slurp.h"
#include "evaluate/summary.h"
#include "run/sweep.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Two fabrics x two workloads at baseline on 2 servers x 2 GPUs.
const char* kTiny = R"(name: tiny
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce, set: {fabric.ecn.kmin: 400KB}}
workloads:
  - {type: latency, iters: 20}
  - {type: incast, senders: 3, size: 64KiB}
conditions: [baseline]
weights: {latency: 1, incast: 1, cost: 1}
)";

using test::slurp;

class EvaluationSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rdmasim_evsweep_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    file_ = (dir_ / "tiny.yaml").string();
    std::ofstream(file_) << kTiny;
  }
  void TearDown() override { fs::remove_all(dir_); }

  SweepSpec spec(const std::string& out) const {
    SweepSpec s;
    s.file = file_;
    s.grid = {{"cluster.servers", {"2", "3"}}, {"weights.cost", {"0", "4"}}};
    s.target = evaluation_sweep_target(file_, (dir_ / out).string());
    return s;
  }

  fs::path dir_;
  std::string file_;
};

// evaluation.json without what names the file it came from.
nlohmann::ordered_json figures_of(const std::string& evaluation_json) {
  auto j = nlohmann::ordered_json::parse(evaluation_json);
  j.erase("evaluation");
  return j;
}

TEST_F(EvaluationSweepTest, EachPointIsTheEvaluationOfTheFileWithItsSettings) {
  EXPECT_TRUE(is_evaluation_file(file_));
  const SweepSpec s = spec("one");
  check_sweep(s);
  const std::vector<SweepCell> one = run_sweep(s, 1);
  ASSERT_EQ(one.size(), 4u);
  for (const SweepCell& c : one) ASSERT_TRUE(c.ok) << c.error;

  // Point 3 (3 servers, cost weighted 4) against `evaluate` on the file with
  // those two settings written in by hand.
  std::string edited = kTiny;
  edited.replace(edited.find("servers: 2"), 10, "servers: 3");
  edited.replace(edited.find("cost: 1"), 7, "cost: 4");
  const Evaluation ev = load_evaluation_text(edited, "edited.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const auto outcomes = run_matrix(cells, (dir_ / "edited").string(), 1, {}, nullptr);
  const EvalSummary summary = summarize(ev, cells, outcomes);
  const std::string by_hand = evaluation_json(EvalReportInput{ev, cells, outcomes, summary}).dump(2) + "\n";
  const std::string point = slurp(dir_ / "one" / "point-3" / "evaluation.json");
  EXPECT_EQ(figures_of(point).dump(), figures_of(by_hand).dump());
  EXPECT_EQ(nlohmann::ordered_json::parse(point)["evaluation"]["set"],
            (nlohmann::ordered_json{"cluster.servers=3", "weights.cost=4"}));
  EXPECT_TRUE(fs::exists(dir_ / "one" / "point-3" / "report.html"));

  // The cost criterion is scored where its weight is not 0, and the sweep's
  // scores are the point's own.
  for (size_t i = 0; i < one.size(); ++i) {
    const auto& f0 = one[i].results["fabrics"][0];
    EXPECT_EQ(f0["scores"].contains("cost"), i % 2 == 1) << i;
  }
  const auto point_json = nlohmann::ordered_json::parse(point);
  EXPECT_EQ(one[3].results["recommendation"], point_json["recommendation"]);

  // Same bytes on two threads, and in a folder that already holds the
  // points: every cell is reused, nothing reruns, the table is the same.
  const std::vector<SweepCell> two = run_sweep(s, 2);
  EXPECT_EQ(sweep_json(s, two), sweep_json(s, one));
  EXPECT_EQ(sweep_csv(s, two), sweep_csv(s, one));
  const SweepSpec fresh = spec("two");
  const std::vector<SweepCell> elsewhere = run_sweep(fresh, 2);
  EXPECT_EQ(sweep_csv(fresh, elsewhere), sweep_csv(s, one));
  EXPECT_EQ(slurp(dir_ / "two" / "point-1" / "evaluation.json"),
            slurp(dir_ / "one" / "point-1" / "evaluation.json"));

  // One row per point and fabric, the recommendation marked once per point.
  const std::string csv = sweep_csv(s, one);
  EXPECT_EQ(
      csv.substr(0, csv.find('\n')),
      "cell,cluster.servers,weights.cost,seed,status,fabric,profile,total_score,recommended,latency_score,"
      "tail_latency_score,bandwidth_score,incast_score,permutation_score,collective_score,training_score,"
      "fct_score,scenario_score,mpi_latency_score,mpi_bandwidth_score,mpi_step_score,storage_score,"
      "stream_score,congestion_score,resilience_score,cost_score,tuning_score,error");
  size_t rows = 0, yes = 0;
  for (size_t at = csv.find('\n'); at + 1 < csv.size(); at = csv.find('\n', at + 1)) {
    ++rows;
    yes += csv.find(",yes,", at) < csv.find('\n', at + 1) ? 1 : 0;
  }
  EXPECT_EQ(rows, 8u);
  EXPECT_EQ(yes, 4u);
}

// A fabric's setting is a grid axis: `fabrics.1.set.fabric.ecn.kmin=...`
// replaces the file's value of that key (a nested map names the same key as
// the dotted one), and nothing else moves.
TEST(EvaluationOverrides, AFabricSettingIsReplacedInPlace) {
  const Evaluation file = load_evaluation_text(kTiny, "tiny.yaml");
  const Evaluation set = load_evaluation_text(kTiny, "tiny.yaml", {"fabrics.1.set.fabric.ecn.kmin=100KB"});
  using Set = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(file.fabrics[1].set, (Set{{"fabric.ecn.kmin", "400KB"}}));
  EXPECT_EQ(set.fabrics[1].set, (Set{{"fabric.ecn.kmin", "100KB"}}));
  EXPECT_TRUE(set.fabrics[0].set.empty());
  const Evaluation added = load_evaluation_text(kTiny, "tiny.yaml", {"fabrics.1.set.fabric.ecn.kmax=900KB"});
  EXPECT_EQ(added.fabrics[1].set, (Set{{"fabric.ecn.kmin", "400KB"}, {"fabric.ecn.kmax", "900KB"}}));
  // The cells' scenarios carry it: the RoCE cells differ, the IB cells do not.
  const auto a = eval_cells(file), b = eval_cells(set);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].scenario == b[i].scenario, a[i].fabric == 0) << a[i].id;
  // Only fabric settings may differ between compared fabrics, nested or not.
  EXPECT_THROW((void)load_evaluation_text(kTiny, "tiny.yaml", {"fabrics.1.set.workload.size=1KB"}),
               InputError);
}

// A value the evaluation refuses names the cell before anything runs.
TEST_F(EvaluationSweepTest, ARefusedSettingStopsTheSweepBeforeItRuns) {
  SweepSpec s = spec("bad");
  s.grid = {{"cluster.servers", {"2", "0"}}};
  try {
    check_sweep(s);
    FAIL() << "refused nothing";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the cell cluster.servers=0: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cluster.servers"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
  // A scenario is not taken for an evaluation.
  EXPECT_FALSE(is_evaluation_file(find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml")));
}

}  // namespace
}  // namespace rdmasim
