#include <fstream>
#include <sstream>

#include "cli/commands.h"

namespace rdmasim::cli {

// The default evaluation (`make demo`): evaluations/demo.yaml, every fabric
// rdmasim has on one small GPU cluster, written as a report.
int demo_command(const std::string& out_root, int jobs, const Context& ctx) {
  EvaluateCli o;
  o.file = "evaluations/demo.yaml";  // as the report names it, wherever rdmasim runs from
  std::ifstream in(find_shipped(o.file), std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: demo: cannot read %s (it ships with rdmasim)\n", o.file.c_str());
    return kExitFailure;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  o.builtin_text = ss.str();
  o.out_dir = out_root;
  o.jobs = jobs;
  return evaluate_command(o, ctx);
}

}  // namespace rdmasim::cli
