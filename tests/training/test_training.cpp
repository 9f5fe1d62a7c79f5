// Training iteration: compute time is exactly FLOPs / (peak x MFU); the 1F1B
// pipeline bubble is exactly (pp-1) x (forward + backward of a stage); the
// DP gradient AllReduce overlaps the backward pass; the trace is valid Chrome
// trace-event JSON (what Perfetto loads).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fabric/profiles.h"
#include "run/front_ends.h"
#include "training/iteration.h"
#include "training/presets.h"

namespace rdmasim {
namespace {

TrainingRunOptions gpt3_xl(int tp, int pp, int dp) {
  TrainingRunOptions o;
  o.train.model = model_preset("gpt3-xl");
  o.train.par = ParallelConfig{tp, pp, dp, 1};
  o.cluster.topology = ClusterTopology::kRail;
  o.fabric = find_profile("rocev2-dcqcn").config;
  o.fabric.rc.mtu = 4096;
  return o;
}

// Megatron's per-layer forward FLOPs, computed here independently:
// 24·b·s·h² + 4·b·s²·h, GPT-3 XL: b 1, s 2048, h 2048.
TEST(Training, ComputeTimeIsFlopsOverPeakTimesMfu) {
  const TrainingRunOptions o = gpt3_xl(2, 2, 4);
  const double flops = 24.0 * 2048 * 2048.0 * 2048 + 4.0 * 2048 * 2048.0 * 2048;
  EXPECT_DOUBLE_EQ(layer_forward_flops(o.train.model), flops);
  const double fwd_s = flops / 2 / (989.4e12 * 0.40);  // tp = 2
  EXPECT_EQ(layer_forward_time(o.train).ps(), static_cast<int64_t>(std::llround(fwd_s * 1e12)));
  EXPECT_EQ(layer_backward_time(o.train).ps(), static_cast<int64_t>(std::llround(2 * fwd_s * 1e12)));
  const TrainingResult r = run_training_iteration(o);
  // 8 micro-batches x 12 layers per stage x (forward + backward).
  const double analytic_s = 8 * 12 * 3 * fwd_s;
  EXPECT_EQ(r.compute_per_stage, r.analytic_compute);
  EXPECT_NEAR(r.compute_per_stage.sec(), analytic_s, 8 * 12 * 2e-12);  // one ps of rounding per op
  EXPECT_GT(r.iteration, r.compute_per_stage);
  EXPECT_TRUE(r.invariant_error.empty()) << r.invariant_error;
}

// One GPU: nothing to communicate, the iteration is exactly its compute.
TEST(Training, SingleGpuIterationIsExactlyCompute) {
  TrainingRunOptions o = gpt3_xl(1, 1, 1);
  o.train.model.micro_batches = 2;
  const TrainingResult r = run_training_iteration(o);
  EXPECT_EQ(r.iteration, r.analytic_compute);
  EXPECT_EQ(r.exposed_comm, Time::zero());
}

// 1F1B with free communication: the last stage starts after pp-1 forwards and
// the first stage ends pp-1 backwards after the last: iteration =
// (m + pp - 1) x (f + b) per stage micro-batch.
TEST(Training, PipelineBubbleIsExactWithFreeCommunication) {
  TrainingRunOptions o = gpt3_xl(1, 4, 1);
  o.train.model.micro_batches = 6;
  o.cluster.nvlink.rate = Rate::from_gbps(1'000'000'000);  // 1 Eb/s: transfers take ~0
  o.cluster.nvlink.latency = Time::zero();
  o.comm.step_latency = Time::zero();
  o.comm.net_latency = Time::zero();
  o.comm.launch_latency = Time::zero();
  const TrainingResult r = run_training_iteration(o);
  const Time per_mb = (layer_forward_time(o.train) + layer_backward_time(o.train)) * (24 / 4);
  const Time expected = per_mb * (6 + 4 - 1);
  // Each of the 2 x (pp-1) x m activation sends takes ~1 ps at 1 Eb/s.
  EXPECT_NEAR(static_cast<double>(r.iteration.ps()), static_cast<double>(expected.ps()), 1000.0);
}

// Data parallelism across servers: the gradient buckets' AllReduce runs on its
// own stream while the backward pass continues, so most of it is hidden and
// the iteration is shorter than compute + all communication in series.
TEST(Training, DataParallelAllReduceOverlapsBackward) {
  const TrainingRunOptions o = gpt3_xl(8, 1, 2);  // DP peers on two servers: over the fabric
  const TrainingResult r = run_training_iteration(o);
  ASSERT_GT(r.dp.count, 1);
  // Buckets of 25 MB: 1.3e9 params / 8 x 2 B = 325 MB of gradients.
  EXPECT_EQ(r.dp.count, 12);  // 13 MB per layer -> 2 layers (27 MB) per bucket, 24 layers
  EXPECT_GT(r.dp.busbw, 40.0);
  EXPECT_LT(r.dp.busbw, 50.0);  // one 400G NIC per DP rank
  Time last_compute, first_dp = Time::never();
  for (const auto& e : r.trace) {
    if (e.cat == "compute") last_compute = std::max(last_compute, e.start + e.dur);
    if (e.cat == "dp") first_dp = std::min(first_dp, e.start);
  }
  EXPECT_LT(first_dp, last_compute);  // started during the backward pass
  const Time serial = r.compute_per_stage + r.tp.total + r.dp.total;
  EXPECT_LT(r.iteration, serial);
  EXPECT_LT(r.exposed_comm, r.comm_time);
  EXPECT_GT(r.exposed_share, 0.0);
  EXPECT_LT(r.exposed_share, 1.0);
}

// MoE: two AllToAlls (dispatch, combine) per MoE layer in each direction.
TEST(Training, MoeLayersRunAllToAll) {
  TrainingRunOptions o;
  o.train.model = model_preset("mixtral-8x7b");
  o.train.model.layers = 4;
  o.train.model.micro_batches = 2;
  o.train.model.seq_len = 1024;
  o.train.model.params = 1e9;  // keep the DP gradient traffic small: this test is about the AllToAlls
  o.train.par = ParallelConfig{8, 1, 2, 2};
  o.fabric = find_profile("ideal").config;
  o.fabric.rc.mtu = 4096;
  o.cluster.topology = ClusterTopology::kRail;
  const TrainingResult r = run_training_iteration(o);
  EXPECT_EQ(r.moe.count, 4 * 2 * 2 * 2);  // layers x {dispatch, combine} x {fwd, bwd} x micro-batches
  EXPECT_GT(r.moe.busbw, 0.0);
}

TEST(Training, TraceIsValidChromeTraceJson) {
  TrainingRunOptions o = gpt3_xl(2, 2, 4);
  o.train.model.micro_batches = 2;
  const TrainingResult r = run_training_iteration(o);
  const auto j = nlohmann::json::parse(chrome_trace_json(r, o));
  ASSERT_TRUE(j.contains("traceEvents"));
  ASSERT_TRUE(j["traceEvents"].is_array());
  double compute_us[2] = {0, 0};
  size_t complete = 0;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e["name"].is_string());
    ASSERT_TRUE(e["pid"].is_number_integer());
    ASSERT_TRUE(e["tid"].is_number_integer());
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "X" || ph == "M") << ph;
    if (ph == "M") continue;
    ++complete;
    ASSERT_TRUE(e["ts"].is_number());
    ASSERT_TRUE(e["dur"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    if (e["cat"] == "compute") compute_us[e["pid"].get<int>()] += e["dur"].get<double>();
  }
  EXPECT_EQ(complete, r.trace.size());
  EXPECT_NEAR(compute_us[0], r.compute_per_stage.us(), 1e-3);
  EXPECT_NEAR(compute_us[1], r.compute_per_stage.us(), 1e-3);
}

TEST(Training, BadLayoutIsRejected) {
  TrainingRunOptions o = gpt3_xl(3, 1, 1);  // 3 does not divide 8 GPUs per server
  EXPECT_THROW((void)run_training_iteration(o), std::invalid_argument);
  o = gpt3_xl(1, 5, 1);  // 24 layers over 5 stages
  EXPECT_THROW((void)run_training_iteration(o), std::invalid_argument);
  o = gpt3_xl(1, 1, 1);
  o.train.gpu.mfu = 1.5;
  EXPECT_THROW((void)run_training_iteration(o), std::invalid_argument);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Interference: web-search flows at 50% of every NIC share the links with the
// data-parallel AllReduce, which loses bandwidth, and the iteration gets longer.
TEST(Training, BackgroundTrafficSlowsDataParallelAllReduce) {
  TrainingRunOptions o = gpt3_xl(8, 1, 4);
  o.train.model.micro_batches = 1;
  o.train.model.seq_len = 512;   // a short iteration (~2 ms) keeps the packet count small
  o.train.model.params = 1.3e8;  // 32 MB of gradients per GPU
  const TrainingResult quiet = run_training_iteration(o);
  o.background_cdf = FlowSizeCdf::load("data/cdf/websearch.txt");
  o.background.load = 0.5;
  o.background.horizon = Time::from_ms(5);
  const TrainingResult busy = run_training_iteration(o);
  EXPECT_GT(busy.background_completed, 100u);
  EXPECT_EQ(busy.invariant_error, "");  // packet conservation with flows still in flight
  EXPECT_LT(busy.dp.busbw, 0.9 * quiet.dp.busbw);
  EXPECT_GT(busy.iteration, quiet.iteration);
  EXPECT_EQ(busy.compute_per_stage, quiet.compute_per_stage);
}

}  // namespace
}  // namespace rdmasim
