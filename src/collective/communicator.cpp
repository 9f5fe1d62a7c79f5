#include "collective/communicator.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rdmasim {

Communicator::Communicator(GpuCluster& cluster, std::vector<int> ranks, CommShape shape, CommConfig cfg,
                           uint32_t id)
    : cl_(cluster), ranks_(std::move(ranks)), shape_(shape), cfg_(cfg), id_(id) {
  if (static_cast<int>(ranks_.size()) != shape_.ranks())
    throw std::invalid_argument("communicator rank list does not match its servers x gpus shape");
  if (cfg_.qps_per_conn < 1 || cfg_.qps_per_conn > 64)
    throw std::invalid_argument("qps_per_conn must be between 1 and 64");
  if (cfg_.slots < 1) throw std::invalid_argument("slots must be >= 1");
}

Communicator::Communicator(GpuCluster& cluster, CommConfig cfg)
    : Communicator(
          cluster,
          [&] {
            std::vector<int> r(cluster.ranks());
            std::iota(r.begin(), r.end(), 0);
            return r;
          }(),
          CommShape{cluster.config().servers, cluster.config().gpus_per_server}, cfg, 0) {}

Communicator::~Communicator() {
  if (sharp_group_) cl_.sharp().release(*sharp_group_);
}

QpId Communicator::conn_for(int channel, int src, int dst, int stripe) {
  const uint64_t key = (static_cast<uint64_t>(channel) << 48) | (static_cast<uint64_t>(stripe) << 40) |
                       (static_cast<uint64_t>(src) << 20) | static_cast<uint64_t>(dst);
  auto it = conns_.find(key);
  if (it != conns_.end()) return it->second;
  const QpId id = cl_.fabric().verbs().create_qp(src, dst, this).id();
  conns_.emplace(key, id);
  return id;
}

void Communicator::start(const PlanRequest& req, uint64_t tag, CollectiveListener* listener) {
  if (running_) throw std::logic_error("communicator already runs a collective");
  PlanRequest r = req;
  sharp_fallback_ = false;
  if (r.algo == Algo::kSharp) {
    // The front ends refuse this before a run; never fall back for it.
    if (const std::string why = sharp_unavailable(cl_.fabric().config(), "set fabric.sharp.enabled: true");
        !why.empty())
      throw std::invalid_argument("algo sharp: " + why);
    // NCCL CollNet: one aggregation group per communicator, set up on first
    // use; a full switch makes it run the host algorithm (capacity, not a
    // missing feature).
    if (!sharp_tried_) {
      sharp_tried_ = true;
      sharp_group_ = cl_.sharp().allocate(ranks_);
    }
    if (!sharp_group_ || r.type != CollType::kAllReduce) {
      sharp_fallback_ = true;
      r.algo = default_algo(r.type);
    }
  }
  last_algo_ = r.algo;
  plan_ = build_plan(r, shape_);
  const size_t nx = plan_.xfers.size();
  deps_left_.assign(nx, 0);
  parts_left_.assign(nx, 0);
  first_conn_.assign(nx, 0);
  fabric_bytes_ = nvlink_bytes_ = 0;
  link_of_.assign(nx, 0);
  links_.clear();
  std::unordered_map<uint64_t, uint32_t> link_ids;
  for (size_t i = 0; i < nx; ++i) {
    Transfer& t = plan_.xfers[i];
    t.src = ranks_[t.src];  // to cluster ranks
    t.dst = ranks_[t.dst];
    deps_left_[i] = t.deps;
    const uint64_t lk = (static_cast<uint64_t>(t.sharp) << 62) | (static_cast<uint64_t>(t.channel) << 40) |
                        (static_cast<uint64_t>(t.src) << 20) | static_cast<uint64_t>(t.dst);
    const auto [it, fresh] = link_ids.emplace(lk, static_cast<uint32_t>(links_.size()));
    if (fresh) links_.emplace_back();
    link_of_[i] = it->second;
    if (t.sharp) {
      fabric_bytes_ += t.bytes * shape_.servers;  // streamed into the switches by every NIC of the rail
      continue;
    }
    if (!cl_.same_server(t.src, t.dst)) {
      const int parts = static_cast<int>(std::clamp<int64_t>(t.bytes, 1, cfg_.qps_per_conn));
      parts_left_[i] = static_cast<uint16_t>(parts);
      // QPs of one (channel, peer) get consecutive ids only if created
      // together; keep the first and look the others up at post time.
      first_conn_[i] = conn_for(t.channel, t.src, t.dst, 0);
      for (int s = 1; s < parts; ++s) conn_for(t.channel, t.src, t.dst, s);
      fabric_bytes_ += t.bytes;
    } else {
      nvlink_bytes_ += t.bytes;
    }
  }
  running_ = true;
  tag_ = tag;
  listener_ = listener;
  delivered_ = 0;
  start_ = cl_.sim().now();
  end_ = start_;
  // Even an empty plan completes through the event queue, never inside
  // start(): listeners may start the next collective from the callback.
  cl_.sim().schedule_in(cfg_.launch_latency, this, kLaunched);
}

void Communicator::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kLaunched:
      if (plan_.xfers.empty()) finish();
      for (uint32_t i = 0; i < plan_.xfers.size(); ++i)
        if (deps_left_[i] == 0) cl_.sim().schedule_in(cfg_.step_latency, this, kReady, i);
      break;
    case kReady:
      launch_ready(static_cast<uint32_t>(arg));
      break;
    case kNvlinkArrive:
      delivered(static_cast<uint32_t>(arg));
      break;
    default:
      break;
  }
}

void Communicator::launch_ready(uint32_t x) {
  PeerLink& l = links_[link_of_[x]];
  if (l.in_flight >= cfg_.slots) {
    l.waiting.push_back(x);
    return;
  }
  ++l.in_flight;
  transmit(x);
}

void Communicator::transmit(uint32_t x) {
  const Transfer& t = plan_.xfers[x];
  Simulation& sim = cl_.sim();
  if (t.sharp) {
    // Every server's GPU on this rail streams its chunk into the tree.
    sharp_hosts_.clear();
    const int local = cl_.local_of(t.src);
    Time begin = sim.now();
    for (int s = 0; s < shape_.servers; ++s) {
      const int h = ranks_[shape_.rank(s, 0)] - cl_.local_of(ranks_[shape_.rank(s, 0)]) + local;
      sharp_hosts_.push_back(h);
      begin = std::max(begin, cl_.sharp_free(h));
    }
    SharpManager& sm = cl_.sharp();
    Time stream;
    for (int h : sharp_hosts_) stream = std::max(stream, sm.streaming_time(h, t.bytes));
    for (int h : sharp_hosts_) cl_.sharp_free(h) = begin + stream;
    sim.schedule(begin + stream + sm.path_latency(*sharp_group_, sharp_hosts_) * 2, this, kNvlinkArrive, x);
    return;
  }
  if (cl_.same_server(t.src, t.dst)) {
    const NvlinkConfig& nv = cl_.config().nvlink;
    Time& free_at = cl_.nvlink_free(t.src);
    const Time begin = std::max(free_at, sim.now());
    free_at = begin + nv.rate.tx_time(Bytes(t.bytes));
    sim.schedule(free_at + nv.latency, this, kNvlinkArrive, x);
    return;
  }
  const Verbs verbs = cl_.fabric().verbs();
  const int parts = parts_left_[x];
  for (int s = 0; s < parts; ++s) {
    const QpId conn = s == 0 ? first_conn_[x] : conn_for(t.channel, t.src, t.dst, s);
    verbs.qp(conn).post_write(piece(t.bytes, parts, s), x);
  }
}

void Communicator::on_receive(const Completion& c) {
  if (!running_) return;
  const auto x = static_cast<uint32_t>(c.wr_id);
  if (--parts_left_[x] == 0) delivered(x);
}

void Communicator::delivered(uint32_t x) {
  const Transfer& t = plan_.xfers[x];
  PeerLink& l = links_[link_of_[x]];
  if (!l.waiting.empty()) {
    const uint32_t next = l.waiting.front();
    l.waiting.pop_front();
    transmit(next);  // the freed slot goes to the next waiting chunk
  } else {
    --l.in_flight;
  }
  for (uint32_t i = t.succ_begin; i < t.succ_end; ++i) {
    const uint32_t s = plan_.succ[i];
    if (--deps_left_[s] == 0) cl_.sim().schedule_in(cfg_.step_latency, this, kReady, s);
  }
  if (++delivered_ == plan_.xfers.size()) finish();
}

void Communicator::finish() {
  running_ = false;
  end_ = cl_.sim().now();
  if (listener_) listener_->on_collective_done(id_, tag_, start_, end_);
}

Time Communicator::run_one(const PlanRequest& req) {
  start(req, 0, nullptr);
  Simulation& sim = cl_.sim();
  // Run in slices so congestion-control timers that keep ticking after the
  // data is delivered do not hold the call.
  while (running_) {
    if (sim.pending_events() == 0) throw std::logic_error("collective did not complete (simulation drained)");
    sim.run(sim.now() + Time::from_us(20));
  }
  return end_ - start_;
}

}  // namespace rdmasim
