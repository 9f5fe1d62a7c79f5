#include "collective/algorithms.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rdmasim {

Plan build_ring(const PlanRequest& r, const CommShape& shape);
Plan build_tree(const PlanRequest& r, const CommShape& shape);
Plan build_hierarchical(const PlanRequest& r, const CommShape& shape);
Plan build_pairwise(const PlanRequest& r, const CommShape& shape);
Plan build_sharp(const PlanRequest& r, const CommShape& shape);
Plan build_nvls(const PlanRequest& r, const CommShape& shape);

void check_plan_request(const PlanRequest& r, const CommShape& shape) {
  if (shape.servers < 1 || shape.gpus < 1)
    throw std::invalid_argument("a communicator needs at least one rank");
  if (r.bytes < 0) throw std::invalid_argument("message size must be >= 0");
  if (r.channels < 1 || r.channels > 64) throw std::invalid_argument("channels must be between 1 and 64");
  if (r.chunk < 0) throw std::invalid_argument("chunk size must be >= 1 byte (0: the protocol's step)");
  if (r.root < 0 || r.root >= shape.ranks())
    throw std::invalid_argument("root must be a rank between 0 and " + std::to_string(shape.ranks() - 1));
  // Every algorithm moves at most ~2 n S bytes in chunks of `chunk`, and
  // each rank takes its algorithm's steps per channel (a ring or all pairs:
  // every other rank; a tree: the server's chain and the tree's depth; a
  // hierarchy: the server's ring and the servers' ring). Bound the plan
  // before building it: memory grows with the number of transfers.
  const double n = shape.ranks();
  double steps = n;
  if (r.algo == Algo::kTree || r.algo == Algo::kSharp || r.algo == Algo::kNvls || r.algo == Algo::kNvlsTree) {
    steps = shape.gpus + 2 * std::ceil(std::log2(shape.servers + 1.0));
  } else if (r.algo == Algo::kHierarchical) {
    steps = shape.gpus + shape.servers;
  }
  const double data_term = 2 * n * static_cast<double>(r.bytes) / static_cast<double>(r.step_bytes());
  const double step_term = 2 * n * steps * r.channels;
  const double estimate = data_term + step_term;
  if (estimate > double(1 << 26)) {
    // Say which term is too large: the advice differs.
    const std::string head = "the collective would split into about " + std::to_string(int64_t(estimate)) +
                             " transfers, more than the " + std::to_string(1 << 26) + " a run holds: ";
    if (step_term >= data_term)
      throw std::invalid_argument(head + algo_name(r.algo) + " on " + std::to_string(shape.ranks()) +
                                  " ranks takes about " + std::to_string(int64_t(steps)) +
                                  " steps per channel on every rank, whatever the size (" +
                                  std::to_string(r.channels) +
                                  " channels): fewer ranks, fewer channels, or an algorithm with fewer steps "
                                  "(tree)");
    throw std::invalid_argument(head + "raise the chunk size (--chunk) or lower the message size");
  }
  if (r.algo == Algo::kNvls && shape.servers > 1 && r.type != CollType::kAllReduce)
    throw std::invalid_argument(std::string("algorithm 'nvls' runs ") + coll_name(r.type) +
                                " inside one server (across servers NCCL runs it with CollNet, IB SHARP, not "
                                "modelled): use ring");
  if (r.algo == Algo::kNvlsTree && shape.servers < 2)
    throw std::invalid_argument(
        "algorithm 'nvlstree' joins servers (NCCL disables it on one node): use nvls");
  if ((r.algo == Algo::kNvls || r.algo == Algo::kNvlsTree) && shape.gpus <= 2)
    throw std::invalid_argument("NVLink SHARP needs more than 2 GPUs per server (NCCL disables it below)");
  if (!algo_applies(r.type, r.algo))
    throw std::invalid_argument(std::string("algorithm '") + algo_name(r.algo) + "' does not implement " +
                                coll_name(r.type));
}

void set_nccl_proto(PlanRequest& r, ProtoSet set) {
  r.tune_proto = !proto_set_is_single(set);
  r.proto_set = r.tune_proto ? set : 0;
  r.proto = r.tune_proto ? Proto::kSimple : proto_of_single(set);
}

ProtoSet nccl_proto_of(const PlanRequest& r) { return r.tune_proto ? r.proto_set : proto_bit(r.proto); }

void set_nccl_algo(PlanRequest& r, AlgoSet set) {
  r.tune_algo = !algo_set_is_single(set);
  r.algo_set = r.tune_algo ? set : 0;
  r.algo = r.tune_algo ? default_algo(r.type) : algo_of_single(set);
}

AlgoSet nccl_algo_of(const PlanRequest& r) { return r.tune_algo ? r.algo_set : algo_bit(r.algo); }

Plan build_plan(const PlanRequest& r, const CommShape& shape) {
  check_plan_request(r, shape);
  switch (r.algo) {
    case Algo::kRing:
      return build_ring(r, shape);
    case Algo::kTree:
      return build_tree(r, shape);
    case Algo::kHierarchical:
      return build_hierarchical(r, shape);
    case Algo::kPairwise:
      return build_pairwise(r, shape);
    case Algo::kSharp:
      return build_sharp(r, shape);
    case Algo::kNvls:
    case Algo::kNvlsTree:
      return build_nvls(r, shape);
  }
  return {};
}

}  // namespace rdmasim
