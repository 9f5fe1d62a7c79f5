#include "engine/near_heap.h"

#include <algorithm>
#include <cassert>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdmasim {

bool NearHeap::cpu_has_avx512() {
#if defined(__x86_64__)
  // Also checks that the OS saves the AVX-512 registers. The init call makes
  // it safe from static initializers too.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
#else
  return false;
#endif
}

NearHeap::NearHeap(bool use_avx512)
    : avx512_(use_avx512 && cpu_has_avx512()), root_fanout_(avx512_ ? kRootFanout : kArity) {
  keys_.assign(size_t{1} << 12, kVacant);
  slots_.resize(keys_.size());
}

void NearHeap::grow() {
  keys_.resize(keys_.size() * 2, kVacant);
  slots_.resize(keys_.size());
}

void NearHeap::sift_down_scalar(uint64_t stored, Slot s) {
  const size_t child_base = this->child_base();
  size_t i = 0;
  for (;;) {
    const size_t first = kArity * i + child_base;
    if (first >= n_) break;
    // Vacant slots hold the largest key: a partly filled group needs no bound.
    const uint64_t* c = &keys_[first + kPad];
    // The least of the lane-tagged keys, pairwise (branch-free minimums).
    uint64_t t[kArity];
    for (size_t k = 0; k < kArity; ++k) t[k] = c[k] | k;
    for (size_t span = kArity / 2; span >= 1; span /= 2)
      for (size_t k = 0; k < span; ++k) t[k] = std::min(t[k], t[k + span]);
    // Keys are distinct, so a tag never decides between two of them, and a
    // tagged key compares with an untagged one as the keys do.
    if (!(t[0] < stored)) break;
    const size_t next = first + (t[0] & (kArity - 1));
    keys_[i + kPad] = t[0] & ~uint64_t{kArity - 1};
    slots_[i + kPad] = slots_[next + kPad];
    i = next;
  }
  keys_[i + kPad] = stored;
  slots_[i + kPad] = s;
}

#if defined(__x86_64__)
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own
// placeholder operand (GCC bug 105593); clang (the fuzz build) has no
// such warning and warns of an unknown one.
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace {
// The least of 8 keys: the lesser of each pair of halves, three times
// (narrow extracts have shorter latency than 512-bit shuffles on the CPUs
// measured).
__attribute__((target("avx512f,avx512vl,avx2"))) inline uint64_t least_of(__m512i c) {
  const __m256i m4 = _mm256_min_epu64(_mm512_castsi512_si256(c), _mm512_extracti64x4_epi64(c, 1));
  const __m128i m2 = _mm_min_epu64(_mm256_castsi256_si128(m4), _mm256_extracti128_si256(m4, 1));
  const __m128i m1 = _mm_min_epu64(m2, _mm_unpackhi_epi64(m2, m2));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(m1));
}
// Line `l` of the root's children, each key tagged with its child's number.
__attribute__((target("avx512f"))) inline __m512i root_line(const uint64_t* r, int l, __m512i lanes) {
  return _mm512_or_si512(_mm512_load_si512(r + 8 * l), _mm512_or_si512(lanes, _mm512_set1_epi64(8 * l)));
}
}  // namespace

__attribute__((target("avx512f,avx512vl,avx2"))) void NearHeap::sift_down_avx512(uint64_t stored, Slot s) {
  uint64_t* keys = keys_.data();
  Slot* slots = slots_.data();
  const size_t n = n_;
  // This path always runs the 64-way root.
  constexpr size_t child_base = kRootFanout + 1 - kArity;
  assert(this->child_base() == child_base);
  const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  // The root's 64 children: 8 lines, each lane tagged with its child's
  // number (line x 8 + lane); their lane-wise least, then the least of that.
  const uint64_t* r = keys + 1 + kPad;
  const __m512i m01 = _mm512_min_epu64(root_line(r, 0, lanes), root_line(r, 1, lanes));
  const __m512i m23 = _mm512_min_epu64(root_line(r, 2, lanes), root_line(r, 3, lanes));
  const __m512i m45 = _mm512_min_epu64(root_line(r, 4, lanes), root_line(r, 5, lanes));
  const __m512i m67 = _mm512_min_epu64(root_line(r, 6, lanes), root_line(r, 7, lanes));
  const uint64_t root_least =
      least_of(_mm512_min_epu64(_mm512_min_epu64(m01, m23), _mm512_min_epu64(m45, m67)));
  size_t i = 0;
  if (root_least < stored) {
    const size_t best = 1 + (root_least & (kRootFanout - 1));
    keys[kPad] = root_least & ~uint64_t{kRootFanout - 1};
    slots[kPad] = slots[best + kPad];
    i = best;
    for (;;) {
      const size_t first = kArity * i + child_base;
      if (first >= n) break;
      const uint64_t least = least_of(_mm512_or_si512(_mm512_load_si512(keys + first + kPad), lanes));
      if (!(least < stored)) break;
      const size_t next = first + (least & (kArity - 1));
      keys[i + kPad] = least & ~uint64_t{kArity - 1};
      slots[i + kPad] = slots[next + kPad];
      i = next;
    }
  }
  keys[i + kPad] = stored;
  slots[i + kPad] = s;
}
#pragma GCC diagnostic pop
#else
void NearHeap::sift_down_avx512(uint64_t key, Slot s) { sift_down_scalar(key, s); }
#endif

}  // namespace rdmasim
