#include "mpi/osu.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "mpi/collectives.h"

namespace rdmasim {
namespace {

struct BenchInfo {
  OsuBench bench;
  const char* name;
  const char* title;  // OSU's first line, less "# " and the version
};
constexpr BenchInfo kBenches[] = {
    {OsuBench::kLatency, "osu_latency", "OSU MPI Latency Test"},
    {OsuBench::kBw, "osu_bw", "OSU MPI Bandwidth Test"},
    {OsuBench::kBibw, "osu_bibw", "OSU MPI Bi-Directional Bandwidth Test"},
    {OsuBench::kMbwMr, "osu_mbw_mr", "OSU MPI Multiple Bandwidth / Message Rate Test"},
    {OsuBench::kAllreduce, "osu_allreduce", "OSU MPI Allreduce Latency Test"},
    {OsuBench::kAlltoall, "osu_alltoall", "OSU MPI All-to-All Personalized Exchange Latency Test"},
    {OsuBench::kBarrier, "osu_barrier", "OSU MPI Barrier Latency Test"},
};
// The release whose defaults and layout these follow.
constexpr const char* kOsuVersion = "v5.7";

const BenchInfo& info(OsuBench b) {
  for (const BenchInfo& i : kBenches)
    if (i.bench == b) return i;
  return kBenches[0];
}

// OSU's defaults (util/osu_util.h, OMB 5.7: LAT_LOOP_*, BW_LOOP_*,
// COLL_LOOP_* and their SKIP_*): messages above LARGE_MESSAGE_SIZE run fewer
// iterations and a shorter warm-up.
constexpr int64_t kLargeMessage = 8192;
struct Loop {
  int iterations, skip;
};
Loop osu_loop(OsuBench b, int64_t size) {
  const bool large = size > kLargeMessage;
  switch (b) {
    case OsuBench::kLatency:
      return large ? Loop{1000, 10} : Loop{10000, 100};
    case OsuBench::kBw:
    case OsuBench::kBibw:
    case OsuBench::kMbwMr:
      return large ? Loop{20, 2} : Loop{100, 10};
    case OsuBench::kAllreduce:
    case OsuBench::kAlltoall:
    case OsuBench::kBarrier:
      return large ? Loop{100, 10} : Loop{1000, 100};
  }
  return {1, 0};
}

// The acknowledgement osu_bw's receiver sends after each window.
constexpr int64_t kBwAck = 4;

MpiBody pt2pt_body(OsuBench b, int r, int ranks, int64_t s, int window) {
  MpiBody body;
  if (b == OsuBench::kLatency || b == OsuBench::kBw || b == OsuBench::kBibw) {
    if (r > 1) return body;  // OSU's point-to-point tests use ranks 0 and 1
  }
  const int pairs = ranks / 2;
  const bool sender = b == OsuBench::kMbwMr ? r < pairs : r == 0;
  const int peer = b == OsuBench::kMbwMr ? (sender ? r + pairs : r - pairs) : 1 - r;
  if (b == OsuBench::kMbwMr && r >= 2 * pairs) return body;  // an odd rank out sits idle
  body.push_back(MpiStep::timer_start());
  switch (b) {
    case OsuBench::kLatency:
      if (sender) {
        body.push_back(MpiStep::isend(peer, s));
        body.push_back(MpiStep::wait_all());
        body.push_back(MpiStep::irecv(peer, s));
        body.push_back(MpiStep::wait_all());
      } else {
        body.push_back(MpiStep::irecv(peer, s));
        body.push_back(MpiStep::wait_all());
        body.push_back(MpiStep::isend(peer, s));
        body.push_back(MpiStep::wait_all());
      }
      break;
    case OsuBench::kBw:
    case OsuBench::kMbwMr:
      if (sender) {
        for (int i = 0; i < window; ++i) body.push_back(MpiStep::isend(peer, s));
        body.push_back(MpiStep::wait_all());
        body.push_back(MpiStep::irecv(peer, kBwAck));
        body.push_back(MpiStep::wait_all());
      } else {
        for (int i = 0; i < window; ++i) body.push_back(MpiStep::irecv(peer, s));
        body.push_back(MpiStep::wait_all());
        body.push_back(MpiStep::isend(peer, kBwAck));
        body.push_back(MpiStep::wait_all());
      }
      break;
    case OsuBench::kBibw:
      for (int i = 0; i < window; ++i) body.push_back(MpiStep::irecv(peer, s));
      for (int i = 0; i < window; ++i) body.push_back(MpiStep::isend(peer, s));
      body.push_back(MpiStep::wait_all());
      break;
    default:
      break;
  }
  body.push_back(MpiStep::timer_stop());
  return body;
}

MpiBody collective_body(OsuBench b, int r, int p, int64_t s, const MpiConfig& c) {
  MpiBody body;
  body.push_back(MpiStep::timer_start());
  if (b == OsuBench::kAllreduce)
    append_allreduce(body, r, p, s, c);
  else if (b == OsuBench::kAlltoall)
    append_alltoall(body, r, p, s, c);
  else
    append_barrier(body, r, p);
  body.push_back(MpiStep::timer_stop());
  // OSU separates iterations with an untimed MPI_Barrier.
  if (b != OsuBench::kBarrier) append_barrier(body, r, p);
  return body;
}

}  // namespace

OsuBench osu_bench(const std::string& name) {
  for (const BenchInfo& i : kBenches)
    if (name == i.name) return i.bench;
  std::string known;
  for (const BenchInfo& i : kBenches) known += std::string(known.empty() ? "" : ", ") + i.name;
  throw std::invalid_argument("unknown OSU benchmark '" + name + "' (known: " + known + ")");
}

const char* osu_name(OsuBench b) { return info(b).name; }

bool osu_point_to_point(OsuBench b) {
  return b == OsuBench::kLatency || b == OsuBench::kBw || b == OsuBench::kBibw || b == OsuBench::kMbwMr;
}

bool osu_windowed(OsuBench b) { return b == OsuBench::kBw || b == OsuBench::kBibw || b == OsuBench::kMbwMr; }

std::vector<int64_t> osu_sizes(const OsuParams& p) {
  const OsuBench b = osu_bench(p.benchmark);
  if (b == OsuBench::kBarrier) return {0};
  // OSU's defaults: latency from 0 B, the float allreduce from 4 B, the rest
  // from 1 B; up to 4 MiB point to point and 1 MiB for collectives.
  const int64_t lo = p.min_size >= 0             ? p.min_size
                     : b == OsuBench::kLatency   ? 0
                     : b == OsuBench::kAllreduce ? 4
                                                 : 1;
  const int64_t hi = p.max_size >= 0         ? p.max_size
                     : osu_point_to_point(b) ? (int64_t{1} << 22)
                                             : (int64_t{1} << 20);
  std::vector<int64_t> sizes;
  for (int64_t s = lo; s <= hi; s = s == 0 ? 1 : s * 2) sizes.push_back(s);
  return sizes;
}

std::vector<MpiPhase> osu_phases(const OsuParams& p, int ranks) {
  const OsuBench b = osu_bench(p.benchmark);
  std::vector<MpiPhase> phases;
  for (const int64_t s : osu_sizes(p)) {
    MpiPhase ph;
    ph.size = s;
    const Loop d = osu_loop(b, s);
    ph.iterations = p.iterations > 0 ? p.iterations : d.iterations;
    ph.skip = p.warmup >= 0 ? p.warmup : d.skip;
    for (int r = 0; r < ranks; ++r)
      ph.body.push_back(osu_point_to_point(b) ? pt2pt_body(b, r, ranks, s, p.window)
                                              : collective_body(b, r, ranks, s, p.mpi));
    phases.push_back(std::move(ph));
  }
  return phases;
}

OsuResult osu_result(const OsuParams& p, const MpiEngine& e) {
  OsuResult res;
  res.bench = osu_bench(p.benchmark);
  res.ranks = e.ranks();
  res.window = p.window;
  res.counters = e.counters();
  const auto& phases = e.phases();
  for (size_t i = 0; i < e.phase_ends().size(); ++i) {
    const MpiPhase& ph = phases[i];
    const std::vector<MpiRankTimer>& t = e.timers()[i];
    OsuRow row;
    row.size = ph.size;
    row.iterations = ph.iterations;
    const double s = static_cast<double>(ph.size);
    const double n = ph.iterations;
    switch (res.bench) {
      case OsuBench::kLatency:
        row.value = t[0].total.us() / (2.0 * n);
        break;
      case OsuBench::kBw:
        row.value = s / 1e6 * n * p.window / t[0].total.sec();
        break;
      case OsuBench::kBibw:
        row.value = s / 1e6 * n * p.window * 2 / t[0].total.sec();
        break;
      case OsuBench::kMbwMr: {
        // OSU sums the ranks' times and divides by the pairs: each pair's
        // mean, and every pair moves the same bytes.
        const int pairs = e.ranks() / 2;
        Time sum;
        for (int r = 0; r < 2 * pairs; ++r) sum += t[static_cast<size_t>(r)].total;
        const double mean_s = sum.sec() / (2.0 * pairs);
        row.value = s / 1e6 * n * p.window * pairs / mean_s;
        row.msg_rate = s > 0 ? row.value * 1e6 / s : 0;
        break;
      }
      default: {
        // Each rank's average, then the mean, minimum and maximum over ranks.
        double sum = 0, lo = 1e300, hi = 0;
        for (const MpiRankTimer& rt : t) {
          const double us = rt.total.us() / n;
          sum += us;
          lo = std::min(lo, us);
          hi = std::max(hi, us);
        }
        row.value = sum / static_cast<double>(t.size());
        row.min_us = lo;
        row.max_us = hi;
      }
    }
    res.rows.push_back(row);
  }
  return res;
}

std::string format_osu(const OsuResult& r, bool full) {
  // OSU's layout (OMB 5.x, FIELD_WIDTH 18 and FLOAT_PRECISION 2 as its
  // configure.ac sets them): the size left-aligned in 10 columns, each figure
  // right-aligned in 18 with 2 decimals. The collectives' preamble starts
  // with an empty line; the barrier, which has no size, right-aligns its
  // figure in 17 under "# Avg Latency(us)".
  constexpr int kField = 18;
  std::string out = osu_point_to_point(r.bench) ? "" : "\n";
  out += fmt::format("# {} {}\n", info(r.bench).title, kOsuVersion);
  switch (r.bench) {
    case OsuBench::kLatency:
      out += fmt::format("{:<10}{:>{}}\n", "# Size", "Latency (us)", kField);
      for (const OsuRow& row : r.rows) out += fmt::format("{:<10}{:>{}.2f}\n", row.size, row.value, kField);
      break;
    case OsuBench::kBw:
    case OsuBench::kBibw:
      out += fmt::format("{:<10}{:>{}}\n", "# Size", "Bandwidth (MB/s)", kField);
      for (const OsuRow& row : r.rows) out += fmt::format("{:<10}{:>{}.2f}\n", row.size, row.value, kField);
      break;
    case OsuBench::kMbwMr:
      out += fmt::format("# [ pairs: {} ] [ window size: {} ]\n", r.ranks / 2, r.window);
      out += fmt::format("{:<10}{:>{}}{:>{}}\n", "# Size", "MB/s", kField, "Messages/s", kField);
      for (const OsuRow& row : r.rows)
        out += fmt::format("{:<10}{:>{}.2f}{:>{}.2f}\n", row.size, row.value, kField, row.msg_rate, kField);
      break;
    case OsuBench::kBarrier:
      out += "# Avg Latency(us)";
      if (full)
        out += fmt::format("{:>{}}{:>{}}{:>12}", "Min Latency(us)", kField, "Max Latency(us)", kField,
                           "Iterations");
      out += "\n";
      for (const OsuRow& row : r.rows) {
        out += fmt::format("{:>17.2f}", row.value);
        if (full)
          out +=
              fmt::format("{:>{}.2f}{:>{}.2f}{:>12}", row.min_us, kField, row.max_us, kField, row.iterations);
        out += "\n";
      }
      break;
    default:
      out += fmt::format("{:<10}{:>{}}", "# Size", "Avg Latency(us)", kField);
      if (full)
        out += fmt::format("{:>{}}{:>{}}{:>12}", "Min Latency(us)", kField, "Max Latency(us)", kField,
                           "Iterations");
      out += "\n";
      for (const OsuRow& row : r.rows) {
        out += fmt::format("{:<10}{:>{}.2f}", row.size, row.value, kField);
        if (full)
          out +=
              fmt::format("{:>{}.2f}{:>{}.2f}{:>12}", row.min_us, kField, row.max_us, kField, row.iterations);
        out += "\n";
      }
  }
  return out;
}

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// Column names are separated by two or more spaces ("Latency (us)" has one).
std::vector<std::string> split_columns(const std::string& header) {
  std::vector<std::string> cols;
  size_t i = 0;
  while (i < header.size()) {
    size_t j = i;
    while (j < header.size() && !(header[j] == ' ' && j + 1 < header.size() && header[j + 1] == ' ')) ++j;
    if (std::string c = trim(header.substr(i, j - i)); !c.empty()) cols.push_back(std::move(c));
    i = j + 1;
  }
  return cols;
}

}  // namespace

OsuTable parse_osu_table(const std::string& text) {
  OsuTable t;
  std::istringstream in(text);
  std::string line;
  std::string last_comment;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string s = trim(line);
    if (s.empty()) continue;
    if (s[0] == '#') {
      const std::string body = trim(s.substr(1));
      if (t.title.empty() && body.starts_with("OSU")) t.title = body;
      last_comment = body;
      continue;
    }
    std::vector<double> row;
    std::istringstream fields(s);
    std::string f;
    while (fields >> f) {
      try {
        size_t used = 0;
        const double v = std::stod(f, &used);
        if (used != f.size()) throw std::invalid_argument(f);
        row.push_back(v);
      } catch (const std::exception&) {
        throw std::invalid_argument("line " + std::to_string(n) + ": expected numbers, got '" + f + "'");
      }
    }
    if (t.rows.empty()) t.columns = split_columns(last_comment);
    if (!t.rows.empty() && row.size() != t.rows.front().size())
      throw std::invalid_argument("line " + std::to_string(n) + ": " + std::to_string(row.size()) +
                                  " numbers where the rows before had " +
                                  std::to_string(t.rows.front().size()));
    t.rows.push_back(std::move(row));
  }
  if (t.title.empty()) throw std::invalid_argument("no '# OSU ...' title line");
  if (t.rows.empty()) throw std::invalid_argument("no rows");
  return t;
}

}  // namespace rdmasim
