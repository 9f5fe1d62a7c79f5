// Hierarchical collectives (as Horovod/NCCL's "NVLS-less" two-level scheme):
// a ReduceScatter over the GPUs of each server (NVLink), an AllReduce among
// the GPUs of the same local rank across servers (one rail each, so every
// NIC carries 1/G of the data), then an AllGather inside each server.
// AllGather / ReduceScatter use the inter-server pass and one local pass.
#include "collective/algorithms.h"
#include "collective/ring_pass.h"

namespace rdmasim {

Plan build_hierarchical(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int N = shape.servers, G = shape.gpus, n = shape.ranks();
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    std::vector<std::vector<int>> local(N), rail(G);
    for (int s = 0; s < N; ++s)
      for (int i = 0; i < G; ++i) local[s].push_back(shape.rank(s, (c + i) % G));
    for (int g = 0; g < G; ++g)
      for (int s = 0; s < N; ++s) rail[g].push_back(shape.rank((s + c) % N, g));
    auto merge = [&](std::vector<std::vector<uint32_t>>& into,
                     const std::vector<std::vector<uint32_t>>& from) {
      for (int i = 0; i < n; ++i)
        if (!from[i].empty()) into[i] = from[i];
    };
    std::vector<std::vector<uint32_t>> deps(n);
    const int64_t shard = (data + G - 1) / G;
    switch (r.type) {
      case CollType::kAllReduce: {
        for (int s = 0; s < N; ++s)
          merge(deps, ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, {}));
        std::vector<std::vector<uint32_t>> mid(n);
        for (int g = 0; g < G; ++g)
          merge(mid, ring_pass(b, rail[g], 2 * (N - 1), shard, r.step_bytes(), c, n, deps));
        for (int s = 0; s < N; ++s) ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, mid);
        break;
      }
      case CollType::kReduceScatter: {
        // Local ReduceScatter of the whole buffer, then each rail reduce-scatters its shard.
        for (int s = 0; s < N; ++s)
          merge(deps, ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, {}));
        for (int g = 0; g < G; ++g) ring_pass(b, rail[g], N - 1, shard, r.step_bytes(), c, n, deps);
        break;
      }
      case CollType::kAllGather: {
        for (int g = 0; g < G; ++g)
          merge(deps, ring_pass(b, rail[g], N - 1, shard, r.step_bytes(), c, n, {}));
        for (int s = 0; s < N; ++s) ring_pass(b, local[s], G - 1, data, r.step_bytes(), c, n, deps);
        break;
      }
      default:
        break;
    }
  }
  return b.finish();
}

}  // namespace rdmasim
