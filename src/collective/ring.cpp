// Ring algorithms (NCCL's default for large messages): AllReduce as a
// ReduceScatter pass followed by an AllGather pass around the same ring,
// 2(n-1) steps; AllGather and ReduceScatter alone, n-1 steps; Broadcast and
// Reduce as a pipelined chain along the ring. Each channel runs its own ring
// over its share of the data, with its own QPs.
#include <algorithm>

#include "collective/algorithms.h"
#include "collective/ring_pass.h"

namespace rdmasim {

std::vector<int> ring_order(const CommShape& shape, int channel) {
  std::vector<int> ring;
  ring.reserve(shape.ranks());
  const int g = shape.gpus;
  for (int s = 0; s < shape.servers; ++s)
    for (int i = 0; i < g; ++i) {
      // Even servers: c, c+1, ..., c-1; odd servers the reverse, c-1, ..., c.
      const int step = (s % 2 == 0 || shape.servers % 2 == 1) ? i : g - 1 - i;
      ring.push_back(shape.rank(s, (channel + step) % g));
    }
  return ring;
}

std::vector<std::vector<uint32_t>> ring_pass(PlanBuilder& b, const std::vector<int>& ring, int steps,
                                             int64_t data, int64_t chunk, int channel, int nranks,
                                             const std::vector<std::vector<uint32_t>>& entry) {
  const int m = static_cast<int>(ring.size());
  std::vector<std::vector<uint32_t>> exits(nranks);
  if (m < 2 || steps < 1) {
    for (int r : ring)
      if (!entry.empty()) exits[r] = entry[r];
    return exits;
  }
  const int64_t block_max = (data + m - 1) / m;
  const int64_t k = std::max<int64_t>(1, (block_max + chunk - 1) / chunk);
  // prev[p * k + q]: the transfer that delivered chunk q to position p in the last step.
  std::vector<uint32_t> prev(static_cast<size_t>(m) * k), cur(prev.size());
  for (int j = 0; j < steps; ++j) {
    for (int p = 0; p < m; ++p) {
      const int next = (p + 1) % m;
      const int blk = ((p - j) % m + m) % m;
      const int64_t block = piece(data, m, blk);
      for (int64_t q = 0; q < k; ++q) {
        const uint32_t t = b.add(ring[p], ring[next], piece(block, k, q), channel);
        b.set_part(t, q, k);
        if (j > 0) {
          b.edge(prev[p * k + q], t);
        } else if (!entry.empty()) {
          const auto& in = entry[ring[p]];
          if (static_cast<int64_t>(in.size()) == k) {
            b.edge(in[q], t);  // chunk-aligned: chunk q waits only for the entry's chunk q
          } else {
            for (uint32_t e : in) b.edge(e, t);
          }
        }
        cur[next * k + q] = t;
      }
    }
    std::swap(prev, cur);
  }
  for (int p = 0; p < m; ++p) exits[ring[p]].assign(prev.begin() + p * k, prev.begin() + (p + 1) * k);
  return exits;
}

void chain_pass(PlanBuilder& b, const std::vector<int>& chain, int64_t data, int64_t chunk, int channel) {
  const int m = static_cast<int>(chain.size());
  if (m < 2) return;
  const int64_t k = std::max<int64_t>(1, (data + chunk - 1) / chunk);
  std::vector<uint32_t> prev(k);
  for (int h = 0; h + 1 < m; ++h)
    for (int64_t q = 0; q < k; ++q) {
      const uint32_t t = b.add(chain[h], chain[h + 1], piece(data, k, q), channel);
      if (h > 0) b.edge(prev[q], t);
      prev[q] = t;
    }
}

Plan build_ring(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int n = shape.ranks();
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    std::vector<int> ring = ring_order(shape, c);
    switch (r.type) {
      case CollType::kAllReduce:
        ring_pass(b, ring, 2 * (n - 1), data, r.step_bytes(), c, n, {});
        break;
      case CollType::kAllGather:
      case CollType::kReduceScatter:
        ring_pass(b, ring, n - 1, data, r.step_bytes(), c, n, {});
        break;
      case CollType::kBroadcast:
      case CollType::kReduce: {
        const auto at = std::find(ring.begin(), ring.end(), r.root);
        std::rotate(ring.begin(), at, ring.end());  // root first
        if (r.type == CollType::kReduce) {
          std::reverse(ring.begin(), ring.end());  // root last
        }
        chain_pass(b, ring, data, r.step_bytes(), c);
        break;
      }
      default:
        break;
    }
  }
  return b.finish();
}

}  // namespace rdmasim
