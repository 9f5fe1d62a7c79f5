#include "storage/fio.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "metrics/distribution.h"

namespace rdmasim {
namespace {

// The fio release whose layout these follow.
constexpr const char* kFioVersion = "fio-3.28";

struct Stats {
  uint64_t n = 0;
  double min_ns = 0, max_ns = 0, mean_ns = 0, stdev_ns = 0;
  std::vector<double> sorted_ns;
};

Stats stats_of(const std::vector<double>& us) {
  Stats s;
  s.n = us.size();
  if (us.empty()) return s;
  const Distribution d = summarize(us);
  s.min_ns = d.min * 1e3;
  s.max_ns = d.max * 1e3;
  s.mean_ns = d.mean * 1e3;
  s.stdev_ns = d.stdev * 1e3;
  for (const double x : us) s.sorted_ns.push_back(x * 1e3);
  std::sort(s.sorted_ns.begin(), s.sorted_ns.end());
  return s;
}

// fio's num2str with `maxlen` significant digits: the integer part when it
// fits, else divided by `base` with the unit's prefix and the decimals that
// still fit, truncated.
std::string num2str(double v, int maxlen, double base, bool pow2, const char* unit) {
  static const char* const kPow10[] = {"", "k", "M", "G", "T"};
  static const char* const kPow2[] = {"", "Ki", "Mi", "Gi", "Ti"};
  int u = 0;
  while (v >= std::pow(10.0, maxlen) && u < 4) {
    v /= base;
    ++u;
  }
  const int int_digits = v < 1 ? 1 : static_cast<int>(std::floor(std::log10(v))) + 1;
  const int decimals = u == 0 ? 0 : std::max(0, maxlen - int_digits - 1);
  const double scale = std::pow(10.0, decimals);
  const double t = std::floor(v * scale + 1e-9) / scale;
  return fmt::format("{:.{}f}{}{}", t, decimals, pow2 ? kPow2[u] : kPow10[u], unit);
}

// One latency line: fio picks usec when min > 2 us, max > 99.999 us and
// stdev > 1 us, else nsec (stat.c show_lat).
std::string lat_line(const char* name, const Stats& s) {
  const bool usec = s.min_ns > 2000 && s.max_ns > 99999 && s.stdev_ns > 1000;
  const double div = usec ? 1e3 : 1.0;
  return fmt::format("    {} ({}): min={}, max={}, avg={:5.02f}, stdev={:5.02f}\n", name,
                     usec ? "usec" : "nsec", num2str(std::floor(s.min_ns / div), 6, 1000, false, ""),
                     num2str(std::floor(s.max_ns / div), 6, 1000, false, ""), s.mean_ns / div,
                     s.stdev_ns / div);
}

uint64_t pct_us(const Stats& s, double p) {
  return static_cast<uint64_t>(percentile_sorted(s.sorted_ns, p / 100.0) / 1e3);
}

// fio 3.28's show_clat_percentiles: the unit is nsec unless the values span
// min > 2 us and max > 99.999 us (usec) or min > 2 ms and max > 99.999 ms
// (msec), and each step down to the unit rounds up, (v + 999) / 1000.
std::string percentile_block(const Stats& s) {
  std::vector<uint64_t> v;
  for (const double p : fio_percentiles())
    v.push_back(static_cast<uint64_t>(percentile_sorted(s.sorted_ns, p / 100.0)));
  const uint64_t minv = v.empty() ? 0 : *std::min_element(v.begin(), v.end());
  const uint64_t maxv = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  const int scale_down = minv > 2'000'000 && maxv > 99'999'999 ? 2 : minv > 2000 && maxv > 99'999 ? 1 : 0;
  const uint64_t divisor = scale_down == 2 ? 1'000'000 : scale_down == 1 ? 1000 : 1;
  for (uint64_t& x : v)
    for (int i = 0; i < scale_down; ++i) x = (x + 999) / 1000;
  const uint64_t top = maxv / divisor;
  const int width = std::max(5, top == 0 ? 1 : static_cast<int>(std::log10(static_cast<double>(top))) + 1);
  const int per_line = (80 - 7) / (2 + 10 + width);
  std::string out = fmt::format("    clat percentiles ({}):\n     |", scale_down == 2   ? "msec"
                                                                      : scale_down == 1 ? "usec"
                                                                                        : "nsec");
  for (size_t i = 0; i < v.size(); ++i) {
    const bool last = i + 1 == v.size();
    out += fmt::format(" {:5.2f}th=[{:>{}}]{}", fio_percentiles()[i], v[i], width, last ? '\n' : ',');
    if (!last && (i + 1) % static_cast<size_t>(per_line) == 0) out += "\n     |";
  }
  return out;
}

struct Dir {
  const char* name;
  const FioDirection* d;
};

}  // namespace

const std::vector<double>& fio_percentiles() {
  static const std::vector<double> p = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                        80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return p;
}

std::string format_fio_normal(const NvmeofResult& r, const std::string& job) {
  const std::string bs = fmt::format("{}B-{}B", r.bs, r.bs);
  std::string out =
      fmt::format("{}: (g=0): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine=nvme-rdma, iodepth={}\n", job, r.rw,
                  bs, bs, bs, r.iodepth);
  out += fmt::format("{} (rdmasim)\n", kFioVersion);
  const int jobs = r.numjobs * r.initiators;
  out += fmt::format("Starting {} process{}\n", jobs, jobs == 1 ? "" : "es");
  out += fmt::format("{}: (groupid=0, jobs={}): err= 0: pid=0\n", job, jobs);
  const auto runtime_ms = static_cast<int64_t>(std::llround(r.runtime.sec() * 1e3));
  std::string status;
  for (const Dir& x : {Dir{"read", &r.read}, Dir{"write", &r.write}}) {
    const FioDirection& d = *x.d;
    if (d.ios == 0 && ((x.d == &r.read && r.rw == "randwrite") || (x.d == &r.write && r.rw == "randread")))
      continue;
    const double bw = d.bw_bytes_per_s;
    const double io = static_cast<double>(d.bytes);
    out += fmt::format("  {}: IOPS={}, BW={} ({})({}/{}msec)\n", x.name, num2str(d.iops, 4, 1000, false, ""),
                       num2str(bw, 4, 1024, true, "B/s"), num2str(bw, 4, 1000, false, "B/s"),
                       num2str(io, 4, 1024, true, "B"), runtime_ms);
    const Stats s = stats_of(d.clat_us);
    if (s.n > 0) {
      out += lat_line("clat", s);
      out += lat_line(" lat", s);  // no submission latency apart: lat = clat
      out += percentile_block(s);
    }
    std::string upper = x.name;
    for (char& c : upper) c = static_cast<char>(std::toupper(c));
    status += fmt::format("   {}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec\n", upper,
                          num2str(bw, 4, 1024, true, "B/s"), num2str(bw, 4, 1000, false, "B/s"),
                          num2str(bw, 4, 1024, true, "B/s"), num2str(bw, 4, 1024, true, "B/s"),
                          num2str(bw, 4, 1000, false, "B/s"), num2str(bw, 4, 1000, false, "B/s"),
                          num2str(io, 4, 1024, true, "B"), num2str(io, 4, 1000, false, "B"), runtime_ms,
                          runtime_ms);
  }
  out += fmt::format(
      "  IO depths    : 1={:.1f}%, 2={:.1f}%, 4={:.1f}%, 8={:.1f}%, 16={:.1f}%, 32={:.1f}%, >=64={:.1f}%\n",
      r.iodepth == 1 ? 100.0 : 0.0, r.iodepth == 2 ? 100.0 : 0.0,
      r.iodepth > 2 && r.iodepth <= 4 ? 100.0 : 0.0, r.iodepth > 4 && r.iodepth <= 8 ? 100.0 : 0.0,
      r.iodepth > 8 && r.iodepth <= 16 ? 100.0 : 0.0, r.iodepth > 16 && r.iodepth <= 32 ? 100.0 : 0.0,
      r.iodepth > 32 ? 100.0 : 0.0);
  out += "\nRun status group 0 (all jobs):\n" + status;
  return out;
}

std::string format_fio_terse(const NvmeofResult& r, const std::string& job) {
  const auto runtime_ms = std::max<int64_t>(1, std::llround(r.runtime.sec() * 1e3));
  std::string out = fmt::format("3;{};{};0;0", kFioVersion, job);
  std::vector<double> all;
  for (const FioDirection* d : {&r.read, &r.write}) {
    const Stats s = stats_of(d->clat_us);
    all.insert(all.end(), d->clat_us.begin(), d->clat_us.end());
    const auto bytes = static_cast<uint64_t>(d->bytes);
    const uint64_t bw_kib = (1000 * bytes / static_cast<uint64_t>(runtime_ms)) / 1024;
    out += fmt::format(";{};{};{};{}", bytes >> 10, bw_kib, 1000 * d->ios / static_cast<uint64_t>(runtime_ms),
                       d->ios > 0 ? runtime_ms : 0);
    out += ";0;0;0.000000;0.000000";  // submission latency: part of the host path here
    const auto lat = fmt::format(";{};{};{:f};{:f}", static_cast<uint64_t>(s.min_ns / 1e3),
                                 static_cast<uint64_t>(s.max_ns / 1e3), s.mean_ns / 1e3, s.stdev_ns / 1e3);
    out += lat;
    for (const double p : fio_percentiles()) out += fmt::format(";{:f}%={}", p, s.n > 0 ? pct_us(s, p) : 0);
    for (size_t i = fio_percentiles().size(); i < 20; ++i) out += ";0%=0";
    out += lat;  // total latency
    out += fmt::format(";{};{};{:f}%;{:f};{:f}", bw_kib, bw_kib, d->ios > 0 ? 100.0 : 0.0,
                       static_cast<double>(bw_kib), 0.0);
  }
  out += ";0.000000%;0.000000%;0;0;0";  // CPU: not modelled
  const int depth_bucket = r.iodepth <= 1    ? 0
                           : r.iodepth <= 2  ? 1
                           : r.iodepth <= 4  ? 2
                           : r.iodepth <= 8  ? 3
                           : r.iodepth <= 16 ? 4
                           : r.iodepth <= 32 ? 5
                                             : 6;
  for (int i = 0; i < 7; ++i) out += fmt::format(";{:3.1f}%", i == depth_bucket ? 100.0 : 0.0);
  // Latency buckets: the share of I/Os at or below each bound (fio's lat_* fields).
  const double us_bounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
  const double ms_bounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
  std::vector<int> bucket(23, 0);
  for (const double x : all) {
    size_t b = 0;
    while (b < 10 && x > us_bounds[b]) ++b;
    if (b == 10) {
      b = 10;
      while (b < 21 && x > ms_bounds[b - 10] * 1e3) ++b;
    }
    ++bucket[b];
  }
  for (size_t b = 0; b < 22; ++b)
    out += fmt::format(";{:3.2f}%", all.empty() ? 0.0 : 100.0 * bucket[b] / static_cast<double>(all.size()));
  return out + "\n";
}

namespace {

double number(const std::string& f, const std::string& what) {
  try {
    size_t used = 0;
    const double v = std::stod(f, &used);
    if (used == f.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("expected a number for " + what + ", got '" + f + "'");
}

// fio's num2str output back to a number: 13.4k, 52.5MiB/s, 2036.7k.
double unit_number(std::string s) {
  double mult = 1;
  for (const char* suffix : {"B/s", "B"})
    if (s.size() > std::string(suffix).size() && s.ends_with(suffix))
      s.resize(s.size() - std::string(suffix).size());
  const bool pow2 = s.ends_with('i');
  if (pow2) s.pop_back();
  if (!s.empty() && std::string("kKMGT").find(s.back()) != std::string::npos) {
    const size_t e = std::string("kKMGT").find(s.back());
    const int power = e <= 1 ? 1 : static_cast<int>(e);
    mult = std::pow(pow2 ? 1024.0 : 1000.0, power);
    s.pop_back();
  }
  return number(s, "a fio figure") * mult;
}

FioReport terse_direction(const std::vector<std::string>& f, size_t at) {
  FioReport d;
  d.bw_kib_s = number(f[at + 1], "bandwidth");
  d.iops = number(f[at + 2], "IOPS");
  d.clat_min_us = number(f[at + 8], "clat min");
  d.clat_max_us = number(f[at + 9], "clat max");
  d.clat_mean_us = number(f[at + 10], "clat mean");
  d.clat_stdev_us = number(f[at + 11], "clat stdev");
  for (size_t i = 0; i < 20; ++i) {
    const std::string& p = f[at + 12 + i];
    const size_t eq = p.find("%=");
    if (eq == std::string::npos) throw std::invalid_argument("expected a percentile 'P%=V', got '" + p + "'");
    const double q = number(p.substr(0, eq), "a percentile");
    if (q > 0) d.percentiles_us.emplace_back(q, number(p.substr(eq + 2), "a percentile value"));
  }
  return d;
}

}  // namespace

FioParsed parse_fio_terse(const std::string& line) {
  std::vector<std::string> f;
  std::string field;
  std::istringstream in(line.substr(0, line.find('\n')));
  while (std::getline(in, field, ';')) f.push_back(field);
  if (f.empty() || f[0] != "3")
    throw std::invalid_argument("expected a terse version 3 line (first field 3)");
  if (f.size() < 121)
    throw std::invalid_argument("expected at least 121 fields, got " + std::to_string(f.size()));
  FioParsed p;
  p.fio_version = f[1];
  p.job = f[2];
  // Read status from field 6, write status 41 fields later (1-based 6 and 47).
  p.read = terse_direction(f, 5);
  p.write = terse_direction(f, 46);
  p.has_read = p.read.iops > 0;
  p.has_write = p.write.iops > 0;
  return p;
}

FioParsed parse_fio_normal(const std::string& text) {
  FioParsed p;
  std::istringstream in(text);
  std::string line;
  FioReport* cur = nullptr;
  bool in_pct = false;
  double pct_div = 1.0;  // divides the percentile block's values into microseconds
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string s = line.substr(first);
    if (s.starts_with("fio-") && p.fio_version.empty()) p.fio_version = s.substr(0, s.find(' '));
    if (s.find("(groupid=") != std::string::npos) p.job = s.substr(0, s.find(':'));
    if (s.starts_with("read: IOPS=") || s.starts_with("write: IOPS=")) {
      const bool read = s[0] == 'r';
      cur = read ? &p.read : &p.write;
      (read ? p.has_read : p.has_write) = true;
      const size_t i = s.find("IOPS=") + 5;
      cur->iops = unit_number(s.substr(i, s.find(',', i) - i));
      const size_t b = s.find("BW=") + 3;
      cur->bw_kib_s = unit_number(s.substr(b, s.find(' ', b) - b)) / 1024;
      in_pct = false;
      continue;
    }
    if (cur == nullptr) continue;
    if (s.starts_with("clat (")) {
      const std::string unit = s.substr(6, 4);
      const double div = unit == "nsec" ? 1e3 : unit == "msec" ? 1e-3 : 1.0;
      auto field = [&](const char* key) {
        const size_t k = s.find(key);
        if (k == std::string::npos) throw std::invalid_argument(std::string("clat line without ") + key);
        const size_t from = s.find_first_not_of(' ', k + std::string(key).size());
        return unit_number(s.substr(from, s.find(',', from) - from)) / div;
      };
      cur->clat_min_us = field("min=");
      cur->clat_max_us = field("max=");
      cur->clat_mean_us = field("avg=");
      cur->clat_stdev_us = field("stdev=");
      continue;
    }
    if (s.starts_with("clat percentiles (")) {
      in_pct = true;
      const std::string unit = s.substr(18, 4);  // nsec, usec or msec, as fio scaled them
      pct_div = unit == "nsec" ? 1e3 : unit == "msec" ? 1e-3 : 1.0;
      continue;
    }
    if (in_pct && s.starts_with("|")) {
      size_t at = 0;
      while ((at = s.find("th=[", at)) != std::string::npos) {
        size_t start = s.rfind(' ', at);
        const double q = number(s.substr(start + 1, at - start - 1), "a percentile");
        const size_t close = s.find(']', at);
        const std::string v = s.substr(at + 4, close - at - 4);
        cur->percentiles_us.emplace_back(
            q, number(v.substr(v.find_first_not_of(' ')), "a percentile value") / pct_div);
        at = close;
      }
      continue;
    }
    in_pct = false;
  }
  if (!p.has_read && !p.has_write) throw std::invalid_argument("no 'read: IOPS=' or 'write: IOPS=' line");
  return p;
}

}  // namespace rdmasim
