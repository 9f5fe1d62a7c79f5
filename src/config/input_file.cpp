#include "config/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "config/error.h"

namespace rdmasim {

std::ifstream open_input_file(const std::string& path, const char* what, std::uintmax_t max_bytes,
                              std::ios::openmode mode) {
  namespace fs = std::filesystem;
  const std::string kind = std::string(what) + " file";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    throw InputError(path, 0, 0, "", "cannot open " + kind + ": " + (ec ? ec.message() : "no such file"));
  }
  if (fs::is_directory(st)) throw InputError(path, 0, 0, "", "is a directory, not a " + kind);
  if (!fs::is_regular_file(st)) {
    throw InputError(path, 0, 0, "", "is not a regular file (a device, pipe or socket); expected a " + kind);
  }
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (!ec && bytes > max_bytes) {
    throw InputError(path, 0, 0, "",
                     kind + " is " + std::to_string(bytes >> 20) + " MiB; at most " +
                         std::to_string(max_bytes >> 20) + " MiB is read");
  }
  std::ifstream in(path, mode);
  if (!in) throw InputError(path, 0, 0, "", "cannot open " + kind + ": " + std::strerror(errno));
  return in;
}

}  // namespace rdmasim
