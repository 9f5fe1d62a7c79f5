// `rdmasim validate`: runs every implemented case of VALIDATION.md and prints
// measured against expected, with the tolerance and a verdict.
#pragma once

#include <string>
#include <vector>

namespace rdmasim {

struct ValidationResult {
  std::string id;  // e.g. "A.1"
  std::string name;
  std::string measured;
  std::string expected;  // with its tolerance
  bool pass = false;
};

// `full`: the paper-sized versions of the cases that have a scaled-down one
// (§B.6 on the 320-host fat-tree); minutes instead of seconds.
[[nodiscard]] std::vector<ValidationResult> run_validation(bool full = false);

}  // namespace rdmasim
