#include "run/experiment.h"

#include <algorithm>

#include "topo/hpcc_format.h"
#include "verbs/verbs.h"
#include "workload/flow_size_cdf.h"
#include "workload/generators.h"
#include "workload/poisson_flows.h"

namespace rdmasim {
namespace {

Opcode opcode_of(const std::string& op) {
  if (op == "read") return Opcode::kRead;
  if (op == "send") return Opcode::kSend;
  return Opcode::kWrite;
}

}  // namespace

Experiment::Experiment(Scenario s) : s_(std::move(s)), sim_(s_.seed) {
  Topology topo = build_topology(s_);
  const int hosts = topo.num_hosts();
  // Map topology node ids to endpoint indices for flow files that name nodes.
  std::vector<int> endpoint_of(topo.nodes.size(), -1);
  for (int i = 0; i < hosts; ++i) endpoint_of[topo.hosts[i]] = i;
  try {
    fabric_ = std::make_unique<Fabric>(sim_, std::move(topo), s_.fabric);
  } catch (const std::invalid_argument& e) {
    throw InputError(s_.file, 0, 0, "fabric", e.what());  // e.g. PFC headroom larger than the buffer
  }
  for (const FaultSpec& fs : s_.faults) {
    const Topology& t = fabric_->topology();
    for (size_t n = 0; n < t.nodes.size(); ++n)
      if (t.nodes[n].name == fs.node)
        fabric_->schedule_link_state(fs.at, static_cast<int>(n), static_cast<uint16_t>(fs.port), fs.up);
  }

  for (size_t wi = 0; wi < s_.workloads.size(); ++wi) {
    const WorkloadSpec& w = s_.workloads[wi];
    Rng rng = sim_.rng("workload" + std::to_string(wi));
    std::vector<FlowSpec> specs;
    if (w.type == "incast")
      specs = make_incast(hosts, w.senders, w.receiver, w.size, w.start, w.placement == "random", rng);
    else if (w.type == "permutation")
      specs = make_permutation(hosts, w.size, w.start, rng);
    else if (w.type == "all-to-all")
      specs = make_all_to_all(hosts, w.size, w.start);
    else if (w.type == "flow")
      specs = {FlowSpec{0, w.src, w.dst, 3, 4791, w.size.count(), w.start}};
    else if (w.type == "cdf") {
      const FlowSizeCdf cdf = FlowSizeCdf::load(w.file);
      std::vector<int> all(hosts);
      for (int i = 0; i < hosts; ++i) all[i] = i;
      // Load is a share of each host's own link rate (HPCC traffic_gen's definition).
      const Rate host_rate = fabric_->nic(0).port(0).rate();
      specs = generate_poisson_flows(cdf, all, host_rate, w.load, w.start, w.window, rng);
    } else {
      specs = load_hpcc_flows(w.file, w.time_offset_s);
      for (auto& f : specs) {
        const bool ok = f.src >= 0 && f.dst >= 0 && static_cast<size_t>(f.src) < endpoint_of.size() &&
                        static_cast<size_t>(f.dst) < endpoint_of.size() && endpoint_of[f.src] >= 0 &&
                        endpoint_of[f.dst] >= 0;
        if (!ok)
          throw InputError(s_.file, w.line, 0, "workload.file",
                           "flow " + std::to_string(f.id) + " in '" + w.file + "' names node " +
                               std::to_string(f.src) + " -> " + std::to_string(f.dst) +
                               ", which is not a host of the topology");
        f.src = endpoint_of[f.src];
        f.dst = endpoint_of[f.dst];
        f.start += w.start;
      }
    }
    for (auto& f : specs) {
      FlowRecord r;
      r.spec = f;
      r.op = opcode_of(w.op);
      r.workload = static_cast<uint16_t>(wi);
      r.qps = static_cast<uint16_t>(w.qps);
      flows_.push_back(r);
    }
  }
  std::stable_sort(flows_.begin(), flows_.end(),
                   [](const FlowRecord& a, const FlowRecord& b) { return a.spec.start < b.spec.start; });
  for (size_t i = 0; i < flows_.size(); ++i) flows_[i].spec.id = static_cast<int64_t>(i);
}

Experiment::~Experiment() = default;

void Experiment::run(const std::function<void(const Experiment&)>& progress,
                     const std::atomic<bool>* interrupt) {
  if (!flows_.empty()) sim_.schedule(flows_[0].spec.start, this, 0, 0);
  if (s_.output.timeseries_interval > Time::zero())
    timeseries_ = std::make_unique<QueueTimeseries>(sim_, fabric_->net(), s_.output.timeseries_start,
                                                    s_.output.timeseries_interval);
  auto poll = [&] {
    if (interrupt != nullptr && interrupt->load()) {
      interrupted_ = true;
      sim_.stop();
    }
    if (progress) progress(*this);
  };
  sim_.run(s_.duration, poll, 1 << 20);
  invariant_error_ = fabric_->check_invariants();
  for (auto& f : flows_) {
    if (!f.started) continue;
    f.ideal = fabric_->ideal_completion(f.conn, f.op, f.spec.size_bytes);
    f.links = fabric_->path_links(f.conn);
  }
}

void Experiment::on_event(uint32_t /*kind*/, uint64_t arg) {
  // Start every flow due now, then wait for the next start time.
  size_t i = arg;
  const Time now = sim_.now();
  while (i < flows_.size() && flows_[i].spec.start <= now) start_flow(i++);
  if (i < flows_.size()) sim_.schedule(flows_[i].spec.start, this, 0, i);
}

void Experiment::start_flow(size_t i) {
  FlowRecord& f = flows_[i];
  // One QP per flow, as the HPCC simulator does, so flows never wait behind
  // one another inside a QP.
  // Striping over several QPs gives each part its own UDP source port, hence
  // its own ECMP path. Parts differ by at most one byte.
  f.started = true;
  f.parts_left = f.qps;
  for (int q = 0; q < f.qps; ++q) {
    QueuePair qp = fabric_->verbs().create_qp(f.spec.src, f.spec.dst, this);
    if (q == 0) f.conn = qp.id();
    const int64_t part = f.spec.size_bytes / f.qps + (q < f.spec.size_bytes % f.qps ? 1 : 0);
    qp.post(f.op, part, i);
  }
}

void Experiment::on_complete(const Completion& c) {
  FlowRecord& f = flows_[c.wr_id];
  if (--f.parts_left > 0) return;
  f.end = c.completed;
  if (++completed_ == flows_.size()) sim_.stop();
}

uint64_t Experiment::data_packet_hops() const {
  uint64_t hops = 0;
  for (const auto& f : flows_)
    if (f.finished())
      hops += fabric_->verbs().packets_for(f.spec.size_bytes) * static_cast<uint64_t>(f.links);
  return hops;
}

}  // namespace rdmasim
