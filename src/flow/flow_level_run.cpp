#include "flow/flow_level_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "collective/collective_workload.h"
#include "config/error.h"
#include "config/units_parse.h"
#include "engine/rng.h"
#include "net/flow_hash.h"
#include "net/unloaded_hop.h"
#include "report/atomic_file.h"
#include "report/results.h"
#include "route/subnet_manager.h"
#include "training/training_workload.h"
#include "workload/flow_workloads.h"

namespace rdmasim {

namespace {

constexpr uint16_t kRoceUdpPort = 4791;

// The UDP source port RC gives QP `qp` (transport/rc.cpp): the same number
// gives the same ECMP hash, hence the same path, in both models.
uint16_t source_port(uint64_t seed, uint32_t qp) {
  return static_cast<uint16_t>(49152 + mix64(seed ^ (0xc0ffeeull << 32) ^ qp) % 16384);
}

constexpr uint32_t kGone = 0xffffffffu;

uint64_t packets_for(int64_t bytes, uint32_t mtu) {
  return bytes <= 0 ? 1u : static_cast<uint64_t>((bytes + mtu - 1) / mtu);
}

}  // namespace

FlowLevelRun::FlowLevelRun(Scenario s) : s_(std::move(s)), topo_(build_topology(s_)), sim_(s_.seed) {
  try {
    net_ = std::make_unique<FluidNetwork>(topo_, s_.seed, s_.fabric.sw.same_ecmp_seed);
    if (s_.fabric.ib.enabled) net_->follow_lfts(compute_lfts(topo_, s_.fabric.ib.sm));
  } catch (const std::invalid_argument& e) {
    throw InputError(s_.file, s_.topology.line, 0, "topology", e.what());
  }
  std::vector<double> capacity(net_->num_links());
  for (uint32_t l = 0; l < net_->num_links(); ++l) capacity[l] = net_->capacity(l);
  solver_ = std::make_unique<MaxMinSolver>(std::move(capacity));
  load_.assign(net_->num_links(), 0.0);
  count_.assign(net_->num_links(), 0);
  const Framing& fr = s_.fabric.framing;
  ack_coef_ = static_cast<float>(
      static_cast<double>(fr.ack_wire()) /
      (static_cast<double>(s_.fabric.rc.ack_interval) * fr.data_wire(s_.fabric.rc.mtu, false)));
  // The same flows the packet-level run makes: same generators, same streams.
  const Rate host_rate = topo_.hosts.empty() ? Rate{} : net_->rate(0);
  for (size_t i = 0; i < s_.workloads.size(); ++i) {
    const WorkloadSpec& w = s_.workloads[i];
    if (w.type == "collective" || w.type == "training") {
      const bool collective = w.type == "collective";
      const bool sharp = collective
                             ? !static_cast<const CollectiveParams&>(*w.params).req.tune_algo &&
                                   static_cast<const CollectiveParams&>(*w.params).req.algo == Algo::kSharp
                             : static_cast<const TrainingParams&>(*w.params).run.dp_algo == Algo::kSharp;
      if (sharp)
        throw InputError(s_.file, w.line, 0, collective ? "algo" : "dp_algo",
                         "SHARP is not modelled at flow level (fabric.model: flow): use the packet level");
      GpuJob* job = nullptr;
      if (collective) {
        auto c = std::make_unique<CollectiveWorkload>(w);
        job = c.get();
        jobs_.push_back(std::move(c));
      } else {
        auto t = std::make_unique<TrainingWorkload>(w);
        job = t.get();
        jobs_.push_back(std::move(t));
      }
      job_of_.push_back(job);
      try {
        job->setup_on(sim_, *this, host_rate);
      } catch (const std::invalid_argument& e) {
        throw InputError(s_.file, w.line, 0, "workload", e.what());
      }
      continue;
    }
    const FlowGenContext g{s_, w, static_cast<int>(i), topo_, host_rate};
    if (!generate_flows(g, flows_))
      throw InputError(s_.file, s_.workloads[i].line, 0, "workload.type",
                       "'" + s_.workloads[i].type + "' is not modelled at flow level");
  }
  std::stable_sort(flows_.begin(), flows_.end(),
                   [](const FlowRecord& a, const FlowRecord& b) { return a.spec.start < b.spec.start; });
  for (size_t i = 0; i < flows_.size(); ++i) flows_[i].spec.id = static_cast<int64_t>(i);
  if (jobs_.empty() && (flows_.empty() || flows_.front().spec.start >= s_.duration))
    throw InputError(s_.file, s_.workloads.empty() ? 0 : s_.workloads[0].line, 0, "workload",
                     "no flow starts before the end of the run: nothing would run");
  latest_end_.assign(flows_.size(), Time::zero());
}

Time FlowLevelRun::pipeline(const std::vector<uint32_t>& path, uint64_t n, uint32_t first, uint32_t middle,
                            uint32_t last) const {
  const auto& sw = s_.fabric.sw;
  const auto& nic = s_.fabric.nic;
  const auto hop_at = [&](size_t h) {
    const uint32_t l = path[h];
    const bool to_switch = topo_.nodes[net_->to(l)].kind == TopoNodeKind::kSwitch;
    return UnloadedHop{net_->rate(l), net_->delay(l), to_switch ? sw.latency : nic.rx_latency,
                       to_switch && sw.cut_through ? sw.cut_through_bytes : 0};
  };
  return unloaded_pipeline(path.size(), hop_at, n, first, middle, last);
}

uint32_t FlowLevelRun::data_wire(Opcode op, int64_t bytes, uint64_t i) const {
  const Framing& fr = s_.fabric.framing;
  const uint32_t mtu = s_.fabric.rc.mtu;
  const auto payload = static_cast<uint32_t>(std::min<int64_t>(mtu, bytes - static_cast<int64_t>(i) * mtu));
  // A READ response's First, Last and Only packets carry an AETH (IBTA
  // Vol.1 §9.3.5); a WRITE's first packet a RETH.
  if (op == Opcode::kRead) {
    const bool edge = i == 0 || i + 1 == packets_for(bytes, mtu);
    return fr.data_wire(payload + (edge ? fr.aeth : 0), false) + route_header_;
  }
  return fr.data_wire(payload, op == Opcode::kWrite && i == 0) + route_header_;
}

Time FlowLevelRun::ideal(const std::vector<uint32_t>& fwd, const std::vector<uint32_t>& rev, Opcode op,
                         int64_t bytes, bool arrival) const {
  const Framing& fr = s_.fabric.framing;
  const uint64_t n = packets_for(bytes, s_.fabric.rc.mtu);
  const uint32_t first = data_wire(op, bytes, 0);
  const uint32_t middle = n > 2 ? data_wire(op, bytes, 1) : first;
  const uint32_t last = data_wire(op, bytes, n - 1);
  const Time tx = s_.fabric.nic.tx_latency;
  if (op == Opcode::kRead) {
    // The request there, then the response stream back, new work at the
    // responder's NIC (as Fabric::ideal_completion); no ACK follows.
    const uint32_t req = fr.read_request_wire() + route_header_;
    return tx + pipeline(fwd, 1, req, req, req) + tx + pipeline(rev, n, first, middle, last);
  }
  const Time there = pipeline(fwd, n, first, middle, last);
  if (arrival) return tx + there;
  const uint32_t ack = fr.ack_wire() + route_header_;
  const Time back = pipeline(rev, 1, ack, ack, ack);
  return tx + there + back;
}

void FlowLevelRun::start_flow(uint32_t ref) {
  FlowRecord& f = record(ref);
  const bool transfer = (ref & kTransfer) != 0;
  const uint32_t mtu = s_.fabric.rc.mtu;
  f.started = true;
  f.parts_left = f.qps;
  // An InfiniBand GRH between subnets, as the packet level's RC adds it.
  route_header_ = s_.fabric.ib.enabled ? grh_bytes(topo_, f.spec.src, f.spec.dst) : 0;
  for (int q = 0; q < f.qps; ++q) {
    // A transfer goes on its connection's QP (one path per connection, as
    // at packet level); a flow's QPs are numbered as they start.
    const uint32_t qp = transfer ? f.conn : next_qp_++;
    if (q == 0) f.conn = qp;
    const int64_t bytes = f.spec.size_bytes / f.qps + (q < f.spec.size_bytes % f.qps ? 1 : 0);
    const uint16_t sport = source_port(s_.seed, qp);
    const bool ok =
        net_->path(f.spec.src, f.spec.dst, udp_flow_hash(f.spec.src, f.spec.dst, sport, kRoceUdpPort),
                   fwd_) &&
        net_->path(f.spec.dst, f.spec.src, udp_flow_hash(f.spec.dst, f.spec.src, sport, kRoceUdpPort), rev_);
    if (!ok)
      throw std::runtime_error("flow " + std::to_string(f.spec.id) + ": no route between hosts " +
                               std::to_string(f.spec.src) + " and " + std::to_string(f.spec.dst));
    if (q == 0) {
      f.ideal = ideal(fwd_, rev_, f.op, f.spec.size_bytes, transfer);
      f.links = static_cast<int>(fwd_.size());
    }
    // The fluid is the part's wire bytes; alone it drains at the slowest
    // link of its path, and the rest of its ideal time is fixed latency. A
    // READ's data flows back, responder to requester, and nothing
    // acknowledges it (its one request packet is left out of the fluid).
    const bool read = f.op == Opcode::kRead;
    const std::vector<uint32_t>& data = read ? rev_ : fwd_;
    const uint64_t n = packets_for(bytes, mtu);
    double wire = data_wire(f.op, bytes, 0);
    if (n > 1) wire += static_cast<double>(n - 2) * data_wire(f.op, bytes, 1) + data_wire(f.op, bytes, n - 1);
    double bottleneck = net_->capacity(data[0]);
    for (const uint32_t l : data) bottleneck = std::min(bottleneck, net_->capacity(l));
    const Time whole = q == 0 && f.qps == 1 ? f.ideal : ideal(fwd_, rev_, f.op, bytes);
    const Time drain = Time::from_ps(static_cast<int64_t>(std::ceil(wire / bottleneck)));
    Part p;
    p.flow = ref;
    p.id = static_cast<uint32_t>(index_of_.size());
    p.remaining = wire;
    p.updated = now_;
    p.fixed = whole > drain ? whole - drain : Time::zero();
    p.begin = static_cast<uint32_t>(arena_link_.size());
    for (const uint32_t l : data) {
      arena_link_.push_back(l);
      arena_coef_.push_back(1.0f);
    }
    p.data_end = static_cast<uint32_t>(arena_link_.size());
    if (!read)
      for (const uint32_t l : rev_) {
        arena_link_.push_back(l);
        arena_coef_.push_back(ack_coef_);
      }
    p.end = static_cast<uint32_t>(arena_link_.size());
    arena_live_ += p.end - p.begin;
    for (uint32_t e = p.begin; e < p.data_end; ++e) ++count_[arena_link_[e]];
    index_of_.push_back(static_cast<uint32_t>(parts_.size()));
    parts_.push_back(p);
  }
  peak_active_ = std::max(peak_active_, parts_.size());
}

void FlowLevelRun::set_rate(Part& p, double rate) {
  // What it sent at its old rate, then its new finish time.
  p.remaining -= p.rate * static_cast<double>((now_ - p.updated).ps());
  p.updated = now_;
  for (uint32_t e = p.begin; e < p.end; ++e) load_[arena_link_[e]] += arena_coef_[e] * (rate - p.rate);
  p.rate = rate;
  ++p.version;
  if (rate <= 0) return;
  // Clamped below Time::never(): a rate so small it would overflow never finishes within a run.
  const double ps = std::clamp(std::ceil(p.remaining / rate), 0.0, 4e18);
  finishes_.push_back(Finish{now_ + Time::from_ps(static_cast<int64_t>(ps)), p.id, p.version});
  std::push_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
}

void FlowLevelRun::provisional_rate(Part& p) {
  double r = std::numeric_limits<double>::infinity();
  for (uint32_t e = p.begin; e < p.data_end; ++e) {
    const uint32_t l = arena_link_[e];
    const double cap = net_->capacity(l);
    r = std::min(r, std::max(cap - load_[l], cap / count_[l]));
  }
  set_rate(p, r);
}

void FlowLevelRun::finish_part(size_t k) {
  Part& p = parts_[k];
  p.remaining -= p.rate * static_cast<double>((now_ - p.updated).ps());
  FlowRecord& f = record(p.flow);
  Time& latest = latest_end(p.flow);
  latest = std::max(latest, now_ + p.fixed);
  if (--f.parts_left == 0) {
    f.end = latest;
    if ((p.flow & kTransfer) != 0) {
      ++transfers_done_;
      sim_.schedule(f.end, this, 0, p.flow & ~kTransfer);
      released_.push_back(f.conn);
    } else {
      ++completed_;
    }
  }
  for (uint32_t e = p.begin; e < p.end; ++e) load_[arena_link_[e]] -= arena_coef_[e] * p.rate;
  for (uint32_t e = p.begin; e < p.data_end; ++e) --count_[arena_link_[e]];
  arena_live_ -= p.end - p.begin;
  index_of_[p.id] = kGone;
  if (k + 1 != parts_.size()) {
    parts_[k] = parts_.back();
    index_of_[parts_[k].id] = static_cast<uint32_t>(k);
  }
  parts_.pop_back();
}

bool FlowLevelRun::next_finish(Time& at) {
  while (!finishes_.empty()) {
    const Finish& top = finishes_.front();
    const uint32_t k = index_of_[top.id];
    if (k != kGone && parts_[k].version == top.version) {
      at = top.at;
      return true;
    }
    std::pop_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
    finishes_.pop_back();
  }
  return false;
}

void FlowLevelRun::compact_arena() {
  // Completed parts leave their links behind; once they are most of the
  // arena, the live ones are moved down.
  if (arena_link_.size() < 2 * arena_live_ + 4096) return;
  uint32_t w = 0;
  for (Part& p : parts_) {
    const uint32_t len = p.end - p.begin;
    std::copy(arena_link_.begin() + p.begin, arena_link_.begin() + p.end, arena_link_.begin() + w);
    std::copy(arena_coef_.begin() + p.begin, arena_coef_.begin() + p.end, arena_coef_.begin() + w);
    p.data_end = w + (p.data_end - p.begin);
    p.begin = w;
    p.end = w + len;
    w += len;
  }
  arena_link_.resize(w);
  arena_coef_.resize(w);
}

void FlowLevelRun::solve() {
  compact_arena();
  uses_.resize(parts_.size());
  rate_.resize(parts_.size());
  for (size_t k = 0; k < parts_.size(); ++k) uses_[k] = LinkUse{parts_[k].begin, parts_[k].end};
  solver_->solve(uses_, arena_link_, arena_coef_, rate_);
  // Every finish time is new: the heap starts over, and the link loads are
  // summed afresh so rounding never accumulates between solves.
  finishes_.clear();
  for (size_t k = 0; k < parts_.size(); ++k) set_rate(parts_[k], rate_[k]);
  std::fill(load_.begin(), load_.end(), 0.0);
  for (const Part& p : parts_)
    for (uint32_t e = p.begin; e < p.end; ++e) load_[arena_link_[e]] += arena_coef_[e] * p.rate;
  last_solve_ = now_;
  ++solves_;
}

void FlowLevelRun::run(const std::function<void(const FlowLevelRun&)>& progress,
                       const std::atomic<bool>* interrupt) {
  const Time epoch = s_.fabric.flow_epoch;
  size_t next = 0;
  bool pending = false;  // arrivals or completions the rates do not yet reflect
  now_ = Time::zero();
  for (GpuJob* j : job_of_) j->start_on(sim_);
  while (completed_ < flows_.size() || !jobs_done()) {
    Time t = next < flows_.size() ? flows_[next].spec.start : Time::never();
    Time fin;
    if (next_finish(fin)) t = std::min(t, fin);
    if (pending) t = std::min(t, last_solve_ + epoch);
    t = std::min(t, sim_.next_event_time());
    if (t == Time::never() || t > s_.duration) {
      now_ = t == Time::never() ? now_ : s_.duration;
      break;
    }
    now_ = t;
    bool changed = false;
    while (next_finish(fin) && fin <= now_) {
      const uint32_t id = finishes_.front().id;
      std::pop_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
      finishes_.pop_back();
      finish_part(index_of_[id]);
      changed = true;
    }
    const size_t first_new = parts_.size();
    // Transfers queued behind one that drained start on their QP now.
    for (const QpId q : released_) {
      Connection& c = conns_[q];
      c.busy = !c.waiting.empty();
      if (!c.busy) continue;
      const uint32_t ref = c.waiting.front();
      c.waiting.pop_front();
      record(ref).spec.start = now_;
      start_flow(ref);
    }
    released_.clear();
    // The collectives' events now (arrivals just scheduled among them):
    // the WRITEs they post start now.
    if (sim_.next_event_time() <= now_) {
      sim_.run(now_);
      changed = changed || parts_.size() > first_new;
    }
    while (next < flows_.size() && flows_[next].spec.start <= now_) {
      start_flow(next++);
      changed = true;
    }
    pending = pending || changed;
    if (pending && (epoch == Time::zero() || last_solve_ == Time::never() || now_ >= last_solve_ + epoch)) {
      solve();
      pending = false;
    } else {
      for (size_t k = first_new; k < parts_.size(); ++k) provisional_rate(parts_[k]);
    }
    ++events_;
    if ((events_ & 4095) == 0) {
      if (progress) progress(*this);
      if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed)) {
        interrupted_ = true;
        break;
      }
    }
  }
}

QpId FlowLevelRun::connect(int src, int dst, CompletionSink* sink) {
  conns_.push_back({src, dst, sink, false, {}});
  return static_cast<QpId>(conns_.size() - 1);
}

void FlowLevelRun::post_write(QpId qp, int64_t bytes, uint64_t wr_id) {
  FlowRecord f;
  f.spec.src = conns_[qp].src;
  f.spec.dst = conns_[qp].dst;
  f.spec.size_bytes = bytes;
  f.spec.start = now_;
  f.spec.id = static_cast<int64_t>(transfers_posted_++);
  f.conn = qp;
  f.qps = 1;
  uint32_t slot = 0;
  if (free_transfers_.empty()) {
    slot = static_cast<uint32_t>(transfers_.size());
    transfers_.emplace_back();
  } else {
    slot = free_transfers_.back();
    free_transfers_.pop_back();
  }
  transfers_[slot] = Transfer{f, Time::zero(), wr_id};
  const uint32_t ref = kTransfer | slot;
  Connection& c = conns_[qp];
  if (c.busy) {
    c.waiting.push_back(ref);
    return;
  }
  c.busy = true;
  start_flow(ref);
}

void FlowLevelRun::on_event(uint32_t /*kind*/, uint64_t arg) {
  const FlowRecord& f = transfers_[arg].record;
  Completion c;
  c.conn = f.conn;
  c.wr_id = transfers_[arg].wr_id;
  c.bytes = f.spec.size_bytes;
  c.posted = f.spec.start;
  c.completed = f.end;
  free_transfers_.push_back(static_cast<uint32_t>(arg));  // f may be reused from here on
  conns_[c.conn].sink->on_receive(c);
}

bool FlowLevelRun::jobs_done() const {
  return std::all_of(jobs_.begin(), jobs_.end(),
                     [](const std::unique_ptr<Workload>& w) { return w->finished(); });
}

uint64_t FlowLevelRun::data_packet_hops() const {
  uint64_t hops = 0;
  for (const auto& f : flows_)
    if (f.finished())
      hops += packets_for(f.spec.size_bytes, s_.fabric.rc.mtu) * static_cast<uint64_t>(f.links);
  return hops;
}

size_t FlowLevelRun::memory_bytes() const {
  return net_->memory_bytes() + flows_.capacity() * sizeof(FlowRecord) + parts_.capacity() * sizeof(Part) +
         index_of_.capacity() * sizeof(uint32_t) + finishes_.capacity() * sizeof(Finish) +
         arena_link_.capacity() * (sizeof(uint32_t) + sizeof(float)) + net_->num_links() * 48 +
         transfers_.capacity() * sizeof(Transfer) + conns_.capacity() * sizeof(Connection);
}

nlohmann::ordered_json flow_level_results_json(const FlowLevelRun& r) {
  using json = nlohmann::ordered_json;
  FlowTables tables = flow_tables(r.flows(), r.data_packet_hops());
  json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["generator"] = "rdmasim 0.1.0";
  j["scenario"] = scenario_json(r.scenario());
  j["model"] = {
      {"type", "flow"},
      {"rates", "max-min fair over every link a flow's data crosses and its ACKs cross back"},
      {"epoch", format_time(r.scenario().fabric.flow_epoch)},
      {"rate_solves", r.solves()},
      {"peak_active_qps", r.peak_active()},
      {"not_modelled",
       {"queues and buffers", "PFC", "ECN", "congestion control (rates are its ideal: max-min fair at once)",
        "loss and retransmission", "NIC and switch scheduling below a flow"}}};
  j["topology"] = {{"description", r.topology().description},
                   {"hosts", r.topology().num_hosts()},
                   {"switches", r.topology().num_switches()},
                   {"links", r.topology().links.size()}};
  j["run"] = {{"simulated_end_ps", r.now().ps()},
              {"simulated_end", format_time(r.now())},
              {"events", r.events()},
              {"interrupted", r.interrupted()},
              {"all_flows_completed", r.completed() == r.flows().size()}};
  j["flows"] = std::move(tables.flows);
  j["throughput"] = std::move(tables.throughput);
  if (!r.jobs().empty()) {
    // As at packet level: one entry per workload, the GPU jobs' filled in.
    json measured = json::array();
    size_t c = 0;
    for (const WorkloadSpec& w : r.scenario().workloads) {
      json m = json::object();
      if (w.type == "collective" || w.type == "training") r.jobs()[c++]->report(m);
      measured.push_back(std::move(m));
    }
    j["workload_results"] = std::move(measured);
    j["run"]["collective_transfers"] = r.transfers();
    j["run"]["collective_transfers_arrived"] = r.transfers_done();
  }
  return j;
}

std::string flow_level_summary(const FlowLevelRun& r) {
  const auto j = flow_level_results_json(r);
  std::string s;
  s += fmt::format("scenario   {}  ({}, profile {}, flow-level model)\n", r.scenario().name,
                   r.topology().description, r.scenario().profile);
  s += fmt::format("simulated  {:.3f} us  events {}  rate solves {}{}\n", r.now().ps() / 1e6, r.events(),
                   r.solves(), r.interrupted() ? "  (INTERRUPTED)" : "");
  if (!r.flows().empty()) s += flow_summary_lines(j);
  for (const auto& c : r.jobs()) s += c->summary();
  if (!r.jobs().empty())
    s += fmt::format("transfers  {} WRITEs of the collectives as fluid flows, {} arrived\n", r.transfers(),
                     r.transfers_done());
  return s;
}

std::vector<std::string> write_flow_level_outputs(const FlowLevelRun& r, const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  write_file_atomic((fs::path(dir) / "results.json").string(), flow_level_results_json(r).dump(2) + "\n");
  written.emplace_back("results.json");
  if (r.scenario().output.flows_csv) {
    write_file_atomic((fs::path(dir) / "flows.csv").string(),
                      flows_csv(r.flows(), [](const FlowRecord&) { return uint64_t{0}; }));
    written.emplace_back("flows.csv");
  }
  remove_stale_outputs(dir, written);
  return written;
}

}  // namespace rdmasim
