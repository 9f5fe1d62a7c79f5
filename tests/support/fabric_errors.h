// A small leaf-spine scenario whose fabric block is a profile plus extra
// lines, and the input error loading it raises: for the tests of what a
// fabric's keys refuse.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "config/scenario.h"

namespace rdmasim::testing {

inline std::string leaf_spine_scenario(const std::string& profile, const std::string& fabric_extra) {
  return "name: t\nduration: 1ms\ntopology:\n  type: leaf-spine\n  leaves: 2\n  hosts_per_leaf: 2\n"
         "  spines: 2\nfabric:\n  profile: " +
         profile + "\n" + fabric_extra + "workload: [{type: flow, src: 0, dst: 2, size: 10KB}]\n";
}

// The error the scenario raises; a test failure (and an empty error) if it loads.
inline InputError fabric_error_of(const std::string& profile, const std::string& fabric_extra) {
  try {
    (void)load_scenario_text(leaf_spine_scenario(profile, fabric_extra), "t.yaml");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << leaf_spine_scenario(profile, fabric_extra);
  return InputError("", 0, 0, "", "");
}

}  // namespace rdmasim::testing
