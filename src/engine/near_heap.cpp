#include "engine/near_heap.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdmasim {

bool NearHeap::cpu_has_avx512() {
#if defined(__x86_64__)
  // Also checks that the OS saves the AVX-512 registers. The init call makes
  // it safe from static initializers too.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0;
#else
  return false;
#endif
}

NearHeap::NearHeap(bool use_avx512) : avx512_(use_avx512 && cpu_has_avx512()) {
  keys_.assign(size_t{1} << 12, kVacant);
  slots_.resize(keys_.size());
}

void NearHeap::grow() {
  keys_.resize(keys_.size() * 2, kVacant);
  slots_.resize(keys_.size());
}

void NearHeap::sift_down_scalar(uint64_t key, Slot s) {
  size_t i = 0;
  for (;;) {
    const size_t first = kArity * i + 1;
    if (first >= n_) break;
    // Vacant slots hold the largest key: a partly filled group needs no bound.
    const uint64_t* c = &keys_[first + kPad];
    // A branch-free tournament for the least child.
    size_t w[kArity / 2];
    for (size_t k = 0; k < kArity / 2; ++k) w[k] = c[2 * k + 1] < c[2 * k] ? 2 * k + 1 : 2 * k;
    for (size_t span = kArity / 4; span >= 1; span /= 2)
      for (size_t k = 0; k < span; ++k) w[k] = c[w[2 * k + 1]] < c[w[2 * k]] ? w[2 * k + 1] : w[2 * k];
    const uint64_t least = c[w[0]];
    if (!(least < key)) break;
    const size_t best = first + w[0];
    keys_[i + kPad] = least;
    slots_[i + kPad] = slots_[best + kPad];
    i = best;
  }
  keys_[i + kPad] = key;
  slots_[i + kPad] = s;
}

#if defined(__x86_64__)
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own
// placeholder operand (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) void NearHeap::sift_down_avx512(uint64_t key, Slot s) {
  uint64_t* keys = keys_.data();
  Slot* slots = slots_.data();
  size_t i = 0;
  for (;;) {
    const size_t first = kArity * i + 1;
    if (first >= n_) break;
    const __m512i c = _mm512_load_si512(keys + first + kPad);
    // The least of the 8 keys into every lane: swap halves, then quarters,
    // then neighbours, keeping the lesser each time.
    __m512i m = _mm512_min_epu64(c, _mm512_shuffle_i64x2(c, c, 0x4e));
    m = _mm512_min_epu64(m, _mm512_shuffle_i64x2(m, m, 0xb1));
    m = _mm512_min_epu64(m, _mm512_shuffle_epi32(m, _MM_PERM_BADC));
    const auto least = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(m)));
    if (!(least < key)) break;
    // Keys are distinct (each holds its event's sequence): one lane matches.
    const size_t best = first + static_cast<size_t>(__builtin_ctz(_mm512_cmpeq_epu64_mask(c, m)));
    keys[i + kPad] = least;
    slots[i + kPad] = slots[best + kPad];
    i = best;
  }
  keys[i + kPad] = key;
  slots[i + kPad] = s;
}
#pragma GCC diagnostic pop
#else
void NearHeap::sift_down_avx512(uint64_t key, Slot s) { sift_down_scalar(key, s); }
#endif

}  // namespace rdmasim
