// NCCL_ALGO's and NCCL_PROTO's values as NCCL splits them (parseList,
// src/graph/tuning.cc): an optional "^" (leave the names out rather than
// keep only them), then names separated by commas.
#pragma once

#include <string>
#include <vector>

namespace rdmasim {

struct NcclList {
  bool exclude = false;
  std::vector<std::string> names;
};

// `variable` names the setting in errors ("NCCL_PROTO"), `expected` what a
// name may be ("LL, LL128 or Simple"). NCCL's per-collective prefixes
// ("allreduce:LL") are refused. Throws std::invalid_argument.
[[nodiscard]] NcclList split_nccl_list(const std::string& value, const char* variable, const char* expected);

}  // namespace rdmasim
