// SHARP / CollNet AllReduce (NCCL's CollNet algorithm): a ReduceScatter over
// NVLink inside each server, then every GPU's NIC streams its shard into the
// switches' aggregation tree, which returns the reduced shard to every NIC of
// that rail (sharp/sharp.h), then an AllGather over NVLink. Chunks pipeline
// through the three phases.
#include <algorithm>

#include "collective/algorithms.h"
#include "collective/ring_pass.h"

namespace rdmasim {

Plan build_sharp(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int N = shape.servers, G = shape.gpus, n = shape.ranks();
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    std::vector<std::vector<int>> local(N);
    for (int s = 0; s < N; ++s)
      for (int i = 0; i < G; ++i) local[s].push_back(shape.rank(s, (c + i) % G));
    std::vector<std::vector<uint32_t>> rs(n), agg(n);
    for (int s = 0; s < N; ++s) {
      const auto e = ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, {});
      for (int i = 0; i < n; ++i)
        if (!e[i].empty()) rs[i] = e[i];
    }
    const int64_t shard_max = (data + G - 1) / G;
    const int64_t k = std::max<int64_t>(1, (shard_max + r.step_bytes() - 1) / r.step_bytes());
    for (int g = 0; g < G; ++g) {
      const int64_t shard = piece(data, G, g);
      for (int64_t q = 0; q < k; ++q) {
        const uint32_t t = b.add_sharp(shape.rank(0, g), piece(shard, k, q), c);
        for (int s = 0; s < N; ++s) {
          const auto& in = rs[shape.rank(s, g)];
          if (static_cast<int64_t>(in.size()) == k) {
            b.edge(in[q], t);
          } else {
            for (uint32_t e : in) b.edge(e, t);
          }
          agg[shape.rank(s, g)].push_back(t);
        }
      }
    }
    for (int s = 0; s < N; ++s) ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, agg);
  }
  return b.finish();
}

}  // namespace rdmasim
