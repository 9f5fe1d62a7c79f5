// Published model configurations, by name.
#pragma once

#include <string>
#include <vector>

#include "training/model.h"

namespace rdmasim {

// gpt3-175b, gpt3-xl, llama2-7b, llama2-70b, mixtral-8x7b. Throws
// std::invalid_argument naming the known presets for an unknown name.
[[nodiscard]] ModelConfig model_preset(const std::string& name);
[[nodiscard]] std::vector<std::string> model_preset_names();

}  // namespace rdmasim
