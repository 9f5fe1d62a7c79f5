#include "collective/plan.h"

#include <stdexcept>

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
