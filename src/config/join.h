// "a, b, c": the lists that error messages and reports name.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace rdmasim {

[[nodiscard]] inline std::string join_names(const std::vector<std::string>& items,
                                            std::string_view sep = ", ") {
  return fmt::format("{}", fmt::join(items, sep));
}

}  // namespace rdmasim
