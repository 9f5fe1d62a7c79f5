#include "config/shipped_path.h"

#include <filesystem>

namespace rdmasim {

std::string find_shipped(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;  // a name too long for the OS is a file that is not there
  if (fs::exists(relative, ec)) return relative;
  const fs::path src = fs::path(RDMASIM_SOURCE_DIR) / relative;
  if (fs::exists(src, ec)) return src.string();
  return relative;
}

}  // namespace rdmasim
