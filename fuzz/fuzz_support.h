// What the libFuzzer targets share: the repository they run in, a working
// directory each input runs in, and artifact paths that survive it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rdmasim::fuzz {

namespace fs = std::filesystem;

inline const fs::path& repo_root() {
  static const fs::path root = fs::path(RDMASIM_SOURCE_DIR).lexically_normal();
  return root;
}

[[noreturn]] inline void die(const char* what, const std::string& arg) {
  std::fprintf(stderr, "fuzz: %s %s: %s\n", what, arg.c_str(), std::strerror(errno));
  std::abort();
}

// Runs an input inside `dir` and returns to where the fuzzer started.
class InWorkDir {
 public:
  explicit InWorkDir(const fs::path& dir) {
    if (::chdir(dir.c_str()) != 0) die("cannot enter", dir.string());
  }
  ~InWorkDir() {
    if (::fchdir(start_dir_fd()) != 0) die("cannot return to", "the starting directory");
  }
  InWorkDir(const InWorkDir&) = delete;
  InWorkDir& operator=(const InWorkDir&) = delete;

  // Call once from LLVMFuzzerInitialize, before any input runs.
  static int start_dir_fd() {
    static const int fd = [] {
      const int d = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (d < 0) die("cannot open", "the starting directory");
      return d;
    }();
    return fd;
  }
};

// A crash aborts inside the work directory, and libFuzzer then writes the
// crashing input relative to the current directory: make the artifact paths
// absolute, defaulting to the starting directory as libFuzzer itself does.
inline void absolutize_artifact_flags(int* argc, char*** argv) {
  static std::vector<std::string> storage;
  static std::vector<char*> args;
  const fs::path start = fs::current_path();
  bool has_prefix = false;
  storage.reserve(static_cast<size_t>(*argc) + 1);
  for (int i = 0; i < *argc; ++i) {
    std::string a = (*argv)[i];
    for (std::string_view flag : {"-artifact_prefix=", "-exact_artifact_path="}) {
      if (a.rfind(flag, 0) != 0) continue;
      has_prefix |= flag == "-artifact_prefix=";
      const std::string value = a.substr(flag.size());
      if (!value.empty() && value[0] != '/') a = std::string(flag) + (start / value).string();
    }
    storage.push_back(std::move(a));
  }
  if (!has_prefix) storage.push_back("-artifact_prefix=" + start.string() + "/");
  for (std::string& s : storage) args.push_back(s.data());
  args.push_back(nullptr);
  *argc = static_cast<int>(storage.size());
  *argv = args.data();
}

}  // namespace rdmasim::fuzz
