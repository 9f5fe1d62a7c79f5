// rdmasim sweep (run/sweep.h): the grid's cells, thread-count independence,
// failed cells reported beside the others, bad grids refused before a run.
#include <gtest/gtest.h>

#include <stdexcept>

#include "config/shipped_path.h"
#include "run/sweep.h"

namespace rdmasim {
namespace {

TEST(Sweep, GridAxesKeepListValuesWhole) {
  const auto a = parse_grid_axis("fabric.pfc.classes=[3],[3,4]");
  EXPECT_EQ(a.first, "fabric.pfc.classes");
  EXPECT_EQ(a.second, (std::vector<std::string>{"[3]", "[3,4]"}));
  const auto b = parse_grid_axis("workload.0.qps=1,4,8");
  EXPECT_EQ(b.second, (std::vector<std::string>{"1", "4", "8"}));
  EXPECT_THROW((void)parse_grid_axis("workload.0.qps"), std::invalid_argument);
  EXPECT_THROW((void)parse_grid_axis("=1,2"), std::invalid_argument);
  EXPECT_THROW((void)parse_grid_axis("k=1,,2"), std::invalid_argument);
  EXPECT_THROW((void)parse_grid_axis("k=[1,2"), std::invalid_argument);
  // A quoted value keeps its commas (NCCL_PROTO's lists), quotes and all for the YAML parser.
  const auto c = parse_grid_axis("workload.0.proto=auto,\"LL,Simple\",^LL128");
  EXPECT_EQ(c.second, (std::vector<std::string>{"auto", "\"LL,Simple\"", "^LL128"}));
  EXPECT_THROW((void)parse_grid_axis("k=\"LL,Simple"), std::invalid_argument);
}

SweepSpec tree_sweep() {
  SweepSpec s;
  s.file = find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml");
  s.target = scenario_sweep_target(s.file);
  s.grid = {{"workload.0.size", {"64KiB", "2MiB"}}, {"workload.0.proto", {"LL", "Simple"}}};
  s.seeds = {1, 2};
  return s;
}

// Cells are the product of the axes, the last varying fastest, then seeds.
TEST(Sweep, CellsAreTheProductOfTheAxesAndSeeds) {
  const auto cells = sweep_cells(tree_sweep());
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[0].sets, (std::vector<std::string>{"workload.0.size=64KiB", "workload.0.proto=LL"}));
  EXPECT_EQ(cells[0].seed, 1);
  EXPECT_EQ(cells[1].seed, 2);
  EXPECT_EQ(cells[2].sets[1], "workload.0.proto=Simple");
  EXPECT_EQ(cells[7].sets, (std::vector<std::string>{"workload.0.size=2MiB", "workload.0.proto=Simple"}));
}

// Same seed, same bytes, whatever the number of threads; every cell is the
// run `rdmasim run --set ...` would make (its collective ran what was set).
TEST(Sweep, MergedResultsDoNotDependOnThreads) {
  const SweepSpec s = tree_sweep();
  const auto one = run_sweep(s, 1), two = run_sweep(s, 2);
  EXPECT_EQ(sweep_json(s, one), sweep_json(s, two));
  EXPECT_EQ(sweep_csv(s, one), sweep_csv(s, two));
  for (const SweepCell& c : one) {
    ASSERT_TRUE(c.ok) << c.error;
    const auto& w = c.results["workload_results"][0];
    EXPECT_EQ(w["proto"], c.sets[1].substr(c.sets[1].find('=') + 1));
    EXPECT_EQ(w["size_bytes"], c.sets[0].ends_with("64KiB") ? 65536 : 2097152);
    EXPECT_EQ(c.results["scenario"]["seed"], c.seed);
  }
  // LL's lines beat Simple's per-step latency at 64 KiB.
  EXPECT_LT(one[0].results["workload_results"][0]["time_us"].get<double>(),
            one[2].results["workload_results"][0]["time_us"].get<double>());
}

// What `mpirun -np 3` does, without MPI: each rank runs every third cell,
// its share crosses to rank 0 as text, and the merged outputs are the bytes
// a single process writes (tools/mpi-sweep-check runs the real mpirun).
TEST(Sweep, RanksSplitTheCellsAndMergeToTheSameBytes) {
  const SweepSpec s = tree_sweep();
  const auto whole = run_sweep(s, 2);
  std::vector<SweepCell> merged = run_sweep(s, 1, 0, 3);
  EXPECT_FALSE(merged[1].ok);  // rank 0 ran cells 0, 3, 6 only
  EXPECT_TRUE(merged[1].results.is_null());
  for (int r = 1; r < 3; ++r) merge_sweep_share(merged, sweep_share(run_sweep(s, 1, r, 3), r, 3));
  EXPECT_EQ(sweep_json(s, merged), sweep_json(s, whole));
  EXPECT_EQ(sweep_csv(s, merged), sweep_csv(s, whole));
  // More ranks than cells: the extra ranks run nothing and send nothing.
  EXPECT_EQ(sweep_share(run_sweep(s, 1, 9, 10), 9, 10), "[]");
}

// A cell that fails is reported in its row, with its seed; the others still run.
TEST(Sweep, AFailedCellDoesNotStopTheOthers) {
  SweepSpec s;
  s.file = find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml");
  s.target = scenario_sweep_target(s.file);
  s.grid = {{"workload.0.chunk", {"1B", "auto"}}};  // 1 B chunks: refused when the plan is built
  const auto cells = run_sweep(s, 2);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_FALSE(cells[0].ok);
  EXPECT_NE(cells[0].error.find("transfers"), std::string::npos) << cells[0].error;
  EXPECT_TRUE(cells[1].ok) << cells[1].error;
  const std::string csv = sweep_csv(s, cells);
  // The failed row still names the seed it ran with (the file's), to rerun it.
  EXPECT_NE(csv.find("\n0,1B,1,failed,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,auto,1,ok,"), std::string::npos) << csv;
}

// A key or value the scenario refuses stops the sweep before any cell runs,
// naming the cell.
TEST(Sweep, BadGridIsRefusedBeforeRunning) {
  SweepSpec s;
  s.file = find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml");
  s.target = scenario_sweep_target(s.file);
  s.grid = {{"workload.0.qps", {"1", "99"}}};
  try {
    check_sweep(s);
    FAIL() << "refused nothing";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the cell workload.0.qps=99: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rdmasim
