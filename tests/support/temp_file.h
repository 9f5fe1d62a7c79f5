// Test helper: a file with given contents that is removed at scope exit.
// Named by test, process and object so parallel ctest runs (one process per
// test) and files alive at the same time cannot collide.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace rdmasim::testing {

class TempFile {
 public:
  explicit TempFile(const std::string& contents, const std::string& tag = "tmp") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info->name();  // a parameterised test's name holds '/'
    for (char& c : test)
      if (c == '/') c = '_';
    path_ = (std::filesystem::temp_directory_path() /
             ("rdmasim_" + tag + "_" + test + "_" + std::to_string(::getpid()) + "_" +
              std::to_string(reinterpret_cast<uintptr_t>(this)) + ".txt"))
                .string();
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rdmasim::testing
