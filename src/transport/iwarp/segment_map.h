// A few flag bits per TCP segment from a moving base upward: the receiver's
// out-of-order placements above rcv_nxt, the sender's SACK scoreboard above
// snd_una. Segments below the base are gone (delivered, acknowledged); the
// map grows only as far as the highest segment marked, and allocates
// nothing until the first mark, so an in-order connection costs no memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdmasim {

class SegmentMap {
 public:
  [[nodiscard]] uint64_t base() const { return base_; }
  // One past the highest segment that may carry a mark.
  [[nodiscard]] uint64_t end() const { return base_ + (v_.size() - head_); }
  [[nodiscard]] bool empty() const { return v_.size() == head_; }
  [[nodiscard]] uint8_t get(uint64_t seg) const {
    return seg >= base_ && seg < end() ? v_[head_ + static_cast<size_t>(seg - base_)] : 0;
  }
  // Marks `seg` (at or above the base; below it nothing is recorded).
  void set(uint64_t seg, uint8_t bits) {
    if (seg < base_) return;
    const size_t i = head_ + static_cast<size_t>(seg - base_);
    if (i >= v_.size()) v_.resize(i + 1, 0);
    v_[i] |= bits;
  }
  void clear_bits(uint64_t seg, uint8_t bits) {
    if (seg >= base_ && seg < end())
      v_[head_ + static_cast<size_t>(seg - base_)] &= static_cast<uint8_t>(~bits);
  }
  // Forgets every segment below `b` (b never moves back).
  void advance(uint64_t b) {
    if (b <= base_) return;
    if (b >= end()) {
      v_.clear();
      head_ = 0;
    } else {
      head_ += static_cast<size_t>(b - base_);
      // Compact once the dead prefix is most of the storage: amortised O(1).
      if (head_ >= 64 && 2 * head_ >= v_.size()) {
        v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
    }
    base_ = b;
  }

 private:
  std::vector<uint8_t> v_;
  size_t head_ = 0;
  uint64_t base_ = 0;
};

}  // namespace rdmasim
