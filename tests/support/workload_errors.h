// The key a scenario with one workload item is refused at, or "accepted":
// for the tests of what a workload type's keys refuse.
#pragma once

#include <string>

#include "config/error.h"
#include "config/scenario.h"

namespace rdmasim::testing {

inline std::string workload_error_key(const std::string& item,
                                      const std::string& topology = "{type: star, hosts: 4}",
                                      const std::string& profile = "ib-ndr") {
  try {
    (void)load_scenario_text("name: t\nduration: 1s\ntopology: " + topology +
                                 "\nfabric: {profile: " + profile + "}\nworkload:\n  - " + item + "\n",
                             "t.yaml");
  } catch (const InputError& e) {
    return e.key();
  }
  return "accepted";
}

}  // namespace rdmasim::testing
