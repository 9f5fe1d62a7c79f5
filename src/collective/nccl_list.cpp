#include "collective/nccl_list.h"

#include <stdexcept>

namespace rdmasim {

NcclList split_nccl_list(const std::string& value, const char* variable, const char* expected) {
  const std::string what = std::string(variable) + " '" + value + "'";
  if (value.find_first_of(":;") != std::string::npos)
    throw std::invalid_argument(what + ": per-collective prefixes are not modelled (expected auto, " +
                                expected + ", a list of them, or ^ and those to leave out)");
  NcclList out;
  out.exclude = !value.empty() && value[0] == '^';
  for (size_t at = out.exclude ? 1 : 0;;) {
    const size_t comma = value.find(',', at);
    out.names.push_back(value.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (out.names.back().empty())
      throw std::invalid_argument(what + ": an empty name (expected " + expected + ")");
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace rdmasim
