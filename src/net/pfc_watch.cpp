#include "net/pfc_watch.h"

#include <algorithm>

#include "net/node.h"
#include "net/port.h"

namespace rdmasim {

namespace {
std::string port_name(const Port& p) { return p.owner().name() + ":" + std::to_string(p.index()); }
}  // namespace

std::string DeadlockReport::text() const {
  std::string s;
  for (const std::string& q : cycle) s += q + " -> ";
  return cycle.empty() ? s : s + cycle.front();
}

PfcWatch::PfcWatch(Simulation& sim, Network& net, PfcWatchConfig cfg) : sim_(sim), net_(net), cfg_(cfg) {
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    Node& node = net_.node(n);
    if (node.kind() != NodeKind::kSwitch) continue;
    for (size_t i = 0; i < node.num_ports(); ++i) {
      index_.emplace(&node.port(i), static_cast<int>(ports_.size()));
      ports_.push_back(&node.port(i));
    }
  }
  stormed_.assign(ports_.size(), 0);
  state_.assign(ports_.size() * kNumTcs, 0);
  tick_ = cfg_.watchdog.polling_interval;
  if (cfg_.watchdog.enabled || cfg_.deadlock_detection > Time::zero()) net_.set_pause_watcher(this);
}

void PfcWatch::wake() {
  if (armed_ || deadlock_ || !cfg_.watchdog.enabled) return;
  armed_ = true;
  sim_.schedule(sim_.now() + tick_, this, kTick);
}

void PfcWatch::refreshed() {
  const Time now = sim_.now();
  if (cfg_.deadlock_detection == Time::zero() || deadlock_ || now < next_deadlock_check_) return;
  // A few looks per hold: a cycle is reported soon after it has held that long.
  next_deadlock_check_ = now + cfg_.deadlock_detection / 4;
  if (find_deadlock(now)) sim_.stop();
}

void PfcWatch::schedule_stuck(Time at, Port& port, bool stuck) {
  stuck_ports_.push_back(&port);
  sim_.schedule(at, this, stuck ? kStuck : kUnstuck, stuck_ports_.size() - 1);
}

void PfcWatch::note(Time at, Time since, const Port& p, uint8_t tc, bool storm) {
  if (log_.size() < kMaxLog) log_.push_back(WatchdogEvent{at, since, port_name(p), tc, storm});
}

void PfcWatch::on_event(uint32_t kind, uint64_t arg) {
  if (kind != kTick) {
    Port& p = *stuck_ports_[arg];
    if (PfcFlowControl* pfc = p.flow_control().pfc()) pfc->set_stuck(p, cfg_.lossless_mask, kind == kStuck);
    return;
  }
  const Time now = sim_.now();
  poll_watchdog(now);
  // Nothing paused and nothing to restore: sleep until the next pause.
  if (deadlock_ || (net_.pause_spread().ports_paused == 0 && storms_in_force_ == 0)) {
    armed_ = false;
    return;
  }
  sim_.schedule(now + tick_, this, kTick);
}

void PfcWatch::poll_watchdog(Time now) {
  const PfcWatchdogConfig& wd = cfg_.watchdog;
  for (size_t i = 0; i < ports_.size(); ++i) {
    Port& p = *ports_[i];
    PfcFlowControl* pfc = p.flow_control().pfc();
    if (pfc == nullptr) continue;
    for (int c = 0; c < kNumTcs; ++c) {
      if (((cfg_.lossless_mask >> c) & 1u) == 0) continue;
      const auto tc = static_cast<uint8_t>(c);
      const bool paused = pfc->pause_left(tc, now) > Time::zero();
      if (((stormed_[i] >> c) & 1u) == 0) {
        // SONiC's condition: paused by the peer, packets waiting, no
        // transmission (a paused class sends nothing), for the whole time.
        if (!paused || p.queues().bytes(c) == 0 || now - pfc->paused_since(tc) < wd.detection_time) continue;
        stormed_[i] |= static_cast<uint8_t>(1u << c);
        ++storms_in_force_;
        p.counters().pfc_wd_storms[c] += 1;
        note(now, pfc->paused_since(tc), p, tc, true);
        if (wd.action == PfcWatchdogConfig::Action::kDrop)
          p.set_watchdog_drop(tc, true);
        else
          pfc->set_ignore_pause(p, tc, true);
        continue;
      }
      // Restored once the peer has sent no pause for restoration_time.
      if (paused || now - pfc->paused_until(tc) < wd.restoration_time) continue;
      stormed_[i] &= static_cast<uint8_t>(~(1u << c));
      --storms_in_force_;
      p.counters().pfc_wd_restores[c] += 1;
      note(now, Time::zero(), p, tc, false);
      p.set_watchdog_drop(tc, false);
      pfc->set_ignore_pause(p, tc, false);
      p.kick();
    }
  }
}

// The wait-for graph: an egress queue (switch S, port p, class c) paused by
// its peer T waits on T's ingress PG (p's peer port, c), which is over XOFF
// because of what it holds; that PG waits on each of T's egress queues of
// class c holding one of its packets. Only queues stalled for the whole hold
// (paused, non-empty, not stormed) are nodes, so a cycle is one that no
// queue on it has drained for that long: it never will.
bool PfcWatch::find_deadlock(Time now) {
  const Time hold = cfg_.deadlock_detection;
  auto stalled = [&](int id) {
    const Port& p = *ports_[id / kNumTcs];
    const auto tc = static_cast<uint8_t>(id % kNumTcs);
    const PfcFlowControl* pfc = p.flow_control().pfc();
    return pfc != nullptr && ((stormed_[id / kNumTcs] >> tc) & 1u) == 0 && p.queues().bytes(tc) != 0 &&
           pfc->pause_left(tc, now) > Time::zero() && now - pfc->paused_since(tc) >= hold;
  };
  bool any = false;
  for (size_t id = 0; id < state_.size() && !any; ++id)
    any = ((cfg_.lossless_mask >> (id % kNumTcs)) & 1u) != 0 && stalled(static_cast<int>(id));
  if (!any) return false;
  // Successor of `u` among the peer's ports from `from` on: {queue, next port}, or {-1, -1}.
  // Whether egress queue `q` holds a packet that came in on `in_port`.
  auto holds = [](const Port& q, int tc, uint16_t in_port) {
    for (const Packet* k = q.queues().head(tc); k != nullptr; k = k->next)
      if (k->in_port == in_port) return true;
    return false;
  };
  // Successor of `u` among the peer's ports from `from` on: {queue, next
  // port}, or {-1, -1}. The PG drains if any queue holding its packets does,
  // so it waits only when every such queue is stalled.
  auto next = [&](int u, int from) -> std::pair<int, int> {
    const Port& p = *ports_[u / kNumTcs];
    const int tc = u % kNumTcs;
    Node* t = p.peer();
    if (t == nullptr || t->kind() != NodeKind::kSwitch) return {-1, -1};
    const auto n = static_cast<int>(t->num_ports());
    if (from == 0)
      for (int o = 0; o < n; ++o)
        if (holds(t->port(o), tc, p.peer_index()) && !stalled(index_.at(&t->port(o)) * kNumTcs + tc))
          return {-1, -1};
    for (int o = from; o < n; ++o) {
      const Port& q = t->port(o);
      const int v = index_.at(&q) * kNumTcs + tc;
      if (stalled(v) && holds(q, tc, p.peer_index())) return {v, o + 1};
    }
    return {-1, -1};
  };
  std::fill(state_.begin(), state_.end(), 0);
  for (size_t s = 0; s < state_.size(); ++s) {
    const int start = static_cast<int>(s);
    if (state_[s] != 0 || ((cfg_.lossless_mask >> (s % kNumTcs)) & 1u) == 0 || !stalled(start)) continue;
    stack_.assign(1, start);
    edge_at_.assign(1, 0);
    state_[s] = 1;
    while (!stack_.empty()) {
      const auto [v, after] = next(stack_.back(), edge_at_.back());
      if (v < 0) {
        state_[stack_.back()] = 2;
        stack_.pop_back();
        edge_at_.pop_back();
        continue;
      }
      edge_at_.back() = after;
      if (state_[v] == 2) continue;
      if (state_[v] == 0) {
        state_[v] = 1;
        stack_.push_back(v);
        edge_at_.push_back(0);
        continue;
      }
      // `v` is on the stack: the queues from it to the top wait on each other.
      DeadlockReport r;
      r.at = now;
      const auto from = std::find(stack_.begin(), stack_.end(), v);
      for (auto it = from; it != stack_.end(); ++it)
        r.cycle.push_back(port_name(*ports_[*it / kNumTcs]) + " prio" + std::to_string(*it % kNumTcs));
      deadlock_ = std::move(r);
      return true;
    }
  }
  return false;
}

}  // namespace rdmasim
