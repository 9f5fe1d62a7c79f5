#include "collective/communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "sharp/sharp_data_path.h"

namespace rdmasim {

Communicator::Communicator(GpuCluster& cluster, std::vector<int> ranks, CommShape shape, CommConfig cfg,
                           uint32_t id)
    : cl_(cluster), ranks_(std::move(ranks)), shape_(shape), cfg_(cfg), id_(id) {
  if (static_cast<int>(ranks_.size()) != shape_.ranks())
    throw std::invalid_argument("communicator rank list does not match its servers x gpus shape");
  if (cfg_.qps_per_conn < 1 || cfg_.qps_per_conn > 64)
    throw std::invalid_argument("qps_per_conn must be between 1 and 64");
  if (cfg_.slots < 1) throw std::invalid_argument("slots must be >= 1");
  if (cfg_.calls < 1 || cfg_.calls > 1000) throw std::invalid_argument("calls must be between 1 and 1000");
  for (int r = 0; r < shape_.ranks(); ++r) {
    if (ranks_[r] < 0) throw std::invalid_argument("communicator ranks must be >= 0");
    const auto at = static_cast<size_t>(ranks_[r]);
    if (at >= server_of_.size()) server_of_.resize(at + 1, -1);
    server_of_[at] = r / shape_.gpus;
  }
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

int64_t tree_simple_chunk(const PlanRequest& r, const CommShape& shape) {
  int log2_nodes = 0;
  while ((1 << log2_nodes) < shape.servers) ++log2_nodes;
  const int64_t depth = shape.gpus - 1 + log2_nodes + 1;
  const int64_t per = std::max<int64_t>(1, r.bytes / std::max(1, r.channels));
  int64_t chunk = proto_step_bytes(Proto::kSimple);
  while (per / chunk < depth * 8 && chunk > 131072) chunk /= 2;
  while (per / chunk < depth * 4 && chunk > 65536) chunk /= 2;
  while (per / chunk < depth && chunk > 32768) chunk /= 2;
  return chunk;
}

StepCosts step_costs(const CommConfig& cfg, Algo a, Proto p, const CommShape& shape, Time nvlink_latency) {
  auto us = [](double v) { return Time::from_ps(static_cast<int64_t>(std::llround(v * 1e6))); };
  StepCosts c;
  c.launch = cfg.launch_latency != Time::never() ? cfg.launch_latency : us(nccl_base_latency_us(a, p));
  double nvl = nccl_hop_latency_us(a, p, Hop::kNvlink, cfg.nccl_minor);
  const bool nvls = a == Algo::kNvls || a == Algo::kNvlsTree;
  if (nvls) nvl /= 2;  // NCCL's one NVLink latency covers both NVLS phases (reduce, multicast)
  if (shape.servers > 1 && a != Algo::kTree && !nvls)
    nvl = std::max(nvl, nccl_ring_net_overhead_us(p, cfg.host_cpu));
  c.step =
      cfg.step_latency != Time::never() ? cfg.step_latency : std::max(Time::zero(), us(nvl) - nvlink_latency);
  c.net = cfg.net_latency != Time::never()
              ? cfg.net_latency
              : std::max(Time::zero(),
                         us(nccl_hop_latency_us(a, p, Hop::kNet, cfg.nccl_minor)) - kNcclNetTransit);
  return c;
}

Communicator::~Communicator() {
  if (sharp_group_) cl_.sharp().release(*sharp_group_);
}

QpId Communicator::conn_for(int channel, int src, int dst, int stripe) {
  const uint64_t key = (static_cast<uint64_t>(channel) << 48) | (static_cast<uint64_t>(stripe) << 40) |
                       (static_cast<uint64_t>(src) << 20) | static_cast<uint64_t>(dst);
  auto it = conns_.find(key);
  if (it != conns_.end()) return it->second;
  const QpId id = cl_.net().connect(src, dst, this);
  conns_.emplace(key, id);
  return id;
}

int Communicator::qps_per_nic_max() const {
  std::unordered_map<int, int> per_nic;
  for (const auto& [key, qp] : conns_) {
    const auto [src, dst] = cl_.net().endpoints(qp);
    ++per_nic[src];
    ++per_nic[dst];
  }
  int most = 0;
  for (const auto& [nic, n] : per_nic) most = std::max(most, n);
  return most;
}

bool Communicator::hold_sharp_group(const char* algo) {
  // The front ends refuse a fabric without SHARP before a run; never fall
  // back for it.
  if (const std::string why = sharp_unavailable(cl_.net().fabric_config(), "set fabric.sharp.enabled: true");
      !why.empty())
    throw std::invalid_argument(std::string(algo) + ": " + why);
  // NCCL CollNet: one aggregation group per communicator, set up on first
  // use; a full switch makes it run a host algorithm (capacity, not a
  // missing feature).
  if (!sharp_tried_) {
    sharp_tried_ = true;
    sharp_group_ = cl_.sharp().allocate(ranks_);
  }
  return sharp_group_.has_value();
}

void Communicator::start(const PlanRequest& req, uint64_t tag, CollectiveListener* listener) {
  if (running_) throw std::logic_error("communicator already runs a collective");
  PlanRequest r = req;
  sharp_fallback_ = false;
  if (r.algo == Algo::kSharp) {
    if (!hold_sharp_group("algo sharp") || r.type != CollType::kAllReduce) {
      sharp_fallback_ = true;
      r.algo = default_algo(r.type);
    }
  }
  if (r.algo == Algo::kNvls || r.algo == Algo::kNvlsTree) {
    // The front ends refuse this before a run.
    if (const std::string why = nvls_unavailable(r.algo, tuner_system(), r.type); !why.empty())
      throw std::invalid_argument("algo " + std::string(algo_name(r.algo)) + ": " + why);
  }
  if (r.algo == Algo::kNvls && shape_.servers > 1) {
    // NVLS across servers is NVLS with CollNet: the heads of a rail reduce
    // through the switches' SHARP tree. Without a group NCCL has no CollNet
    // and runs NVLSTree instead.
    if (!hold_sharp_group("algo nvls across servers (with IB SHARP)")) {
      sharp_fallback_ = true;
      r.algo = Algo::kNvlsTree;
    }
  }
  if (r.tune_algo || r.tune_proto) {
    const TunerChoice c = nccl_tune(r, tuner_system());
    r.algo = c.algo;
    r.proto = c.proto;
  }
  // CollNet (SHARP) runs Simple only (NCCL's tuner disables LL/LL128 for it).
  if (r.algo == Algo::kSharp || r.algo == Algo::kNvls || r.algo == Algo::kNvlsTree) r.proto = Proto::kSimple;
  if (r.chunk == 0 && r.algo == Algo::kTree && r.proto == Proto::kSimple)
    r.chunk = tree_simple_chunk(r, shape_);
  last_algo_ = r.algo;
  last_proto_ = r.proto;
  predicted_us_ = 0;
  if (r.algo == Algo::kRing || r.algo == Algo::kTree || r.algo == Algo::kNvls || r.algo == Algo::kNvlsTree) {
    PlanRequest fixed = r;
    fixed.tune_algo = fixed.tune_proto = false;
    const auto est = nccl_estimates(fixed, tuner_system());
    if (!est.empty()) predicted_us_ = est.front().time_us;
  }
  // NCCL's tuner weighs the communicator's channels; the call then runs on
  // as many as NCCL gives its size.
  const int comm_channels = r.channels;
  if (r.size_channels) r.channels = nccl_call_channels(r, shape_.ranks(), cfg_.nccl_minor);
  last_channels_ = r.channels;
  costs_ = step_costs(cfg_, r.algo, r.proto, shape_, cl_.config().nvlink.latency);
  slots_ = static_cast<int>(std::min<int64_t>(
      1 << 20, cfg_.slots * std::max<int64_t>(1, proto_step_bytes(r.proto) / r.step_bytes())));
  cut_through_ = r.algo == Algo::kTree && r.proto == Proto::kLL;
  cap_Bps_ = nccl_channel_cap_GBps(r.algo, r.proto, tuner_system(), r.channels, r.type,
                                   cut_through_ ? comm_channels : 0, r.bytes) *
             1e9;
  // An NVLS AllGather is all multicasts: NCCL's rate paces them, as it paces
  // the reductions of the others.
  nvls_paced_st_ = r.type == CollType::kAllGather;
  plan_ = build_plan(r, shape_);
  calls_ = cfg_.calls;
  call_block_ = static_cast<uint32_t>(plan_.xfers.size()) + static_cast<uint32_t>(shape_.ranks());
  if (calls_ > 1) plan_ = repeat_calls(plan_, calls_, shape_.ranks());
  const size_t nx = plan_.xfers.size();
  dst_local_.assign(calls_ > 1 ? nx : 0, 0);
  calls_done_.assign(static_cast<size_t>(shape_.ranks()), 0);
  rank_end_.assign(static_cast<size_t>(shape_.ranks()), Time::zero());
  held_.assign(calls_ > 1 ? static_cast<size_t>(shape_.ranks()) : 0, {});
  deps_left_.assign(nx, 0);
  parts_left_.assign(nx, 0);
  first_conn_.assign(nx, 0);
  fabric_bytes_ = nvlink_bytes_ = 0;
  link_of_.assign(nx, 0);
  links_.clear();
  gpu_slot_.assign(nx, 0);
  lanes_ = r.proto == Proto::kSimple
               ? 1
               : static_cast<int>(proto_step_bytes(r.proto) / proto_grain_bytes(r.proto));
  gpu_free_.assign(static_cast<size_t>(shape_.ranks()) * plan_.channels * lanes_, Time::zero());
  stream_net_ = r.algo == Algo::kRing && r.proto == Proto::kSimple && cap_Bps_ > 0;
  gpu_end_.assign(stream_net_ ? nx : 0, Time::zero());
  gpu_begin_.assign(cut_through_ ? nx : 0, Time::zero());
  earliest_.assign(cut_through_ ? nx : 0, Time::zero());
  std::unordered_map<uint64_t, uint32_t> link_ids;
  for (size_t i = 0; i < nx; ++i) {
    Transfer& t = plan_.xfers[i];
    gpu_slot_[i] = static_cast<uint32_t>((t.src * plan_.channels + t.channel) * lanes_ + t.part % lanes_);
    if (calls_ > 1) dst_local_[i] = t.dst;
    t.src = ranks_[t.src];  // to cluster ranks
    t.dst = ranks_[t.dst];
    deps_left_[i] = t.deps;
    if (t.mark) continue;  // no data, no link
    const uint64_t lk = (static_cast<uint64_t>(t.sharp) << 62) | (static_cast<uint64_t>(t.nvls) << 60) |
                        (static_cast<uint64_t>(t.channel) << 40) | (static_cast<uint64_t>(t.src) << 20) |
                        static_cast<uint64_t>(t.dst);
    const auto [it, fresh] = link_ids.emplace(lk, static_cast<uint32_t>(links_.size()));
    if (fresh) links_.emplace_back();
    link_of_[i] = it->second;
    if (t.sharp) {
      fabric_bytes_ += t.bytes * shape_.servers;  // streamed into the switches by every NIC of the rail
      continue;
    }
    if (t.nvls != 0) {
      // ld_reduce: every GPU of the server gives its part; st: the owner stores it once.
      nvlink_bytes_ += t.nvls == kNvlsReduce ? t.bytes * shape_.gpus : t.bytes;
      continue;
    }
    if (!cl_.same_server(t.src, t.dst)) {
      const int parts = static_cast<int>(std::clamp<int64_t>(t.bytes, 1, cfg_.qps_per_conn));
      parts_left_[i] = static_cast<uint16_t>(parts);
      // QPs of one (channel, peer) get consecutive ids only if created
      // together; keep the first and look the others up at post time.
      first_conn_[i] = conn_for(t.channel, t.src, t.dst, 0);
      for (int s = 1; s < parts; ++s) conn_for(t.channel, t.src, t.dst, s);
      fabric_bytes_ += proto_wire_bytes(r.proto, t.bytes);
    } else {
      nvlink_bytes_ += proto_wire_bytes(r.proto, t.bytes);
    }
  }
  // Every call moves the same bytes: the figures are one call's.
  fabric_bytes_ /= calls_;
  nvlink_bytes_ /= calls_;
  running_ = true;
  tag_ = tag;
  listener_ = listener;
  delivered_ = 0;
  start_ = cl_.sim().now();
  end_ = start_;
  // Even an empty plan completes through the event queue, never inside
  // start(): listeners may start the next collective from the callback.
  cl_.sim().schedule_in(costs_.launch, this, kLaunched);
}

void Communicator::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kLaunched:
      if (plan_.xfers.empty()) finish();
      for (uint32_t i = 0; i < plan_.xfers.size(); ++i)
        if (deps_left_[i] == 0) cl_.sim().schedule_in(ready_delay(i), this, kReady, i);
      break;
    case kReady:
      launch_ready(static_cast<uint32_t>(arg));
      break;
    case kNvlinkArrive:
      delivered(static_cast<uint32_t>(arg));
      break;
    case kPost:
      post(static_cast<uint32_t>(arg));
      break;
    default:
      break;
  }
}

Time Communicator::ready_delay(uint32_t x) const {
  const Transfer& t = plan_.xfers[x];
  if (t.mark) return Time::zero();
  const bool net = t.sharp || !cl_.same_server(t.src, t.dst);
  return net ? costs_.net : costs_.step;
}

TunerSystem Communicator::tuner_system() const {
  TunerSystem s;
  s.shape = shape_;
  s.nic = cl_.config().nic_link.rate;
  s.nvlink = cl_.config().nvlink.rate;
  s.arch = cl_.config().arch;
  s.gpu_nic = cl_.config().gpu_nic_path;
  s.nccl_minor = cfg_.nccl_minor;
  s.cpu = cfg_.host_cpu;
  return s;
}

void Communicator::launch_ready(uint32_t x) {
  if (plan_.xfers[x].mark) {
    call_done(x);
    return;
  }
  PeerLink& l = links_[link_of_[x]];
  if (l.in_flight >= slots_) {
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
    for (int s = 0; s < shape_.servers; ++s)
      sharp_hosts_.push_back(ranks_[shape_.rank(s, 0)] - cl_.local_of(ranks_[shape_.rank(s, 0)]) + local);
    cl_.net().sharp()->start(*sharp_group_, sharp_hosts_, t.bytes, this, kNvlinkArrive, x);
    return;
  }
  if (t.nvls != 0) {
    // NVLink SHARP at the slice's owner. ld_reduce: the NVSwitch reads the
    // slice from every GPU of the server (each GPU's NVLink carries it) and
    // reduces at NCCL's NVLS rate (gpu_done); st: the owner's NVLink carries
    // it once and the switch writes it to every GPU.
    const NvlinkConfig& nv = cl_.config().nvlink;
    const Time wire = nv.rate.tx_time(Bytes(t.bytes));
    Time end = sim.now();
    const int server = server_of_[static_cast<size_t>(t.src)];  // the owner's, in this communicator
    const int n = t.nvls == kNvlsReduce ? shape_.gpus : 1;
    for (int g = 0; g < n; ++g) {
      Time& free_at = cl_.nvlink_free(t.nvls == kNvlsReduce ? ranks_[shape_.rank(server, g)] : t.src);
      free_at = std::max(free_at, sim.now()) + wire;
      end = std::max(end, free_at);
    }
    if (t.nvls == kNvlsReduce || nvls_paced_st_) end = std::max(end, gpu_done(x));
    sim.schedule(end + nv.latency, this, kNvlinkArrive, x);
    return;
  }
  if (cl_.same_server(t.src, t.dst)) {
    // The GPU writes straight into its peer's buffer: the NVLink port and
    // the channel's GPU work stream together, the slower one decides.
    const NvlinkConfig& nv = cl_.config().nvlink;
    Time& free_at = cl_.nvlink_free(t.src);
    const Time begin = std::max(free_at, sim.now());
    free_at = begin + nv.rate.tx_time(Bytes(proto_wire_bytes(last_proto_, t.bytes)));
    sim.schedule(std::max(free_at, gpu_done(x)) + nv.latency, this, kNvlinkArrive, x);
    return;
  }
  // A Simple ring's hop: the GPU's work and the sends stream together.
  if (stream_net_) {
    gpu_end_[x] = gpu_done(x);
    post(x);
    return;
  }
  // Across the fabric the GPU fills the slot, then the proxy posts it
  // (NVLSTree's network hop sends what its NVSwitch reduced: no GPU work).
  const bool nvls = last_algo_ == Algo::kNvls || last_algo_ == Algo::kNvlsTree;
  const Time filled = nvls ? sim.now() : gpu_done(x);
  if (filled > sim.now())
    sim.schedule(filled, this, kPost, x);
  else
    post(x);
}

Time Communicator::gpu_done(uint32_t x) {
  const Time now = cl_.sim().now();
  if (cap_Bps_ <= 0) return now;
  Time& free = gpu_free_[gpu_slot_[x]];
  const Transfer& t = plan_.xfers[x];
  const int sharing = std::min<int>(t.parts, lanes_);
  // A tree's down step to several peers is one GPU step, each send charged
  // its share (Transfer::share, set by the tree plan only), whatever the
  // protocol (NCCL's runTreeSplit makes one pass for Simple, LL and LL128
  // alike). Charged in full per send, an interior rank on 4 or more servers
  // (two tree children and its chain) paid for three passes where NCCL makes
  // one: 512 MiB tree/Simple on 4 x 8 H100 took 6633 us against NCCL's model
  // 3849, 64 MiB tree/LL128 on 8 x 8 H100 1058 against 725.
  const double step_share = 1.0 / (t.share + 1);
  const Time work = Time::from_sec_f(static_cast<double>(t.bytes) * sharing * step_share / cap_Bps_);
  if (cut_through_) {
    const Time begin = std::max(free, t.deps != 0 ? earliest_[x] : now);
    gpu_begin_[x] = begin;
    free = begin + work;
    return std::max(free, now);
  }
  free = std::max(free, now) + work;
  return free;
}

void Communicator::post(uint32_t x) {
  const Transfer& t = plan_.xfers[x];
  CollectiveNetwork& net = cl_.net();
  const int parts = parts_left_[x];
  for (int s = 0; s < parts; ++s) {
    const QpId conn = s == 0 ? first_conn_[x] : conn_for(t.channel, t.src, t.dst, s);
    net.post_write(conn, proto_wire_bytes(last_proto_, piece(t.bytes, parts, s)), x);
  }
}

void Communicator::on_receive(const Completion& c) {
  if (!running_) return;
  const auto x = static_cast<uint32_t>(c.wr_id);
  if (--parts_left_[x] != 0) return;
  if (stream_net_ && gpu_end_[x] > cl_.sim().now())
    cl_.sim().schedule(gpu_end_[x], this, kNvlinkArrive, x);
  else
    delivered(x);
}

void Communicator::release_slot(uint32_t link) {
  PeerLink& l = links_[link];
  if (!l.waiting.empty()) {
    const uint32_t next = l.waiting.front();
    l.waiting.pop_front();
    transmit(next);  // the freed slot goes to the next waiting chunk
  } else {
    --l.in_flight;
  }
}

void Communicator::call_done(uint32_t x) {
  const auto r = static_cast<size_t>(x % call_block_ - (call_block_ - static_cast<uint32_t>(shape_.ranks())));
  const int k = static_cast<int>(x / call_block_);
  calls_done_[r] = k + 1;
  rank_end_[r] = cl_.sim().now();
  if (!held_.empty()) {
    // The rank's next call reads what its peers sent ahead: their slots free up.
    auto& h = held_[r];
    const auto ready =
        std::stable_partition(h.begin(), h.end(), [&](const HeldSlot& s) { return s.call > k + 1; });
    std::vector<HeldSlot> freed(ready, h.end());
    h.erase(ready, h.end());
    for (const HeldSlot& s : freed) release_slot(s.link);
  }
  // The next call's kernel starts after NCCL's launch cost; the last ends the rank's loop.
  cl_.sim().schedule_in(k + 1 < calls_ ? costs_.launch : Time::zero(), this, kNvlinkArrive, x);
}

void Communicator::delivered(uint32_t x) {
  const Transfer& t = plan_.xfers[x];
  if (!t.mark) {
    const int call = calls_ > 1 ? static_cast<int>(x / call_block_) : 0;
    if (calls_ > 1 && call > calls_done_[static_cast<size_t>(dst_local_[x])])
      held_[static_cast<size_t>(dst_local_[x])].push_back({call, link_of_[x]});
    else
      release_slot(link_of_[x]);
  }
  for (uint32_t i = t.succ_begin; i < t.succ_end; ++i) {
    const uint32_t s = plan_.succ[i];
    if (cut_through_) {
      // Across the fabric (and after a rank's call mark) the chunk has landed whole.
      const bool whole = t.mark || !cl_.same_server(t.src, t.dst);
      const Time from = whole ? cl_.sim().now() : gpu_begin_[x];
      earliest_[s] = std::max(earliest_[s], from + ready_delay(s));
    }
    if (--deps_left_[s] == 0) cl_.sim().schedule_in(ready_delay(s), this, kReady, s);
  }
  if (++delivered_ == plan_.xfers.size()) finish();
}

void Communicator::finish() {
  running_ = false;
  end_ = cl_.sim().now();
  if (calls_ > 1) {
    int64_t sum_ps = 0;
    for (const Time e : rank_end_) sum_ps += (e - start_).ps();
    per_call_ = Time::from_ps(sum_ps / (static_cast<int64_t>(rank_end_.size()) * calls_));
  }
  if (listener_) listener_->on_collective_done(id_, tag_, start_, end_);
}

std::string Communicator::stop_reason() const {
  const SharpDataPath* dp = cl_.net().sharp();
  const SharpDataPath::Stop* s = dp != nullptr ? dp->stopped(this) : nullptr;
  if (s == nullptr) return {};
  return fmt::format(
      "its SHARP job was stopped at {:.1f} us: link {} of its aggregation tree went down (a job using a "
      "failed "
      "link is stopped, NVIDIA SHARP 3.2.0)",
      s->at.us(), s->link);
}

Time Communicator::run_one(const PlanRequest& req) {
  start(req, 0, nullptr);
  Simulation& sim = cl_.sim();
  // Run in slices so congestion-control timers that keep ticking after the
  // data is delivered do not hold the call.
  while (running_) {
    if (const std::string why = stop_reason(); !why.empty()) throw std::runtime_error("collective: " + why);
    if (sim.pending_events() == 0) throw std::logic_error("collective did not complete (simulation drained)");
    sim.run(sim.now() + Time::from_us(20));
  }
  return end_ - start_;
}

}  // namespace rdmasim
