// Synthetic traffic patterns, each a list of flows (one message per flow).
#pragma once

#include <vector>

#include "engine/rng.h"
#include "engine/units.h"
#include "workload/flow_spec.h"

namespace rdmasim {

// `senders` distinct hosts (not `receiver`) each send `size` to `receiver` at
// `start`. random: senders drawn uniformly; sequential: the hosts after it.
std::vector<FlowSpec> make_incast(int num_hosts, int senders, int receiver, Bytes size, Time start,
                                  bool random, Rng& rng);
// Every host sends `size` to a distinct host, never itself (a random derangement).
std::vector<FlowSpec> make_permutation(int num_hosts, Bytes size, Time start, Rng& rng);
// Every host sends `size` to every other host.
std::vector<FlowSpec> make_all_to_all(int num_hosts, Bytes size, Time start);

}  // namespace rdmasim
