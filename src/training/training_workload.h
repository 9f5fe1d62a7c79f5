// The `training` workload type: one training iteration (training/iteration.h)
// of a model preset in a tp x pp x dp (x ep) layout, on the first
// ceil(tp*pp*dp / gpus_per_server) servers of the scenario's fabric.
#pragma once

#include <memory>
#include <optional>

#include "training/iteration.h"
#include "workload/workload.h"

namespace rdmasim {

struct TrainingParams final : WorkloadParams {
  // train, comm, channels and dp_algo are used; cluster.gpus_per_server is
  // the server size; the rest of the options belong to the scenario.
  TrainingRunOptions run;
};

class TrainingWorkload final : public Workload, public GpuJob {
 public:
  explicit TrainingWorkload(const WorkloadSpec& spec);
  ~TrainingWorkload() override;

  void setup(WorkloadContext& ctx) override;
  void start(WorkloadContext& ctx) override;
  // The same on the flow-level model (GpuJob).
  void setup_on(Simulation& sim, CollectiveNetwork& net, Rate nic_rate) override;
  void start_on(Simulation& sim) override;
  [[nodiscard]] bool finished() const override { return iteration_->finished(); }
  [[nodiscard]] double done_fraction() const override { return iteration_->done_fraction(); }
  // The granularity at which the stand-alone train loop used to poll;
  // keeping it keeps its end-of-run state.
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(50); }
  void report(nlohmann::ordered_json& out) const override;
  [[nodiscard]] std::string summary() const override;

  // The measured iteration (once finished(); computed on first use).
  [[nodiscard]] const TrainingResult& result() const;
  [[nodiscard]] const TrainingRunOptions& options() const { return p_.run; }

 private:
  [[nodiscard]] ClusterConfig cluster_config(Rate nic_rate) const;

  const TrainingParams& p_;
  std::unique_ptr<GpuCluster> cluster_;
  std::unique_ptr<TrainingIteration> iteration_;
  mutable std::optional<TrainingResult> result_;
};

[[nodiscard]] const WorkloadType& training_workload_type();

}  // namespace rdmasim
