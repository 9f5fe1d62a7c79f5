// A scalar that must be a whole decimal int ("12", not "12x" or "1e3"), for
// the custom codecs that read lists of indices or counts.
#pragma once

#include <exception>
#include <optional>
#include <string>

namespace rdmasim {

[[nodiscard]] inline std::optional<int> parse_int(const std::string& text) {
  try {
    size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {  // not a number, or out of int's range
  }
  return std::nullopt;
}

}  // namespace rdmasim
