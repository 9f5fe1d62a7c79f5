// "a, b, c": the lists that error messages and reports name (any range of
// strings, string views or C strings).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace rdmasim {

template <typename Range>
[[nodiscard]] std::string join_names(const Range& items, std::string_view sep = ", ") {
  return fmt::format("{}", fmt::join(items, sep));
}

}  // namespace rdmasim
