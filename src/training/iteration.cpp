#include "training/iteration.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

namespace rdmasim {
namespace {

enum Tid { kTidCompute = 0, kTidComm = 1, kTidDp = 2, kTidPp = 3 };

uint64_t recv_key(int stage, int dir, int mb) {
  return (static_cast<uint64_t>(stage) << 32) | (static_cast<uint64_t>(dir) << 24) |
         static_cast<uint64_t>(mb);
}

// A communicator's servers x GPUs shape from its (server-major) rank list.
CommShape shape_of(const GpuCluster& cl, const std::vector<int>& ranks) {
  std::map<int, int> per_server;
  for (int r : ranks) ++per_server[cl.server_of(r)];
  const int k = per_server.begin()->second;
  for (const auto& [s, c] : per_server)
    if (c != k)
      throw std::invalid_argument("a communicator spans servers unevenly; use a layout that divides them");
  return CommShape{static_cast<int>(per_server.size()), k};
}

}  // namespace

class TrainingIteration::Trainer final : public EventHandler, public CollectiveListener {
  // Nested, not in the anonymous namespace: a class with linkage holds them.
  // Communicators that run the same collective together (symmetric replicas),
  // as one FIFO stream: the next request starts when all finished the last.
  struct CommSet {
    std::vector<std::unique_ptr<Communicator>> comms;
    struct Req {
      PlanRequest plan;
      uint64_t tag;
    };
    std::deque<Req> queue;
    int running = 0;  // communicators still busy with the head request
    bool active = false;
    Time started;
    std::string cat;
    int pid = 0, tid = 0;
  };

  struct Step {
    enum Kind { kCompute, kColl, kWaitRecv, kSendAsync, kDpAsync } kind = kCompute;
    Time dur;
    int set = -1;
    PlanRequest req;
    uint64_t key = 0;  // receive key (kWaitRecv) / receive key at the peer (kSendAsync)
    std::string name;
  };

 public:
  Trainer(GpuCluster& cl, const TrainingRunOptions& o) : o_(o), t_(o.train), par_(o.train.par), cl_(&cl) {
    validate_training(t_, cl.gpus_per_server());
    build_sets();
    build_schedules();
  }

  void start() {
    for (int p = 0; p < par_.pp; ++p) advance(p);
  }

  // finished() and summarize() below are its public face too.
  friend class TrainingIteration;

  void on_event(uint32_t kind, uint64_t arg) override {
    (void)kind;
    const int p = static_cast<int>(arg);
    stages_[p].busy = false;
    ++stages_[p].cursor;
    advance(p);
  }

  void on_collective_done(uint32_t set_id, uint64_t tag, Time, Time) override {
    CommSet& s = sets_[set_id];
    if (--s.running > 0) return;
    const Time end = cl_->sim().now();
    const CommSet::Req head = s.queue.front();
    s.queue.pop_front();
    record(s, head, s.started, end);
    s.active = false;
    start_next(set_id);
    // Whoever waits on this collective.
    if (head.tag >> 63) {
      // An asynchronous send: the peer's receive becomes ready.
      const uint64_t key = head.tag & ~(uint64_t{1} << 63);
      arrived_.push_back(key);
      const int peer = static_cast<int>(key >> 32);
      advance(peer);
    } else if (head.tag >> 62) {
      --dp_outstanding_;
    } else {
      const int p = static_cast<int>(head.tag);
      stages_[p].busy = false;
      ++stages_[p].cursor;
      advance(p);
    }
  }

 private:
  struct Stage {
    std::vector<Step> steps;
    size_t cursor = 0;
    bool busy = false;
    Time done = Time::never();
  };

  int rank(int pp_i, int dp_i, int tp_i) const { return (pp_i * par_.dp + dp_i) * par_.tp + tp_i; }

  int new_set(const std::string& cat, int pid, int tid) {
    sets_.emplace_back();
    sets_.back().cat = cat;
    sets_.back().pid = pid;
    sets_.back().tid = tid;
    return static_cast<int>(sets_.size()) - 1;
  }
  void add_comm(int set, const std::vector<int>& ranks) {
    auto c = std::make_unique<Communicator>(*cl_, ranks, shape_of(*cl_, ranks), o_.comm,
                                            static_cast<uint32_t>(set));
    sets_[set].comms.push_back(std::move(c));
  }

  void build_sets() {
    tp_set_.assign(par_.pp, -1);
    dp_set_.assign(par_.pp, -1);
    ep_set_.assign(par_.pp, -1);
    pp_fwd_set_.assign(par_.pp, -1);
    pp_bwd_set_.assign(par_.pp, -1);
    for (int p = 0; p < par_.pp; ++p) {
      if (par_.tp > 1) {
        tp_set_[p] = new_set("tp", p, kTidComm);
        for (int d = 0; d < par_.dp; ++d) {
          std::vector<int> r;
          r.reserve(par_.tp);
          for (int t = 0; t < par_.tp; ++t) r.push_back(rank(p, d, t));
          add_comm(tp_set_[p], r);
        }
      }
      if (par_.dp > 1) {
        dp_set_[p] = new_set("dp", p, kTidDp);
        for (int t = 0; t < par_.tp; ++t) {
          std::vector<int> r;
          r.reserve(par_.dp);
          for (int d = 0; d < par_.dp; ++d) r.push_back(rank(p, d, t));
          add_comm(dp_set_[p], r);
        }
      }
      if (par_.ep > 1 && t_.model.moe_every > 0) {
        ep_set_[p] = new_set("moe", p, kTidComm);
        for (int t = 0; t < par_.tp; ++t)
          for (int g = 0; g < par_.dp / par_.ep; ++g) {
            std::vector<int> r;
            r.reserve(par_.ep);
            for (int e = 0; e < par_.ep; ++e) r.push_back(rank(p, g * par_.ep + e, t));
            add_comm(ep_set_[p], r);
          }
      }
      if (p + 1 < par_.pp) {
        pp_fwd_set_[p] = new_set("pp", p, kTidPp);
        pp_bwd_set_[p] = new_set("pp", p + 1, kTidPp);
        for (int d = 0; d < par_.dp; ++d)
          for (int t = 0; t < par_.tp; ++t) {
            add_comm(pp_fwd_set_[p], {rank(p, d, t), rank(p + 1, d, t)});
            add_comm(pp_bwd_set_[p], {rank(p, d, t), rank(p + 1, d, t)});
          }
      }
    }
  }

  PlanRequest request(CollType type, int64_t bytes, const Communicator& c, int root = 0) const {
    PlanRequest r;
    r.type = type;
    r.algo = default_algo(type);
    r.tune_algo = r.tune_proto = true;  // NCCL's tuner, as in a training job
    if (o_.nccl_proto != 0 && default_algo(type) == Algo::kRing) set_nccl_proto(r, o_.nccl_proto);
    r.bytes = bytes;
    r.root = root;
    r.channels = o_.channels > 0 ? o_.channels : std::min(8, std::max(2, c.shape().gpus));
    r.size_channels = o_.channels == 0;
    return r;
  }

  void build_schedules() {
    stages_.resize(par_.pp);
    const int m = t_.model.micro_batches;
    const int L = t_.model.layers / par_.pp;
    const Time fwd = layer_forward_time(t_), bwd = layer_backward_time(t_);
    const int64_t act = activation_bytes(t_.model);
    const int64_t grad_layer = gradient_bytes_per_gpu(t_) / L;
    for (int p = 0; p < par_.pp; ++p) {
      auto& st = stages_[p].steps;
      auto coll = [&](int set, CollType type, int64_t bytes, const std::string& name, int root = 0) {
        if (set < 0) return;
        Step s;
        s.kind = Step::kColl;
        s.set = set;
        s.req = request(type, bytes, *sets_[set].comms[0], root);
        s.name = name;
        st.push_back(s);
      };
      auto layer_comm = [&](int l, const char* dir) {
        coll(tp_set_[p], CollType::kAllReduce, act, fmt::format("TP AllReduce {} L{}", dir, l));
        coll(tp_set_[p], CollType::kAllReduce, act, fmt::format("TP AllReduce {} L{}", dir, l));
        const int global_l = p * L + l;
        if (t_.model.moe_every > 0 && (global_l + 1) % t_.model.moe_every == 0) {
          const int64_t a2a = act * t_.model.top_k;
          coll(ep_set_[p], CollType::kAllToAll, a2a, fmt::format("MoE AllToAll {} L{}", dir, l));
          coll(ep_set_[p], CollType::kAllToAll, a2a, fmt::format("MoE AllToAll {} L{}", dir, l));
        }
      };
      auto forward = [&](int i) {
        if (p > 0) st.push_back(Step{Step::kWaitRecv, {}, -1, {}, recv_key(p, 0, i), "recv fwd"});
        for (int l = 0; l < L; ++l) {
          st.push_back(Step{Step::kCompute, fwd, -1, {}, 0, fmt::format("F{} L{}", i, l)});
          layer_comm(l, "fwd");
        }
        if (p + 1 < par_.pp) {
          Step s{
              Step::kSendAsync, {}, pp_fwd_set_[p], {}, recv_key(p + 1, 0, i), fmt::format("PP send F{}", i)};
          s.req = request(CollType::kBroadcast, act, *sets_[pp_fwd_set_[p]].comms[0], 0);
          st.push_back(s);
        }
      };
      auto backward = [&](int i) {
        if (p + 1 < par_.pp) st.push_back(Step{Step::kWaitRecv, {}, -1, {}, recv_key(p, 1, i), "recv bwd"});
        int64_t bucket = 0;
        for (int l = L - 1; l >= 0; --l) {
          st.push_back(Step{Step::kCompute, bwd, -1, {}, 0, fmt::format("B{} L{}", i, l)});
          layer_comm(l, "bwd");
          if (i == m - 1 && dp_set_[p] >= 0) {
            bucket += grad_layer;
            if (bucket >= t_.bucket_bytes || l == 0) {
              Step s{Step::kDpAsync, {}, dp_set_[p], {}, 0, "DP AllReduce bucket"};
              s.req = request(CollType::kAllReduce, bucket, *sets_[dp_set_[p]].comms[0]);
              if (o_.dp_algo) {
                s.req.algo = *o_.dp_algo;
                s.req.tune_algo = false;
              }
              st.push_back(s);
              bucket = 0;
            }
          }
        }
        if (p > 0) {
          Step s{Step::kSendAsync,      {},
                 pp_bwd_set_[p - 1],    {},
                 recv_key(p - 1, 1, i), fmt::format("PP send B{}", i)};
          s.req = request(CollType::kBroadcast, act, *sets_[pp_bwd_set_[p - 1]].comms[0], 1);
          st.push_back(s);
        }
      };
      // 1F1B (PipeDream-Flush / Megatron): warm-up forwards, steady one
      // forward one backward, cool-down backwards.
      const int warm = std::min(par_.pp - p - 1, m);
      for (int i = 0; i < warm; ++i) forward(i);
      for (int i = 0; i < m - warm; ++i) {
        forward(warm + i);
        backward(i);
      }
      for (int i = m - warm; i < m; ++i) backward(i);
    }
  }

  void enqueue(int set_id, const PlanRequest& req, uint64_t tag) {
    CommSet& s = sets_[set_id];
    s.queue.push_back(CommSet::Req{req, tag});
    if (!s.active) start_next_now(set_id);
  }
  void start_next(int set_id) {
    if (!sets_[set_id].active && !sets_[set_id].queue.empty()) start_next_now(set_id);
  }
  void start_next_now(int set_id) {
    CommSet& s = sets_[set_id];
    s.active = true;
    s.running = static_cast<int>(s.comms.size());
    s.started = cl_->sim().now();
    const PlanRequest req = s.queue.front().plan;
    for (auto& c : s.comms) c->start(req, s.queue.front().tag, this);
  }

  void record(const CommSet& s, const CommSet::Req& r, Time start, Time end) {
    TraceEvent e;
    e.cat = s.cat;
    e.pid = s.pid;
    e.tid = s.tid;
    e.start = start;
    e.dur = end - start;
    e.bytes = r.plan.bytes;
    e.name = std::string(coll_name(r.plan.type)) + " " + std::to_string(r.plan.bytes) + " B";
    trace_.push_back(e);
    CollStats& cs = s.cat == "tp" ? tp_ : s.cat == "moe" ? moe_ : s.cat == "dp" ? dp_ : pp_;
    const double sec = e.dur.sec();
    const double bw = sec > 0 ? r.plan.bytes / sec / 1e9 * busbw_factor(r.plan.type, s.comms[0]->size()) : 0;
    cs.busbw = (cs.busbw * cs.count + bw) / (cs.count + 1);
    ++cs.count;
    cs.total += e.dur;
  }

  void advance(int p) {
    Stage& s = stages_[p];
    Simulation& sim = cl_->sim();
    while (!s.busy && s.cursor < s.steps.size()) {
      Step& step = s.steps[s.cursor];
      switch (step.kind) {
        case Step::kCompute: {
          s.busy = true;
          trace_.push_back(TraceEvent{step.name, "compute", p, kTidCompute, sim.now(), step.dur, 0});
          compute_[p] += step.dur;
          sim.schedule_in(step.dur, this, 0, static_cast<uint64_t>(p));
          return;
        }
        case Step::kColl:
          s.busy = true;
          enqueue(step.set, step.req, static_cast<uint64_t>(p));
          return;
        case Step::kWaitRecv: {
          auto it = std::find(arrived_.begin(), arrived_.end(), step.key);
          if (it == arrived_.end()) return;  // resumed by the send's completion
          arrived_.erase(it);
          ++s.cursor;
          break;
        }
        case Step::kSendAsync:
          enqueue(step.set, step.req, step.key | (uint64_t{1} << 63));
          ++s.cursor;
          break;
        case Step::kDpAsync:
          ++dp_outstanding_;
          enqueue(step.set, step.req, uint64_t{1} << 62);
          ++s.cursor;
          break;
      }
    }
    if (s.cursor == s.steps.size() && !s.busy && s.done == Time::never()) s.done = sim.now();
  }

  // Pipeline steps started over all steps: the compute and communication
  // each stage walks through in order.
  double done_fraction() const {
    size_t started = 0, all = 0;
    for (const auto& s : stages_) {
      started += s.cursor;
      all += s.steps.size();
    }
    return finished() ? 1.0 : all == 0 ? 0.0 : static_cast<double>(started) / static_cast<double>(all);
  }

  bool finished() const {
    if (stages_.empty()) return false;  // not started
    if (dp_outstanding_ > 0) return false;
    for (const auto& s : stages_)
      if (s.done == Time::never()) return false;
    return true;
  }

  // Length of the union of intervals minus their overlap with `cover`.
  static Time uncovered(std::vector<std::pair<Time, Time>> iv, std::vector<std::pair<Time, Time>> cover) {
    auto merge = [](std::vector<std::pair<Time, Time>>& v) {
      std::sort(v.begin(), v.end());
      std::vector<std::pair<Time, Time>> out;
      for (const auto& x : v)
        if (!out.empty() && x.first <= out.back().second)
          out.back().second = std::max(out.back().second, x.second);
        else
          out.push_back(x);
      v = std::move(out);
    };
    merge(iv);
    merge(cover);
    Time total;
    size_t j = 0;
    for (const auto& [a, b] : iv) {
      Time len = b - a;
      while (j < cover.size() && cover[j].second <= a) ++j;
      for (size_t k = j; k < cover.size() && cover[k].first < b; ++k)
        len -= std::min(b, cover[k].second) - std::max(a, cover[k].first);
      total += len;
    }
    return total;
  }

  TrainingResult summarize() {
    TrainingResult r;
    Time end;
    for (const auto& e : trace_) end = std::max(end, e.start + e.dur);
    for (const auto& s : stages_) end = std::max(end, s.done);
    r.iteration = end;
    r.compute_per_stage = compute_[0];
    const int L = t_.model.layers / par_.pp;
    r.analytic_compute = Time::from_ps(int64_t{t_.model.micro_batches} * L *
                                       (layer_forward_time(t_).ps() + layer_backward_time(t_).ps()));
    for (int p = 0; p < par_.pp; ++p) {
      std::vector<std::pair<Time, Time>> comm, comp;
      for (const auto& e : trace_) {
        if (e.pid != p) continue;
        (e.cat == "compute" ? comp : comm).emplace_back(e.start, e.start + e.dur);
      }
      const Time exposed = uncovered(comm, comp);
      r.exposed_comm = std::max(r.exposed_comm, exposed);
      if (p == 0) r.comm_time = uncovered(comm, {});
    }
    r.exposed_share = r.iteration.ps() > 0 ? r.exposed_comm.sec() / r.iteration.sec() : 0;
    r.tp = tp_;
    r.moe = moe_;
    r.dp = dp_;
    r.pp = pp_;
    r.trace = std::move(trace_);
    return r;
  }

  const TrainingRunOptions& o_;
  const TrainingConfig& t_;
  const ParallelConfig& par_;
  GpuCluster* cl_;
  std::deque<CommSet> sets_;  // stable addresses; CommSet is move-only
  std::vector<int> tp_set_, dp_set_, ep_set_, pp_fwd_set_, pp_bwd_set_;
  std::vector<Stage> stages_;
  std::vector<uint64_t> arrived_;
  std::map<int, Time> compute_;
  int dp_outstanding_ = 0;
  std::vector<TraceEvent> trace_;
  CollStats tp_, moe_, dp_, pp_;
};

namespace {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

TrainingIteration::TrainingIteration(GpuCluster& cl, const TrainingRunOptions& o)
    : trainer_(std::make_unique<Trainer>(cl, o)) {}
TrainingIteration::~TrainingIteration() = default;
void TrainingIteration::start() { trainer_->start(); }
bool TrainingIteration::finished() const { return trainer_->finished(); }
double TrainingIteration::done_fraction() const { return trainer_->done_fraction(); }
TrainingResult TrainingIteration::summarize() { return trainer_->summarize(); }

std::string chrome_trace_json(const TrainingResult& r, const TrainingRunOptions& o) {
  std::string s = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  static const char* kThreads[] = {"compute", "TP/MoE comm", "DP AllReduce", "PP send"};
  bool first = true;
  for (int p = 0; p < o.train.par.pp; ++p) {
    s += fmt::format(
        "{}{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":\"stage "
        "{}\"}}}}",
        first ? "" : ",\n", p, p);
    first = false;
    for (int t = 0; t < 4; ++t)
      s += fmt::format(
          ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}",
          p, t, kThreads[t]);
  }
  for (const auto& e : r.trace)
    s += fmt::format(
        ",\n{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{:.6f},\"dur\":{:.6f},"
        "\"args\":{{\"bytes\":{}}}}}",
        json_escape(e.name), e.cat, e.pid, e.tid, e.start.us(), e.dur.us(), e.bytes);
  s += "\n]}\n";
  return s;
}

std::string format_training(const TrainingResult& r, const TrainingRunOptions& o) {
  const auto& m = o.train.model;
  const auto& p = o.train.par;
  std::string s;
  s += fmt::format(
      "model {}: {:.3g} params, {} layers, hidden {}, seq {}, micro-batch {} x {} micro-batches\n", m.name,
      m.params, m.layers, m.hidden, m.seq_len, m.micro_batch, m.micro_batches);
  s += fmt::format("layout: tp {} pp {} dp {} ep {} = {} GPUs; GPU {} TFLOP/s x MFU {}; fabric {}\n", p.tp,
                   p.pp, p.dp, p.ep, p.gpus(), o.train.gpu.peak_tflops, o.train.gpu.mfu, o.fabric.name);
  s += fmt::format("iteration time          : {:.3f} ms\n", r.iteration.us() / 1e3);
  s += fmt::format("compute per stage       : {:.3f} ms (analytic FLOPs/(peak x MFU): {:.3f} ms)\n",
                   r.compute_per_stage.us() / 1e3, r.analytic_compute.us() / 1e3);
  s += fmt::format("communication (stage 0) : {:.3f} ms\n", r.comm_time.us() / 1e3);
  s += fmt::format("exposed communication   : {:.3f} ms ({:.1f}% of the iteration)\n",
                   r.exposed_comm.us() / 1e3, 100 * r.exposed_share);
  // With stages, the three lines above do not add up to the iteration: a
  // stage also idles while the pipeline fills and drains (1F1B's bubble,
  // (pp - 1) of pp + m - 1 micro-batch slots) and waits for its neighbours.
  if (p.pp > 1) {
    const Time rest = r.iteration - r.compute_per_stage - r.exposed_comm;
    s += fmt::format(
        "pipeline bubble, waits  : {:.3f} ms (the rest of the iteration; 1F1B idles (pp-1)/(pp+m-1) "
        "= {}/{} of its slots)\n",
        rest.us() / 1e3, p.pp - 1, p.pp + o.train.model.micro_batches - 1);
  }
  auto line = [&](const char* what, const CollStats& c) {
    if (c.count == 0) return;
    s += fmt::format("  {:<22} {:>6} collectives  {:>10.3f} ms  mean busbw {:>8.2f} GB/s\n", what, c.count,
                     c.total.us() / 1e3, c.busbw);
  };
  line("TP AllReduce", r.tp);
  line("MoE AllToAll", r.moe);
  line("DP AllReduce (buckets)", r.dp);
  line("PP send/recv", r.pp);
  if (r.background_flows > 0)
    s += fmt::format(
        "background: {} flows started at load {}, {} completed during the iteration, mean FCT {:.1f} us\n",
        r.background_flows, o.background.load, r.background_completed, r.background_mean_fct.us());
  return s;
}

}  // namespace rdmasim
