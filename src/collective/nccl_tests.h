// nccl-tests equivalents (NVIDIA/nccl-tests): a size sweep of one collective
// with its table — size, count, type, redop, root, time, algbw, busbw for
// out-of-place and in-place — and the average bus bandwidth. busbw uses the
// factors of VALIDATION.md §A.4. Each size runs on a fresh, idle cluster (the
// simulation is deterministic, so nccl-tests' -n iterations would repeat it).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "collective/background.h"
#include "collective/communicator.h"
#include "fabric/fabric.h"

namespace rdmasim {

struct NcclTestsOptions {
  CollType type = CollType::kAllReduce;
  // NCCL_ALGO / NCCL_PROTO: the tuner (tuner.h) picks each that is unset.
  std::optional<Algo> algo;
  // NCCL_ALGO naming several algorithms ("ring,tree", "^nvls,nvlstree"): the
  // tuner picks among them (0: not set; a single one is `algo`).
  AlgoSet algo_list = 0;
  std::optional<Proto> proto;
  // NCCL_PROTO naming several protocols ("LL,Simple", "^LL"): the tuner
  // picks among them (0: not set; a single one is `proto`).
  ProtoSet proto_list = 0;
  int64_t min_bytes = 32 << 20;  // nccl-tests defaults: -b 32M -e 32M -f 2
  int64_t max_bytes = 32 << 20;
  int64_t step_factor = 2;
  int root = 0;
  int channels = 0;   // 0: one per GPU of a server, at least 2 (NCCL opens >= 2 rings)
  int64_t chunk = 0;  // 0: the protocol's step
  bool pxn = true;    // NCCL_PXN_DISABLE=0
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
  Algo algo = Algo::kRing;      // what ran (the tuner's choice unless forced)
  Proto proto = Proto::kSimple;
  int channels = 0;          // the channels NCCL gives this size
  double nccl_model_us = 0;  // NCCL's own cost model for what ran (0: none)
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
// The "count" column nccl-tests prints for `bytes` of floats on `nranks`
// ranks: the count argument its call passes (NVIDIA/nccl-tests
// src/all_gather.cu AllGatherGetCollByteCount, and the same for
// reduce_scatter and alltoall): each rank's share, rounded down to 16 bytes;
// the whole buffer for the others.
[[nodiscard]] int64_t nccl_tests_count(CollType type, int64_t bytes, int nranks);
// The bytes a row of the sweep moves and prints as its "size": the count
// times the ranks that share it, in floats (nccl-tests prints max(send,
// receive bytes) of the call, common.cu). A share that does not divide
// leaves its remainder out; one that rounds to zero is a call NCCL returns
// from at once (nccl-tests prints size 0 for all_gather of 8-256 B on 32
// ranks).
[[nodiscard]] int64_t nccl_tests_bytes(CollType type, int64_t bytes, int nranks);
// Running the sweep is the runner's (run/front_ends.h: run_nccl_tests).
// The nccl-tests style table.
[[nodiscard]] std::string format_nccl_tests(const NcclTestsResult& r, const NcclTestsOptions& o);
// The same as JSON (rows and settings).
[[nodiscard]] std::string nccl_tests_json(const NcclTestsResult& r, const NcclTestsOptions& o);

// One row of a table nccl-tests printed: its out-of-place columns, and the
// in-place ones where the row has them (0 where not).
struct PublishedRow {
  int64_t bytes = 0;
  double time_us = 0, algbw = 0, busbw = 0;
  double in_place_us = 0, in_place_busbw = 0;
  // The faster of the two measurements of the same collective. nccl-tests
  // times out-of-place first at every size, so a one-off cost lands there
  // (in the ten published tables here, from 1 KiB, out-of-place is the
  // slower by more than 5% at 25 sizes, in-place at 7); and noise on a quiet system only adds time, so
  // the least of repeated timings estimates the undisturbed one (Chen and
  // Revels, "Robust benchmarking in noisy environments", arXiv:1608.04295).
  [[nodiscard]] double best_us() const { return in_place_us > 0 ? std::min(time_us, in_place_us) : time_us; }
  [[nodiscard]] double best_busbw() const {
    return in_place_us > 0 && in_place_us < time_us ? in_place_busbw : busbw;
  }
};
// Reads nccl-tests' own output (ours or the real tool's): every line whose
// first field is a size; '#' lines, headers and the summary are skipped.
// Throws std::invalid_argument naming the line of a row it cannot read.
[[nodiscard]] std::vector<PublishedRow> parse_nccl_tests_table(const std::string& text);

// A simulated sweep against a published one, size by size from `from_bytes`,
// each size against the faster of its two timings (PublishedRow::best_us).
// A published row slower than the next size by more than 20% is a glitch
// of that run (an algorithm switch moves a size's time by a few percent,
// never by that much) and is listed rather than compared.
struct PublishedComparison {
  int compared = 0;
  int within = 0;               // |time error| <= tolerance
  int within_out_of_place = 0;  // the same against the out-of-place timing alone
  double model_worst = 0;       // NCCL's own cost model against the same rows: its worst signed error
  double worst = 0;             // signed time error of the worst size
  int64_t worst_bytes = 0;
  std::vector<int64_t> misses;                    // sizes outside the tolerance
  std::vector<int64_t> glitches;                  // published rows not compared
  double busbw_top = 0, published_busbw_top = 0;  // at the largest size both have
  [[nodiscard]] double busbw_error() const { return busbw_top / published_busbw_top - 1; }
};
[[nodiscard]] PublishedComparison compare_with_published(const NcclTestsResult& sim,
                                                         const std::vector<PublishedRow>& published,
                                                         int64_t from_bytes, double tolerance);

}  // namespace rdmasim
