// Where commands write, checked before they simulate, so a run never goes on
// for minutes and then cannot write what it found. Each check returns "" when
// the path will do, else why not.
#pragma once

#include <string>

namespace rdmasim::cli {

// A folder results are written into: it must be, or become, a directory we
// can write into. `create`: create it now if missing and probe it with a
// file; otherwise (--check) decide without touching anything.
[[nodiscard]] std::string check_output_dir(const std::string& dir, bool create);

// A file written at the end with write_file_atomic: not a directory, in a
// folder that passes check_output_dir (with `create` as there).
[[nodiscard]] std::string check_output_file(const std::string& path, bool create);

}  // namespace rdmasim::cli
