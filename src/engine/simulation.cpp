#include "engine/simulation.h"

namespace rdmasim {

bool Simulation::run(Time until, const std::function<void()>& progress, uint64_t progress_every) {
  uint64_t next_progress = events_ + progress_every;
  while (!queue_.empty()) {
    if (stopped()) return false;
    Event e;
    if (!queue_.pop_due(until.ps(), e)) {
      // Time passes even when nothing happens: the clock reaches the horizon.
      if (until > now_) now_ = until;
      return false;
    }
    now_ = Time::from_ps(e.at_ps);
    e.handler->on_event(e.kind, e.arg);
    if (++events_ == next_progress) {
      next_progress += progress_every;
      if (progress) progress();
    }
  }
  return true;
}

}  // namespace rdmasim
