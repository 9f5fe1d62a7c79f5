#include "engine/simulation.h"

namespace rdmasim {

bool Simulation::run(Time until, const std::function<void()>& progress, uint64_t progress_every) {
  return loop(
             until, [] { return false; }, progress, progress_every) == End::kDrained;
}

}  // namespace rdmasim
