#include "mpi/halo.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <string>

#include "config/cfg_node.h"
#include "config/error.h"
#include "config/parse_int.h"
#include "config/scenario.h"
#include "fabric/fabric.h"
#include "mpi/collectives.h"
#include "mpi/mpi_engine.h"
#include "workload/workload_keys.h"

namespace rdmasim {

std::array<int, 3> balanced_grid(int p) {
  std::array<int, 3> best{p, 1, 1};
  int spread = p - 1;
  for (int a = 1; a <= p; ++a) {
    if (p % a != 0) continue;
    for (int b = 1; b <= a; ++b) {
      if ((p / a) % b != 0) continue;
      const int c = p / a / b;
      if (c > b) continue;
      if (a - c < spread) {
        spread = a - c;
        best = {a, b, c};
      }
    }
  }
  return best;
}

MpiBody halo_step(int r, const std::array<int, 3>& g, const HaloParams& p) {
  const int x = r % g[0], y = (r / g[0]) % g[1], z = r / (g[0] * g[1]);
  auto rank_at = [&](int i, int j, int k) {
    i = (i + g[0]) % g[0];
    j = (j + g[1]) % g[1];
    k = (k + g[2]) % g[2];
    return i + g[0] * (j + g[1] * k);
  };
  // Neighbours in the order -x, +x, -y, +y, -z, +z; a dimension of one
  // rank has none (the face is its own), so it exchanges nothing.
  std::vector<int> to, from;
  const std::array<std::array<int, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  for (size_t d = 0; d < 3; ++d) {
    if (g[d] == 1) continue;
    const auto& u = axes[d];
    for (const int s : {-1, 1}) {
      to.push_back(rank_at(x + s * u[0], y + s * u[1], z + s * u[2]));
      // The face sent toward +x is received from -x: receives mirror sends
      // so that each pair matches in order even when -x and +x are one rank.
      from.push_back(rank_at(x - s * u[0], y - s * u[1], z - s * u[2]));
    }
  }
  MpiBody b;
  b.push_back(MpiStep::timer_start());
  b.push_back(MpiStep::compute(p.compute));
  for (const int n : from) b.push_back(MpiStep::irecv(n, p.face));
  for (const int n : to) b.push_back(MpiStep::isend(n, p.face));
  b.push_back(MpiStep::wait_all());
  const int ranks = g[0] * g[1] * g[2];
  if (p.allreduce > 0) append_allreduce(b, r, ranks, p.allreduce, p.mpi);
  b.push_back(MpiStep::timer_stop());
  return b;
}

namespace {

class HaloWorkload final : public Workload {
 public:
  explicit HaloWorkload(const WorkloadSpec& spec) : p_(static_cast<const HaloParams&>(*spec.params)) {}
  void setup(WorkloadContext& ctx) override {
    const int ranks = p_.ranks > 0 ? p_.ranks : ctx.fabric.topology().num_hosts();
    grid_ = p_.grid[0] > 0 ? p_.grid : balanced_grid(ranks);
    std::vector<int> hosts(static_cast<size_t>(ranks));
    std::iota(hosts.begin(), hosts.end(), 0);
    engine_ = std::make_unique<MpiEngine>(ctx.sim, ctx.fabric.verbs(), hosts, p_.mpi);
  }
  void start(WorkloadContext&) override {
    MpiPhase ph;
    ph.iterations = p_.steps;
    ph.skip = p_.warmup;
    for (int r = 0; r < engine_->ranks(); ++r) ph.body.push_back(halo_step(r, grid_, p_));
    engine_->start({std::move(ph)});
  }
  [[nodiscard]] bool finished() const override { return engine_->done(); }
  [[nodiscard]] double done_fraction() const override { return engine_->done_fraction(); }
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(10); }
  // Mean and slowest rank's time per step; MPI ranks wait for the slowest
  // neighbour, so the mean is what the application sees.
  [[nodiscard]] std::pair<double, double> step_us() const {
    if (engine_->timers().empty() || engine_->phase_ends().empty()) return {0, 0};
    double sum = 0, hi = 0;
    for (const MpiRankTimer& t : engine_->timers()[0]) {
      const double us = t.total.us() / p_.steps;
      sum += us;
      hi = std::max(hi, us);
    }
    return {sum / engine_->ranks(), hi};
  }
  void report(nlohmann::ordered_json& out) const override {
    const auto [mean, slowest] = step_us();
    out["type"] = "halo3d";
    out["finished"] = finished();
    out["ranks"] = engine_->ranks();
    out["grid"] = grid_;
    out["library"] = p_.mpi.library;
    out["step_us"] = mean;
    out["slowest_rank_step_us"] = slowest;
    out["compute_us"] = p_.compute.us();
    out["communication_share"] = mean > 0 ? 1 - p_.compute.us() / mean : 0.0;
    out["messages"] = {{"eager", engine_->counters().eager_messages},
                       {"rendezvous", engine_->counters().rendezvous_messages},
                       {"unexpected", engine_->counters().unexpected}};
  }
  [[nodiscard]] std::string summary() const override {
    const auto [mean, slowest] = step_us();
    return fmt::format(
        "halo3d {}x{}x{} ranks: {:.2f} us per step ({:.2f} us compute, {:.1f}% communication)\n", grid_[0],
        grid_[1], grid_[2], mean, p_.compute.us(), mean > 0 ? 100 * (1 - p_.compute.us() / mean) : 0.0);
  }

 private:
  const HaloParams& p_;
  std::array<int, 3> grid_{};
  std::unique_ptr<MpiEngine> engine_;
};

// grid: [4, 4, 2] or auto.
struct GridCodec {
  static void read(const CfgNode& n, const char* key, std::array<int, 3>& g) {
    std::vector<CfgNode> items;
    try {
      items = n.list(key);
    } catch (const InputError&) {
      if (n.str(key) != "auto") throw n.error(key, "expected three dimensions, e.g. [4, 4, 2], or auto");
      g = {0, 0, 0};
      return;
    }
    if (items.size() != 3) throw n.error(key, "expected three dimensions, e.g. [4, 4, 2], or auto");
    for (size_t i = 0; i < 3; ++i) {
      const std::string text = items[i].scalar();
      const int v = parse_int(text).value_or(0);
      if (v < 1) throw items[i].error("", "expected a count of ranks >= 1, got '" + text + "'");
      g[i] = v;
    }
  }
  static nlohmann::ordered_json echo(const std::array<int, 3>& g) {
    if (g[0] == 0) return "auto";
    return g;
  }
  static std::string form() { return "[x, y, z] ranks per dimension, or auto (MPI_Dims_create)"; }
};

struct HaloKeys {
  static constexpr std::string_view kName = "halo3d";
  static void prepare(const Scenario* s, WorkloadSpec& ws) {
    auto p = std::make_shared<HaloParams>();
    if (s != nullptr) p->mpi = mpi_defaults(s->fabric);
    ws.params = std::move(p);
  }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<HaloParams>(ws);
    v.time({"start", "when the first step begins"}, ws.start);
    v.count_or({"ranks", "MPI ranks on hosts 0, 1, ...; all: every host"}, p.ranks, "all", 2, 1 << 20);
    v.custom({"grid", "the periodic 3-D process grid"}, p.grid, GridCodec{});
    if constexpr (V::kReads)
      if (p.grid[0] > 0) {
        const int n = p.grid[0] * p.grid[1] * p.grid[2];
        v.check(p.ranks == 0 || p.ranks == n, "grid", "expected x * y * z = ranks");
        p.ranks = n;
      }
    v.size({"face", "bytes exchanged with each neighbour per step"}, p.face, int64_t{1} << 30,
           "expected a positive size");
    v.time({"compute", "compute time per step (before the exchange)"}, p.compute);
    v.size({"allreduce", "bytes summed over all ranks after the exchange (a solver's dot product); 0B: none"},
           p.allreduce, int64_t{1} << 30);
    v.count({"steps", "timed steps"}, p.steps, 1, 10'000'000);
    v.count({"warmup", "untimed steps first"}, p.warmup, 0, 10'000'000);
    v.block({"mpi", "the MPI library's protocol and host costs (default: the fabric's usual library)"},
            [&](auto& m) { p.mpi.visit(m); });
  }
};

void check_halo(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario&) {
  const auto& p = static_cast<const HaloParams&>(*ws.params);
  if (p.ranks > t.num_hosts())
    throw item.error(p.grid[0] > 0 ? "grid" : "ranks",
                     fmt::format("expected at most {} ranks, one per host of the topology", t.num_hosts()));
  if (p.ranks == 0 && t.num_hosts() < 2)
    throw item.error("ranks", "expected a topology with two hosts or more");
  try {
    check_mpi_config(p.mpi);
  } catch (const std::invalid_argument& e) {
    throw item.error("mpi", e.what());
  }
}

std::unique_ptr<Workload> make_halo(const WorkloadSpec& ws) { return std::make_unique<HaloWorkload>(ws); }

}  // namespace

const WorkloadType& halo_workload_type() {
  static const WorkloadType t = keyed_type<HaloKeys>(check_halo, make_halo);
  return t;
}

}  // namespace rdmasim
