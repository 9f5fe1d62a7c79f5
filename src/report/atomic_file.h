// Outputs are never half-written: write a temporary file beside the target,
// then rename it over the target (atomic on POSIX file systems).
#pragma once

#include <string>

namespace rdmasim {

// Throws std::runtime_error naming the path when it cannot write.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace rdmasim
