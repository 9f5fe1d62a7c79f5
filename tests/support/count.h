// Test helper: how often `needle` occurs in `haystack`, overlaps included
// (a rendered page's elements, a chart's labels).
#pragma once

#include <cstddef>
#include <string>

namespace rdmasim::testing {

inline std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace rdmasim::testing
