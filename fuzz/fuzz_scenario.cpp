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
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "config/cfg_node.h"
#include "config/error.h"
#include "config/scenario.h"
#include "fuzz_support.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Loading builds the topology; bigger inputs only slow the fuzzer down.
constexpr size_t kMaxFuzzInputBytes = 4096;

using fuzz::repo_root;

const fs::path& work_dir() {
  static const fs::path dir = repo_root() / "scenarios";
  return dir;
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

}  // namespace
}  // namespace rdmasim

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)rdmasim::fuzz::InWorkDir::start_dir_fd();
  rdmasim::fuzz::absolutize_artifact_flags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmasim;
  if (size > kMaxFuzzInputBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // Throws for text the loader rejects before it could touch a file.
    (void)CfgNode::load_string(text, "fuzz.yaml");
    int64_t budget = 2'000'000;
    if (!only_repo_paths(YAML::Load(text), budget)) return 0;
  } catch (const InputError&) {
  }
  const fuzz::InWorkDir in_work_dir(work_dir());
  try {
    const Scenario s = load_scenario_text(text, "fuzz.yaml");
    (void)s;
  } catch (const InputError&) {
  }
  return 0;
}
