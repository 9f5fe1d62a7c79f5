// libFuzzer target for the evaluation loader: any byte string must either
// expand into a matrix of cells whose scenarios all load, or be rejected with
// rdmasim::InputError. Any other exception escaping is a bug and left uncaught
// so that libFuzzer reports it. Nothing is simulated.
//
// Evaluations name shipped data only by name (cdf: storage, ...), resolved
// from the repository root, where each input runs. Clusters (and the scale
// sweep's) are capped so one input cannot spend the fuzzer's time building a
// 500,000-host topology.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "config/cfg_node.h"
#include "config/error.h"
#include "evaluate/cells.h"
#include "evaluate/evaluation.h"
#include "fuzz_support.h"

namespace {

constexpr size_t kMaxFuzzInputBytes = 4096;
constexpr int kMaxHosts = 256;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)rdmasim::fuzz::InWorkDir::start_dir_fd();
  rdmasim::fuzz::absolutize_artifact_flags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmasim;
  if (size > kMaxFuzzInputBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const fuzz::InWorkDir in_work_dir(fuzz::repo_root());
  try {
    const Evaluation ev = load_evaluation_text(text, "fuzz-eval.yaml");
    if (ev.cluster.hosts() > kMaxHosts ||
        ev.fabrics.size() * ev.workloads.size() * ev.conditions.size() > 128)
      return 0;
    // The scale sweep's clusters too (evaluations/scale-2048.yaml, a seed, has 2,048 GPUs).
    for (const int servers : ev.scale.servers)
      if (servers * ev.cluster.gpus_per_server > kMaxHosts) return 0;
    check_cells(ev, eval_cells(ev));
  } catch (const InputError&) {
  }
  return 0;
}
