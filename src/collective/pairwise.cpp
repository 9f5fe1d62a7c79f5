// Point-to-point collectives: AllToAll as every rank sending its 1/n slice to
// every peer, peers in pairwise order (r+1, r+2, ...) as NCCL's grouped
// send/recv loop posts them; SendRecv (nccl-tests sendrecv_perf) as each rank
// sending its buffer to rank r+1. Slices are chunked and spread over channels;
// with PXN (algorithms.h) a chunk for another rail goes over NVLink first.
#include <algorithm>

#include "collective/algorithms.h"

namespace rdmasim {

Plan build_pairwise(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int n = shape.ranks();
  auto send = [&](int src, int dst, int64_t bytes) {
    const int64_t k = std::max<int64_t>(1, (bytes + r.step_bytes() - 1) / r.step_bytes());
    const int relay = shape.rank(src / shape.gpus, dst % shape.gpus);
    const bool via = r.pxn && src / shape.gpus != dst / shape.gpus && relay != src;
    for (int64_t q = 0; q < k; ++q) {
      const int c = static_cast<int>(q % r.channels);
      if (!via) {
        b.add(src, dst, piece(bytes, k, q), c);
        continue;
      }
      const uint32_t hop = b.add(src, relay, piece(bytes, k, q), c);
      b.edge(hop, b.add(relay, dst, piece(bytes, k, q), c));
    }
  };
  if (r.type == CollType::kSendRecv) {
    for (int src = 0; src < n; ++src)
      if (n > 1) send(src, (src + 1) % n, r.bytes);
  } else {
    for (int step = 1; step < n; ++step)
      for (int src = 0; src < n; ++src) send(src, (src + step) % n, piece(r.bytes, n, (src + step) % n));
  }
  return b.finish();
}

}  // namespace rdmasim
