// The event queue's near heap (see EventQueue): a min-heap of 64-bit keys
// whose root has 64 children and every other node 8, laid out so that a
// node's 8 children's keys fill one 64-byte cache line (the root's, eight
// lines), with each event's handler, kind and argument in a parallel array.
//
// Why this shape: cachegrind put the 8-ary heap's sift-down at a third of
// the engine's instructions (about 60 per level, most of them the
// tournament's compares and the index arithmetic that loads the winners'
// keys). With the 8 keys in one line, a level is one load and a reduction
// to the least key: on a CPU with AVX-512 that is a dozen instructions.
// The root's 64 children's keys are always in L1, and reducing them at once
// takes one level off the chain of dependent loads a pop walks (a run's
// heap holds about 600 events: two 8-ary levels below the root instead of
// three).
// Slots past the last event hold the largest key, so a partly filled last
// group needs no separate code.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace rdmasim {

class EventHandler;

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

// A near event as the heap hands it out.
struct NearEvent {
  uint64_t key;  // (time - epoch time) << kSeqBits | (seq - epoch seq)
  EventHandler* handler;
  uint64_t arg;
  uint64_t kind;
};

class NearHeap {
 public:
  // Keys are stored shifted left by kLaneBits, the low bits zero, so that a
  // sift-down can OR each child's number among its siblings (0..63 under the
  // root, 0..7 elsewhere) into its key: the least tagged key then names its
  // own child, with no search for it.
  static constexpr int kLaneBits = 6;
  // The largest key a push takes: stored and tagged with any lane, it stays
  // below the vacant marker.
  static constexpr uint64_t kMaxKey = (uint64_t{1} << (64 - kLaneBits)) - 2;

  // Whether this CPU can run the AVX-512 sift-down.
  static bool cpu_has_avx512();
  // The AVX-512 sift-down where the CPU has it (`use_avx512` false: the
  // scalar one, for tests); the two lay the heap out differently but pop
  // the same events in the same order.
  explicit NearHeap(bool use_avx512 = true);
  // Precondition: key <= kMaxKey, and every key pushed is distinct. Inlined
  // with EventQueue::push_at_seq, its caller on every event.
  [[gnu::always_inline]] void push(uint64_t key, EventHandler* h, uint32_t kind, uint64_t arg) {
    assert(key <= kMaxKey && (reinterpret_cast<uint64_t>(h) >> kKindShift) == 0);
    if (n_ + 1 + kPad + kArity > keys_.size()) grow();
    const uint64_t stored = key << kLaneBits;
    size_t i = n_++;
    // Rises in registers: the payload is written once, where it settles.
    while (i > 0) {
      const size_t parent = parent_of(i);
      const uint64_t pk = keys_[parent + kPad];
      if (!(stored < pk)) break;
      keys_[i + kPad] = pk;
      slots_[i + kPad] = slots_[parent + kPad];
      i = parent;
    }
    keys_[i + kPad] = stored;
    slots_[i + kPad] = Slot{pack(h, kind), arg};
  }
  [[nodiscard]] bool empty() const { return n_ == 0; }
  [[nodiscard]] bool uses_avx512() const { return avx512_; }
  [[nodiscard]] size_t size() const { return n_; }
  [[nodiscard]] uint64_t top_key() const { return keys_[kPad] >> kLaneBits; }
  [[nodiscard]] EventHandler* top_handler() const { return handler_of(slots_[kPad].handler_kind); }
  [[nodiscard]] uint64_t top_arg() const { return slots_[kPad].arg; }
  // Removes and returns the least event. Precondition: !empty().
  NearEvent pop() {
    const Slot s = slots_[kPad];
    const NearEvent top{keys_[kPad] >> kLaneBits, handler_of(s.handler_kind), s.arg,
                        s.handler_kind >> kKindShift};
    --n_;
    const uint64_t last_key = keys_[n_ + kPad];
    const Slot last = slots_[n_ + kPad];
    keys_[n_ + kPad] = kVacant;
    if (n_ == 0) return top;
    if (avx512_)
      sift_down_avx512(last_key, last);
    else
      sift_down_scalar(last_key, last);
    return top;
  }
  // Rewrites every key by `f(key)`; `f` must keep the keys' order.
  template <typename F>
  void rekey(F&& f) {
    for (size_t i = 0; i < n_; ++i) keys_[i + kPad] = f(keys_[i + kPad] >> kLaneBits) << kLaneBits;
  }

 private:
  struct Slot {
    uint64_t handler_kind;  // the handler's address, its kind in the top byte
    uint64_t arg;
  };
  static constexpr size_t kArity = 8;
  // With the AVX-512 sift-down the root has 64 children (8 lines of keys,
  // reduced in one step) and every other node 8: one level fewer on the
  // chain of dependent loads. The scalar sift-down keeps 8 at the root too:
  // reducing 64 keys costs it more than the level saves. Either way the
  // heap pops the same keys in the same order.
  static constexpr size_t kRootFanout = 64;
  static_assert(kRootFanout == size_t{1} << kLaneBits);
  // Node i >= 1 has children kArity * i + child_base() .. + kArity - 1.
  [[nodiscard]] size_t child_base() const { return root_fanout_ + 1 - kArity; }
  [[nodiscard]] size_t parent_of(size_t i) const {
    return i <= root_fanout_ ? 0 : (i - child_base()) / kArity;
  }
  // Marks a slot past the last event: above every stored key, tagged or not.
  static constexpr uint64_t kVacant = ~uint64_t{0};
  // Logical node i lives at index i + kPad: the root's children then sit
  // from index 8 (one or eight aligned lines), and so does every other node's
  // group of 8 (8i+57.. at 8i+64.. under a 64-way root, 8i+1.. at 8i+8..
  // under an 8-way one).
  static constexpr size_t kPad = kArity - 1;
  // User-space addresses on x86-64 and AArch64 Linux fit in 56 bits.
  static constexpr int kKindShift = 56;
  static uint64_t pack(EventHandler* h, uint32_t kind) {
    return reinterpret_cast<uint64_t>(h) | static_cast<uint64_t>(kind & 0xff) << kKindShift;
  }
  static EventHandler* handler_of(uint64_t hk) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address packed by pack()
    return reinterpret_cast<EventHandler*>(hk & ((uint64_t{1} << kKindShift) - 1));
  }
  void grow();
  // `stored`: the sifted event's key as stored (shifted, lane bits zero).
  void sift_down_scalar(uint64_t stored, Slot s);
  void sift_down_avx512(uint64_t stored, Slot s);

  size_t n_ = 0;
  std::vector<uint64_t, CacheAlignedAllocator<uint64_t>> keys_;
  std::vector<Slot, CacheAlignedAllocator<Slot>> slots_;
  bool avx512_;         // the CPU has AVX-512F and VL: a level's least key in one reduction
  size_t root_fanout_;  // kRootFanout with the AVX-512 sift-down, else kArity
};

}  // namespace rdmasim
