// OSU Micro-Benchmarks equivalents (mvapich.cse.ohio-state.edu/benchmarks):
// osu_latency, osu_bw, osu_bibw, osu_mbw_mr, osu_allreduce, osu_alltoall and
// osu_barrier, written as MPI rank programs (program.h) with OSU's loops,
// default sizes, iteration counts, warm-up, window and arithmetic, and
// printed in OSU's own table format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/mpi_config.h"
#include "mpi/mpi_engine.h"
#include "mpi/program.h"
#include "workload/workload.h"

namespace rdmasim {

enum class OsuBench : uint8_t { kLatency, kBw, kBibw, kMbwMr, kAllreduce, kAlltoall, kBarrier };

// "osu_latency" -> kLatency; throws std::invalid_argument listing the names.
[[nodiscard]] OsuBench osu_bench(const std::string& name);
[[nodiscard]] const char* osu_name(OsuBench b);
[[nodiscard]] bool osu_point_to_point(OsuBench b);
[[nodiscard]] bool osu_windowed(OsuBench b);  // bw, bibw, mbw_mr: -W applies

// What the `osu` workload type and `rdmasim osu` run.
struct OsuParams final : WorkloadParams {
  std::string benchmark = "osu_latency";
  int64_t min_size = -1;  // -1: OSU's default for the benchmark
  int64_t max_size = -1;
  int iterations = 0;      // -i; 0: OSU's (fewer above 8 KiB)
  int warmup = -1;         // -x; -1: OSU's
  int window = 64;         // -W
  int ranks = 0;           // 0: 2 for point-to-point, every host for collectives
  std::vector<int> hosts;  // rank r on hosts[r]; empty: hosts 0, 1, ...
  MpiConfig mpi;
};

// The sizes OSU visits (0 or 1, then doubling up to the maximum).
[[nodiscard]] std::vector<int64_t> osu_sizes(const OsuParams& p);
// One phase per size.
[[nodiscard]] std::vector<MpiPhase> osu_phases(const OsuParams& p, int ranks);

struct OsuRow {
  int64_t size = 0;
  double value = 0;   // latency in us, or bandwidth in MB/s (1e6 B/s, as OSU)
  double min_us = 0;  // collectives: over ranks
  double max_us = 0;
  double msg_rate = 0;  // osu_mbw_mr: messages/s
  int iterations = 0;
};

struct OsuResult {
  OsuBench bench = OsuBench::kLatency;
  int ranks = 0;
  int window = 64;
  std::vector<OsuRow> rows;
  MpiCounters counters;
};

// The figures OSU prints, from what the engine's timers measured.
[[nodiscard]] OsuResult osu_result(const OsuParams& p, const MpiEngine& e);
// OSU's table; `full`: the collectives' -f columns.
[[nodiscard]] std::string format_osu(const OsuResult& r, bool full);

// A table OSU printed (ours or the real tool's): the title line and each row
// as numbers. Throws std::invalid_argument naming the line it cannot read.
struct OsuTable {
  std::string title;                 // "OSU MPI Latency Test v5.6.2"
  std::vector<std::string> columns;  // "Size", "Latency (us)"
  std::vector<std::vector<double>> rows;
};
[[nodiscard]] OsuTable parse_osu_table(const std::string& text);

[[nodiscard]] const WorkloadType& osu_workload_type();
// What an `osu` workload measured; throws std::bad_cast for another type.
[[nodiscard]] OsuResult osu_workload_result(const Workload& w);

}  // namespace rdmasim
