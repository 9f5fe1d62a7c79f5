// In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019,
// §3.2 and Fig. 4): every switch egress a data packet leaves pushes one
// record of that port's state; the receiver copies the stack into its ACK.
//
// Stacks live in a side table owned by the Network, not in the packet: only
// HPCC runs pay for them, and the packet stays one cache line.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/units.h"

namespace rdmasim {

// What one egress port reports (the HPCC paper's L[i]: B, ts, txBytes, qLen).
// 32 bytes, so that the five hops of a three-tier fat-tree path and the
// stack's depth fill three cache lines, not four: the stacks of the packets
// in flight are megabytes, and every switch's write and the sender's read
// of them miss the cache.
struct alignas(32) IntHop {
  IntHop() = default;
  // A queue length from kQlenClipped up is kept as kQlenClipped, which
  // IntTable::push counts (the run then fails its invariant check). The port
  // id is a switch's node id << 16 | port index, which the fabric keeps
  // below 2^32.
  IntHop(Time ts_, uint64_t tx_bytes_, uint64_t qlen_, Rate rate_, uint32_t port_id_ = 0)
      : ts(ts_),
        tx_bytes(tx_bytes_),
        rate(rate_),
        qlen(static_cast<uint32_t>(std::min<uint64_t>(qlen_, kQlenClipped))),
        port_id(port_id_) {}
  static constexpr uint32_t kQlenClipped = UINT32_MAX;

  Time ts;                // when the packet left the egress queue
  uint64_t tx_bytes = 0;  // bytes this port has sent, cumulative, incl. this packet
  Rate rate;              // the port's line rate
  uint32_t qlen = 0;      // bytes queued at the port after this packet left
  // Which port reported: a sender must not difference two reports from
  // different ports when its path changes.
  uint32_t port_id = 0;
};
static_assert(sizeof(IntHop) == 32);

// Three-tier fat-trees cross at most 5 switches; 8 leaves room for deeper
// topologies. Hops beyond it are not recorded (counted as overflow).
inline constexpr int kMaxIntHops = 8;

// The depth shares the first line with hop 0 (hops start at byte 32).
struct alignas(64) IntStack {
  uint8_t n = 0;
  std::array<IntHop, kMaxIntHops> hop{};
};
static_assert(offsetof(IntStack, hop) == 32);

// Index-addressed stacks with a free list; slot 0 means "no telemetry".
// Each stack's depth lives in a compact array of its own, so a switch
// appends a hop by writing it without reading the stack first: the stacks
// of packets in flight are megabytes, and that read missed the cache at
// every hop.
class IntTable {
 public:
  uint32_t acquire() {
    if (free_.empty()) {
      if (stacks_.empty()) grow();  // reserve slot 0
      grow();
      return static_cast<uint32_t>(stacks_.size() - 1);
    }
    const uint32_t s = free_.back();
    free_.pop_back();
    depth_[s] = 0;
    return s;
  }
  void release(uint32_t slot) { free_.push_back(slot); }
  // The stack in `slot`, for its reader (the sender of the data it answers).
  [[nodiscard]] const IntStack& read(uint32_t slot) {
    stacks_[slot].n = depth_[slot];
    return stacks_[slot];
  }
  // Starts loading the lines of `slot`'s stack that its records fill, for
  // a reader that needs them shortly.
  void prefetch(uint32_t slot) const {
    const auto* base = reinterpret_cast<const char*>(&stacks_[slot]);
    const int lines = (32 + 32 * depth_[slot] + 63) / 64;
    for (int l = 0; l < lines; ++l) __builtin_prefetch(base + 64 * l);
  }
  [[nodiscard]] size_t in_use() const { return stacks_.empty() ? 0 : stacks_.size() - 1 - free_.size(); }
  void push(uint32_t slot, const IntHop& h) {
    if (h.qlen == IntHop::kQlenClipped) [[unlikely]]
      ++qlen_clipped_;
    uint8_t& n = depth_[slot];
    if (n < kMaxIntHops)
      stacks_[slot].hop[n++] = h;
    else
      ++overflow_;
  }
  [[nodiscard]] uint64_t overflow() const { return overflow_; }
  // Records whose queue length did not fit IntHop::qlen (a port queue of
  // 4 GiB or more): a run with any is not HPCC as modelled and fails its checks.
  [[nodiscard]] uint64_t qlen_clipped() const { return qlen_clipped_; }

 private:
  void grow() {
    stacks_.emplace_back();
    depth_.push_back(0);
  }
  std::vector<IntStack> stacks_;
  std::vector<uint8_t> depth_;  // stacks_[i]'s hops in use
  std::vector<uint32_t> free_;
  uint64_t overflow_ = 0;
  uint64_t qlen_clipped_ = 0;
};

}  // namespace rdmasim
