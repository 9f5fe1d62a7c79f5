// Same seed -> byte-identical outputs, whether scenarios run one at a time or
// side by side in threads.
#include <gtest/gtest.h>

#include <thread>

#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

const char* kScenario = R"(
name: det
seed: 42
duration: 5ms
topology:
  type: fat-tree
  k: 4
  link: {rate: 100Gbps, delay: 1us}
  switch: {buffer: 256KiB}
workload:
  - type: cdf
    cdf: data/cdf/websearch.txt
    load: 60%
    window: 1ms
  - type: incast
    senders: 8
    size: 200KB
    start: 100us
)";

struct Outputs {
  std::string results, flows, ports;
};

Outputs run_once(uint64_t seed) {
  Scenario s = load_scenario_text(kScenario, "det.yaml", {"seed=" + std::to_string(seed)});
  Experiment e(std::move(s));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  return {results_json(e).dump(2), flows_csv(e), ports_csv(e)};
}

TEST(Determinism, SameSeedSameBytesSerialAndThreaded) {
  const Outputs a = run_once(42);
  const Outputs b = run_once(42);
  EXPECT_EQ(a.results, b.results);
  EXPECT_EQ(a.flows, b.flows);
  EXPECT_EQ(a.ports, b.ports);
  // The run is lossy enough to exercise drops and retransmission.
  const auto j = nlohmann::json::parse(a.results);
  EXPECT_GT(j["network"]["switch_buffer_drops"].get<uint64_t>(), 0u);
  EXPECT_GT(j["flows"]["total"].get<size_t>(), 50u);

  Outputs par[3];
  std::thread t0([&] { par[0] = run_once(42); });
  std::thread t1([&] { par[1] = run_once(42); });
  std::thread t2([&] { par[2] = run_once(7); });
  t0.join();
  t1.join();
  t2.join();
  EXPECT_EQ(par[0].results, a.results);
  EXPECT_EQ(par[1].results, a.results);
  EXPECT_EQ(par[0].flows, a.flows);
  EXPECT_NE(par[2].results, a.results);  // the seed matters
}

}  // namespace
}  // namespace rdmasim
