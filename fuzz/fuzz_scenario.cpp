// libFuzzer target for the scenario loader: any byte string must either load
// or be rejected with rdmasim::InputError. Any other exception escaping the
// loader (std::invalid_argument, std::out_of_range, std::filesystem errors,
// ...) is a bug: it is left uncaught so that libFuzzer reports it as a crash.
// Nothing is simulated; loading only parses, validates and builds the topology.
//
// File access: a scenario can name files (topology.file, a workload's cdf or
// file), which the loader looks up relative to the working directory (the
// pseudo file "fuzz.yaml" has no folder). Each input is therefore loaded from
// <repo>/scenarios, where the relative paths of the scenarios shipped there
// resolve as they do beside them (tools/fuzz.sh rebases the seeds from its
// subfolders), and inputs naming a path that could leave the repository
// (absolute, too many "..", or with a NUL byte) are skipped. Paths on the
// command line keep meaning what they meant where the fuzzer started.
#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/cfg_node.h"
#include "config/error.h"
#include "config/scenario.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Loading builds the topology; bigger inputs only slow the fuzzer down.
constexpr size_t kMaxInputBytes = 4096;

const fs::path& repo_root() {
  static const fs::path root = fs::path(RDMASIM_SOURCE_DIR).lexically_normal();
  return root;
}

const fs::path& work_dir() {
  static const fs::path dir = repo_root() / "scenarios";
  return dir;
}

[[noreturn]] void die(const char* what, const std::string& arg) {
  std::fprintf(stderr, "fuzz_scenario: %s %s: %s\n", what, arg.c_str(), std::strerror(errno));
  std::abort();
}

// True when `text`, taken as a path relative to work_dir(), stays inside the
// repository (lexically: the repository has no symlinks out of it).
bool stays_in_repo(const std::string& text) {
  if (text.find('\0') != std::string::npos) return false;
  const fs::path p(text);
  if (p.is_absolute()) return false;
  const fs::path rel = (work_dir() / p).lexically_normal().lexically_relative(repo_root());
  return !rel.empty() && *rel.begin() != "..";
}

// Every key and scalar of the document, as the loader will see it (escapes
// resolved), must be a path that stays in the repository. Only called on text
// CfgNode accepted, so the document is a single one, of bounded depth and at
// most 1,000,000 nodes once aliases are expanded; `budget` bounds the walk anyway.
bool only_repo_paths(const YAML::Node& n, int64_t& budget) {
  if (--budget < 0) return false;
  if (n.IsScalar()) return stays_in_repo(n.Scalar());
  if (n.IsSequence()) {
    for (const YAML::Node& item : n)
      if (!only_repo_paths(item, budget)) return false;
  }
  if (n.IsMap()) {
    for (const auto& kv : n)
      if (!only_repo_paths(kv.first, budget) || !only_repo_paths(kv.second, budget)) return false;
  }
  return true;
}

// Runs the loader inside work_dir() and returns to where the fuzzer started.
class InWorkDir {
 public:
  InWorkDir() {
    if (::chdir(work_dir().c_str()) != 0) die("cannot enter", work_dir().string());
  }
  ~InWorkDir() {
    if (::fchdir(start_dir_fd()) != 0) die("cannot return to", "the starting directory");
  }
  InWorkDir(const InWorkDir&) = delete;
  InWorkDir& operator=(const InWorkDir&) = delete;

  static int start_dir_fd() {
    static const int fd = [] {
      const int d = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (d < 0) die("cannot open", "the starting directory");
      return d;
    }();
    return fd;
  }
};

// A crash aborts inside work_dir(), and libFuzzer then writes the crashing
// input relative to the current directory: make the artifact paths absolute,
// defaulting to the starting directory as libFuzzer itself does.
void absolutize_artifact_flags(int* argc, char*** argv) {
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

}  // namespace
}  // namespace rdmasim

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)rdmasim::InWorkDir::start_dir_fd();
  rdmasim::absolutize_artifact_flags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmasim;
  if (size > kMaxInputBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // Throws for text the loader rejects before it could touch a file.
    (void)CfgNode::load_string(text, "fuzz.yaml");
    int64_t budget = 2'000'000;
    if (!only_repo_paths(YAML::Load(text), budget)) return 0;
  } catch (const InputError&) {
  }
  const InWorkDir in_work_dir;
  try {
    const Scenario s = load_scenario_text(text, "fuzz.yaml");
    (void)s;
  } catch (const InputError&) {
  }
  return 0;
}
