// rdmasim train: one training iteration of a model layout over a simulated
// GPU cluster (see training/iteration.h); prints the summary and writes the
// Chrome/Perfetto trace.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/flag_value.h"
#include "cli/output_paths.h"
#include "cli/progress.h"
#include "config/error.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "report/atomic_file.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "training/iteration.h"
#include "training/presets.h"

namespace rdmasim::cli {
namespace {

// A real number in [lo, hi]. CLI::Range lets nan through (it compares false
// with both bounds) and std::strtod reads "nan" and "inf".
CLI::Validator real_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& input) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(input, v) && v >= lo && v <= hi) return "";
        return fmt::format("Value {} not in range {:g} to {:g}", input, lo, hi);
      },
      fmt::format("FLOAT in [{:g} - {:g}]", lo, hi));
}

}  // namespace

void add_train_subcommand(CLI::App& app, TrainCli& o) {
  auto* t = app.add_subcommand("train", "one training iteration: compute, TP/PP/DP/EP communication, trace");
  t->add_option("--model", o.model,
                "gpt3-175b | gpt3-xl | llama2-7b | llama2-70b | mixtral-8x7b (default gpt3-xl)");
  t->add_option("--params", o.params, "override: parameter count")->check(real_in(1, 1e15));
  t->add_option("--layers", o.layers, "override: transformer layers")->check(CLI::Range(1, 100000));
  t->add_option("--hidden", o.hidden, "override: hidden size")->check(CLI::Range(1, 1 << 20));
  t->add_option("--seq", o.seq, "override: sequence length")->check(CLI::Range(1, 1 << 22));
  t->add_option("--micro-batch", o.micro_batch, "sequences per micro-batch")->check(CLI::Range(1, 1 << 16));
  t->add_option("--micro-batches", o.micro_batches, "micro-batches per iteration")
      ->check(CLI::Range(1, 4096));
  t->add_option("--tp", o.tp, "tensor parallel degree")->check(CLI::Range(1, 64));
  t->add_option("--pp", o.pp, "pipeline stages")->check(CLI::Range(1, 1024));
  t->add_option("--dp", o.dp, "data parallel replicas")->check(CLI::Range(1, 4096));
  t->add_option("--ep", o.ep, "expert parallel degree (divides dp)")->check(CLI::Range(1, 4096));
  // The ranges of the training workload's keys (training_workload.cpp).
  t->add_option("--peak-tflops", o.peak_tflops, "GPU peak TFLOP/s (default 989.4, H100 SXM BF16 dense)")
      ->check(real_in(1e-3, 1e9));
  t->add_option("--mfu", o.mfu, "model FLOPs utilization (default 0.40)")->check(real_in(1e-6, 1));
  t->add_option(
      "--bucket", o.bucket,
      "DP gradient bucket (default 25MB): a bucket gathers whole layers' gradients until it reaches "
      "this size, so any size up to one layer's gives one AllReduce per layer");
  t->add_option("-g,--gpus-per-server", o.gpus, "GPUs per server")->check(CLI::Range(1, 64));
  t->add_option(
      "--dp-algo", o.dp_algo,
      "gradient AllReduce algorithm: auto (NCCL's tuner, the default) | ring | tree | hierarchical | sharp "
      "(InfiniBand fabrics, or --sharp)");
  t->add_option("--nccl-proto", o.nccl_proto,
                "NCCL_PROTO for the iteration's collectives: auto (NCCL's tuner, the default) | LL | LL128 | "
                "Simple, or NCCL's list (LL,Simple) or exclusion (^LL128)");
  add_cluster_flags(*t, o.cluster);
  t->add_option("--trace", o.trace, "write the Chrome/Perfetto trace JSON here")->check(non_empty_path());
}

int train_command(const TrainCli& c, const Context& ctx) {
  TrainingRunOptions o;
  try {
    o.train.model = flag_value("--model", c.model, model_preset);
    ModelConfig& m = o.train.model;
    if (c.params > 0) m.params = c.params;
    if (c.layers > 0) m.layers = c.layers;
    if (c.hidden > 0) m.hidden = c.hidden;
    if (c.seq > 0) m.seq_len = c.seq;
    m.micro_batch = c.micro_batch;
    m.micro_batches = c.micro_batches;
    o.train.par = ParallelConfig{c.tp, c.pp, c.dp, c.ep};
    // A dense model has no expert layers to spread: --ep would be read and do nothing.
    if (c.ep > 1 && m.moe_every == 0)
      throw std::invalid_argument("--ep has no effect: model '" + m.name +
                                  "' is dense (no mixture-of-experts layers); --ep applies to MoE models "
                                  "such as mixtral-8x7b");
    o.train.gpu.peak_tflops = c.peak_tflops;
    o.train.gpu.mfu = c.mfu;
    o.train.bucket_bytes = flag_value("--bucket", c.bucket, parse_bytes).count();
    o.cluster.gpus_per_server = c.gpus;
    apply_cluster_flags(c.cluster, o);
    if (o.comm.host_cpu != HostCpu::kIntel && o.train.par.gpus() <= o.cluster.gpus_per_server)
      throw std::invalid_argument(std::string("--host-cpu ") + kHostCpuOneServer);
    if (c.dp_algo != "auto") o.dp_algo = flag_value("--dp-algo", c.dp_algo, algo_from_name);
    o.nccl_proto = flag_value("--nccl-proto", c.nccl_proto, parse_nccl_proto);
    if (o.dp_algo == Algo::kSharp && o.nccl_proto != 0 && (o.nccl_proto & proto_bit(Proto::kSimple)) == 0)
      throw std::invalid_argument("--nccl-proto " + c.nccl_proto +
                                  " leaves out Simple, which --dp-algo sharp (NCCL's CollNet) runs");
    if (c.cluster.sharp && o.dp_algo != Algo::kSharp)
      throw std::invalid_argument("--sharp has no effect: only --dp-algo sharp aggregates in the network");
    if (o.dp_algo && !algo_applies(CollType::kAllReduce, *o.dp_algo))
      throw std::invalid_argument("--dp-algo: " + c.dp_algo + " does not implement all_reduce");
    (void)training_scenario(o);  // the layout and the cluster it needs
    if (!c.trace.empty())
      if (const std::string why = check_output_file(c.trace, !ctx.check_only); !why.empty())
        throw std::invalid_argument("--trace: " + why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: train: %s\n", e.what());
    return kExitBadInput;
  }
  if (ctx.check_only) return kExitOk;
  TrainingResult r;
  try {
    Progress progress(ctx.progress_every, false);
    r = run_training_iteration(o, [&](const Experiment& e) {
      progress.tick([&] {
        return fmt::format("[train {}] {:.0f}% of the iteration's steps done, simulated {:.3f} ms", c.model,
                           100 * e.workloads().back()->done_fraction(), e.sim().now().us() / 1e3);
      });
    });
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: train: %s\n", e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    // The fabric the flags describe cannot be built (e.g. more ports than a
    // switch buffer can give PFC headroom): bad input, not a failure.
    std::fprintf(stderr, "error: train: %s\n", e.what());
    return kExitBadInput;
  }
  std::fputs(format_training(r, o).c_str(), stdout);
  if (!c.trace.empty()) {
    write_file_atomic(c.trace, chrome_trace_json(r, o));
    std::printf("trace: %s (%zu events; open in ui.perfetto.dev)\n", c.trace.c_str(), r.trace.size());
  }
  if (!r.invariant_error.empty()) {
    std::fprintf(stderr, "error: simulation invariant violated: %s\n", r.invariant_error.c_str());
    return kExitInvariant;
  }
  return kExitOk;
}

}  // namespace rdmasim::cli
