// What a run reports: results.json (complete and schema-versioned),
// flows.csv, ports.csv and the stdout summary. Nothing here depends on wall
// time, so the same seed gives byte-identical files.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/experiment.h"

namespace rdmasim {

// 2: the statistics of a distribution with no samples are null (they were 0).
inline constexpr int kResultsSchemaVersion = 2;

[[nodiscard]] nlohmann::ordered_json scenario_json(const Scenario& s);
[[nodiscard]] nlohmann::ordered_json results_json(const Experiment& e);
[[nodiscard]] std::string flows_csv(const Experiment& e);
// flows.csv of any list of flows; `retransmitted` counts a started flow's
// resent packets (the flow-level model resends none).
[[nodiscard]] std::string flows_csv(const std::vector<FlowRecord>& flows,
                                    const std::function<uint64_t(const FlowRecord&)>& retransmitted);

// The flows' part of results.json, the same for packet- and flow-level runs:
// "flows" (counts, FCT, slowdown, throughput, by size) and "throughput".
// clang-tidy cannot see that nlohmann::json's noexcept move does not throw
// (it follows a call to its invariant check into code that could):
// NOLINTNEXTLINE(bugprone-exception-escape)
struct FlowTables {
  nlohmann::ordered_json flows;
  nlohmann::ordered_json throughput;
};
[[nodiscard]] FlowTables flow_tables(const std::vector<FlowRecord>& flows, uint64_t data_packet_hops);
// The summary's flow lines (completed, FCT, slowdown, goodput) from a
// results.json's "flows" and "throughput" tables, as both models print them.
[[nodiscard]] std::string flow_summary_lines(const nlohmann::ordered_json& results);
[[nodiscard]] std::string ports_csv(const Experiment& e);
// InfiniBand fabrics: per port and VL, the counters perfquery shows
// (PortXmitData/PortRcvData in 4-byte words, packets, PortVLXmitWait) and the
// port's PortXmitWait, flow-control packets and error counters.
[[nodiscard]] std::string ib_ports_csv(const Experiment& e);
[[nodiscard]] std::string summary_text(const Experiment& e);

// Writes results.json and the CSVs into `dir` (each atomically).
// Returns the names of the files written, in order.
std::vector<std::string> write_outputs(const Experiment& e, const std::string& dir);

// After a run wrote `written` into `dir`: removes the files a run of rdmasim
// may write there (run_output_names) that this one did not, so the folder
// holds one run's outputs, not an earlier run's beside them (an InfiniBand
// run's ib_ports.csv next to an Ethernet run's results). Returns their names.
std::vector<std::string> remove_stale_outputs(const std::string& dir,
                                              const std::vector<std::string>& written);
// Every name write_outputs and the flow-level run may write.
const std::vector<std::string>& run_output_names();

}  // namespace rdmasim
