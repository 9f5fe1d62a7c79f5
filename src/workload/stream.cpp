#include "workload/stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/traffic_class_codec.h"
#include "fabric/fabric.h"
#include "metrics/distribution.h"
#include "verbs/verbs.h"
#include "workload/workload_keys.h"

namespace rdmasim {
namespace {

class StreamWorkload final : public Workload, public CompletionSink, public EventHandler {
 public:
  explicit StreamWorkload(const WorkloadSpec& spec)
      : p_(static_cast<const StreamParams&>(*spec.params)), start_(spec.start) {}
  void setup(WorkloadContext& ctx) override {
    sim_ = &ctx.sim;
    const Verbs v = ctx.fabric.verbs();
    qp_ = p_.traffic_class >= 0 ? v.create_qp(p_.src, p_.dst, this, static_cast<uint8_t>(p_.traffic_class))
                                : v.create_qp(p_.src, p_.dst, this);
    // Slots for the latencies in posting order (delivery is in order on RC,
    // but a message's slot must not depend on it).
    latency_.assign(static_cast<size_t>(p_.count * p_.burst), -1.0);
  }
  void start(WorkloadContext& ctx) override {
    started_ = true;
    ctx.sim.schedule(start_, this, 0);
  }
  void on_event(uint32_t, uint64_t) override {
    const Opcode op = p_.op == "send" ? Opcode::kSend : Opcode::kWrite;
    for (int b = 0; b < p_.burst; ++b) qp_.post(op, p_.size, static_cast<uint64_t>(sent_++));
    if (++periods_ < p_.count) sim_->schedule_in(p_.period, this, 0);
  }
  void on_complete(const Completion&) override {}
  void on_receive(const Completion& c) override {
    latency_[c.wr_id] = (c.completed - c.posted).us();
    ++delivered_;
  }
  [[nodiscard]] bool finished() const override { return started_ && delivered_ == p_.count * p_.burst; }
  [[nodiscard]] double done_fraction() const override {
    return static_cast<double>(delivered_) / static_cast<double>(p_.count * p_.burst);
  }
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(10); }
  [[nodiscard]] StreamResult result() const {
    StreamResult r;
    r.sent = sent_;
    r.delivered = delivered_;
    const double deadline = p_.deadline.us();
    for (const double x : latency_) {
      if (x < 0) {
        ++r.missed;  // never delivered
        continue;
      }
      r.latency_us.push_back(x);
      if (x > deadline) ++r.missed;
    }
    return r;
  }
  void report(nlohmann::ordered_json& out) const override {
    const StreamResult r = result();
    out["type"] = "stream";
    out["finished"] = finished();
    out["messages"] = p_.count * p_.burst;
    out["sent"] = r.sent;
    out["delivered"] = r.delivered;
    out["deadline_misses"] = r.missed;
    out["miss_rate"] = static_cast<double>(r.missed) / static_cast<double>(p_.count * p_.burst);
    out["offered_gbps"] = static_cast<double>(p_.size * p_.burst) * 8 / p_.period.sec() / 1e9;
    if (!r.latency_us.empty()) {
      const Distribution d = summarize(r.latency_us);
      out["latency_us"] = {{"min", d.min},   {"p50", d.p50}, {"mean", d.mean},  {"p99", d.p99},
                           {"p999", d.p999}, {"max", d.max}, {"stdev", d.stdev}};
      out["jitter_us"] = d.jitter;
    }
  }
  [[nodiscard]] std::string summary() const override {
    const StreamResult r = result();
    const Distribution d = summarize(r.latency_us);
    return fmt::format(
        "stream {} -> {}: {} of {} messages missed the {:.2f} us deadline; latency p50 {:.2f} us, "
        "p99 {:.2f} us, max {:.2f} us, jitter {:.3f} us\n",
        p_.src, p_.dst, r.missed, p_.count * p_.burst, p_.deadline.us(), d.p50, d.p99, d.max, d.jitter);
  }

 private:
  const StreamParams& p_;
  Time start_;
  Simulation* sim_ = nullptr;
  QueuePair qp_;
  std::vector<double> latency_;
  int64_t sent_ = 0, delivered_ = 0, periods_ = 0;
  bool started_ = false;
};

struct StreamKeys {
  static constexpr std::string_view kName = "stream";
  static void prepare(const Scenario*, WorkloadSpec& ws) { ws.params = std::make_shared<StreamParams>(); }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<StreamParams>(ws);
    v.time({"start", "when the first message is posted"}, ws.start);
    v.count({"src", "sending host", kRequired}, p.src, 0, 1 << 20);
    v.count({"dst", "receiving host", kRequired}, p.dst, 0, 1 << 20);
    v.check(p.dst != p.src, "dst", "expected a host other than src");
    v.size({"size", "bytes per message"}, p.size, int64_t{1} << 30, "expected a positive message size");
    v.time({"period", "time between bursts (constant bit rate: size / period)"}, p.period, kPositive);
    v.count({"burst", "messages posted at the start of each period"}, p.burst, 1, 1 << 16);
    v.count({"count", "periods"}, p.count, 1, 100'000'000);
    v.time({"deadline", "from posting to the last byte landing; later is a miss"}, p.deadline, kPositive);
    v.choice({"op", "write | send"}, p.op, std::vector<std::string>{"write", "send"});
    v.custom(
        {"traffic_class", "class the stream marks (RoCE priority, IB SL); default: the fabric's data class"},
        p.traffic_class, TrafficClassCodec{});
  }
};

void check_stream(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario&) {
  const auto& p = static_cast<const StreamParams&>(*ws.params);
  for (const auto& [key, host] : {std::pair{"src", p.src}, std::pair{"dst", p.dst}})
    if (host >= t.num_hosts())
      throw item.error(key, fmt::format("expected a host index below {}", t.num_hosts()));
  if (static_cast<__int128>(p.count) * p.burst > 100'000'000)
    throw item.error("count", "expected at most 100,000,000 messages (count x burst)");
}

std::unique_ptr<Workload> make_stream(const WorkloadSpec& ws) { return std::make_unique<StreamWorkload>(ws); }

}  // namespace

StreamResult stream_result(const Workload& w) { return dynamic_cast<const StreamWorkload&>(w).result(); }

const WorkloadType& stream_workload_type() {
  static const WorkloadType t = keyed_type<StreamKeys>(check_stream, make_stream);
  return t;
}

}  // namespace rdmasim
