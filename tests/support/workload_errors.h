// What loading a scenario refuses, for the tests of what keys refuse:
// scenario_error gives "key: message" with the message's file position (or
// "accepted"), scenario_refusal the same without the position,
// scenario_error_key the key alone, workload_error_key the key for one
// workload item on a small topology.
#pragma once

#include <string>

#include "config/error.h"
#include "config/scenario.h"

namespace rdmasim::testing {

inline std::string scenario_error(const std::string& yaml, bool with_position = true) {
  try {
    (void)load_scenario_text(yaml, "t.yaml");
  } catch (const InputError& e) {
    return e.key() + ": " + (with_position ? std::string(e.what()) : e.message());
  }
  return "accepted";
}

inline std::string scenario_refusal(const std::string& yaml) { return scenario_error(yaml, false); }

inline std::string scenario_error_key(const std::string& yaml) {
  const std::string e = scenario_error(yaml);
  return e == "accepted" ? e : e.substr(0, e.find(": "));
}

inline std::string workload_error_key(const std::string& item,
                                      const std::string& topology = "{type: star, hosts: 4}",
                                      const std::string& profile = "ib-ndr") {
  return scenario_error_key("name: t\nduration: 1s\ntopology: " + topology +
                            "\nfabric: {profile: " + profile + "}\nworkload:\n  - " + item + "\n");
}

}  // namespace rdmasim::testing
