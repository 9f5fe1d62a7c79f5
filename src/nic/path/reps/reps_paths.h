// reps: Recycled Entropy Packet Spraying (Bonato et al., "REPS: Recycled
// Entropy Packet Spraying for Adaptive Load Balancing and Failure
// Mitigation", 2024; the load balancing UET's PDS runs). A sender sprays
// like `spray`, but remembers which entropy values (EVs) came back clean:
// the EV of every packet acknowledged without ECN-Echo goes into a small
// circular buffer, and the next packet reuses the oldest cached EV. EVs
// whose packets were marked or trimmed are not recycled, so a sender drifts
// off congested or degraded paths within a few round trips. With nothing
// cached (and for the first `explore` packets of a QP, about one BDP) it
// explores: a fresh EV drawn from the 16-bit EV space.
//
// Failure mitigation ("freezing"): after a timeout the sender stops
// exploring, since a fresh EV may land on the failed path; with the buffer
// empty it reuses the EV it recycled last, until the next ACK that moves
// the cumulative point.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "nic/path/path_signal.h"

namespace rdmasim {

struct RepsConfig {
  uint32_t buffer = 8;    // cached EVs per QP (the REPS paper's and its ns-3 ports' BUFFER_SIZE 8)
  uint32_t explore = 64;  // packets a new QP sprays over fresh EVs first (about one BDP)

  template <class V>
  void visit(V& v) {
    v.count({"buffer",
             "EVs a QP caches from clean ACKs and reuses, oldest first (REPS: 8); marked or trimmed EVs are "
             "dropped"},
            buffer, 1, 1024);
    v.count(
        {"explore", "packets a new QP first sends on fresh random EVs, before it recycles (about one BDP)"},
        explore, 0, 1 << 20);
  }
};

class RepsPaths {
 public:
  RepsPaths(RepsConfig cfg, uint64_t seed) : cfg_(cfg), seed_(seed) {}

  void connect(uint32_t qp, uint32_t /*base*/) {
    if (qp >= st_.size()) st_.resize(qp + 1);
    State& s = st_[qp];
    s.ring.assign(cfg_.buffer, 0);
    s.explore_left = cfg_.explore;
  }
  // Where the next packet would go (a peek: what path() reports).
  [[nodiscard]] uint32_t entropy(uint32_t qp, uint32_t base, uint64_t /*seq*/) const noexcept {
    const State& s = st_[qp];
    if (s.explore_left == 0 && s.count > 0) return s.ring[s.head];
    return fresh(qp, base, s.drawn);
  }
  // The EV a packet leaving now takes: recycled, or a fresh one.
  uint32_t pick(uint32_t qp, uint32_t base, uint64_t /*seq*/) noexcept {
    State& s = st_[qp];
    if (s.explore_left > 0) {
      --s.explore_left;
    } else if (s.count > 0) {
      const uint32_t ev = s.ring[s.head];
      s.head = (s.head + 1) % cfg_.buffer;
      --s.count;
      s.last_good = ev;
      ++recycled_;
      return ev;
    } else if (s.frozen && s.last_good != 0) {
      ++recycled_;
      return s.last_good;  // no exploring into a failure: reuse what last worked
    }
    ++explored_;
    return fresh(qp, base, s.drawn++);
  }
  // A packet sent on `ev` was acknowledged (marked: with ECN-Echo) or
  // trimmed (marked too): a clean one's EV is cached for reuse.
  void on_ev(uint32_t qp, uint32_t ev, bool marked) noexcept {
    State& s = st_[qp];
    if (marked) {
      ++discarded_;
      return;
    }
    const size_t tail = (s.head + s.count) % cfg_.buffer;
    s.ring[tail] = ev;
    if (s.count < cfg_.buffer)
      ++s.count;
    else
      s.head = (s.head + 1) % cfg_.buffer;  // full: the oldest gives way
    s.last_good = ev;
  }
  void on_ack(uint32_t qp, const PathAck& a) noexcept {
    State& s = st_[qp];
    if (s.frozen && a.acked > s.frozen_at) s.frozen = false;
    s.acked_hint = a.acked;
  }
  void on_rto(uint32_t qp) noexcept {
    State& s = st_[qp];
    s.frozen = true;
    s.frozen_at = s.acked_hint;
  }

  [[nodiscard]] uint64_t recycled() const { return recycled_; }
  [[nodiscard]] uint64_t explored() const { return explored_; }
  [[nodiscard]] uint64_t discarded() const { return discarded_; }
  [[nodiscard]] bool frozen(uint32_t qp) const { return st_[qp].frozen; }

 private:
  struct State {
    std::vector<uint32_t> ring;
    uint32_t head = 0;
    uint32_t count = 0;
    uint32_t explore_left = 0;
    uint32_t last_good = 0;
    uint64_t drawn = 0;  // fresh EVs drawn so far: the next one's draw index
    bool frozen = false;
    uint64_t frozen_at = 0;
    uint64_t acked_hint = 0;
  };
  // A fresh EV: a random 16-bit value, as the switches would hash it.
  [[nodiscard]] uint32_t fresh(uint32_t qp, uint32_t base, uint64_t draw) const noexcept {
    const uint64_t ev = mix64(seed_ ^ (uint64_t{qp} << 32) ^ (draw * 0x9e3779b97f4a7c15ull)) & 0xffff;
    return static_cast<uint32_t>(mix64(base ^ ((ev + 1) * 0xc2b2ae3d27d4eb4full)) >> 32);
  }

  RepsConfig cfg_;
  uint64_t seed_;
  std::vector<State> st_;
  uint64_t recycled_ = 0, explored_ = 0, discarded_ = 0;
};

}  // namespace rdmasim
