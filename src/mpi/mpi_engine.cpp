#include "mpi/mpi_engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace rdmasim {
namespace {

// What a work request carries in its wr_id's top byte: which step of which
// protocol it is. The low bits are the message's slot.
// kEager is copied by the sender (bcopy), kEagerZ sent from the user's buffer.
enum Wire : uint64_t { kEager = 1, kEagerZ, kRts, kRead, kFin, kCts, kWrite };
constexpr int kWireShift = 56;
constexpr uint64_t kSlotMask = (uint64_t{1} << kWireShift) - 1;

uint64_t wr(Wire w, uint32_t slot) { return (static_cast<uint64_t>(w) << kWireShift) | slot; }

enum Event : uint32_t {
  kPostSend,  // arg: slot; the sender's core has done the send path
  kRecvDone,  // arg: rank; a receive completes
  kReply,     // arg: slot; the receiver matched an RTS: READ (get) or CTS (put)
  kPut,       // arg: slot; the sender got the CTS: WRITE, then FIN
  kWake,      // arg: rank; its compute step is over
  kPhase,     // the next phase begins
};

}  // namespace

MpiEngine::MpiEngine(Simulation& sim, const Verbs& verbs, std::vector<int> hosts, const MpiConfig& cfg)
    : sim_(sim), verbs_(verbs), cfg_(cfg) {
  ranks_.resize(hosts.size());
  for (size_t r = 0; r < hosts.size(); ++r) ranks_[r].host = hosts[r];
}

void MpiEngine::start(std::vector<MpiPhase> phases) {
  for (const MpiPhase& p : phases)
    if (p.body.size() != ranks_.size() || p.iterations < 1 || p.skip < 0)
      throw std::logic_error("MPI phase with " + std::to_string(p.body.size()) + " bodies for " +
                             std::to_string(ranks_.size()) + " ranks");
  phases_ = std::move(phases);
  started_ = true;
  timers_.assign(phases_.size(), std::vector<MpiRankTimer>(ranks_.size()));
  phase_ = 0;
  if (!phases_.empty()) begin_phase();
}

double MpiEngine::done_fraction() const {
  if (!started_) return 0.0;
  if (phases_.empty() || done()) return 1.0;
  const MpiPhase& p = phases_[phase_];
  const double within = static_cast<double>(ranks_[0].iteration) / (p.skip + p.iterations);
  return (static_cast<double>(phase_) + within) / static_cast<double>(phases_.size());
}

void MpiEngine::begin_phase() {
  ranks_left_ = static_cast<int>(ranks_.size());
  for (Rank& k : ranks_) {
    k.pc = 0;
    k.iteration = 0;
    k.pending = 0;
    k.waiting = false;
    k.finished = false;
    k.cpu = sim_.now();
  }
  for (int r = 0; r < ranks(); ++r) advance(r);
}

Time MpiEngine::cpu_after(int r, Time cost) {
  Rank& k = ranks_[r];
  k.cpu = std::max(k.cpu, sim_.now()) + cost;
  return k.cpu;
}

MpiEngine::Pair& MpiEngine::pair(int src, int dst) {
  Pair& p = pairs_[static_cast<uint64_t>(src) * ranks_.size() + static_cast<uint64_t>(dst)];
  if (!p.open) {
    p.qp = verbs_.create_qp(ranks_[src].host, ranks_[dst].host, this);
    p.open = true;
  }
  return p;
}

uint32_t MpiEngine::new_message(int src, int dst, int64_t bytes) {
  uint32_t m = 0;
  if (!free_msgs_.empty()) {
    m = free_msgs_.back();
    free_msgs_.pop_back();
  } else {
    m = static_cast<uint32_t>(msgs_.size());
    msgs_.emplace_back();
  }
  Message& msg = msgs_[m];
  msg.src = src;
  msg.dst = dst;
  msg.bytes = bytes;
  msg.eager = bytes <= cfg_.eager_threshold.count();
  msg.bcopy = msg.eager && bytes <= cfg_.bcopy_threshold.count();
  msg.refs = msg.bcopy || (!msg.eager && cfg_.rendezvous == Rendezvous::kGet) ? 1 : 2;
  return m;
}

void MpiEngine::release(uint32_t m) {
  if (--msgs_[m].refs == 0) free_msgs_.push_back(m);
}

void MpiEngine::advance(int r) {
  Rank& k = ranks_[r];
  const MpiPhase& ph = phases_[phase_];
  const MpiBody& body = ph.body[r];
  const int total = ph.skip + ph.iterations;
  for (;;) {
    if (k.pc == body.size()) {
      k.pc = 0;
      if (++k.iteration >= total || body.empty()) {
        finish_rank(r);
        return;
      }
    }
    const MpiStep& s = body[k.pc++];
    switch (s.kind) {
      case MpiStep::Kind::kIsend:
        issue_send(r, s.peer, s.bytes);
        break;
      case MpiStep::Kind::kIrecv:
        issue_recv(r, s.peer, s.bytes);
        break;
      case MpiStep::Kind::kWaitAll:
        if (k.pending > 0) {
          k.waiting = true;
          return;
        }
        break;
      case MpiStep::Kind::kCompute:
        sim_.schedule(cpu_after(r, s.time), this, kWake, static_cast<uint64_t>(r));
        return;
      case MpiStep::Kind::kTimerStart:
        k.mark = std::max(k.cpu, sim_.now());
        break;
      case MpiStep::Kind::kTimerStop:
        if (k.iteration >= ph.skip) {
          MpiRankTimer& t = timers_[phase_][r];
          t.total += std::max(k.cpu, sim_.now()) - k.mark;
          ++t.spans;
        }
        break;
    }
  }
}

void MpiEngine::finish_rank(int r) {
  Rank& k = ranks_[r];
  if (k.pending != 0) throw std::logic_error("MPI rank " + std::to_string(r) + " ended with open requests");
  k.finished = true;
  if (--ranks_left_ > 0) return;
  for (const auto& [key, p] : pairs_)
    if (!p.posted.empty() || !p.unexpected.empty())
      throw std::logic_error("MPI phase ended with unmatched messages between ranks " +
                             std::to_string(key / ranks_.size()) + " and " +
                             std::to_string(key % ranks_.size()));
  phase_end_.push_back(sim_.now());
  if (++phase_ < phases_.size()) sim_.schedule_in(Time::zero(), this, kPhase);
}

void MpiEngine::issue_send(int src, int dst, int64_t bytes) {
  const uint32_t m = new_message(src, dst, bytes);
  const bool eager = msgs_[m].eager;
  ++(eager ? counters_.eager_messages : counters_.rendezvous_messages);
  counters_.payload_bytes += bytes;
  ++ranks_[src].pending;
  const Time copy = msgs_[m].bcopy ? cfg_.copy_rate.tx_time(Bytes(bytes)) : Time::zero();
  sim_.schedule(cpu_after(src, cfg_.send_overhead + copy), this, kPostSend, m);
}

void MpiEngine::issue_recv(int dst, int src, int64_t bytes) {
  ++ranks_[dst].pending;
  Pair& p = pair(src, dst);
  if (!p.unexpected.empty()) {
    const uint32_t m = p.unexpected.front();
    p.unexpected.pop_front();
    matched(m, bytes);
  } else {
    p.posted.push_back(bytes);
  }
}

void MpiEngine::matched(uint32_t m, int64_t posted_bytes) {
  const Message& msg = msgs_[m];
  if (msg.bytes > posted_bytes)
    throw std::logic_error("MPI message of " + std::to_string(msg.bytes) + " B matched a receive of " +
                           std::to_string(posted_bytes) + " B (truncation)");
  if (msg.eager) {
    const Time t = cpu_after(msg.dst, cfg_.recv_overhead + cfg_.copy_rate.tx_time(Bytes(msg.bytes)));
    sim_.schedule(t, this, kRecvDone, static_cast<uint64_t>(msg.dst));
    release(m);
  } else {
    sim_.schedule(cpu_after(msg.dst, cfg_.recv_overhead), this, kReply, m);
  }
}

void MpiEngine::request_done(int r) {
  Rank& k = ranks_[r];
  if (--k.pending == 0 && k.waiting) {
    k.waiting = false;
    advance(r);
  }
}

void MpiEngine::on_event(uint32_t kind, uint64_t arg) {
  const auto m = static_cast<uint32_t>(arg);
  switch (kind) {
    case kPostSend: {
      const Message& msg = msgs_[m];
      Pair& p = pair(msg.src, msg.dst);
      if (msg.eager) {
        p.qp.post_send(cfg_.header.count() + msg.bytes, wr(msg.bcopy ? kEager : kEagerZ, m));
        if (msg.bcopy) request_done(msg.src);  // copied: the user's buffer is free again
      } else {
        p.qp.post_send(cfg_.header.count(), wr(kRts, m));
      }
      break;
    }
    case kRecvDone:
      request_done(static_cast<int>(arg));
      break;
    case kReply: {
      const Message& msg = msgs_[m];
      Pair& back = pair(msg.dst, msg.src);
      if (cfg_.rendezvous == Rendezvous::kGet)
        back.qp.post_read(msg.bytes, wr(kRead, m));
      else
        back.qp.post_send(cfg_.header.count(), wr(kCts, m));
      break;
    }
    case kPut: {
      const Message& msg = msgs_[m];
      Pair& p = pair(msg.src, msg.dst);
      p.qp.post_write(msg.bytes, wr(kWrite, m));
      p.qp.post_send(cfg_.header.count(), wr(kFin, m));  // RC order: it lands after the data
      break;
    }
    case kWake:
      advance(static_cast<int>(arg));
      break;
    case kPhase:
      begin_phase();
      break;
    default:
      throw std::logic_error("MPI engine: unknown event " + std::to_string(kind));
  }
}

void MpiEngine::on_receive(const Completion& c) {
  const auto w = static_cast<Wire>(c.wr_id >> kWireShift);
  const auto m = static_cast<uint32_t>(c.wr_id & kSlotMask);
  const Message& msg = msgs_[m];
  switch (w) {
    case kEager:
    case kEagerZ:
    case kRts: {
      Pair& p = pair(msg.src, msg.dst);
      if (!p.posted.empty()) {
        const int64_t posted = p.posted.front();
        p.posted.pop_front();
        matched(m, posted);
      } else {
        p.unexpected.push_back(m);
        ++counters_.unexpected;
      }
      break;
    }
    case kFin: {
      // get: the receiver has the data; put: it landed before the FIN (same QP, in order).
      const int r = cfg_.rendezvous == Rendezvous::kGet ? msg.src : msg.dst;
      release(m);
      request_done(r);
      break;
    }
    case kCts:
      sim_.schedule(cpu_after(msg.src, Time::zero()), this, kPut, m);
      break;
    case kWrite:
    case kRead:
      break;  // the data itself: its FIN or READ completion says it is there
  }
}

void MpiEngine::on_complete(const Completion& c) {
  const auto w = static_cast<Wire>(c.wr_id >> kWireShift);
  const auto m = static_cast<uint32_t>(c.wr_id & kSlotMask);
  // Copies: request_done runs the rank on, which may add messages.
  const int src = msgs_[m].src, dst = msgs_[m].dst;
  if (w == kRead) {
    // get: the data is in the receiver's buffer; tell the sender.
    pair(dst, src).qp.post_send(cfg_.header.count(), wr(kFin, m));
    request_done(dst);
  } else if (w == kWrite || w == kEagerZ) {
    release(m);
    request_done(src);  // zero copy: acknowledged, so the sender's buffer is free
  }
}

}  // namespace rdmasim
