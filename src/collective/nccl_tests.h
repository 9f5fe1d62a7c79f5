// nccl-tests equivalents (NVIDIA/nccl-tests): a size sweep of one collective
// with its table — size, count, type, redop, root, time, algbw, busbw for
// out-of-place and in-place — and the average bus bandwidth. busbw uses the
// factors of VALIDATION.md §A.4. Each size runs on a fresh, idle cluster (the
// simulation is deterministic, so nccl-tests' -n iterations would repeat it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collective/background.h"
#include "collective/communicator.h"
#include "fabric/fabric.h"

namespace rdmasim {

struct NcclTestsOptions {
  CollType type = CollType::kAllReduce;
  Algo algo = Algo::kRing;
  int64_t min_bytes = 32 << 20;  // nccl-tests defaults: -b 32M -e 32M -f 2
  int64_t max_bytes = 32 << 20;
  int64_t step_factor = 2;
  int root = 0;
  int channels = 0;  // 0: one per GPU of a server, at least 2 (NCCL opens >= 2 rings)
  int64_t chunk = 512 * 1024;
  ClusterConfig cluster;
  FabricConfig fabric;
  CommConfig comm;
  uint64_t seed = 1;
  // Background traffic sharing the fabric during every size (none when unset).
  std::optional<FlowSizeCdf> background_cdf;
  BackgroundConfig background;
};

struct NcclTestsRow {
  int64_t bytes = 0;
  int64_t count = 0;  // float elements
  double time_us = 0;
  double algbw = 0;  // GB/s (1e9 bytes/s, as nccl-tests)
  double busbw = 0;
  int64_t fabric_bytes = 0;
  bool sharp_fallback = false;  // --algo sharp ran ring instead
  std::string invariant_error;
};

struct NcclTestsResult {
  std::vector<NcclTestsRow> rows;
  double avg_busbw = 0;
  int nranks = 0;
  int channels = 0;
};

// The sizes nccl-tests visits for -b/-e/-f. Throws std::invalid_argument.
[[nodiscard]] std::vector<int64_t> nccl_tests_sizes(int64_t min_bytes, int64_t max_bytes, int64_t factor);
// Running the sweep is the runner's (run/front_ends.h: run_nccl_tests).
// The nccl-tests style table.
[[nodiscard]] std::string format_nccl_tests(const NcclTestsResult& r, const NcclTestsOptions& o);
// The same as JSON (rows and settings).
[[nodiscard]] std::string nccl_tests_json(const NcclTestsResult& r, const NcclTestsOptions& o);

}  // namespace rdmasim
