// The algorithm builders: each turns one collective into a Plan (plan.h).
// Ranks are the communicator's: rank r is local GPU (r % gpus) of server
// (r / gpus). `bytes` follows nccl-tests' size column: the per-rank buffer for
// AllReduce/Broadcast/Reduce/SendRecv, the gathered (output) buffer for
// AllGather, the input buffer for ReduceScatter, each rank's send buffer for
// AllToAll.
#pragma once

#include <vector>

#include "collective/plan.h"
#include "collective/protocol.h"

namespace rdmasim {

struct CommShape {
  int servers = 1;
  int gpus = 1;  // per server
  [[nodiscard]] int ranks() const { return servers * gpus; }
  [[nodiscard]] int rank(int server, int local) const { return server * gpus + local; }
};

struct PlanRequest {
  CollType type = CollType::kAllReduce;
  Algo algo = Algo::kRing;
  int64_t bytes = 0;
  Proto proto = Proto::kSimple;
  // NCCL's tuner (tuner.h) picks the algorithm and/or the protocol for the
  // size when set (NCCL_ALGO / NCCL_PROTO unset); `algo`/`proto` are then
  // replaced by its choice when the collective starts.
  bool tune_algo = false;
  bool tune_proto = false;
  // With tune_proto: the protocols NCCL_PROTO lists when it names several
  // ("LL,Simple", "^LL"); the tuner picks among them, LL128 included even
  // where NCCL's default rule would leave it out (NCCL counts a listed
  // protocol as asked for). 0: NCCL_PROTO unset, NCCL's default rule.
  ProtoSet proto_set = 0;
  // With tune_algo: the algorithms NCCL_ALGO lists when it names several
  // ("ring,tree", "^nvls,nvlstree"); 0: NCCL_ALGO unset, every one that applies.
  AlgoSet algo_set = 0;
  int channels = 8;
  // `channels` is the count NCCL's topology search finds for the system (its
  // communicator runs each twice): a call then runs on as many as NCCL gives
  // its size (nccl_call_channels in tuner.h). False: the user fixed the count,
  // as NCCL_MIN/MAX_NCHANNELS would.
  bool size_channels = false;
  // PXN (NCCL_PXN_DISABLE=0, NCCL's default): a point-to-point chunk for a
  // GPU of another server and another local index first crosses NVLink to
  // the local GPU with the destination's index, and leaves through that
  // GPU's NIC, so it stays on the destination's rail.
  bool pxn = true;
  // Payload one transfer of the plan carries, the unit a receiver forwards;
  // 0: the protocol's (proto_grain_bytes: a warp's share of a step for LL
  // and LL128; for Simple one slice: ring AllReduce, AllGather and
  // ReduceScatter signal every SLICESTEPS = 2 steps, 1 MiB, the others every
  // step, 512 KiB; NCCL src/include/collectives.h).
  int64_t chunk = 0;
  int root = 0;
  [[nodiscard]] int64_t step_bytes() const {
    if (chunk > 0) return chunk;
    // NVLS moves NCCL_NVLS_CHUNKSIZE, 128 KiB (NCCL src/transport/nvls.cc).
    if (algo == Algo::kNvls || algo == Algo::kNvlsTree) return 128 << 10;
    const bool two_step_slices =
        proto == Proto::kSimple && algo == Algo::kRing &&
        (type == CollType::kAllReduce || type == CollType::kAllGather || type == CollType::kReduceScatter);
    return proto_grain_bytes(proto) * (two_step_slices ? 2 : 1);
  }
};

// NCCL_PROTO's setting on `r`: unset (0), one protocol (forced), or several
// (the tuner picks among them); and back.
void set_nccl_proto(PlanRequest& r, ProtoSet set);
[[nodiscard]] ProtoSet nccl_proto_of(const PlanRequest& r);
// NCCL_ALGO's likewise.
void set_nccl_algo(PlanRequest& r, AlgoSet set);
[[nodiscard]] AlgoSet nccl_algo_of(const PlanRequest& r);

// Throws std::invalid_argument when the algorithm does not apply or the
// request is malformed.
[[nodiscard]] Plan build_plan(const PlanRequest& r, const CommShape& shape);
// What build_plan refuses before it builds anything (e.g. a plan too large
// to hold), so a sweep can be refused before it runs.
void check_plan_request(const PlanRequest& r, const CommShape& shape);

// The ring a channel follows, rail-aligned as NCCL's ring search makes it:
// server s visits its GPUs c, c+1, ..., c-1 (channel c) when s is even and
// in the reverse order when s is odd, so every hop between servers joins the
// same local GPU index (the same rail: NIC c-1 to NIC c-1, or c to c). Over
// `gpus` channels every NIC sends in exactly one channel and receives in
// exactly one. With an odd number of servers the alternation cannot close, and
// all servers use the forward order (the hop s -> s+1 then goes c-1 -> c).
[[nodiscard]] std::vector<int> ring_order(const CommShape& shape, int channel);

// Double binary tree over `n` nodes as NCCL builds it across nodes
// (src/graph/trees.cc ncclGetDtree): parent of each node in tree t (0 or 1),
// -1 at the root. Tree 0 is NCCL's bit-pattern binary tree (root 0 with one
// child, odd ranks leaves); tree 1 is its mirror image (n even) or its shift
// by one rank (n odd), so a node that is a leaf in one tree is interior in
// the other and each node's links carry at most two children's worth.
[[nodiscard]] std::vector<int> binary_tree_parents(int n, int tree);

// Tree `tree` of binary_tree_parents(n, tree) as the builders walk it: each
// node's parent (-1 at the root) and children, the root, and every node in
// breadth-first order from the root (parents before children).
struct TreeShape {
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
  int root = 0;
  std::vector<int> order;
};
[[nodiscard]] TreeShape tree_shape(int n, int tree);

}  // namespace rdmasim
