#include "workload/perftest.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "engine/simulation.h"
#include "metrics/distribution.h"
#include "verbs/verbs.h"

namespace rdmasim {
namespace {

Opcode op_of(const std::string& test) {
  if (test.starts_with("read")) return Opcode::kRead;
  if (test.starts_with("send")) return Opcode::kSend;
  return Opcode::kWrite;
}

// Ping-pong (write/send) or back-to-back (read) latency loop.
class LatencyLoop : public CompletionSink {
 public:
  LatencyLoop(Fabric& f, Opcode op, int64_t size, int iters)
      : f_(f),
        op_(op),
        size_(size),
        iters_(iters),
        ab_(f.verbs().create_qp(0, 1, this)),
        ba_(f.verbs().create_qp(1, 0, this)) {}
  void start() { issue(); }
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
class BandwidthLoop : public CompletionSink {
 public:
  BandwidthLoop(Fabric& f, Opcode op, int64_t size, int iters, int depth)
      : f_(f), op_(op), size_(size), iters_(iters), depth_(depth), qp_(f.verbs().create_qp(0, 1, this)) {}
  void start() {
    first_ = f_.sim().now();
    while (posted_ < iters_ && posted_ < depth_) post();
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

PerftestResult run_perftest(const PerftestOptions& o) {
  static const char* kTests[] = {"write_lat", "send_lat", "read_lat", "write_bw", "send_bw", "read_bw"};
  if (std::find(std::begin(kTests), std::end(kTests), o.test) == std::end(kTests))
    throw std::invalid_argument("unknown perftest '" + o.test +
                                "' (expected write_lat, send_lat, read_lat, write_bw, send_bw or read_bw)");
  const bool lat = is_latency_test(o.test);
  PerftestResult r;
  r.test = o.test;
  r.size = o.size >= 0 ? o.size : (lat ? 2 : 65536);
  r.iters = o.iters > 0 ? o.iters : (lat ? 1000 : 5000);
  if (r.size < 1 || r.size > (int64_t{1} << 32))
    throw std::invalid_argument("size must be between 1 and 4GiB");
  if (o.switches < 0 || o.switches > 16) throw std::invalid_argument("switches must be between 0 and 16");
  if (o.tx_depth < 1) throw std::invalid_argument("tx-depth must be at least 1");
  Simulation sim(o.seed);
  Fabric f(sim, make_chain(o.switches, o.link), o.fabric);
  const Opcode op = op_of(o.test);
  if (lat) {
    LatencyLoop loop(f, op, r.size, r.iters);
    loop.start();
    sim.run(Time::from_s(100));
    r.latency_us = loop.samples_;
  } else {
    BandwidthLoop loop(f, op, r.size, r.iters, o.tx_depth);
    loop.start();
    sim.run(Time::from_s(100));
    const double secs = (loop.last_ - loop.first_).sec();
    const double bytes = static_cast<double>(r.size) * loop.done_;
    r.bw_avg_mb_s = secs > 0 ? bytes / secs / 1048576.0 : 0;
    r.gbps = secs > 0 ? bytes * 8 / secs / 1e9 : 0;
    r.msg_rate_mpps = secs > 0 ? loop.done_ / secs / 1e6 : 0;
    // Peak: the best rate over any window of tx_depth consecutive completions.
    const auto& c = loop.completions_;
    const size_t w = std::min<size_t>(static_cast<size_t>(o.tx_depth), !c.empty() ? c.size() - 1 : 0);
    for (size_t i = w; i < c.size() && w > 0; ++i) {
      const double s = (c[i] - c[i - w]).sec();
      if (s > 0) r.bw_peak_mb_s = std::max(r.bw_peak_mb_s, static_cast<double>(r.size) * w / s / 1048576.0);
    }
    if (r.bw_peak_mb_s == 0) r.bw_peak_mb_s = r.bw_avg_mb_s;
  }
  r.invariant_error = f.check_invariants();
  return r;
}

std::string format_perftest(const PerftestResult& r, const PerftestOptions& o) {
  const char* names[] = {"RDMA_Write", "Send", "RDMA_Read"};
  const Opcode op = op_of(r.test);
  const char* name = names[op == Opcode::kWrite ? 0 : op == Opcode::kSend ? 1 : 2];
  const std::string rule(87, '-');
  std::string s = rule + "\n";
  s += fmt::format("                    {} {} Test\n", name, is_latency_test(r.test) ? "Latency" : "BW");
  s += fmt::format(" Fabric profile  : {:<16} Transport type : {}\n", o.fabric.name, "RC");
  s += fmt::format(" Link rate       : {:<16} Switches       : {}\n",
                   fmt::format("{:g}Gb/s", o.link.rate.gbps()), o.switches);
  s += fmt::format(" Mtu             : {}[B]\n", o.fabric.rc.mtu);
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
