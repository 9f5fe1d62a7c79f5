// The event queue: a 4-ary min-heap of small POD events in one vector.
// Events are ordered by (time, insertion sequence) so equal-time events run in
// the order they were scheduled: that is what makes runs reproducible.
// Nothing is allocated per event; the vector only grows to the peak backlog.
#pragma once

#include <cstddef>
#include <cstdint>
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

struct Event {
  int64_t time_ps;
  uint64_t seq;
  EventHandler* handler;
  uint64_t arg;
  uint32_t kind;
};

class EventQueue {
 public:
  EventQueue() { heap_.reserve(1 << 12); }

  void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg) {
    heap_.push_back(Event{t.ps(), next_seq_++, h, arg, kind});
    sift_up(heap_.size() - 1);
  }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] size_t size() const { return heap_.size(); }
  [[nodiscard]] Time top_time() const { return Time::from_ps(heap_.front().time_ps); }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time_ps < b.time_ps || (a.time_ps == b.time_ps && a.seq < b.seq);
  }
  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last element) starting from the root.
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace rdmasim
