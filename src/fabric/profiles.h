// Built-in fabric profiles: named sets of defaults, each value with the source
// it comes from. A scenario picks one and overrides what it needs.
#pragma once

#include <string>
#include <vector>

#include "fabric/fabric.h"

namespace rdmasim {

struct ProfileDefault {
  std::string key;     // scenario key it sets, e.g. "fabric.mtu"
  std::string value;   // as a user would write it
  std::string source;  // where the number comes from
};

struct Profile {
  std::string name;
  std::string summary;
  FabricConfig config;
  std::vector<ProfileDefault> defaults;
  // The host link perftest uses when no rate or delay is given.
  LinkSpec link{Rate::from_gbps(100), Time::from_ns(1000)};
};

// Throws std::invalid_argument naming the known profiles for an unknown name.
[[nodiscard]] Profile find_profile(const std::string& name);
[[nodiscard]] std::vector<std::string> profile_names();

}  // namespace rdmasim
