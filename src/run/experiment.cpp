#include "run/experiment.h"

#include <algorithm>
#include <stdexcept>

#include "config/units_parse.h"
#include "fabric/memory_estimate.h"
#include "verbs/verbs.h"

namespace rdmasim {
namespace {
// A memory budget in refusals: whole MiB, or the exact size below one
// (--max-memory 1KiB once read "the 0 MiB allowed").
std::string budget_text(uint64_t bytes) {
  return bytes >= (uint64_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB"
                                      : format_bytes(Bytes(static_cast<int64_t>(bytes)));
}
}  // namespace

uint64_t check_build_memory(const Scenario& s, const Topology& topo, uint64_t max_memory) {
  const MemoryEstimate net = estimate_build_memory(topo, s.fabric);
  // Flows whose count the spec gives (an all-to-all's hosts x (hosts - 1))
  // are counted before any is generated: making them is itself the cost.
  uint64_t qps = 0;
  for (const WorkloadSpec& w : s.workloads)
    if (const WorkloadType* type = find_workload_type(w.type); type != nullptr && w.start < s.duration)
      qps += type->qps_before_setup(w, topo.num_hosts());
  const MemoryEstimate flows = estimate_flow_memory(qps);
  const uint64_t budget = memory_budget(max_memory);
  const char* limit = max_memory != 0 ? "allowed by --max-memory" : "this machine has available";
  if (budget != 0 && net.bytes > budget)
    throw InputError(s.file, s.topology.line, 0, "topology",
                     "this network needs an estimated " + std::to_string(net.bytes >> 20) +
                         " MiB to build (" + net.reason + "), more than the " + budget_text(budget) + " " +
                         limit);
  if (budget != 0 && net.bytes + flows.bytes > budget)
    throw InputError(s.file, s.workloads.empty() ? 0 : s.workloads[0].line, 0, "workload",
                     "this run needs an estimated " + std::to_string((net.bytes + flows.bytes) >> 20) +
                         " MiB (" + std::to_string(flows.bytes >> 20) + " MiB of it for the " + flows.reason +
                         " its flows open), more than the " + budget_text(budget) + " " + limit);
  return net.bytes;
}

Experiment::Experiment(Scenario s, uint64_t max_memory, const std::atomic<bool>* interrupt)
    : s_(std::move(s)), sim_(s_.seed) {
  auto stop_if_asked = [interrupt] {
    if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed)) throw SetupInterrupted();
  };
  Topology topo = build_topology(s_);
  stop_if_asked();
  memory_estimate_ = check_build_memory(s_, topo, max_memory);
  budget_ = memory_budget(max_memory);
  try {
    fabric_ = std::make_unique<Fabric>(sim_, std::move(topo), s_.fabric);
  } catch (const std::invalid_argument& e) {
    throw InputError(s_.file, 0, 0, "fabric", e.what());  // e.g. PFC headroom larger than the buffer
  }
  stop_if_asked();
  apply_link_settings();
  schedule_faults();
  for (size_t i = 0; i < s_.workloads.size(); ++i) {
    const WorkloadType* type = find_workload_type(s_.workloads[i].type);
    if (type == nullptr) throw InputError(s_.file, s_.workloads[i].line, 0, "workload.type", "unknown type");
    workloads_.push_back(type->make(s_.workloads[i]));
    WorkloadContext ctx = context(i);
    workloads_.back()->setup(ctx);
    stop_if_asked();
    const Time q = workloads_.back()->poll_interval();
    if (q > Time::zero() && (poll_interval_ == Time::zero() || q < poll_interval_)) poll_interval_ = q;
  }
  std::stable_sort(flows_.begin(), flows_.end(),
                   [](const FlowRecord& a, const FlowRecord& b) { return a.spec.start < b.spec.start; });
  for (size_t i = 0; i < flows_.size(); ++i) flows_[i].spec.id = static_cast<int64_t>(i);
  check_workload_fits();
  // The flows' QPs are made as they start: an all-to-all on thousands of
  // hosts needs millions of them, refused here rather than by bad_alloc mid-run.
  uint64_t qps = 0;
  for (const FlowRecord& f : flows_)
    if (f.spec.start < s_.duration) qps += f.qps;
  const MemoryEstimate flows = estimate_flow_memory(qps);
  memory_estimate_ += flows.bytes;
  if (budget_ != 0 && memory_estimate_ > budget_)
    throw InputError(s_.file, s_.workloads.empty() ? 0 : s_.workloads[0].line, 0, "workload",
                     "this run needs an estimated " + std::to_string(memory_estimate_ >> 20) + " MiB (" +
                         std::to_string(flows.bytes >> 20) + " MiB of it for " + flows.reason + " of " +
                         std::to_string(flows_.size()) + " flows), more than the " + budget_text(budget_) +
                         " " + (max_memory != 0 ? "allowed by --max-memory" : "this machine has available"));
}

// Each fault as link changes: a whole node's fault hits each of its links.
void Experiment::schedule_faults() {
  using A = FaultSpec::Action;
  const Topology& t = fabric_->topology();
  for (const FaultSpec& fs : s_.faults) {
    int node = -1;
    for (size_t n = 0; n < t.nodes.size() && node < 0; ++n)
      if (t.nodes[n].name == fs.node) node = static_cast<int>(n);
    try {
      if (node < 0) throw std::invalid_argument("no node named '" + fs.node + "' in the topology");
      const size_t ports = fabric_->node_by_topo_id(node).num_ports();
      for (size_t i = 0; i < ports; ++i) {
        if (!fs.whole_node() && static_cast<int>(i) != fs.port) continue;
        const auto port = static_cast<uint16_t>(i);
        switch (fs.action) {
          case A::kDown:
          case A::kUp:
            fabric_->schedule_link_state(fs.at, node, port, fs.action == A::kUp, fs.silent);
            break;
          case A::kDegrade:
            fabric_->schedule_link_rate(fs.at, node, port, fs.rate);
            break;
          case A::kFlap:
            for (int k = 0; k < fs.times; ++k) {
              const Time down = fs.at + fs.every * k;
              fabric_->schedule_link_state(down, node, port, false, fs.silent);
              fabric_->schedule_link_state(down + fs.down_for, node, port, true);
            }
            break;
          case A::kStuck:
          case A::kUnstuck:
            fabric_->schedule_receiver_stuck(fs.at, node, port, fs.action == A::kStuck);
            break;
        }
      }
    } catch (const std::invalid_argument& e) {
      throw InputError(s_.file, fs.line, 0, fs.whole_node() ? "node" : "link", e.what());
    }
  }
}

// `links:` in order, so a later entry overrides an earlier one (a file's own
// error rates, applied when the fabric was built, come first). The loader
// refuses what does not fit the fabric; a scenario built in code is checked here.
void Experiment::apply_link_settings() {
  using D = LinkSettingSpec::Direction;
  const Topology& t = fabric_->topology();
  for (const LinkSettingSpec& ls : s_.links) {
    if (ls.length_m >= 0) continue;  // a length entry was applied by build_topology
    try {
      if (ls.node.empty()) {
        for (size_t n = 0; n < t.nodes.size(); ++n)
          for (size_t i = 0; i < fabric_->node_by_topo_id(static_cast<int>(n)).num_ports(); ++i)
            fabric_->set_link_loss(static_cast<int>(n), static_cast<uint16_t>(i), ls.loss, ls.ber);
        continue;
      }
      int node = -1;
      for (size_t n = 0; n < t.nodes.size() && node < 0; ++n)
        if (t.nodes[n].name == ls.node) node = static_cast<int>(n);
      if (node < 0 || static_cast<size_t>(ls.port) >= fabric_->node_by_topo_id(node).num_ports())
        throw std::invalid_argument("no link at '" + ls.node + ":" + std::to_string(ls.port) + "'");
      const Port& end = fabric_->node_by_topo_id(node).port(static_cast<size_t>(ls.port));
      if (ls.direction != D::kIn)
        fabric_->set_link_loss(node, static_cast<uint16_t>(ls.port), ls.loss, ls.ber);
      if (ls.direction != D::kOut)
        fabric_->set_link_loss(end.peer()->id(), end.peer_index(), ls.loss, ls.ber);
    } catch (const std::invalid_argument& e) {
      throw InputError(s_.file, ls.line, 0, "links", e.what());
    }
  }
}

// A run that cannot do anything within its duration would exit 0 with
// "0 completed": refuse it. One that can do only part of it says so.
void Experiment::check_workload_fits() {
  // perftest, collectives, training: their own work, reported by finished().
  if (poll_interval_ != Time::zero()) return;
  for (const auto& w : workloads_)
    if (!w->finished()) return;
  if (flows_.empty())
    throw InputError(s_.file, s_.workloads.empty() ? 0 : s_.workloads[0].line, 0, "workload",
                     "the workload generates no flows: nothing would run");
  const Time first = flows_.front().spec.start;
  if (first >= s_.duration)
    throw InputError(s_.file, s_.workloads[0].line, 0, "workload",
                     "every flow starts at or after the end of the run (first at " + format_time(first) +
                         ", duration " + format_time(s_.duration) +
                         "): raise duration or shift the flows (a flows file's time_offset)");
  size_t late = 0;
  for (const FlowRecord& f : flows_) late += f.spec.start >= s_.duration ? 1 : 0;
  if (late > 0)
    warnings_.push_back(std::to_string(late) + " of " + std::to_string(flows_.size()) +
                        " flows start at or after the end of the run (duration " + format_time(s_.duration) +
                        ") and are never started");
}

WorkloadContext Experiment::context(size_t i) {
  return WorkloadContext{sim_, *fabric_, s_, s_.workloads[i], static_cast<int>(i), flows_};
}

Experiment::~Experiment() = default;

void Experiment::run(const std::function<void(const Experiment&)>& progress,
                     const std::atomic<bool>* interrupt) {
  if (!flows_.empty()) sim_.schedule(flows_[0].spec.start, this, 0, 0);
  if (s_.output.timeseries_interval > Time::zero()) {
    timeseries_ = std::make_unique<QueueTimeseries>(sim_, fabric_->net(), s_.output.timeseries_start,
                                                    s_.output.timeseries_interval);
    if (!fabric_->verbs().series_header().file.empty())
      transport_series_ = std::make_unique<TransportSeries>(
          sim_, fabric_->verbs(), s_.output.timeseries_start, s_.output.timeseries_interval);
  }
  if (!s_.faults.empty()) {
    Time first = s_.duration;
    for (const FaultSpec& f : s_.faults) first = std::min(first, f.at);
    incident_ = std::make_unique<IncidentMonitor>(
        sim_, *fabric_, s_.output.incident_bin(s_.duration, first),
        s_.output.incident_bins_double() ? OutputSpec::kIncidentBinsPerWidth : 0);
  }
  if (s_.output.pcap.enabled) capture_ = std::make_unique<PcapCapture>(*fabric_, s_.output.pcap, s_.duration);
  for (size_t i = 0; i < workloads_.size(); ++i) {
    WorkloadContext ctx = context(i);
    workloads_[i]->start(ctx);
  }
  auto poll = [&] {
    if (interrupt != nullptr && interrupt->load()) {
      interrupted_ = true;
      sim_.stop();
    }
    if (progress) progress(*this);
  };
  bool open_ended = false;
  for (const auto& w : workloads_) open_ended = open_ended || w->open_ended();
  if (poll_interval_ == Time::zero()) {
    // Flows only: the last completion stops the simulation.
    sim_.run(s_.duration, poll, 1 << 20);
  } else {
    // Slices from time zero, for the deadlock watch; the run ends after the
    // event that finishes the last workload, so nothing after the work
    // (final ACKs, congestion-control timers) is counted in the run.
    while (!interrupted_ && deadlock() == nullptr && !all_done() && sim_.now() < s_.duration &&
           sim_.pending_events() > 0) {
      sim_.run_until_done(
          std::min(sim_.now() + poll_interval_, s_.duration), [this] { return all_done(); }, poll, 1 << 20);
      poll();
    }
    // The work is done: let the packets it left on the wires (final ACKs,
    // credits) land, within one more slice, so that every port's counters
    // balance at the end of the run. Background load never goes quiet.
    const auto quiet = [this] { return fabric_->net().packets_in_flight() == 0; };
    if (!interrupted_ && deadlock() == nullptr && !open_ended && all_done() && !quiet())
      sim_.run_until_done(std::min(sim_.now() + poll_interval_, s_.duration), quiet, poll, 1 << 20);
  }
  if (incident_) incident_->finish();
  fabric_->settle_credits();
  // The one invariant check of the run.
  invariant_error_ = open_ended ? fabric_->net().check_conservation() : fabric_->check_invariants();
  for (auto& f : flows_) {
    if (!f.started) continue;
    f.ideal = fabric_->ideal_completion(f.conn, f.op, f.spec.size_bytes);
    f.links = fabric_->path_links(f.conn);
  }
}

std::vector<FaultImpact> Experiment::fault_impacts() const {
  using A = FaultSpec::Action;
  std::vector<FaultImpact> out;
  if (!incident_) return out;
  for (size_t i = 0; i < s_.faults.size(); ++i) {
    const FaultSpec& fs = s_.faults[i];
    // The window closes at the next fault that starts later (a fault's own
    // flaps and a node's links belong to it), or at the end of the run.
    Time end = sim_.now();
    for (const FaultSpec& other : s_.faults)
      if (other.at > fs.at && other.at < end) end = other.at;
    const char* action = fs.action == A::kDown      ? "down"
                         : fs.action == A::kUp      ? "up"
                         : fs.action == A::kDegrade ? "degrade"
                         : fs.action == A::kFlap    ? "flap"
                         : fs.action == A::kStuck   ? "stuck"
                                                    : "unstuck";
    std::string what = std::string(action) + (fs.silent ? " (silent) " : " ") + fs.node +
                       (fs.whole_node() ? "" : ":" + std::to_string(fs.port));
    if (fs.action == A::kDegrade) what += " to " + format_rate(fs.rate);
    out.push_back(fault_impact(incident_->samples(), fs.at, end, fabric_->recovery_log(), std::move(what)));
  }
  return out;
}

bool Experiment::all_done() const {
  if (completed_ != flows_.size()) return false;
  for (const auto& w : workloads_)
    if (!w->finished()) return false;
  return true;
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
  // With polled workloads the slices decide when the run ends.
  if (++completed_ == flows_.size() && poll_interval_ == Time::zero()) sim_.stop();
}

uint64_t Experiment::data_packet_hops() const {
  uint64_t hops = 0;
  for (const auto& f : flows_)
    if (f.finished())
      hops += fabric_->verbs().packets_for(f.spec.size_bytes) * static_cast<uint64_t>(f.links);
  return hops;
}

}  // namespace rdmasim
