// The event loop. A Simulation owns its clock, its event queue and its random
// seed; nothing is global, so independent simulations can run side by side in
// threads and produce the same results as when run alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>

#include "engine/event_queue.h"
#include "engine/rng.h"
#include "engine/units.h"

namespace rdmasim {

class Simulation {
 public:
  explicit Simulation(uint64_t seed) : seed_(seed) {}
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] uint64_t seed() const { return seed_; }
  [[nodiscard]] uint64_t events_processed() const { return events_; }
  [[nodiscard]] size_t pending_events() const { return queue_.size(); }
  // When the next event is due; Time::never() when none is.
  [[nodiscard]] Time next_event_time() const { return queue_.empty() ? Time::never() : queue_.top_time(); }

  // Schedules `h->on_event(kind, arg)` at absolute time `at` (>= now). The
  // schedule calls are inlined down to the heap's push: called on every
  // event, out of line each level cost a prologue and an epilogue.
  [[gnu::always_inline]] void schedule(Time at, EventHandler* h, uint32_t kind, uint64_t arg = 0) {
    queue_.push(at, h, kind, arg);
  }
  [[gnu::always_inline]] void schedule_in(Time delay, EventHandler* h, uint32_t kind, uint64_t arg = 0) {
    queue_.push(now_ + delay, h, kind, arg);
  }

  // An event decided now but queued later (a packet behind another on the
  // same wire): take its place in the order now, queue it with
  // schedule_at_seq when it is next. Same order, fewer events in the queue.
  uint64_t take_seq() { return queue_.take_seq(); }
  [[gnu::always_inline]] void schedule_at_seq(Time at, uint64_t seq, EventHandler* h, uint32_t kind,
                                              uint64_t arg = 0) {
    queue_.push_at_seq(at, seq, h, kind, arg);
  }

  // A fresh stream whose numbers depend only on the seed and the name.
  [[nodiscard]] Rng rng(std::string_view name) const { return Rng(seed_, name); }

  // Runs events with time <= `until`, or until stop() or the queue empties.
  // `progress` (may be empty) is called about every `progress_every` events.
  // Returns true when it stopped because the queue became empty.
  bool run(Time until, const std::function<void()>& progress = {}, uint64_t progress_every = 1 << 22);

  // As run(), and also returns after the first event after which `done()`
  // holds (true then): a workload's run ends at the instant its work does.
  // For runs that poll workloads; run() keeps its loop free of the check.
  template <class Done>
  bool run_until_done(Time until, Done&& done, const std::function<void()>& progress,
                      uint64_t progress_every) {
    return loop(until, std::forward<Done>(done), progress, progress_every) == End::kDone;
  }

  // Ends run() after the current event. Safe to call from a handler, or from
  // another thread (e.g. a SIGINT handler's flag poller).
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] bool stopped() const { return stop_.load(std::memory_order_relaxed); }

 private:
  enum class End { kDrained, kHorizon, kStopped, kDone };
  // The event loop of run() and run_until_done(): `done` is checked after
  // every event (run() passes one that is constant false, compiled away).
  template <class Done>
  End loop(Time until, Done&& done, const std::function<void()>& progress, uint64_t progress_every) {
    uint64_t next_progress = events_ + progress_every;
    while (!queue_.empty()) {
      if (stopped()) return End::kStopped;
      Event e;
      if (!queue_.pop_due(until.ps(), e)) {
        // Time passes even when nothing happens: the clock reaches the horizon.
        if (until > now_) now_ = until;
        return End::kHorizon;
      }
      now_ = Time::from_ps(e.at_ps);
      e.handler->on_event(e.kind, e.arg);
      if (++events_ == next_progress) {
        next_progress += progress_every;
        if (progress) progress();
      }
      if (done()) return End::kDone;
    }
    return End::kDrained;
  }

  EventQueue queue_;
  Time now_;
  uint64_t seed_;
  uint64_t events_ = 0;
  std::atomic<bool> stop_{false};
};

}  // namespace rdmasim
