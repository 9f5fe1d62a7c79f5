#include "collective/plan.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

#include "collective/nccl_list.h"

namespace rdmasim {

const char* coll_name(CollType t) {
  switch (t) {
    case CollType::kAllReduce:
      return "all_reduce";
    case CollType::kAllGather:
      return "all_gather";
    case CollType::kReduceScatter:
      return "reduce_scatter";
    case CollType::kBroadcast:
      return "broadcast";
    case CollType::kReduce:
      return "reduce";
    case CollType::kAllToAll:
      return "alltoall";
    case CollType::kSendRecv:
      return "sendrecv";
  }
  return "?";
}

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::kRing:
      return "ring";
    case Algo::kTree:
      return "tree";
    case Algo::kHierarchical:
      return "hierarchical";
    case Algo::kPairwise:
      return "pairwise";
    case Algo::kSharp:
      return "sharp";
    case Algo::kNvls:
      return "nvls";
    case Algo::kNvlsTree:
      return "nvlstree";
  }
  return "?";
}

CollType coll_from_name(const std::string& s) {
  for (CollType t : {CollType::kAllReduce, CollType::kAllGather, CollType::kReduceScatter,
                     CollType::kBroadcast, CollType::kReduce, CollType::kAllToAll, CollType::kSendRecv})
    if (s == coll_name(t)) return t;
  throw std::invalid_argument(
      "unknown collective '" + s +
      "' (known: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
      "sendrecv)");
}

Algo algo_from_name(const std::string& s) {
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kHierarchical, Algo::kPairwise, Algo::kSharp, Algo::kNvls,
                 Algo::kNvlsTree})
    if (s == algo_name(a)) return a;
  throw std::invalid_argument("unknown algorithm '" + s +
                              "' (known: ring, tree, hierarchical, pairwise, sharp, nvls, nvlstree)");
}

AlgoSet parse_nccl_algo(const std::string& s) {
  if (s == "auto") return 0;
  const NcclList list = split_nccl_list(s, "NCCL_ALGO", "ring, tree, nvls or nvlstree");
  AlgoSet listed = 0;
  for (std::string name : list.names) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    listed |= algo_bit(algo_from_name(name));
  }
  if (!list.exclude && list.names.size() == 1) return listed;  // one algorithm, forced: any of them
  const AlgoSet tuned =
      algo_bit(Algo::kRing) | algo_bit(Algo::kTree) | algo_bit(Algo::kNvls) | algo_bit(Algo::kNvlsTree);
  if ((listed & ~tuned) != 0)
    throw std::invalid_argument(
        "NCCL_ALGO '" + s +
        "': a list or exclusion names algorithms NCCL's tuner chooses among (ring, tree, "
        "nvls, nvlstree); hierarchical, pairwise and sharp are forced alone");
  const AlgoSet set = list.exclude ? static_cast<AlgoSet>(tuned & ~listed) : listed;
  if (set == 0) throw std::invalid_argument("NCCL_ALGO '" + s + "' leaves no algorithm");
  return set;
}

std::string nccl_algo_text(AlgoSet set) {
  if (set == 0) return "auto";
  std::string out;
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kHierarchical, Algo::kPairwise, Algo::kSharp, Algo::kNvls,
                 Algo::kNvlsTree})
    if ((set & algo_bit(a)) != 0) out += (out.empty() ? "" : ",") + std::string(algo_name(a));
  return out;
}

bool algo_set_is_single(AlgoSet set) { return set != 0 && (set & (set - 1)) == 0; }

Algo algo_of_single(AlgoSet set) {
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kHierarchical, Algo::kPairwise, Algo::kSharp, Algo::kNvls,
                 Algo::kNvlsTree})
    if (set == algo_bit(a)) return a;
  throw std::invalid_argument("not a single algorithm: " + nccl_algo_text(set));
}

Algo default_algo(CollType t) {
  return (t == CollType::kAllToAll || t == CollType::kSendRecv) ? Algo::kPairwise : Algo::kRing;
}

bool algo_applies(CollType t, Algo a) {
  switch (t) {
    case CollType::kAllReduce:
      return a == Algo::kRing || a == Algo::kTree || a == Algo::kHierarchical || a == Algo::kSharp ||
             a == Algo::kNvls || a == Algo::kNvlsTree;
    case CollType::kAllGather:
    case CollType::kReduceScatter:
      return a == Algo::kRing || a == Algo::kHierarchical || a == Algo::kNvls;
    case CollType::kBroadcast:
    case CollType::kReduce:
      return a == Algo::kRing;
    case CollType::kAllToAll:
    case CollType::kSendRecv:
      return a == Algo::kPairwise;
  }
  return false;
}

double busbw_factor(CollType t, int n) {
  const double nn = n;
  switch (t) {
    case CollType::kAllReduce:
      return 2.0 * (nn - 1) / nn;
    case CollType::kAllGather:
    case CollType::kReduceScatter:
    case CollType::kAllToAll:
      return (nn - 1) / nn;
    case CollType::kBroadcast:
    case CollType::kReduce:
    case CollType::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

Plan repeat_calls(const Plan& one, int calls, int ranks) {
  const auto n = static_cast<uint32_t>(one.xfers.size());
  // A rank's mark waits for each of its transfers of the call.
  std::vector<int64_t> touching(static_cast<size_t>(ranks), 0);
  for (const Transfer& t : one.xfers) {
    ++touching[static_cast<size_t>(t.src)];
    if (t.dst != t.src) ++touching[static_cast<size_t>(t.dst)];
  }
  if (const int64_t most = *std::max_element(touching.begin(), touching.end()); most >= UINT16_MAX)
    throw std::invalid_argument(
        "calls in a row: a rank's part of one call is " + std::to_string(most) +
        " transfers, more than 65534: raise the chunk size, lower the size or run one call");
  if (static_cast<int64_t>(calls) * (n + ranks) > (int64_t{1} << 26))
    throw std::invalid_argument("calls in a row: " + std::to_string(calls) + " calls of " +
                                std::to_string(n) +
                                " transfers exceed 2^26: fewer calls, a larger chunk or a smaller size");
  PlanBuilder b(one.channels);
  std::vector<uint32_t> prev_marks;
  for (int k = 0; k < calls; ++k) {
    const auto base = static_cast<uint32_t>(b.size());
    for (const Transfer& t : one.xfers) b.add_copy(t);
    for (uint32_t x = 0; x < n; ++x)
      for (uint32_t i = one.xfers[x].succ_begin; i < one.xfers[x].succ_end; ++i)
        b.edge(base + x, base + one.succ[i]);
    std::vector<uint32_t> marks(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      marks[static_cast<size_t>(r)] = b.add_mark(r);
      if (!prev_marks.empty()) b.edge(prev_marks[static_cast<size_t>(r)], marks[static_cast<size_t>(r)]);
    }
    for (uint32_t x = 0; x < n; ++x) {
      const Transfer& t = one.xfers[x];
      b.edge(base + x, marks[static_cast<size_t>(t.src)]);
      if (t.dst != t.src) b.edge(base + x, marks[static_cast<size_t>(t.dst)]);
      if (!prev_marks.empty()) b.edge(prev_marks[static_cast<size_t>(t.src)], base + x);
    }
    prev_marks = std::move(marks);
  }
  return b.finish();
}

Plan PlanBuilder::finish() {
  auto& x = plan_.xfers;
  std::vector<uint32_t> count(x.size() + 1, 0);
  if (x.size() > (size_t{1} << 26))
    throw std::invalid_argument("the collective splits into more than 2^26 transfers: raise the chunk size");
  for (const auto& [b, a] : edges_) {
    ++count[b];
    if (x[a].deps == UINT16_MAX)
      throw std::invalid_argument("a transfer waits for more than 65535 chunks: raise the chunk size");
    ++x[a].deps;
  }
  uint32_t at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i].succ_begin = at;
    at += count[i];
    x[i].succ_end = x[i].succ_begin;
  }
  plan_.succ.assign(edges_.size(), 0);
  for (const auto& [b, a] : edges_) plan_.succ[x[b].succ_end++] = a;
  edges_.clear();
  return std::move(plan_);
}

}  // namespace rdmasim
