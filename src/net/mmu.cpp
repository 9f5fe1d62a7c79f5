#include "net/mmu.h"

#include <algorithm>

namespace rdmasim {

void Mmu::set_headroom(uint16_t port, uint64_t bytes) {
  for (auto& g : pg_[port]) g.headroom_size = bytes;
  pool_ready_ = false;
}

void Mmu::recompute_pool() {
  uint64_t carved = 0;
  for (size_t port = 0; port < pg_.size(); ++port)
    for (int tc = 0; tc < kNumTcs; ++tc)
      if (lossless(static_cast<uint16_t>(port), static_cast<uint8_t>(tc)))
        carved += cfg_.pg_reserved_bytes + pg_[port][tc].headroom_size;
  shared_pool_ = cfg_.buffer_bytes > carved ? cfg_.buffer_bytes - carved : 0;
  pool_ready_ = true;
}

uint64_t Mmu::xoff_threshold() const {
  if (cfg_.xoff_bytes != 0) return cfg_.xoff_bytes;
  const uint64_t free_shared = shared_pool_ > shared_used_ ? shared_pool_ - shared_used_ : 0;
  return static_cast<uint64_t>(cfg_.pfc_alpha * static_cast<double>(free_shared));
}

Mmu::Verdict Mmu::admit(uint16_t in_port, uint16_t out_port, uint8_t tc, uint32_t bytes) {
  if (!pool_ready_) recompute_pool();
  if (cfg_.unlimited) {
    shared_used_ += bytes;
  } else if (lossless(in_port, tc)) {
    Pg& g = pg_[in_port][tc];
    if (g.reserved + bytes <= cfg_.pg_reserved_bytes) {
      g.reserved += bytes;
    } else if (!g.paused && g.shared + bytes <= xoff_threshold() && shared_used_ + bytes <= shared_pool_) {
      g.shared += bytes;
      shared_used_ += bytes;
    } else if (g.headroom + bytes <= g.headroom_size) {
      g.headroom += bytes;
    } else {
      return Verdict::kDropLossless;
    }
  } else {
    const uint64_t q = queue_bytes_[out_port][tc];
    if (shared_used_ + bytes > shared_pool_) return Verdict::kDropLossy;
    const double free_bytes = static_cast<double>(shared_pool_ - shared_used_);
    if (static_cast<double>(q + bytes) > cfg_.alpha * free_bytes) return Verdict::kDropLossy;
    shared_used_ += bytes;
  }
  queue_bytes_[out_port][tc] += bytes;
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return Verdict::kAdmit;
}

void Mmu::release(uint16_t in_port, uint16_t out_port, uint8_t tc, uint32_t bytes) {
  queue_bytes_[out_port][tc] -= bytes;
  used_ -= bytes;
  if (cfg_.unlimited || !lossless(in_port, tc)) {
    shared_used_ -= bytes;
    return;
  }
  // Give back headroom first, then shared, then the reservation, so that a
  // PG leaves the paused state only once its headroom is empty.
  Pg& g = pg_[in_port][tc];
  uint64_t left = bytes;
  const uint64_t h = std::min(left, g.headroom);
  g.headroom -= h;
  left -= h;
  const uint64_t s = std::min(left, g.shared);
  g.shared -= s;
  shared_used_ -= s;
  left -= s;
  g.reserved -= left;
}

bool Mmu::should_pause(uint16_t in_port, uint8_t tc) const {
  const Pg& g = pg_[in_port][tc];
  return !g.paused && (g.headroom > 0 || g.shared >= xoff_threshold());
}

bool Mmu::should_resume(uint16_t in_port, uint8_t tc) const {
  const Pg& g = pg_[in_port][tc];
  if (!g.paused || g.headroom > 0) return false;
  const uint64_t th = xoff_threshold();
  return g.shared + cfg_.xon_offset_bytes <= th || g.shared == 0;
}

}  // namespace rdmasim
