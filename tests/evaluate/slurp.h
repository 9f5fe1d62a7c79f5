// The bytes of a file a test reads back (an evaluation's outputs).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rdmasim::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rdmasim::test
