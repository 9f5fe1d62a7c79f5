// The class one kind of traffic is sent in (RoCE priority / IB SL, 0..7), or
// `default`: the fabric's data class, stored as -1. A ParamReader custom
// codec (config/params.h) for keys such as a stream's or SHARP's
// traffic_class, where 0 is a class like any other and not the default.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "config/cfg_node.h"
#include "config/parse_int.h"

namespace rdmasim {

struct TrafficClassCodec {
  static void read(const CfgNode& n, const char* key, int& tc) {
    const std::string text = n.str(key);
    if (text == "default") {
      tc = -1;
      return;
    }
    const int v = parse_int(text).value_or(-1);
    if (v < 0 || v > 7) throw n.error(key, "expected a traffic class 0..7 or default, got '" + text + "'");
    tc = v;
  }
  static nlohmann::ordered_json echo(int tc) {
    if (tc < 0) return "default";
    return tc;
  }
  static std::string form() { return "traffic class 0..7 | default"; }
};

}  // namespace rdmasim
