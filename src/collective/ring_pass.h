// Internal to the algorithm builders: the ring pass every ring-based
// collective is made of, exposed so the hierarchical algorithm can chain passes.
#pragma once

#include <vector>

#include "collective/plan.h"

namespace rdmasim {

// `steps` steps of a ring over `ring` (communicator ranks) moving `data`
// bytes per channel: at step j the rank at position p sends block (p - j) mod m
// to position p + 1, chunk by chunk; chunk q of step j waits for chunk q of
// step j-1 to arrive at the sender. ReduceScatter and AllGather are m-1 steps,
// AllReduce 2(m-1). `entry[rank]` (may be empty) lists transfers a rank's
// first-step sends wait for; when it holds
// exactly one transfer per chunk, chunk q waits only for the q-th. Returns, per communicator rank, the
// transfers of the last step that deliver to it (its exits).
std::vector<std::vector<uint32_t>> ring_pass(PlanBuilder& b, const std::vector<int>& ring, int steps,
                                             int64_t data, int64_t chunk, int channel, int nranks,
                                             const std::vector<std::vector<uint32_t>>& entry);

// A pipelined chain ring[0] -> ring[1] -> ... -> ring[m-1] carrying `data`
// bytes in chunks (Broadcast from ring[0]; Reduce into ring[m-1]).
void chain_pass(PlanBuilder& b, const std::vector<int>& chain, int64_t data, int64_t chunk, int channel);

}  // namespace rdmasim
