// rdmasim validate §D: Ultra Ethernet and multipath (uet_cases.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/units.h"
#include "validate/validate.h"

namespace rdmasim {

// A permutation of 8 MiB flows (one QP each, `qps` to override) on a k=4
// fat-tree of 100G links (VALIDATION.md D.13): the last flow's completion
// over its ideal serialization time, and what a run is judged by.
struct PermutationSpread {
  double last_over_ideal = 0;
  size_t finished = 0;
  uint64_t retransmitted = 0;
  std::string invariants;
};
[[nodiscard]] PermutationSpread run_permutation_spread(const std::string& profile,
                                                       const std::string& fabric_extra, int qps = 1);

// N senders, each with one long WRITE of `bytes`, into one receiver on a
// star of `profile`'s link rate (VALIDATION.md D.12). Measured over
// [from, to): each sender's goodput, the receiver link's busy share, the
// queue of the switch port toward the receiver (sampled every 1 us); then
// run to the end. `tuned`: the switches' ECN ramp (0.2-0.8 BDP) and trim
// threshold (1 BDP) set from this star's own BDP (of the RTT a lone packet
// measures) instead of the profile's, which are for a 3-tier fabric's.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members have no noexcept default constructor
struct UetIncastRun {
  std::vector<double> share_gbps;
  double busy = 0;           // receiver link: payload rate / (line rate x payload share)
  double mean_queue_us = 0;  // receiver port queue, as delay at line rate
  double max_queue_us = 0;
  Time target;  // the congestion control's target queuing delay (NSCC), zero if none
  size_t done = 0;
  uint64_t timeouts = 0, trimmed = 0, drops = 0, retransmitted = 0;
  nlohmann::ordered_json uet;  // the transport's own report (results.json `uet`)
  std::string invariants;
};
[[nodiscard]] UetIncastRun run_uet_incast(const std::string& profile, int senders, int64_t bytes, Time from,
                                          Time to, bool tuned = false);

void uet_cases(std::vector<ValidationResult>& out);

}  // namespace rdmasim
