#include "engine/simulation.h"

namespace rdmasim {

bool Simulation::run(Time until, const std::function<void()>& progress, uint64_t progress_every) {
  uint64_t next_progress = events_ + progress_every;
  while (!queue_.empty()) {
    if (stopped()) return false;
    if (queue_.top_time() > until) {
      // Time passes even when nothing happens: the clock reaches the horizon.
      if (until > now_) now_ = until;
      return false;
    }
    const Event e = queue_.pop();
    if (!queue_.empty()) {
      // The next event's handler and argument (often a packet) are usually
      // cold; start loading them while this event runs.
      const Event& n = queue_.top();
      __builtin_prefetch(n.handler);
      __builtin_prefetch(reinterpret_cast<const void*>(n.arg));
    }
    now_ = Time::from_ps(e.time_ps());
    e.handler->on_event(e.kind(), e.arg);
    if (++events_ == next_progress) {
      next_progress += progress_every;
      if (progress) progress();
    }
  }
  return true;
}

}  // namespace rdmasim
