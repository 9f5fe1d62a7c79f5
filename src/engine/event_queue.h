// The event queue: two 8-ary min-heaps of small POD events (8 children per
// level measured faster than 4 and 16), one for events due soon (NearHeap,
// where nearly every push and pop happens) and one for those far ahead.
// Events are ordered by (time, insertion sequence) so equal-time events run in
// the order they were scheduled: that is what makes runs reproducible.
// Nothing is allocated per event; the heaps only grow to the peak backlog.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "engine/near_heap.h"
#include "engine/units.h"

namespace rdmasim {

// Anything that can receive an event. `kind` and `arg` are the handler's own
// encoding (e.g. kind = "packet arrival", arg = packet pointer).
class EventHandler {
 public:
  virtual void on_event(uint32_t kind, uint64_t arg) = 0;

 protected:
  ~EventHandler() = default;
};

// An event as the queue hands it out.
struct Event {
  int64_t at_ps;
  EventHandler* handler;
  uint64_t arg;
  uint32_t kind;
};

// An event in the far heap (see EventQueue), 32 bytes. The sort key packs
// (time, insertion sequence, kind) into one 128-bit integer: time in the
// high half, then the sequence, then the kind in the low byte. One integer
// compare orders events by time and equal times by insertion, and compiles
// to branch-free code; mispredicted branches in the sift loops were the
// engine's top cost.
struct FarEvent {
  unsigned __int128 key;
  EventHandler* handler;
  uint64_t arg;
  [[nodiscard]] int64_t time_ps() const { return static_cast<int64_t>(key >> 64); }
};

// One 8-ary min-heap of events by key, whole events in one vector (the far
// heap; the near one is NearHeap).
template <typename E>
class EventHeap {
 public:
  EventHeap() {
    heap_.reserve(1 << 12);
    heap_.resize(kPad);  // padding so child groups start on a cache line
  }
  void push(const E& e) {
    heap_.push_back(e);
    sift_up(size() - 1);
  }
  [[nodiscard]] bool empty() const { return heap_.size() == kPad; }
  [[nodiscard]] size_t size() const { return heap_.size() - kPad; }
  [[nodiscard]] const E& top() const { return at(0); }
  // Visits every event, in no order; `f` may change keys only in a way that
  // keeps their order.
  template <typename F>
  void for_each(F&& f) {
    for (size_t i = kPad; i < heap_.size(); ++i) f(heap_[i]);
  }
  // Removes and returns the least event. Precondition: !empty().
  E pop() {
    E top = at(0);
    E last = heap_.back();
    heap_.pop_back();
    if (!empty()) sift_down(last);
    return top;
  }

 private:
  static constexpr size_t kArity = 8;
  // Logical node i lives at heap_[i + kPad]; its children 8i+1..8i+8 then sit
  // at physical 8i+8..8i+15: one aligned run of 8 x 32 B = 4 cache lines.
  static constexpr size_t kPad = kArity - 1;
  E& at(size_t i) { return heap_[i + kPad]; }
  [[nodiscard]] const E& at(size_t i) const { return heap_[i + kPad]; }

  void sift_up(size_t i) {
    E e = at(i);
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!(e.key < at(parent).key)) break;
      at(i) = at(parent);
      i = parent;
    }
    at(i) = e;
  }
  // Places `e` (the former last element) starting from the root.
  void sift_down(const E& e) {
    const size_t n = size();
    size_t i = 0;
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t best = first;
      if (first + kArity - 1 < n) {
        // All children exist: a branch-free tournament for the least.
        const E* c = &at(first);
        size_t w[kArity / 2];
        for (size_t k = 0; k < kArity / 2; ++k) w[k] = c[2 * k + 1].key < c[2 * k].key ? 2 * k + 1 : 2 * k;
        for (size_t span = kArity / 4; span >= 1; span /= 2)
          for (size_t k = 0; k < span; ++k)
            w[k] = c[w[2 * k + 1]].key < c[w[2 * k]].key ? w[2 * k + 1] : w[2 * k];
        best = first + w[0];
      } else {
        for (size_t c = first + 1; c < n; ++c) best = at(c).key < at(best).key ? c : best;
      }
      if (!(at(best).key < e.key)) break;
      at(i) = at(best);
      i = best;
    }
    at(i) = e;
  }

  std::vector<E, CacheAlignedAllocator<E>> heap_;
};

// Events in (time, insertion) order, in two heaps split by how far ahead
// they are. Most pending events in a run are timers that rarely do anything
// when they fire (a QP's retransmission deadline, milliseconds ahead, armed
// once and left to find nothing outstanding); in one heap they tripled its
// size and put every sift of the frames' events a level deeper and out of
// L1. Events due more than kNearSpan after the last one popped wait in the
// far heap; a pop takes the lesser of the two tops, so the order is exactly
// that of one heap.
//
// The near heap, where nearly every push and pop happens, keys its events
// with 64 bits (NearHeap: 8 children's keys in one cache line): time and
// sequence relative to an epoch (time, seq), which moves forward (rebase)
// when a new event would not fit. An event that still
// does not fit (a sequence taken long before it is pushed) goes far: where an
// event waits never changes when it runs.
class EventQueue {
 public:
  // Far enough ahead that frames, their transmissions and pacing gaps at
  // line rate stay near; retransmission timers (hundreds of us and more) go far.
  static constexpr int64_t kNearSpan = 100'000'000;  // 100 us in ps
  // A near key: 30 bits of time (1.07 ms past the epoch), 28 of sequence
  // (268 M events past the epoch's); the near heap keeps 6 bits for itself.
  static constexpr int kSeqBits = 28;
  static constexpr uint64_t kTimeRange = uint64_t{1} << (64 - NearHeap::kLaneBits - kSeqBits);
  static constexpr uint64_t kSeqRange = uint64_t{1} << kSeqBits;
  static_assert(((kTimeRange - 1) << kSeqBits | (kSeqRange - 2)) <= NearHeap::kMaxKey);

  // Precondition: t >= 0 (simulated time never runs backwards past zero).
  [[gnu::always_inline]] void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg) {
    push_at_seq(t, next_seq_++, h, kind, arg);
  }
  // The insertion sequence an event pushed now would get, for an event that
  // is pushed later with push_at_seq: it then runs among equal-time events
  // exactly where it would have run had it been pushed now.
  uint64_t take_seq() { return next_seq_++; }
  // Precondition: t >= the time of the last event popped. Inlined into every
  // caller: GCC kept it out of line, and its prologue and epilogue were 20
  // instructions of the 77 a push took (cachegrind, HPCC input).
  [[gnu::always_inline]] void push_at_seq(Time t, uint64_t seq, EventHandler* h, uint32_t kind,
                                          uint64_t arg) {
    const uint64_t rel_t = static_cast<uint64_t>(t.ps() - epoch_t_);
    const uint64_t rel_seq = seq - epoch_seq_;  // wraps when older than the epoch: does not fit
    // The largest sequence is left out so no key is above NearHeap::kMaxKey.
    if (t.ps() - now_ <= kNearSpan && rel_t < kTimeRange && rel_seq < kSeqRange - 1) [[likely]] {
      near_.push(rel_t << kSeqBits | rel_seq, h, kind, arg);
      return;
    }
    push_slow(t, seq, h, kind, arg);
  }
  [[nodiscard]] bool empty() const { return near_.empty() && far_.empty(); }
  [[nodiscard]] size_t size() const { return near_.size() + far_.size(); }
  // How often the near heap's epoch moved (for tests and diagnostics).
  [[nodiscard]] uint64_t epoch_moves() const { return epoch_moves_; }
  // Precondition: !empty().
  [[nodiscard]] Time top_time() const {
    return Time::from_ps(near_first() ? near_time(near_.top_key()) : far_top_t_);
  }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    Event e;
    if (near_first()) {
      const NearEvent n = near_.pop();
      e = Event{near_time(n.key), n.handler, n.arg, static_cast<uint32_t>(n.kind)};
    } else {
      const FarEvent f = far_.pop();
      far_top_t_ = far_.empty() ? kNoTime : far_.top().time_ps();
      e = Event{f.time_ps(), f.handler, f.arg, static_cast<uint32_t>(f.key & 0xff)};
    }
    now_ = e.at_ps;
    if (!near_.empty()) {
      // The next event's handler and argument (often a packet) are usually
      // cold; start loading them while this one runs.
      __builtin_prefetch(near_.top_handler());
      // NOLINTNEXTLINE(performance-no-int-to-ptr): the argument is often a packet's address
      __builtin_prefetch(reinterpret_cast<const void*>(near_.top_arg()));
    }
    return e;
  }
  // pop() when the earliest event is due at or before `until`; false, with
  // nothing removed, when it is later. Precondition: !empty().
  bool pop_due(int64_t until, Event& out) {
    if ((near_first() ? near_time(near_.top_key()) : far_top_t_) > until) return false;
    out = pop();
    return true;
  }

 private:
  static constexpr uint64_t kSeqMask = kSeqRange - 1;
  static constexpr int64_t kNoTime = INT64_MAX;  // far_top_t_ of an empty far heap

  [[nodiscard]] int64_t near_time(uint64_t k) const { return epoch_t_ + static_cast<int64_t>(k >> kSeqBits); }
  // Whether the near heap holds the earliest event: by time, and at equal
  // times (rare) by sequence.
  [[nodiscard]] bool near_first() const {
    if (near_.empty()) return false;
    const uint64_t k = near_.top_key();
    const int64_t t = near_time(k);
    if (t != far_top_t_) return t < far_top_t_;
    return epoch_seq_ + (k & kSeqMask) < (static_cast<uint64_t>(far_.top().key) >> 8);
  }

  void push_slow(Time t, uint64_t seq, EventHandler* h, uint32_t kind, uint64_t arg) {
    if (t.ps() - now_ <= kNearSpan && rebase(seq)) {
      push_at_seq(t, seq, h, kind, arg);
      return;
    }
    const unsigned __int128 key = (static_cast<unsigned __int128>(static_cast<uint64_t>(t.ps())) << 64) |
                                  (static_cast<unsigned __int128>(seq) << 8) | (kind & 0xff);
    far_.push(FarEvent{key, h, arg});
    far_top_t_ = std::min(far_top_t_, t.ps());
  }
  // Moves the epoch to (now, the oldest sequence near or `seq`) and rewrites
  // the near keys; their order is unchanged, so the heap stays a heap. False
  // when the near sequences span kSeqRange - 1 or more; it is then not tried
  // again for another kSeqRange / 256 sequences, so a long-held sequence
  // costs far pushes, never a rewrite per push.
  bool rebase(uint64_t seq) {
    if (next_seq_ < retry_after_seq_) return false;
    uint64_t oldest = seq;
    uint64_t newest = seq;
    near_.rekey([&](uint64_t key) {
      const uint64_t s = epoch_seq_ + (key & kSeqMask);
      oldest = std::min(oldest, s);
      newest = std::max(newest, s);
      return key;
    });
    if (newest - oldest >= kSeqRange - 1) {
      retry_after_seq_ = next_seq_ + kSeqRange / 256;
      return false;
    }
    // Every near event is due within kNearSpan of now, so its time fits.
    near_.rekey([&](uint64_t key) {
      const auto t = static_cast<uint64_t>(epoch_t_) + (key >> kSeqBits) - static_cast<uint64_t>(now_);
      const uint64_t s = epoch_seq_ + (key & kSeqMask) - oldest;
      return t << kSeqBits | s;
    });
    epoch_t_ = now_;
    epoch_seq_ = oldest;
    ++epoch_moves_;
    return true;
  }

  NearHeap near_;
  EventHeap<FarEvent> far_;
  int64_t far_top_t_ = kNoTime;  // the far heap's earliest time
  int64_t now_ = 0;              // the time of the last event popped
  int64_t epoch_t_ = 0;
  uint64_t epoch_seq_ = 0;
  uint64_t retry_after_seq_ = 0;
  uint64_t epoch_moves_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace rdmasim
