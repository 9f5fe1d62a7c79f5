#include "storage/nvmeof.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/traffic_class_codec.h"
#include "engine/rng.h"
#include "fabric/fabric.h"
#include "metrics/distribution.h"
#include "verbs/verbs.h"
#include "workload/host_list.h"
#include "workload/workload_keys.h"

namespace rdmasim {
namespace {

// NVMe-oF 1.1 §3.3 / NVMe base spec: a submission queue entry is 64 B, a
// completion queue entry 16 B; capsules carry them (and in-capsule data).
constexpr int64_t kCommandCapsule = 64;
constexpr int64_t kResponseCapsule = 16;

enum Wire : uint64_t { kCmd = 1, kPullWriteData, kReadData, kResp };
constexpr int kWireShift = 56;
constexpr uint64_t kSlotMask = (uint64_t{1} << kWireShift) - 1;
uint64_t wr(Wire w, uint32_t slot) { return (static_cast<uint64_t>(w) << kWireShift) | slot; }

enum Event : uint32_t { kStart, kSubmit, kTargetReady, kSsdDone };

class NvmeofWorkload final : public Workload, public CompletionSink, public EventHandler {
 public:
  explicit NvmeofWorkload(const WorkloadSpec& spec)
      : p_(static_cast<const NvmeofParams&>(*spec.params)), start_(spec.start) {}

  void setup(WorkloadContext& ctx) override {
    sim_ = &ctx.sim;
    rng_ = ctx.sim.rng("nvmeof/" + std::to_string(ctx.index));
    const int hosts = ctx.fabric.topology().num_hosts();
    std::vector<int> inits = p_.initiators.empty() ? std::vector<int>{0} : p_.initiators;
    std::vector<int> tgts = p_.targets.empty() ? std::vector<int>{hosts - 1} : p_.targets;
    const Verbs verbs = ctx.fabric.verbs();
    targets_.assign(tgts.size(), Target{});
    read_gap_ = gap(p_.ssd.read_iops);
    write_gap_ = gap(p_.ssd.write_iops);
    for (size_t i = 0; i < inits.size(); ++i)
      for (int j = 0; j < p_.numjobs; ++j) {
        Job job;
        const size_t n = i * static_cast<size_t>(p_.numjobs) + static_cast<size_t>(j);
        job.target = static_cast<int>(n % tgts.size());
        const int th = tgts[static_cast<size_t>(job.target)];
        if (p_.traffic_class >= 0) {
          const auto tc = static_cast<uint8_t>(p_.traffic_class);
          job.cmd = verbs.create_qp(inits[i], th, this, tc);
          job.data = verbs.create_qp(th, inits[i], this, tc);
        } else {
          job.cmd = verbs.create_qp(inits[i], th, this);
          job.data = verbs.create_qp(th, inits[i], this);
        }
        jobs_.push_back(job);
      }
    measure_from_ = start_ + p_.ramp_time;
    end_ = measure_from_ + p_.runtime;
    result_.rw = p_.rw;
    result_.bs = p_.bs;
    result_.iodepth = p_.iodepth;
    result_.numjobs = p_.numjobs;
    result_.initiators = static_cast<int>(inits.size());
    result_.targets = static_cast<int>(tgts.size());
    result_.runtime = p_.runtime;
  }
  void start(WorkloadContext& ctx) override {
    started_ = true;
    ctx.sim.schedule(start_, this, kStart);
  }
  [[nodiscard]] bool finished() const override { return started_ && issuing_done_ && inflight_ == 0; }
  [[nodiscard]] double done_fraction() const override {
    if (!started_ || sim_ == nullptr) return 0.0;
    if (finished()) return 1.0;
    const Time span = end_ - start_;
    return std::clamp((sim_->now() - start_).sec() / span.sec(), 0.0, 0.999);
  }
  [[nodiscard]] Time poll_interval() const override { return Time::from_us(10); }
  void report(nlohmann::ordered_json& out) const override;
  [[nodiscard]] std::string summary() const override;
  [[nodiscard]] NvmeofResult result() const {
    NvmeofResult r = result_;
    for (FioDirection* d : {&r.read, &r.write}) {
      d->iops = static_cast<double>(d->ios) / p_.runtime.sec();
      d->bw_bytes_per_s = static_cast<double>(d->bytes) / p_.runtime.sec();
    }
    return r;
  }

  void on_event(uint32_t kind, uint64_t arg) override {
    const auto s = static_cast<uint32_t>(arg);
    switch (kind) {
      case kStart:
        for (uint32_t j = 0; j < jobs_.size(); ++j)
          for (int d = 0; d < p_.iodepth; ++d) issue(j);
        break;
      case kSubmit: {
        const Io& io = ios_[s];
        const int64_t inline_data = !io.read && p_.bs <= p_.in_capsule_data ? p_.bs : 0;
        jobs_[io.job].cmd.post_send(kCommandCapsule + inline_data, wr(kCmd, s));
        break;
      }
      case kTargetReady: {
        const Io& io = ios_[s];
        if (!io.read && p_.bs > p_.in_capsule_data)
          jobs_[io.job].data.post_read(p_.bs, wr(kPullWriteData, s));  // fetch the data from the host
        else
          ssd_enqueue(s);
        break;
      }
      case kSsdDone: {
        const Io& io = ios_[s];
        QueuePair& qp = jobs_[io.job].data;
        if (io.read) qp.post_write(p_.bs, wr(kReadData, s));
        qp.post_send(kResponseCapsule, wr(kResp, s));  // RC order: after the data
        break;
      }
      default:
        throw std::logic_error("nvmeof: unknown event");
    }
  }
  void on_receive(const Completion& c) override {
    const auto w = static_cast<Wire>(c.wr_id >> kWireShift);
    const auto s = static_cast<uint32_t>(c.wr_id & kSlotMask);
    if (w == kCmd) sim_->schedule_in(p_.target_overhead, this, kTargetReady, s);
    if (w == kResp) complete(s);
  }
  void on_complete(const Completion& c) override {
    const auto w = static_cast<Wire>(c.wr_id >> kWireShift);
    if (w == kPullWriteData) ssd_enqueue(static_cast<uint32_t>(c.wr_id & kSlotMask));
  }

 private:
  struct Job {
    QueuePair cmd, data;  // initiator -> target, target -> initiator
    int target = 0;
  };
  // The SSD: each direction admits one I/O per 1/IOPS (its ceiling), in
  // order, and serves each in its latency; idle, an I/O waits for nothing.
  struct Target {
    Time next_read, next_write;
  };
  struct Io {
    uint32_t job = 0;
    bool read = true;
    Time submitted;
  };

  // 1/IOPS, rounded up so the ceiling is never exceeded.
  static Time gap(int64_t iops) { return Time::from_ps((1'000'000'000'000 + iops - 1) / iops); }

  void issue(uint32_t job) {
    if (sim_->now() >= end_) {
      issuing_done_ = true;
      return;
    }
    uint32_t s = 0;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = static_cast<uint32_t>(ios_.size());
      ios_.emplace_back();
    }
    Io& io = ios_[s];
    io.job = job;
    io.read = p_.rw == "randread" || (p_.rw == "randrw" && rng_.uniform01() < p_.rwmixread);
    io.submitted = sim_->now();
    ++inflight_;
    sim_->schedule_in(p_.host_overhead, this, kSubmit, s);
  }
  void ssd_enqueue(uint32_t s) {
    const Io& io = ios_[s];
    Target& t = targets_[static_cast<size_t>(jobs_[io.job].target)];
    Time& next = io.read ? t.next_read : t.next_write;
    const Time begin = std::max(next, sim_->now());
    next = begin + (io.read ? read_gap_ : write_gap_);
    sim_->schedule(begin + (io.read ? p_.ssd.read_latency : p_.ssd.write_latency), this, kSsdDone, s);
  }
  void complete(uint32_t s) {
    const Io io = ios_[s];
    free_.push_back(s);
    --inflight_;
    const Time now = sim_->now();
    // fio's window: what completes after ramp_time and within runtime.
    if (now > measure_from_ && now <= end_) {
      FioDirection& d = io.read ? result_.read : result_.write;
      ++d.ios;
      d.bytes += p_.bs;
      d.clat_us.push_back((now - io.submitted).us());
    }
    issue(io.job);
  }

  const NvmeofParams& p_;
  Time start_;
  Simulation* sim_ = nullptr;
  Rng rng_{0, "nvmeof"};
  std::vector<Job> jobs_;
  std::vector<Target> targets_;
  Time read_gap_, write_gap_;
  std::vector<Io> ios_;
  std::vector<uint32_t> free_;
  Time measure_from_, end_;
  int64_t inflight_ = 0;
  bool started_ = false;
  bool issuing_done_ = false;
  NvmeofResult result_;
};

nlohmann::ordered_json direction_json(const FioDirection& d) {
  nlohmann::ordered_json j;
  j["ios"] = d.ios;
  j["iops"] = d.iops;
  j["bw_MiBps"] = d.bw_bytes_per_s / 1048576.0;
  if (!d.clat_us.empty()) {
    std::vector<double> sorted = d.clat_us;
    std::sort(sorted.begin(), sorted.end());
    const Distribution x = summarize(d.clat_us);
    j["clat_us"] = {{"min", x.min},
                    {"mean", x.mean},
                    {"stdev", x.stdev},
                    {"p50", percentile_sorted(sorted, 0.50)},
                    {"p99", percentile_sorted(sorted, 0.99)},
                    {"p999", percentile_sorted(sorted, 0.999)},
                    {"p9999", percentile_sorted(sorted, 0.9999)},
                    {"max", x.max}};
  }
  return j;
}

void NvmeofWorkload::report(nlohmann::ordered_json& out) const {
  const NvmeofResult r = result();
  out["type"] = "nvmeof";
  out["finished"] = finished();
  out["rw"] = r.rw;
  out["bs_bytes"] = r.bs;
  out["iodepth"] = r.iodepth;
  out["numjobs"] = r.numjobs;
  if (r.read.ios > 0 || r.rw != "randwrite") out["read"] = direction_json(r.read);
  if (r.write.ios > 0 || r.rw != "randread") out["write"] = direction_json(r.write);
}

std::string NvmeofWorkload::summary() const {
  const NvmeofResult r = result();
  std::string s;
  for (const auto& [name, d] : {std::pair{"read", &r.read}, std::pair{"write", &r.write}}) {
    if (d->ios == 0) continue;
    const Distribution x = summarize(d->clat_us);
    s += fmt::format(
        "nvmeof {} {} B QD{} x {}: {}: {:.0f} IOPS, {:.1f} MiB/s, clat avg {:.2f} us, p99 {:.2f} us\n", r.rw,
        r.bs, r.iodepth, r.numjobs, name, d->iops, d->bw_bytes_per_s / 1048576.0, x.mean, x.p99);
  }
  return s.empty() ? fmt::format("nvmeof {}: no I/O completed in the measured window\n", r.rw) : s;
}

struct NvmeofKeys {
  static constexpr std::string_view kName = "nvmeof";
  static void prepare(const Scenario*, WorkloadSpec& ws) { ws.params = std::make_shared<NvmeofParams>(); }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    auto& p = params_of<NvmeofParams>(ws);
    v.time({"start", "when the jobs begin"}, ws.start);
    v.custom({"initiators", "hosts that issue I/O (default: host 0)"}, p.initiators, HostListCodec{});
    v.custom({"targets", "hosts that serve it, one SSD each (default: the last host)"}, p.targets,
             HostListCodec{});
    v.choice({"rw", "randread | randwrite | randrw (the SSD model has no locality: no sequential mode)"},
             p.rw, std::vector<std::string>{"randread", "randwrite", "randrw"});
    if (p.rw == "randrw")
      v.fraction({"rwmixread", "share of reads (fio's rwmixread)"}, p.rwmixread);
    else
      v.refuse("rwmixread", "only randrw mixes reads and writes");
    v.size({"bs", "block size (a multiple of 512 B)"}, p.bs, int64_t{1} << 30,
           "expected a positive block size");
    v.check(p.bs % 512 == 0, "bs", "expected a multiple of the 512 B logical block");
    v.count({"iodepth", "I/Os in flight per job (queue depth)"}, p.iodepth, 1, 65535);
    v.count({"numjobs", "jobs per initiator: each an NVMe I/O queue (one QP pair) to one target"}, p.numjobs,
            1, 4096);
    v.time({"runtime", "how long the jobs issue I/O, after ramp_time"}, p.runtime, kPositive);
    v.time({"ramp_time", "I/O before the measured window, not counted"}, p.ramp_time);
    v.size({"in_capsule_data", "target's in-capsule data size: writes up to it ride in the command"},
           p.in_capsule_data, int64_t{1} << 20);
    v.time({"host_overhead", "initiator's path per I/O (block layer, nvme-rdma)"}, p.host_overhead);
    v.time({"target_overhead", "target's path per command (nvmet-rdma / SPDK)"}, p.target_overhead);
    v.custom({"traffic_class",
              "class the storage QPs mark (RoCE priority, IB SL); default: the fabric's data "
              "class"},
             p.traffic_class, TrafficClassCodec{});
    v.block({"ssd", "each target's SSD"}, [&](auto& b) { p.ssd.visit(b); });
  }
};

void check_nvmeof(const CfgNode& item, const WorkloadSpec& ws, const Topology& t, const Scenario&) {
  const auto& p = static_cast<const NvmeofParams&>(*ws.params);
  const int hosts = t.num_hosts();
  if (hosts < 2) throw item.error("targets", "expected a topology with two hosts or more");
  const std::vector<int> inits = p.initiators.empty() ? std::vector<int>{0} : p.initiators;
  const std::vector<int> tgts = p.targets.empty() ? std::vector<int>{hosts - 1} : p.targets;
  std::set<int> seen;
  for (const auto& [key, list] : {std::pair{"initiators", &inits}, std::pair{"targets", &tgts}})
    for (const int h : *list) {
      if (h >= hosts) throw item.error(key, fmt::format("expected host indices below {}", hosts));
      if (!seen.insert(h).second)
        throw item.error(key,
                         fmt::format("host {} is an initiator or a target twice (defaults: initiator host 0, "
                                     "target the last host)",
                                     h));
    }
}

std::unique_ptr<Workload> make_nvmeof(const WorkloadSpec& ws) { return std::make_unique<NvmeofWorkload>(ws); }

}  // namespace

NvmeofResult nvmeof_result(const Workload& w) { return dynamic_cast<const NvmeofWorkload&>(w).result(); }

const WorkloadType& nvmeof_workload_type() {
  static const WorkloadType t = keyed_type<NvmeofKeys>(check_nvmeof, make_nvmeof);
  return t;
}

}  // namespace rdmasim
