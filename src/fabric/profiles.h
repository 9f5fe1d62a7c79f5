// Built-in fabric profiles: named compositions of parts with overrides, each
// default citing its source. A scenario picks one and overrides what it needs.
#pragma once

#include <string>
#include <vector>

#include "fabric/fabric.h"

namespace rdmasim {

// Where a profile's value for `key` comes from.
struct ProfileSource {
  std::string key;     // scenario key, e.g. "fabric.mtu"
  std::string source;  // paper, spec, vendor document, or "assumption: ..."
};

// An assumption's stated bounds, as a user writes values ("250ns", "1us"):
// where the value may plausibly lie, with why. The evaluation's assumption
// sweep moves the value to each bound (x0.5 and x2 where none is stated).
struct AssumptionRange {
  std::string key;
  std::string low, high;
  std::string why;
};

// One default as `rdmasim profiles` and results.json list it.
struct ProfileDefault {
  std::string key;        // scenario key it sets, e.g. "fabric.mtu"
  std::string value;      // as a user would write it (from the parts' schema)
  std::string source;     // where the number comes from
  std::string low, high;  // an assumption's stated bounds, if any (see AssumptionRange)
  std::string range_why;
};

struct Profile {
  std::string name;
  // The fabric technology it models (InfiniBand, RoCEv2, iWARP); "" for a
  // reference network that is no product (ideal).
  std::string family;
  std::string summary;
  FabricConfig config;
  std::vector<ProfileSource> sources;   // the profile's own citations; the parts' own defaults cite theirs
  std::vector<AssumptionRange> ranges;  // bounds of some of its assumptions
};

// Throws std::invalid_argument naming the known profiles for an unknown name.
[[nodiscard]] Profile find_profile(const std::string& name);
[[nodiscard]] std::vector<std::string> profile_names();
// The fabric technologies the profiles model, each once, in profile order.
[[nodiscard]] std::vector<std::string> fabric_families();

// Every key the profile's parts accept, with the profile's value (formatted
// by the parts' schema, fabric/schema.h) and its source: the profile's
// citation, else the part's. A key with neither has source "" (a test
// refuses that).
[[nodiscard]] std::vector<ProfileDefault> profile_defaults(const Profile& p);
// The citations of the parts' own defaults (what a profile does not override).
[[nodiscard]] const std::vector<ProfileSource>& part_default_sources();

}  // namespace rdmasim
