#include "config/shipped_path.h"

#include <filesystem>

namespace rdmasim {

std::string find_shipped(const std::string& relative) {
  namespace fs = std::filesystem;
  if (fs::exists(relative)) return relative;
  const fs::path src = fs::path(RDMASIM_SOURCE_DIR) / relative;
  if (fs::exists(src)) return src.string();
  return relative;
}

}  // namespace rdmasim
