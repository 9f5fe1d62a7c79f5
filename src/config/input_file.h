// Opening a file the user named. Only regular files of a bounded size are
// read: /dev/zero, a FIFO or a terminal would otherwise make the loader read
// forever, and a multi-gigabyte file would end in bad_alloc instead of an
// error that names it.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace rdmasim {

// Upper bounds per kind of input. A scenario is hand-written YAML; a flow or
// topology file in the HPCC format carries one line per flow or link, and
// 256 MiB is several million lines, more than any run here can simulate.
inline constexpr std::uintmax_t kMaxScenarioBytes = std::uintmax_t{16} << 20;
inline constexpr std::uintmax_t kMaxTableBytes = std::uintmax_t{256} << 20;

// Throws InputError(path, ...) naming `what` unless `path` is a readable
// regular file no larger than `max_bytes`.
std::ifstream open_input_file(const std::string& path, const char* what, std::uintmax_t max_bytes,
                              std::ios::openmode mode = std::ios::in);

}  // namespace rdmasim
