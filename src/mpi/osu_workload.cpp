// The `osu` workload type: one OSU benchmark's size sweep on the scenario's
// fabric, through the MPI engine.
#include <fmt/format.h>

#include <memory>
#include <set>
#include <stdexcept>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "fabric/fabric.h"
#include "mpi/osu.h"
#include "workload/host_list.h"
#include "workload/workload_keys.h"

namespace rdmasim {
namespace {

class OsuWorkload final : public Workload {
 public:
  explicit OsuWorkload(const WorkloadSpec& spec) : p_(static_cast<const OsuParams&>(*spec.params)) {}
  void setup(WorkloadContext& ctx) override {
    std::vector<int> hosts = p_.hosts;
    const int ranks = p_.ranks > 0 ? p_.ranks : ctx.fabric.topology().num_hosts();
    for (int r = static_cast<int>(hosts.size()); r < ranks; ++r) hosts.push_back(r);
    engine_ = std::make_unique<MpiEngine>(ctx.sim, ctx.fabric.verbs(), hosts, p_.mpi);
  }
  void start(WorkloadContext&) override { engine_->start(osu_phases(p_, engine_->ranks())); }
  [[nodiscard]] bool finished() const override { return engine_->done(); }
  [[nodiscard]] double done_fraction() const override { return engine_->done_fraction(); }
  // Polled, so flows beside it do not end the run while it is still going.
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(10); }
  void report(nlohmann::ordered_json& out) const override {
    const OsuResult r = osu_result(p_, *engine_);
    out["type"] = "osu";
    out["finished"] = finished();
    out["benchmark"] = p_.benchmark;
    out["ranks"] = r.ranks;
    out["library"] = p_.mpi.library;
    const bool bw = osu_windowed(r.bench);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const OsuRow& row : r.rows) {
      nlohmann::ordered_json j;
      j["size_bytes"] = row.size;
      j[bw ? "bandwidth_MBps" : "latency_us"] = row.value;
      if (r.bench == OsuBench::kMbwMr) j["messages_per_s"] = row.msg_rate;
      if (!osu_point_to_point(r.bench)) {
        j["min_latency_us"] = row.min_us;
        j["max_latency_us"] = row.max_us;
      }
      j["iterations"] = row.iterations;
      rows.push_back(std::move(j));
    }
    out["rows"] = std::move(rows);
    out["messages"] = {{"eager", r.counters.eager_messages},
                       {"rendezvous", r.counters.rendezvous_messages},
                       {"unexpected", r.counters.unexpected}};
  }
  [[nodiscard]] OsuResult result() const { return osu_result(p_, *engine_); }
  [[nodiscard]] std::string summary() const override {
    const OsuResult r = osu_result(p_, *engine_);
    if (r.rows.empty()) return fmt::format("osu {}: no size completed\n", p_.benchmark);
    const OsuRow& first = r.rows.front();
    const OsuRow& last = r.rows.back();
    const char* unit = osu_windowed(r.bench) ? "MB/s" : "us";
    return fmt::format("osu {} on {} ranks: {} B {:.2f} {}, {} B {:.2f} {}\n", p_.benchmark, r.ranks,
                       first.size, first.value, unit, last.size, last.value, unit);
  }

 private:
  const OsuParams& p_;
  std::unique_ptr<MpiEngine> engine_;
};

// warmup: auto (OSU's, by message size) or a count.
struct WarmupCodec {
  static void read(const CfgNode& n, const char* key, int& x) {
    x = n.str(key) == "auto" ? -1 : static_cast<int>(n.integer(key, 0, 100'000'000));
  }
  static nlohmann::ordered_json echo(int x) {
    if (x < 0) return "auto";
    return x;
  }
  static std::string form() { return "auto or a count >= 0"; }
};

struct OsuKeys {
  static constexpr std::string_view kName = "osu";
  static void prepare(const Scenario* s, WorkloadSpec& ws) {
    auto p = std::make_shared<OsuParams>();
    if (s != nullptr) p->mpi = mpi_defaults(s->fabric);
    ws.params = std::move(p);
  }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<OsuParams>(ws);
    std::vector<std::string> names;
    for (const OsuBench b : {OsuBench::kLatency, OsuBench::kBw, OsuBench::kBibw, OsuBench::kMbwMr,
                             OsuBench::kAllreduce, OsuBench::kAlltoall, OsuBench::kBarrier})
      names.emplace_back(osu_name(b));
    v.choice(Key{"benchmark", "the OSU benchmark", kRequired}, p.benchmark, names);
    const OsuBench b = osu_bench(p.benchmark);
    v.time({"start", "when the benchmark begins"}, ws.start);
    if (b == OsuBench::kBarrier) {
      v.refuse("min_size", "osu_barrier sends no data: it has no message size");
      v.refuse("max_size", "osu_barrier sends no data: it has no message size");
    } else {
      if constexpr (V::kReads) {
        OsuParams d;
        d.benchmark = p.benchmark;
        const std::vector<int64_t> sizes = osu_sizes(d);
        p.min_size = sizes.front();
        p.max_size = sizes.back();
      }
      v.size({"min_size", "smallest message (-m MIN:; OSU's default: 0 B latency, 4 B allreduce, else 1 B)"},
             p.min_size, int64_t{1} << 30);
      v.size(
          {"max_size", "largest message (-m :MAX; OSU's default: 4 MiB point to point, 1 MiB collectives)"},
          p.max_size, int64_t{1} << 30);
      v.check(p.min_size <= p.max_size, "max_size", "expected max_size >= min_size");
    }
    v.count_or({"iterations", "timed iterations per size (-i); auto: OSU's, fewer above 8 KiB"}, p.iterations,
               "auto", 1, 100'000'000);
    v.custom({"warmup", "untimed iterations first (-x); auto: OSU's"}, p.warmup, WarmupCodec{});
    if (osu_windowed(b))
      v.count({"window", "messages in flight per iteration (-W)"}, p.window, 1, 1 << 16);
    else
      v.refuse("window", "only osu_bw, osu_bibw and osu_mbw_mr keep a window of messages in flight");
    v.custom({"hosts", "the host each rank runs on (default: hosts 0, 1, ...)"}, p.hosts, HostListCodec{});
    const bool two = b == OsuBench::kLatency || b == OsuBench::kBw || b == OsuBench::kBibw;
    if (two) {
      v.refuse("ranks", p.benchmark + " runs on exactly two ranks: place them with hosts");
      if constexpr (V::kReads) p.ranks = 2;
      v.check(p.hosts.empty() || p.hosts.size() == 2, "hosts", p.benchmark + " runs on exactly two ranks");
    } else {
      v.count_or({"ranks", "MPI ranks, one per host; all: every host"}, p.ranks, "all", 2, 1 << 20);
      if constexpr (V::kReads)
        if (!p.hosts.empty()) {
          v.check(p.ranks == 0 || p.ranks == static_cast<int>(p.hosts.size()), "ranks",
                  "expected as many ranks as hosts listed, or leave ranks out");
          p.ranks = static_cast<int>(p.hosts.size());
        }
      v.check(b != OsuBench::kMbwMr || p.ranks % 2 == 0, "ranks",
              "osu_mbw_mr pairs rank i with rank i + n/2: expected an even number");
    }
    v.block({"mpi", "the MPI library's protocol and host costs (default: the fabric's usual library)"},
            [&](auto& m) { p.mpi.visit(m); });
  }
};

void check_osu(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario&) {
  const auto& p = static_cast<const OsuParams&>(*ws.params);
  const int hosts = t.num_hosts();
  if (p.ranks > hosts)
    throw item.error("ranks", fmt::format("expected at most {} ranks, one per host of the topology", hosts));
  std::set<int> seen;
  for (const int h : p.hosts) {
    if (h >= hosts) throw item.error("hosts", fmt::format("expected host indices below {}", hosts));
    if (!seen.insert(h).second)
      throw item.error("hosts", fmt::format("host {} is listed twice: one rank per host", h));
  }
  if (p.ranks == 0 && hosts < 2) throw item.error("ranks", "expected a topology with at least two hosts");
  try {
    check_mpi_config(p.mpi);
  } catch (const std::invalid_argument& e) {
    throw item.error("mpi", e.what());
  }
}

std::unique_ptr<Workload> make_osu(const WorkloadSpec& ws) { return std::make_unique<OsuWorkload>(ws); }

}  // namespace

OsuResult osu_workload_result(const Workload& w) { return dynamic_cast<const OsuWorkload&>(w).result(); }

const WorkloadType& osu_workload_type() {
  static const WorkloadType t = keyed_type<OsuKeys>(check_osu, make_osu);
  return t;
}

}  // namespace rdmasim
