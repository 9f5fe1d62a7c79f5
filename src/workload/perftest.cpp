#include "workload/perftest.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "engine/simulation.h"
#include "metrics/distribution.h"
#include "verbs/verbs.h"
#include "workload/workload_keys.h"

namespace rdmasim {
namespace {

Opcode op_of(const std::string& test) {
  if (test.starts_with("read")) return Opcode::kRead;
  if (test.starts_with("send")) return Opcode::kSend;
  return Opcode::kWrite;
}

}  // namespace

// What a perftest loop measures, whichever kind it is.
class PerftestWorkload::Loop : public CompletionSink {
 public:
  virtual ~Loop() = default;  // owned and deleted through unique_ptr<Loop>
  virtual void start() = 0;
  [[nodiscard]] virtual bool done() const = 0;
  [[nodiscard]] virtual int iterations_done() const = 0;
  virtual void fill(PerftestResult& r, int tx_depth) const = 0;
};

namespace {

// Ping-pong (write/send) or back-to-back (read) latency loop.
class LatencyLoop final : public PerftestWorkload::Loop {
 public:
  LatencyLoop(Fabric& f, Opcode op, int64_t size, int iters, int src, int dst)
      : f_(f),
        op_(op),
        size_(size),
        iters_(iters),
        ab_(f.verbs().create_qp(src, dst, this)),
        ba_(f.verbs().create_qp(dst, src, this)) {}
  void start() override { issue(); }
  [[nodiscard]] bool done() const override { return done_ >= iters_; }
  [[nodiscard]] int iterations_done() const override { return done_; }
  void fill(PerftestResult& r, int) const override { r.latency_us = samples_; }
  void on_complete(const Completion& c) override {
    if (op_ != Opcode::kRead) return;
    samples_.push_back((c.completed - started_).us());
    if (++done_ < iters_) issue();
  }
  void on_receive(const Completion& c) override {
    if (op_ == Opcode::kRead) return;
    if (c.conn == ab_.id()) {
      ba_.post(op_, size_, 0);  // the server answers as soon as the data lands
    } else {
      samples_.push_back((c.completed - started_).us() / 2);
      if (++done_ < iters_) issue();
    }
  }
  std::vector<double> samples_;

 private:
  void issue() {
    started_ = f_.sim().now();
    ab_.post(op_, size_, 0);
  }
  Fabric& f_;
  Opcode op_;
  int64_t size_;
  int iters_;
  int done_ = 0;
  QueuePair ab_, ba_;
  Time started_;
};

// Keeps tx_depth messages outstanding until `iters` have completed.
class BandwidthLoop final : public PerftestWorkload::Loop {
 public:
  BandwidthLoop(Fabric& f, Opcode op, int64_t size, int iters, int depth, int src, int dst)
      : f_(f), op_(op), size_(size), iters_(iters), depth_(depth), qp_(f.verbs().create_qp(src, dst, this)) {}
  void start() override {
    first_ = f_.sim().now();
    while (posted_ < iters_ && posted_ < depth_) post();
  }
  [[nodiscard]] bool done() const override { return done_ >= iters_; }
  [[nodiscard]] int iterations_done() const override { return done_; }
  void fill(PerftestResult& r, int tx_depth) const override {
    const double secs = (last_ - first_).sec();
    const double bytes = static_cast<double>(r.size) * done_;
    r.bw_avg_mb_s = secs > 0 ? bytes / secs / 1048576.0 : 0;
    r.gbps = secs > 0 ? bytes * 8 / secs / 1e9 : 0;
    r.msg_rate_mpps = secs > 0 ? done_ / secs / 1e6 : 0;
    const double ps_per_message = least_ps_per_message(tx_depth);
    r.bw_peak_mb_s = ps_per_message > 0 ? static_cast<double>(r.size) / (ps_per_message * 1e-12) / 1048576.0
                                        : r.bw_avg_mb_s;
  }
  // perftest's peak (print_report_bw): the least time per message from
  // posting message i to completing message j, (C[j] - P[i]) / (j - i + 1),
  // over every i <= j. Messages i..j all start after P[i], so this never
  // beats the wire; a window between completions alone does, where NIC
  // jitter bunches them (17% over 400G line rate). perftest searches all
  // pairs, O(n^2); Dinkelbach's iteration finds the same least ratio in a
  // few O(n) passes, for -n up to 10^8. A message is posted when the one
  // tx_depth before it completes (on_complete), so P needs no storage.
  [[nodiscard]] double least_ps_per_message(int tx_depth) const {
    const auto& c = completions_;
    const size_t n = c.size();
    if (n == 0) return 0;
    const auto depth = static_cast<size_t>(tx_depth);
    const auto posted = [&](size_t i) { return i < depth ? first_ : c[i - depth]; };
    // The ratio of the pair (i, j), exact in integer picoseconds.
    const auto ratio = [&](size_t i, size_t j) {
      return static_cast<double>((c[j] - posted(i)).ps()) / static_cast<double>(j - i + 1);
    };
    size_t bi = 0, bj = n - 1;
    double t = ratio(bi, bj);
    for (int round = 0; round < 64; ++round) {
      // The pair least in (C[j] - P[i]) - t (j - i + 1): for each j, the i <= j
      // with the most P[i] - t i.
      double best = 0;
      size_t ni = bi, nj = bj, arg_i = 0;
      double most = -std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < n; ++j) {
        const double v = static_cast<double>(posted(j).ps()) - t * static_cast<double>(j);
        if (v > most) {
          most = v;
          arg_i = j;
        }
        const double f = static_cast<double>(c[j].ps()) - t * static_cast<double>(j + 1) - most;
        if (f < best) {
          best = f;
          ni = arg_i;
          nj = j;
        }
      }
      const double next = ratio(ni, nj);
      if (!(next < t)) break;  // no pair does better: t is the least ratio
      t = next;
      bi = ni;
      bj = nj;
    }
    return t;
  }
  void on_complete(const Completion& c) override {
    ++done_;
    last_ = c.completed;
    completions_.push_back(c.completed);
    if (posted_ < iters_) post();
  }
  Time first_, last_;
  int done_ = 0;
  std::vector<Time> completions_;

 private:
  void post() { qp_.post(op_, size_, static_cast<uint64_t>(posted_++)); }
  Fabric& f_;
  Opcode op_;
  int64_t size_;
  int iters_;
  int depth_;
  int posted_ = 0;
  QueuePair qp_;
};

}  // namespace

bool is_latency_test(const std::string& test) { return test.ends_with("_lat"); }

void check_perftest_name(const std::string& test) {
  static const char* kTests[] = {"write_lat", "send_lat", "read_lat", "write_bw", "send_bw", "read_bw"};
  if (std::find(std::begin(kTests), std::end(kTests), test) == std::end(kTests))
    throw std::invalid_argument("unknown perftest '" + test +
                                "' (expected write_lat, send_lat, read_lat, write_bw, send_bw or read_bw)");
}

PerftestWorkload::PerftestWorkload(const WorkloadSpec& spec)
    : p_(static_cast<const PerftestParams&>(*spec.params)) {}

PerftestWorkload::~PerftestWorkload() = default;

void PerftestWorkload::setup(WorkloadContext& ctx) {
  const Opcode op = op_of(p_.test);
  if (is_latency_test(p_.test))
    loop_ = std::make_unique<LatencyLoop>(ctx.fabric, op, p_.size, p_.iters, p_.src, p_.dst);
  else
    loop_ = std::make_unique<BandwidthLoop>(ctx.fabric, op, p_.size, p_.iters, p_.tx_depth, p_.src, p_.dst);
}

void PerftestWorkload::start(WorkloadContext&) { loop_->start(); }

bool PerftestWorkload::finished() const { return loop_->done(); }

double PerftestWorkload::done_fraction() const {
  return static_cast<double>(loop_->iterations_done()) / static_cast<double>(p_.iters);
}

PerftestResult PerftestWorkload::result() const {
  PerftestResult r;
  r.test = p_.test;
  r.size = p_.size;
  r.iters = p_.iters;
  loop_->fill(r, p_.tx_depth);
  return r;
}

void PerftestWorkload::report(nlohmann::ordered_json& out) const {
  const PerftestResult r = result();
  out["type"] = "perftest";
  out["finished"] = finished();
  out["test"] = r.test;
  out["size_bytes"] = r.size;
  out["iterations"] = r.iters;
  if (is_latency_test(r.test)) {
    const Distribution d = summarize(r.latency_us);
    out["latency_us"] = {{"min", d.min},   {"p50", d.p50}, {"mean", d.mean},  {"p99", d.p99},
                         {"p999", d.p999}, {"max", d.max}, {"stdev", d.stdev}};
    // The distribution's shape at fixed quantiles (a CDF a report can draw):
    // [fraction, latency in us], nearest rank; dense in the tail, which a
    // report draws on a log scale of the fraction slower.
    std::vector<double> sorted = r.latency_us;
    std::sort(sorted.begin(), sorted.end());
    nlohmann::ordered_json cdf = nlohmann::ordered_json::array();
    if (!sorted.empty())
      for (double q : {0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995,
                       0.998, 0.999, 1.0})
        cdf.push_back({q, percentile_sorted(sorted, q)});
    out["latency_cdf_us"] = cdf;
  } else {
    out["bw_peak_MBps"] = r.bw_peak_mb_s;
    out["bw_average_MBps"] = r.bw_avg_mb_s;
    out["gbps"] = r.gbps;
    out["msg_rate_mpps"] = r.msg_rate_mpps;
  }
}

std::string PerftestWorkload::summary() const {
  const PerftestResult r = result();
  if (is_latency_test(r.test)) {
    const Distribution d = summarize(r.latency_us);
    return fmt::format("perftest {} {} B x {}: latency typical {:.2f} us, p99 {:.2f} us\n", r.test, r.size,
                       r.iters, d.p50, d.p99);
  }
  return fmt::format("perftest {} {} B x {}: {:.2f} Gb/s, {:.3f} Mpps\n", r.test, r.size, r.iters, r.gbps,
                     r.msg_rate_mpps);
}

namespace {

struct PerftestKeys {
  static constexpr std::string_view kName = "perftest";
  static void prepare(const Scenario*, WorkloadSpec& ws) { ws.params = std::make_shared<PerftestParams>(); }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<PerftestParams>(ws);
    v.choice(Key{"test", "the perftest benchmark (ib_write_lat, ib_send_bw, ...)", kRequired}, p.test,
             {"write_lat", "send_lat", "read_lat", "write_bw", "send_bw", "read_bw"});
    const bool lat = is_latency_test(p.test);
    if constexpr (V::kReads) {
      // perftest's defaults: 2 B x 1000 for latency, 64 KiB x 5000 for bandwidth.
      p.size = lat ? 2 : 65536;
      p.iters = lat ? 1000 : 5000;
    }
    v.size({"size", "message size (-s; default 2B for latency tests, 64KB for bandwidth)"}, p.size,
           int64_t{1} << 32, "expected between 1B and 4GiB");
    v.count({"iters", "iterations (-n; default 1000 for latency tests, 5000 for bandwidth)"}, p.iters, 1,
            100'000'000);
    // The send queue depth only shapes the bandwidth tests.
    if (!lat)
      v.count({"tx_depth", "messages in flight (-t)"}, p.tx_depth, 1, 1 << 16);
    else
      v.refuse("tx_depth", "has no effect on a latency test (one message in flight): give it to a _bw test");
    v.count({"src", "client host index"}, p.src, 0, 1 << 20);
    v.count({"dst", "server host index"}, p.dst, 0, 1 << 20);
    v.check(p.dst != p.src, "dst", "expected a host other than src");
  }
};

void check_perftest(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario&) {
  const auto& p = static_cast<const PerftestParams&>(*ws.params);
  for (const auto& [key, host] : {std::pair{"src", p.src}, std::pair{"dst", p.dst}})
    if (host >= t.num_hosts())
      throw item.error(key, "expected a host index below " + std::to_string(t.num_hosts()));
}

std::unique_ptr<Workload> make_perftest(const WorkloadSpec& ws) {
  return std::make_unique<PerftestWorkload>(ws);
}

}  // namespace

const WorkloadType& perftest_workload_type() {
  static const WorkloadType t = keyed_type<PerftestKeys>(check_perftest, make_perftest);
  return t;
}

std::string format_perftest(const PerftestResult& r, const PerftestOptions& o) {
  const char* names[] = {"RDMA_Write", "Send", "RDMA_Read"};
  const Opcode op = op_of(r.test);
  const char* name = names[op == Opcode::kWrite ? 0 : op == Opcode::kSend ? 1 : 2];
  const std::string rule(87, '-');
  std::string s = rule + "\n";
  s += fmt::format("                    {} {} Test\n", name, is_latency_test(r.test) ? "Latency" : "BW");
  s += fmt::format(" Fabric profile  : {:<16} Transport type : {}\n", o.fabric.name,
                   o.fabric.transport_label());
  s += fmt::format(" Link rate       : {:<16} Switches       : {}\n",
                   fmt::format("{:g}Gb/s", o.link.rate.gbps()), o.switches);
  s += fmt::format(" Mtu             : {}\n", o.fabric.mtu_label("[B]"));
  s += rule + "\n";
  if (is_latency_test(r.test)) {
    const Distribution d = summarize(r.latency_us);
    s += " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec] "
         "  99% "
         "percentile[usec]   99.9% percentile[usec] \n";
    s += fmt::format(
        " {:<6} {:<10}     {:<10.2f}     {:<10.2f}   {:<10.2f}         {:<10.2f}     {:<10.2f}      "
        "{:<10.2f}             {:<10.2f}\n",
        r.size, r.iters, d.min, d.max, d.p50, d.mean, d.stdev, d.p99, d.p999);
  } else {
    s += " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";
    s += fmt::format(" {:<10} {:<10}       {:<10.2f}         {:<10.2f}           {:.6f}\n", r.size, r.iters,
                     r.bw_peak_mb_s, r.bw_avg_mb_s, r.msg_rate_mpps);
  }
  s += rule + "\n";
  return s;
}

}  // namespace rdmasim
