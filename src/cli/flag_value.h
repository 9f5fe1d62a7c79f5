#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
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

// A path flag given as "" would be taken for one not given at all.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& text) -> std::string { return text.empty() ? "expected a path" : ""; }, "PATH");
}

// A seed as a scenario's `seed:` takes it: an integer from 0 to 2^63 - 1.
// Checked on the text, before CLI11 converts it (its conversion saturates an
// out-of-range value and wraps a negative one into an unsigned type).
inline CLI::Validator seed_range() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, v);
        if (ec != std::errc() || at != end || v < 0)
          return "expected a seed from 0 to 9223372036854775807, got '" + text + "'";
        return "";
      },
      "SEED");
}

}  // namespace rdmasim::cli
