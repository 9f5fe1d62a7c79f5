// Eight traffic-class FIFOs of one egress port and the arbiter between them:
// strict-priority classes first (higher class number wins), then deficit
// weighted round robin (Shreedhar & Varghese, SIGCOMM 1995) over the rest.
#pragma once

#include <array>
#include <cstdint>

#include "net/packet.h"

namespace rdmasim {

inline constexpr int kNumTcs = 8;

struct TcSchedulerConfig {
  std::array<bool, kNumTcs> strict{false, false, false, false, false, false, false, true};
  std::array<uint32_t, kNumTcs> weight{1, 1, 1, 1, 1, 1, 1, 1};
  uint32_t quantum_bytes = 1500;  // DWRR quantum per unit of weight

  // The strict classes, a bit each.
  [[nodiscard]] uint32_t strict_mask() const {
    uint32_t m = 0;
    for (int tc = 0; tc < kNumTcs; ++tc) m |= static_cast<uint32_t>(strict[tc]) << tc;
    return m;
  }
};

class TcScheduler {
 public:
  explicit TcScheduler(const TcSchedulerConfig* cfg = nullptr) { set_config(cfg); }
  void set_config(const TcSchedulerConfig* cfg) {
    cfg_ = cfg;
    strict_mask_ = cfg != nullptr ? cfg->strict_mask() : 0;
  }

  void push(Packet* p) {
    Fifo& f = q_[p->tc];
    p->next = nullptr;
    if (f.tail)
      f.tail->next = p;
    else
      f.head = p;
    f.tail = p;
    f.bytes += p->wire;
    ++f.packets;
    total_bytes_ += p->wire;
    nonempty_ |= 1u << p->tc;
  }
  [[nodiscard]] bool empty() const { return nonempty_ == 0; }
  [[nodiscard]] uint64_t bytes(int tc) const { return q_[tc].bytes; }
  [[nodiscard]] uint64_t total_bytes() const { return total_bytes_; }
  [[nodiscard]] uint32_t packets(int tc) const { return q_[tc].packets; }
  [[nodiscard]] uint32_t nonempty_mask() const { return nonempty_; }
  [[nodiscard]] const Packet* head(int tc) const { return q_[tc].head; }
  // The packet pop() is most likely to return next, for a prefetch (nullptr
  // when empty): the highest ready class under strict priority, else the one
  // the round is at.
  [[nodiscard]] const Packet* likely_next() const {
    if (nonempty_ == 0) return nullptr;
    const uint32_t strict = cfg_ == nullptr ? nonempty_ : nonempty_ & strict_mask_;
    if (strict != 0) return q_[31 - __builtin_clz(strict)].head;
    return q_[((nonempty_ >> rr_) & 1u) != 0 ? rr_ : __builtin_ctz(nonempty_)].head;
  }
  // Removes the head of `tc` (which must be non-empty), bypassing the arbiter:
  // for link layers that arbitrate themselves (InfiniBand VL arbitration).
  Packet* take_head(int tc) { return take(tc); }

  // Next packet to transmit, or nullptr. `eligible` masks classes that may
  // send now (bit per class; PFC pauses clear bits).
  Packet* pop(uint32_t eligible = 0xff) {
    uint32_t ready = nonempty_ & eligible;
    if (ready == 0) return nullptr;
    if (cfg_ == nullptr) return take(31 - __builtin_clz(ready));
    uint32_t strict_ready = ready & strict_mask_;
    if (strict_ready) return take(31 - __builtin_clz(strict_ready));
    // DWRR over the remaining classes. A class with nothing ready is passed
    // over without a visit, so the round goes straight to the next ready one.
    for (;;) {
      if (((ready >> rr_) & 1u) == 0) {
        const uint32_t after = ready & ~((2u << rr_) - 1);
        rr_ = __builtin_ctz(after != 0 ? after : ready);
        fresh_visit_ = false;
      }
      const int tc = rr_;
      if (!fresh_visit_) {
        deficit_[tc] += cfg_->weight[tc] * cfg_->quantum_bytes;
        fresh_visit_ = true;
      }
      if (deficit_[tc] >= q_[tc].head->wire) {
        Packet* p = take(tc);
        deficit_[tc] -= p->wire;
        if (q_[tc].head == nullptr) {
          deficit_[tc] = 0;
          advance();
        }
        return p;
      }
      advance();
    }
  }

 private:
  struct Fifo {
    Packet* head = nullptr;
    Packet* tail = nullptr;
    uint64_t bytes = 0;
    uint32_t packets = 0;
  };
  void advance() {
    rr_ = (rr_ + 1) % kNumTcs;
    fresh_visit_ = false;
  }
  Packet* take(int tc) {
    Fifo& f = q_[tc];
    Packet* p = f.head;
    f.head = p->next;
    if (f.head != nullptr) {
      __builtin_prefetch(f.head);  // it is sent next; hide the miss
    } else {
      f.tail = nullptr;
      nonempty_ &= ~(1u << tc);
    }
    f.bytes -= p->wire;
    --f.packets;
    total_bytes_ -= p->wire;
    p->next = nullptr;
    return p;
  }

  // What every push and pop reads, ahead of the per-class state.
  const TcSchedulerConfig* cfg_ = nullptr;
  uint32_t strict_mask_ = 0;  // cfg_'s strict classes, a bit each
  uint32_t nonempty_ = 0;
  uint64_t total_bytes_ = 0;
  int rr_ = 0;
  bool fresh_visit_ = false;
  std::array<uint64_t, kNumTcs> deficit_{};
  std::array<Fifo, kNumTcs> q_{};
};

}  // namespace rdmasim
