#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace rdmasim::cli {

// `parse(value)`, with a failure reported as the flag's (std::invalid_argument
// "<flag>: <why>"), so every bad flag is named in its error message.
template <class Parse>
auto flag_value(const std::string& flag, const std::string& value, Parse&& parse) {
  try {
    return parse(value);
  } catch (const std::exception& e) {
    throw std::invalid_argument(flag + ": " + e.what());
  }
}

}  // namespace rdmasim::cli
