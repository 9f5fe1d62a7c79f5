// A transformer training job: the model (parameters, layers, hidden size,
// sequence length, micro-batch), its parallel layout (tensor, pipeline, data
// and expert parallel degrees) and the GPU's throughput. Compute time comes
// from FLOPs / (peak x MFU); communication sizes from the layout.
#pragma once

#include <cstdint>
#include <string>

#include "engine/units.h"

namespace rdmasim {

struct ModelConfig {
  std::string name = "gpt3-175b";
  // GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288,
  // context 2048, 175B parameters.
  double params = 175e9;
  int layers = 96;
  int hidden = 12288;
  int seq_len = 2048;
  int micro_batch = 1;
  int micro_batches = 8;  // per iteration per pipeline (gradient accumulation steps)
  // Mixture of experts: every `moe_every`-th layer is an MoE layer (0: dense
  // model); tokens go to `top_k` experts through an AllToAll in the EP group.
  int moe_every = 0;
  int top_k = 2;
  int bytes_per_value = 2;  // BF16 activations and gradients
};

struct ParallelConfig {
  int tp = 8;  // tensor parallel (inside a server)
  int pp = 8;  // pipeline stages
  int dp = 1;  // data parallel replicas
  int ep = 1;  // expert parallel (divides dp)
  [[nodiscard]] int gpus() const { return tp * pp * dp; }
};

struct GpuConfig {
  // H100 SXM5 dense BF16 tensor-core peak: 989.4 TFLOP/s (NVIDIA H100
  // datasheet; glennklockwood.com/garden/processors/h100).
  double peak_tflops = 989.4;
  // Model FLOPs utilization: Llama 3 405B pre-training reports 38-43% BF16
  // MFU on H100 (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 4).
  double mfu = 0.40;
};

struct TrainingConfig {
  ModelConfig model;
  ParallelConfig par;
  GpuConfig gpu;
  // Gradient bucket for the data-parallel AllReduce: PyTorch DDP's default
  // bucket_cap_mb = 25 (torch.nn.parallel.DistributedDataParallel docs).
  int64_t bucket_bytes = 25 * 1000 * 1000;
};

// Forward FLOPs of one transformer layer for one micro-batch (whole layer,
// before tensor parallelism): 24·b·s·h² + 4·b·s²·h (Narayanan et al., SC'21,
// "Efficient Large-Scale Language Model Training on GPU Clusters", §5.1:
// the 96·B·s·l·h²(1 + s/6h) total counts forward + backward = 3x forward, with
// 1x more for activation recomputation, which is not modelled here).
// Backward = 2x forward.
[[nodiscard]] double layer_forward_flops(const ModelConfig& m);

// Compute time of one layer's forward / backward on one GPU: FLOPs / tp /
// (peak x MFU), rounded to the picosecond.
[[nodiscard]] Time layer_forward_time(const TrainingConfig& c);
[[nodiscard]] Time layer_backward_time(const TrainingConfig& c);

// Gradient bytes a GPU owns: params / (tp x pp) x bytes per value.
[[nodiscard]] int64_t gradient_bytes_per_gpu(const TrainingConfig& c);
// Activation bytes of one micro-batch: b·s·h x bytes per value.
[[nodiscard]] int64_t activation_bytes(const ModelConfig& m);

// Throws std::invalid_argument naming the field when the layout is invalid
// for `gpus_per_server` GPUs per server.
void validate_training(const TrainingConfig& c, int gpus_per_server);

}  // namespace rdmasim
