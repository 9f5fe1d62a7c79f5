// A YAML list of host indices, e.g. `hosts: [0, 16]`, as a ParamReader
// custom codec (config/params.h): the MPI ranks' hosts, NVMe-oF initiators
// and targets. Empty echoes as "auto" (the type's default placement).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/cfg_node.h"
#include "config/parse_int.h"

namespace rdmasim {

struct HostListCodec {
  static void read(const CfgNode& n, const char* key, std::vector<int>& hosts) {
    hosts.clear();
    for (const CfgNode& item : n.list(key)) {
      const std::string text = item.scalar();
      const int v = parse_int(text).value_or(-1);
      if (v < 0) throw item.error("", "expected a host index (0, 1, ...), got '" + text + "'");
      hosts.push_back(v);
    }
    if (hosts.empty()) throw n.error(key, "expected at least one host index");
  }
  static nlohmann::ordered_json echo(const std::vector<int>& hosts) {
    if (hosts.empty()) return "auto";
    return hosts;
  }
  static std::string form() { return "list of host indices, e.g. [0, 16]"; }
};

}  // namespace rdmasim
