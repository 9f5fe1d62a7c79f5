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

[[nodiscard]] std::vector<ValidationResult> run_validation();

}  // namespace rdmasim
