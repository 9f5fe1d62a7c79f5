// The halo3d workload: MPI_Dims_create's grid, the messages a step sends,
// and a step's time against its parts (compute, one exchange, an allreduce
// measured by osu_allreduce on the same ranks).
#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/profiles.h"
#include "mpi/halo.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "support/workload_errors.h"

namespace rdmasim {
namespace {

TEST(Halo, GridIsMpiDimsCreates) {
  EXPECT_EQ(balanced_grid(8), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(balanced_grid(12), (std::array<int, 3>{3, 2, 2}));
  EXPECT_EQ(balanced_grid(16), (std::array<int, 3>{4, 2, 2}));
  EXPECT_EQ(balanced_grid(7), (std::array<int, 3>{7, 1, 1}));
  EXPECT_EQ(balanced_grid(64), (std::array<int, 3>{4, 4, 4}));
  EXPECT_EQ(balanced_grid(2), (std::array<int, 3>{2, 1, 1}));
}

// Each rank sends one face per neighbour direction: 6 on a grid with every
// dimension above one, 2 per dimension of two ranks (both faces go to the
// same rank), none along a dimension of one.
TEST(Halo, StepSendsOneFacePerNeighbourDirection) {
  HaloParams p;
  p.face = 4096;
  for (const auto& [grid, sends] :
       {std::pair{std::array<int, 3>{3, 3, 3}, 6}, std::pair{std::array<int, 3>{4, 1, 1}, 2},
        std::pair{std::array<int, 3>{2, 2, 1}, 4}}) {
    const int n = grid[0] * grid[1] * grid[2];
    for (int r = 0; r < n; ++r) {
      int isend = 0, irecv = 0;
      for (const MpiStep& s : halo_step(r, grid, p)) {
        isend += s.kind == MpiStep::Kind::kIsend;
        irecv += s.kind == MpiStep::Kind::kIrecv;
        if (s.kind == MpiStep::Kind::kIsend) {
          EXPECT_NE(s.peer, r);
        }
      }
      EXPECT_EQ(isend, sends);
      EXPECT_EQ(irecv, sends);
    }
  }
}

nlohmann::ordered_json run_yaml(const std::string& workload, int hosts) {
  Experiment e(load_scenario_text(
      "name: t\nduration: 1s\ntopology: {type: star, hosts: " + std::to_string(hosts) +
          "}\nfabric: {profile: ib-ndr, nic_jitter: {enabled: false}}\nworkload:\n  - " + workload + "\n",
      "t.yaml"));
  e.run();
  EXPECT_TRUE(e.workloads().at(0)->finished());
  EXPECT_EQ(e.invariant_error(), "");
  nlohmann::ordered_json j;
  e.workloads()[0]->report(j);
  return j;
}

// Two ranks, small faces: a step is the compute, then both faces out
// through the send path and the second one's receive; between one
// exchange's critical path and every host cost added up.
TEST(Halo, StepIsComputePlusTheExchange) {
  const FabricConfig f = find_profile("ib-ndr").config;
  const MpiConfig m = mpi_defaults(f);
  const nlohmann::ordered_json j = run_yaml("{type: halo3d, face: 64B, compute: 20us, steps: 10}", 2);
  PerftestOptions o;
  o.test = "send_lat";
  o.size = m.header.count() + 64;
  o.iters = 10;
  o.fabric = f;
  o.fabric.nic.jitter.enabled = false;
  o.link = f.link;
  const double one_way = run_perftest(o).latency_us.at(0);
  const double step = j["step_us"].get<double>();
  const double os = m.send_overhead.us(), orr = m.recv_overhead.us();
  EXPECT_GE(step, 20 + one_way + os + orr - 0.001);
  EXPECT_LE(step, 20 + one_way + 2 * os + 2 * orr + 0.01);
  EXPECT_NEAR(j["communication_share"].get<double>(), 1 - 20 / step, 1e-9);
  EXPECT_EQ(j["grid"], nlohmann::ordered_json::array({2, 1, 1}));
  EXPECT_EQ(j["messages"]["eager"].get<uint64_t>(),
            2u * 2 * 12);  // 2 ranks x 2 faces x (10 + 2 warm-up) steps
}

// A solver step adds a small MPI_Allreduce: about what osu_allreduce
// measures for that size on the same ranks.
TEST(Halo, SolverStepAddsTheAllreduce) {
  const nlohmann::ordered_json halo = run_yaml("{type: halo3d, face: 1KiB, compute: 10us, steps: 20}", 8);
  const nlohmann::ordered_json solver =
      run_yaml("{type: halo3d, face: 1KiB, compute: 10us, steps: 20, allreduce: 8B}", 8);
  const nlohmann::ordered_json osu =
      run_yaml("{type: osu, benchmark: osu_allreduce, min_size: 8B, max_size: 8B, iterations: 20}", 8);
  const double added = solver["step_us"].get<double>() - halo["step_us"].get<double>();
  const double allreduce = osu["rows"][0]["latency_us"].get<double>();
  EXPECT_NEAR(added, allreduce, 0.2 * allreduce);
}

TEST(Halo, RefusesAGridThatIsNotTheRanks) {
  auto key_of = [](const std::string& item) {
    return testing::workload_error_key(item, "{type: star, hosts: 8}");
  };
  EXPECT_EQ(key_of("{type: halo3d, ranks: 8, grid: [2, 2, 3]}"), "workload[0].grid");
  EXPECT_EQ(key_of("{type: halo3d, grid: [2, 4, 2]}"), "workload[0].grid");
  EXPECT_EQ(key_of("{type: halo3d, grid: [2, 2]}"), "workload[0].grid");
  EXPECT_EQ(key_of("{type: halo3d, face: 0B}"), "workload[0].face");
  EXPECT_EQ(key_of("{type: halo3d, steps: 0}"), "workload[0].steps");
  EXPECT_EQ(key_of("{type: halo3d, grid: [2, 2, 2], compute: 5us}"), "accepted");
}

}  // namespace
}  // namespace rdmasim
