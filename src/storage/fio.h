// fio's output for an NVMe-oF run (storage/nvmeof.h): the normal (human)
// report and the terse v3 line, laid out as fio 3.x's stat.c prints them,
// and parsers for both that read the real tool's output too.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "storage/nvmeof.h"

namespace rdmasim {

// fio's default percentile_list: 1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99.
[[nodiscard]] const std::vector<double>& fio_percentiles();

[[nodiscard]] std::string format_fio_normal(const NvmeofResult& r, const std::string& job);
[[nodiscard]] std::string format_fio_terse(const NvmeofResult& r, const std::string& job);

// One direction as fio reports it: IOPS, bandwidth and completion latency
// (microseconds), with the clat percentiles fio printed.
struct FioReport {
  double iops = 0;
  double bw_kib_s = 0;
  double clat_min_us = 0, clat_max_us = 0, clat_mean_us = 0, clat_stdev_us = 0;
  std::vector<std::pair<double, double>> percentiles_us;  // (percentile, value)
};
struct FioParsed {
  std::string fio_version;
  std::string job;
  FioReport read, write;
  bool has_read = false, has_write = false;
};
// Throw std::invalid_argument naming what they cannot read.
[[nodiscard]] FioParsed parse_fio_terse(const std::string& line);
[[nodiscard]] FioParsed parse_fio_normal(const std::string& text);

}  // namespace rdmasim
