#include "cli/output_paths.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace rdmasim::cli {

namespace fs = std::filesystem;

namespace {

// Creates and removes a uniquely named file in `folder`.
bool probe_writable(const fs::path& folder) {
  std::string name = (folder / ".rdmasim-write-test-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return false;
  ::close(fd);
  std::error_code ec;
  fs::remove(name, ec);
  return true;
}

}  // namespace

std::string check_output_dir(const std::string& dir, bool create) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return "output directory '" + dir + "' exists and is not a directory";
  if (!create) {
    // The nearest folder that exists decides: the rest would be created in it.
    const fs::path target = fs::absolute(dir, ec);
    fs::path p = target;
    while (!ec && !fs::exists(p, ec) && !ec && p.has_relative_path()) p = p.parent_path();
    if (ec) return "cannot create output directory '" + dir + "': " + ec.message();
    if (!fs::is_directory(p, ec))
      return "cannot create output directory '" + dir + "': " + std::strerror(ENOTDIR);
    // A file made and removed again is the one test that sees everything
    // (permissions, ACLs, a read-only mount) as the run will; access() is
    // true for root whatever the folder.
    if (probe_writable(p)) return "";
    if (p == target) return "cannot write into output directory '" + dir + "'";
    return "cannot create output directory '" + dir + "': cannot write into '" + p.string() + "'";
  }
  fs::create_directories(dir, ec);
  if (ec) return "cannot create output directory '" + dir + "': " + ec.message();
  if (probe_writable(dir)) return "";
  return "cannot write into output directory '" + dir + "'";
}

std::string check_output_file(const std::string& path, bool create) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "cannot write '" + path + "': it is a directory";
  const fs::path folder = fs::path(path).parent_path();
  const std::string why = check_output_dir(folder.empty() ? "." : folder.string(), create);
  return why.empty() ? why : "cannot write '" + path + "': " + why;
}

}  // namespace rdmasim::cli
