#include "training/presets.h"

#include <stdexcept>

namespace rdmasim {

std::vector<std::string> model_preset_names() {
  return {"gpt3-175b", "gpt3-xl", "llama2-7b", "llama2-70b", "mixtral-8x7b"};
}

ModelConfig model_preset(const std::string& name) {
  ModelConfig m;
  m.name = name;
  if (name == "gpt3-175b") {  // Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, n_ctx 2048
    m.params = 175e9, m.layers = 96, m.hidden = 12288, m.seq_len = 2048;
  } else if (name == "gpt3-xl") {  // Brown et al. 2020, Table 2.1: 1.3B, 24 layers, d_model 2048
    m.params = 1.3e9, m.layers = 24, m.hidden = 2048, m.seq_len = 2048;
  } else if (name == "llama2-7b") {  // Touvron et al. 2023 (Llama 2): 32 layers, dim 4096, context 4096
    m.params = 6.74e9, m.layers = 32, m.hidden = 4096, m.seq_len = 4096;
  } else if (name == "llama2-70b") {  // Touvron et al. 2023: 80 layers, dim 8192, context 4096
    m.params = 68.98e9, m.layers = 80, m.hidden = 8192, m.seq_len = 4096;
  } else if (name == "mixtral-8x7b") {
    // Jiang et al. 2024 (Mixtral of Experts): 32 layers, dim 4096, 8 experts,
    // top-2 routing, 46.7B parameters; every layer is an MoE layer. Sequence
    // 4096 for training here (the paper's context is 32k).
    m.params = 46.7e9, m.layers = 32, m.hidden = 4096, m.seq_len = 4096, m.moe_every = 1, m.top_k = 2;
  } else {
    std::string known;
    for (const auto& n : model_preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
  }
  return m;
}

}  // namespace rdmasim
