// The event queue: an 8-ary min-heap of small POD events in one vector (8
// children = 4 cache lines per level; measured faster than 4- and 16-ary).
// Events are ordered by (time, insertion sequence) so equal-time events run in
// the order they were scheduled: that is what makes runs reproducible.
// Nothing is allocated per event; the vector only grows to the peak backlog.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

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

// 32 bytes, so two share a cache line. The sort key packs (time, insertion
// sequence, kind) into one 128-bit integer: time in the high half, then the
// sequence, then the kind in the low byte. One integer compare orders events
// by time and equal times by insertion, and compiles to branch-free code;
// mispredicted branches in the sift loops were the engine's top cost.
struct Event {
  unsigned __int128 key;
  EventHandler* handler;
  uint64_t arg;
  [[nodiscard]] int64_t time_ps() const { return static_cast<int64_t>(key >> 64); }
  [[nodiscard]] uint32_t kind() const { return static_cast<uint32_t>(key & 0xff); }
};

// 64-byte-aligned storage, so heap nodes can be laid out on cache lines.
template <typename T>
struct CacheAlignedAllocator {
  using value_type = T;
  CacheAlignedAllocator() = default;
  template <typename U>
  explicit CacheAlignedAllocator(const CacheAlignedAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  friend bool operator==(const CacheAlignedAllocator&, const CacheAlignedAllocator&) { return true; }
};

// One 8-ary min-heap of events by key (EventQueue keeps two).
class EventHeap {
 public:
  static constexpr unsigned __int128 kNoKey = ~static_cast<unsigned __int128>(0);

  EventHeap() {
    heap_.reserve(1 << 12);
    heap_.resize(kPad);  // padding so child groups start on a cache line
  }
  void push(const Event& e) {
    heap_.push_back(e);
    sift_up(size() - 1);
  }
  [[nodiscard]] bool empty() const { return heap_.size() == kPad; }
  [[nodiscard]] size_t size() const { return heap_.size() - kPad; }
  [[nodiscard]] const Event& top() const { return at(0); }
  // The least key, or kNoKey when empty (above every real key).
  [[nodiscard]] unsigned __int128 min_key() const { return empty() ? kNoKey : at(0).key; }
  // Removes and returns the least event. Precondition: !empty().
  Event pop() {
    Event top = at(0);
    Event last = heap_.back();
    heap_.pop_back();
    if (!empty()) sift_down(last);
    return top;
  }

 private:
  static constexpr size_t kArity = 8;
  // Logical node i lives at heap_[i + kPad]; its children 8i+1..8i+8 then sit
  // at physical 8i+8..8i+15: one aligned run of 8 x 32 B = 4 cache lines.
  static constexpr size_t kPad = kArity - 1;
  Event& at(size_t i) { return heap_[i + kPad]; }
  [[nodiscard]] const Event& at(size_t i) const { return heap_[i + kPad]; }

  void sift_up(size_t i) {
    Event e = at(i);
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!(e.key < at(parent).key)) break;
      at(i) = at(parent);
      i = parent;
    }
    at(i) = e;
  }
  // Places `e` (the former last element) starting from the root.
  void sift_down(const Event& e) {
    const size_t n = size();
    size_t i = 0;
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t best = first;
      if (first + kArity - 1 < n) {
        // All children exist: a branch-free tournament for the least.
        const Event* c = &at(first);
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

  std::vector<Event, CacheAlignedAllocator<Event>> heap_;
};

// Events in (time, insertion) order, in two heaps split by how far ahead
// they are. Most pending events in a run are timers that rarely do anything
// when they fire (a QP's retransmission deadline, milliseconds ahead, armed
// once and left to find nothing outstanding); in one heap they tripled its
// size and put every sift of the frames' events a level deeper and out of
// L1. Events due more than kNearSpan after the last one popped wait in the
// far heap; a pop takes the lesser of the two tops, so the order is exactly
// that of one heap.
class EventQueue {
 public:
  // Far enough ahead that frames, their transmissions and pacing gaps at
  // line rate stay near; retransmission timers (hundreds of us and more) go far.
  static constexpr int64_t kNearSpan = 100'000'000;  // 100 us in ps

  // Precondition: t >= 0 (simulated time never runs backwards past zero).
  void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg) {
    push_at_seq(t, next_seq_++, h, kind, arg);
  }
  // The insertion sequence an event pushed now would get, for an event that
  // is pushed later with push_at_seq: it then runs among equal-time events
  // exactly where it would have run had it been pushed now.
  uint64_t take_seq() { return next_seq_++; }
  void push_at_seq(Time t, uint64_t seq, EventHandler* h, uint32_t kind, uint64_t arg) {
    const unsigned __int128 key = (static_cast<unsigned __int128>(static_cast<uint64_t>(t.ps())) << 64) |
                                  (static_cast<unsigned __int128>(seq) << 8) | (kind & 0xff);
    if (t.ps() > near_until_)
      far_.push(Event{key, h, arg});
    else
      near_.push(Event{key, h, arg});
  }
  [[nodiscard]] bool empty() const { return near_.empty() && far_.empty(); }
  [[nodiscard]] size_t size() const { return near_.size() + far_.size(); }
  // Precondition for both: !empty().
  [[nodiscard]] Time top_time() const { return Time::from_ps(top().time_ps()); }
  [[nodiscard]] const Event& top() const { return from_far() ? far_.top() : near_.top(); }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    const Event e = from_far() ? far_.pop() : near_.pop();
    near_until_ = e.time_ps() + kNearSpan;
    return e;
  }

 private:
  [[nodiscard]] bool from_far() const { return far_.min_key() < near_.min_key(); }

  EventHeap near_;
  EventHeap far_;
  int64_t near_until_ = kNearSpan;
  uint64_t next_seq_ = 0;
};

}  // namespace rdmasim
