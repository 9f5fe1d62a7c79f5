// Files that ship with rdmasim (data/, scenarios/): found relative to the
// working directory first, then in the source tree the binary was built from.
#pragma once

#include <string>

namespace rdmasim {

[[nodiscard]] std::string find_shipped(const std::string& relative);

}  // namespace rdmasim
