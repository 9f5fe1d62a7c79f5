// A collective as NCCL runs it, flattened into its transfers: every chunk of
// every step of every channel is one Transfer from one rank to another, which
// may start once the transfers it depends on have delivered their data (the
// chunk it forwards or reduces has arrived). Algorithms (ring.cpp, tree.cpp,
// hierarchical.cpp, alltoall.cpp) only build plans; the Communicator runs them.
// Plans are built once per collective (allocation in setup, none per packet).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rdmasim {

enum class CollType : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv
};
// kNvls / kNvlsTree: NVLink SHARP (NCCL_ALGO NVLS / NVLSTree), reduction in
// the NVSwitch inside a server (nvls.cpp).
enum class Algo : uint8_t { kRing, kTree, kHierarchical, kPairwise, kSharp, kNvls, kNvlsTree };

// Collectives with a root rank (nccl-tests prints it; the rest print -1).
[[nodiscard]] constexpr bool has_root(CollType t) {
  return t == CollType::kBroadcast || t == CollType::kReduce;
}

[[nodiscard]] const char* coll_name(CollType t);
[[nodiscard]] const char* algo_name(Algo a);
// nccl-tests test names: all_reduce, all_gather, reduce_scatter, broadcast,
// reduce, alltoall, sendrecv. Throws std::invalid_argument for others.
[[nodiscard]] CollType coll_from_name(const std::string& s);
[[nodiscard]] Algo algo_from_name(const std::string& s);
// A set of algorithms, bit i for Algo(i); 0 stands for NCCL_ALGO unset.
using AlgoSet = uint8_t;
[[nodiscard]] constexpr AlgoSet algo_bit(Algo a) { return static_cast<AlgoSet>(1U << static_cast<int>(a)); }
// NCCL_ALGO's value as NCCL reads it (src/graph/tuning.cc parseList), over
// the algorithms its tuner chooses among here (ring, tree, nvls, nvlstree):
// "auto" (unset: 0), a comma-separated list ("ring,tree") or "^" and those to
// leave out ("^nvls,nvlstree", as NCCL_NVLS_ENABLE=0); names
// case-insensitive. One name forces it, and may be any algorithm. Throws
// std::invalid_argument naming what was expected.
[[nodiscard]] AlgoSet parse_nccl_algo(const std::string& s);
// The set as NCCL_ALGO spells it here: "auto" for 0, else the list ("ring,tree").
[[nodiscard]] std::string nccl_algo_text(AlgoSet set);
[[nodiscard]] bool algo_set_is_single(AlgoSet set);
// The one algorithm of a set of one (throws std::invalid_argument otherwise).
[[nodiscard]] Algo algo_of_single(AlgoSet set);
// NCCL's default algorithm for a collective (ring, or pairwise for AllToAll/SendRecv).
[[nodiscard]] Algo default_algo(CollType t);
// Whether `a` implements `t`.
[[nodiscard]] bool algo_applies(CollType t, Algo a);

// nccl-tests bus-bandwidth factor (VALIDATION.md §A.4; nccl-tests src/*.cu):
// busbw = algbw x factor.
[[nodiscard]] double busbw_factor(CollType t, int nranks);

struct Transfer {
  int src = 0;
  int dst = 0;
  int64_t bytes = 0;
  uint16_t channel = 0;
  uint16_t deps = 0;      // transfers that must deliver before this one starts
  uint8_t sharp : 1 = 0;  // an in-network aggregation over the rail of `src` (src == dst)
  // A rank's end of one call (src == dst, no bytes): it follows every
  // transfer of that call the rank sends or receives, and every transfer the
  // rank sends in its next call follows it (repeat_calls).
  uint8_t mark : 1 = 0;
  // This transfer is one of `share + 1` sends of one GPU step (a tree rank's
  // down step to its children and its chain), charged that share of it.
  uint8_t share : 2 = 0;
  uint8_t nvls = 0;  // kNvlsReduce / kNvlsMulticast at `src` (src == dst), through its server's NVSwitch
  // Chunk `part` of the `parts` a ring step's block is cut into, worked on
  // side by side by the channel's warps (Communicator::lanes_); 0 of 1 else.
  uint8_t part = 0;
  uint8_t parts = 1;
  uint32_t succ_begin = 0;  // successors: Plan::succ[succ_begin, succ_end)
  uint32_t succ_end = 0;
};

static_assert(sizeof(Transfer) == 32, "plans hold up to 2^26 transfers");

struct Plan {
  std::vector<Transfer> xfers;
  std::vector<uint32_t> succ;
  int channels = 1;
};

// NVLink SHARP, one slice at its owner GPU: the NVSwitch reads the slice
// from every GPU of the server and returns the sum (multimem.ld_reduce), or
// the owner stores the slice once and the switch writes it to every GPU of
// the server (multimem.st).
inline constexpr uint8_t kNvlsReduce = 1;
inline constexpr uint8_t kNvlsMulticast = 2;

// Builds a plan incrementally: add transfers, then edges, then finish().
class PlanBuilder {
 public:
  explicit PlanBuilder(int channels) { plan_.channels = channels; }
  uint32_t add(int src, int dst, int64_t bytes, int channel) {
    Transfer t;
    t.src = src;
    t.dst = dst;
    t.bytes = bytes;
    t.channel = static_cast<uint16_t>(channel);
    plan_.xfers.push_back(t);
    return static_cast<uint32_t>(plan_.xfers.size() - 1);
  }
  // Marks `t` as chunk `part` of the `parts` of its ring step. One byte
  // each keeps a transfer at 32 bytes: the part modulo 80, a multiple of
  // every lane count (16, 20), so it keeps its lane; parts beyond 255 share
  // the lanes as 255 do.
  void set_part(uint32_t t, int64_t part, int64_t parts) {
    plan_.xfers[t].part = static_cast<uint8_t>(part % 80);
    plan_.xfers[t].parts = static_cast<uint8_t>(std::min<int64_t>(parts, 255));
  }
  // Transfer t is one of `n` (1-4) sends of one GPU step.
  void set_share(uint32_t t, int n) { plan_.xfers[t].share = static_cast<uint8_t>(std::clamp(n, 1, 4) - 1); }
  // One SHARP aggregation of `bytes` per host over every server's GPU with
  // the local index of `rank` (its rail).
  uint32_t add_sharp(int rank, int64_t bytes, int channel) {
    const uint32_t t = add(rank, rank, bytes, channel);
    plan_.xfers[t].sharp = true;
    return t;
  }
  uint32_t add_nvls(int rank, int64_t bytes, int channel, uint8_t kind) {
    const uint32_t t = add(rank, rank, bytes, channel);
    plan_.xfers[t].nvls = kind;
    return t;
  }
  // A copy of `t` (of another plan: its successors are not copied).
  uint32_t add_copy(const Transfer& t) {
    Transfer c = t;
    c.deps = 0;
    c.succ_begin = c.succ_end = 0;
    plan_.xfers.push_back(c);
    return static_cast<uint32_t>(plan_.xfers.size() - 1);
  }
  uint32_t add_mark(int rank) {
    const uint32_t t = add(rank, rank, 0, 0);
    plan_.xfers[t].mark = true;
    return t;
  }
  // `after` may start only once `before` has delivered.
  void edge(uint32_t before, uint32_t after) { edges_.emplace_back(before, after); }
  [[nodiscard]] size_t size() const { return plan_.xfers.size(); }
  Plan finish();

 private:
  Plan plan_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
};

// `calls` back-to-back calls of `one` over `ranks` ranks, as nccl-tests
// queues them (its -n): each call's transfers as in `one`, then one mark per
// rank, and a rank's sends of call k+1 wait for its mark of call k (a GPU
// runs one kernel after the other). Call k's transfers are
// [k (n + ranks), k (n + ranks) + n) for n = one.xfers.size(), its marks the
// `ranks` after them, rank order. Throws std::invalid_argument as finish().
[[nodiscard]] Plan repeat_calls(const Plan& one, int calls, int ranks);

// Splits `total` bytes into `parts` near-equal pieces; piece i of them.
[[nodiscard]] inline int64_t piece(int64_t total, int64_t parts, int64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

}  // namespace rdmasim
