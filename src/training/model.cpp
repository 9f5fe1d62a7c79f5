#include "training/model.h"

#include <stdexcept>
#include <string>

namespace rdmasim {

double layer_forward_flops(const ModelConfig& m) {
  const double b = m.micro_batch, s = m.seq_len, h = m.hidden;
  return 24.0 * b * s * h * h + 4.0 * b * s * s * h;
}

Time layer_forward_time(const TrainingConfig& c) {
  return Time::from_sec_f(layer_forward_flops(c.model) / c.par.tp / (c.gpu.peak_tflops * 1e12 * c.gpu.mfu));
}

Time layer_backward_time(const TrainingConfig& c) {
  return Time::from_sec_f(2.0 * layer_forward_flops(c.model) / c.par.tp /
                          (c.gpu.peak_tflops * 1e12 * c.gpu.mfu));
}

int64_t gradient_bytes_per_gpu(const TrainingConfig& c) {
  return static_cast<int64_t>(c.model.params / (c.par.tp * c.par.pp)) * c.model.bytes_per_value;
}

int64_t activation_bytes(const ModelConfig& m) {
  return int64_t{m.micro_batch} * m.seq_len * m.hidden * m.bytes_per_value;
}

void validate_training(const TrainingConfig& c, int gpus_per_server) {
  auto need = [](bool ok, const std::string& msg) {
    if (!ok) throw std::invalid_argument(msg);
  };
  const ModelConfig& m = c.model;
  need(m.params > 0, "model.params must be positive");
  need(m.layers >= 1, "model.layers must be >= 1");
  need(m.hidden >= 1, "model.hidden must be >= 1");
  need(m.seq_len >= 1, "model.seq_len must be >= 1");
  need(m.micro_batch >= 1, "model.micro_batch must be >= 1");
  need(m.micro_batches >= 1 && m.micro_batches <= 4096, "model.micro_batches must be between 1 and 4096");
  need(m.moe_every >= 0, "model.moe_every must be >= 0 (0 = dense)");
  need(m.top_k >= 1, "model.top_k must be >= 1");
  need(m.bytes_per_value >= 1, "model.bytes_per_value must be >= 1");
  const ParallelConfig& p = c.par;
  need(p.tp >= 1 && p.pp >= 1 && p.dp >= 1 && p.ep >= 1, "parallel degrees tp, pp, dp, ep must be >= 1");
  need(gpus_per_server % p.tp == 0, "parallel.tp must divide the GPUs per server (" +
                                        std::to_string(gpus_per_server) +
                                        "): tensor parallelism stays on NVLink");
  need(m.layers % p.pp == 0,
       "model.layers (" + std::to_string(m.layers) + ") must be a multiple of parallel.pp");
  need(p.dp % p.ep == 0, "parallel.ep must divide parallel.dp");
  need(c.gpu.peak_tflops > 0, "gpu.peak_tflops must be positive");
  need(c.gpu.mfu > 0 && c.gpu.mfu <= 1, "gpu.mfu must be in (0, 1]");
  need(c.bucket_bytes >= 1, "bucket size must be >= 1 byte");
}

}  // namespace rdmasim
