// One training iteration, event-driven over the simulated cluster: each
// pipeline stage runs its 1F1B schedule of micro-batches on a compute stream
// (layer compute, Megatron's two tensor-parallel AllReduces per layer in each
// direction, MoE AllToAlls), pipeline sends on their own streams, and the
// data-parallel gradient AllReduce in buckets on a separate stream that
// overlaps the last micro-batch's backward pass, as DDP/Megatron do.
// Symmetric replicas (every TP rank, every DP replica) run their collectives
// at the same time on their own communicators, so they contend on the fabric.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collective/background.h"
#include "collective/cluster.h"
#include "collective/communicator.h"
#include "training/model.h"

namespace rdmasim {

struct TraceEvent {
  std::string name;
  std::string cat;  // compute | tp | moe | dp | pp
  int pid = 0;      // pipeline stage
  int tid = 0;      // 0 compute, 1 tp/moe, 2 dp, 3 pp send
  Time start, dur;
  int64_t bytes = 0;
};

struct CollStats {
  int count = 0;
  Time total;        // summed durations
  double busbw = 0;  // mean over the collectives (GB/s)
};

struct TrainingResult {
  Time iteration;
  Time compute_per_stage;    // compute-stream busy time of a stage (all stages are equal)
  Time analytic_compute;     // micro_batches x layers/pp x (fwd + bwd) from FLOPs / (peak x MFU)
  Time comm_time;            // stage 0: union of its communication intervals
  Time exposed_comm;         // max over stages: communication time not overlapped by compute
  double exposed_share = 0;  // exposed_comm / iteration
  CollStats tp, moe, dp, pp;
  std::vector<TraceEvent> trace;
  // Background traffic sharing the fabric (when configured).
  size_t background_flows = 0;
  size_t background_completed = 0;
  Time background_mean_fct;
  std::string invariant_error;
};

struct TrainingRunOptions {
  TrainingConfig train;
  ClusterConfig cluster;  // servers is derived from the layout (gpus / gpus_per_server, rounded up)
  FabricConfig fabric;
  CommConfig comm;
  int channels = 0;  // 0: per communicator, min(8, max(2, its GPUs per server))
  // The gradient AllReduce: ring | tree | hierarchical | sharp; unset: NCCL's
  // tuner picks, as it does for every other collective of the iteration.
  std::optional<Algo> dp_algo;
  // NCCL_PROTO for the iteration's collectives (not its point-to-point
  // sends): parse_nccl_proto's set, 0 unset (NCCL's tuner and its rules).
  ProtoSet nccl_proto = 0;
  uint64_t seed = 1;
  // Storage/other-job traffic on the same fabric: flow sizes from this CDF
  // at background.load of every NIC (none when unset).
  std::optional<FlowSizeCdf> background_cdf;
  BackgroundConfig background;
};

// One iteration over a cluster someone else drives (the runner: see
// training/training_workload.h). Uses o.train, o.comm, o.channels and
// o.dp_algo; the cluster, fabric, seed and background of `o` are the
// caller's business. The result's background fields and invariant_error are
// left empty: the runner owns those. `cl` and `o` must outlive it.
class TrainingIteration {
 public:
  // Builds the communicators and schedules. Throws std::invalid_argument for
  // an invalid layout.
  TrainingIteration(GpuCluster& cl, const TrainingRunOptions& o);
  ~TrainingIteration();
  // Starts every pipeline stage now.
  void start();
  [[nodiscard]] bool finished() const;
  // Progress through the iteration's steps, in [0, 1].
  [[nodiscard]] double done_fraction() const;
  // Once finished(); moves the trace out, so call it once.
  [[nodiscard]] TrainingResult summarize();

 private:
  class Trainer;
  std::unique_ptr<Trainer> trainer_;
};

// Chrome trace-event JSON (loads in Perfetto / chrome://tracing).
[[nodiscard]] std::string chrome_trace_json(const TrainingResult& r, const TrainingRunOptions& o);
[[nodiscard]] std::string format_training(const TrainingResult& r, const TrainingRunOptions& o);

}  // namespace rdmasim
