#include "flow/max_min.h"

#include <algorithm>
#include <functional>

namespace rdmasim {

MaxMinSolver::MaxMinSolver(std::vector<double> capacity)
    : capacity_(std::move(capacity)),
      residual_(capacity_.size(), 0.0),
      weight_(capacity_.size(), 0.0),
      unfixed_(capacity_.size(), 0),
      stamp_(capacity_.size(), 0),
      on_begin_(capacity_.size(), 0),
      on_fill_(capacity_.size(), 0) {}

void MaxMinSolver::push(uint32_t l) {
  heap_.push_back(Entry{residual_[l] / weight_[l], l});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
}

void MaxMinSolver::solve(std::span<const LinkUse> flows, std::span<const uint32_t> link,
                         std::span<const float> coef, std::span<double> rate) {
  ++solve_;
  levels_ = 0;
  touched_.clear();
  for (const LinkUse& f : flows)
    for (uint32_t e = f.begin; e < f.end; ++e) {
      const uint32_t l = link[e];
      if (stamp_[l] != solve_) {
        stamp_[l] = solve_;
        residual_[l] = capacity_[l];
        weight_[l] = 0;
        unfixed_[l] = 0;
        touched_.push_back(l);
      }
      weight_[l] += coef[e];
      ++unfixed_[l];
    }
  // The flows on each link, grouped by link (counting sort).
  uint32_t total = 0;
  for (const uint32_t l : touched_) {
    on_begin_[l] = total;
    on_fill_[l] = total;
    total += unfixed_[l];
  }
  on_.resize(total);
  for (uint32_t i = 0; i < flows.size(); ++i)
    for (uint32_t e = flows[i].begin; e < flows[i].end; ++e) on_[on_fill_[link[e]]++] = i;
  fixed_.assign(flows.size(), 0);
  heap_.clear();
  for (const uint32_t l : touched_) push(l);
  double level = 0;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    const Entry top = heap_.back();
    heap_.pop_back();
    const uint32_t l = top.link;
    if (unfixed_[l] == 0) continue;
    // Fixing flows elsewhere only raises a link's level (what is left over
    // what still shares it), so keys are lower bounds: a link whose level
    // rose since it was pushed goes back in with its new one.
    const double now_level = residual_[l] / weight_[l];
    if (now_level > top.level) {
      push(l);
      continue;
    }
    // Rounding can put a later bottleneck a hair below the last: rates never fall.
    level = std::max(level, now_level);
    ++levels_;
    for (uint32_t k = on_begin_[l]; k < on_fill_[l]; ++k) {
      const uint32_t i = on_[k];
      if (fixed_[i] != 0) continue;
      fixed_[i] = 1;
      rate[i] = level;
      for (uint32_t e = flows[i].begin; e < flows[i].end; ++e) {
        const uint32_t m = link[e];
        residual_[m] = std::max(0.0, residual_[m] - coef[e] * level);
        weight_[m] -= coef[e];
        --unfixed_[m];
      }
    }
  }
}

}  // namespace rdmasim
