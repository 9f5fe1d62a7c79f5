// NVLink SHARP AllReduce (NCCL 2.18+, NVIDIA/nccl src/device/all_reduce.h
// runRing's NVLS and NVLS_TREE variants): the NVSwitch of a server reduces.
// Each channel's data is cut into one slice per GPU of the server; the GPU
// that owns a slice (NCCL's "head") has the switch read that slice from every
// GPU and return the sum (multimem.ld_reduce), then stores the result once
// for the switch to write into every GPU (multimem.st). Per GPU and
// direction that is S (N + 1) / N bytes of NVLink for S bytes on N GPUs,
// against a ring's 2 S (N - 1) / N.
//
// Across servers (NVLSTree, connect.cc): each head joins the heads of the
// same local index on the other servers in a double binary tree (channels
// alternate the two trees), over its own NIC. A head sends its server's sum
// of its slice up the tree once its children's have arrived; the root's sum
// comes back down, and each head stores it for its switch to multicast.
// With 2 servers each NIC sends and receives S / N.
//
// NVLS across servers (NCCL_ALGO=NVLS with CollNet, all_reduce.h's
// NVLS kernel with nNodes > 1): the heads of one local index reduce through
// the switches' SHARP tree instead of a host tree. Each head streams its
// server's sum of its slice into the rail's aggregation tree once and gets
// the total back (sharp/sharp.h), then its switch multicasts it: S / N per
// NIC and direction, half of NVLSTree's on more than two servers.
//
// ReduceScatter and AllGather (one server: NCCL runs them across servers
// only with CollNet; reduce_scatter.h / all_gather.h, NVLS variants): each
// GPU owns the slice of the output it keeps (ReduceScatter: the switch reads
// it from every GPU and returns the sum, ld_reduce) or it holds (AllGather:
// it stores its slice once and the switch writes it into every GPU, st).
#include <algorithm>

#include "collective/algorithms.h"

namespace rdmasim {

namespace {

Plan build_nvls_one_pass(const PlanRequest& r, const CommShape& shape, uint8_t kind) {
  PlanBuilder b(r.channels);
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    for (int l = 0; l < shape.gpus; ++l) {
      const int64_t slice = piece(data, shape.gpus, l);
      const int64_t k = std::max<int64_t>(1, (slice + r.step_bytes() - 1) / r.step_bytes());
      for (int64_t q = 0; q < k; ++q) b.add_nvls(shape.rank(0, l), piece(slice, k, q), c, kind);
    }
  }
  return b.finish();
}

Plan build_nvls_sharp(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int N = shape.servers, G = shape.gpus;
  std::vector<uint32_t> reduce(N);
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    for (int l = 0; l < G; ++l) {
      const int64_t slice = piece(data, G, l);
      const int64_t k = std::max<int64_t>(1, (slice + r.step_bytes() - 1) / r.step_bytes());
      for (int64_t q = 0; q < k; ++q) {
        const int64_t bytes = piece(slice, k, q);
        for (int s = 0; s < N; ++s) reduce[s] = b.add_nvls(shape.rank(s, l), bytes, c, kNvlsReduce);
        const uint32_t total = b.add_sharp(shape.rank(0, l), bytes, c);
        for (int s = 0; s < N; ++s) b.edge(reduce[s], total);
        for (int s = 0; s < N; ++s) b.edge(total, b.add_nvls(shape.rank(s, l), bytes, c, kNvlsMulticast));
      }
    }
  }
  return b.finish();
}

}  // namespace

Plan build_nvls(const PlanRequest& r, const CommShape& shape) {
  if (r.type == CollType::kReduceScatter) return build_nvls_one_pass(r, shape, kNvlsReduce);
  if (r.type == CollType::kAllGather) return build_nvls_one_pass(r, shape, kNvlsMulticast);
  if (r.algo == Algo::kNvls && shape.servers > 1) return build_nvls_sharp(r, shape);
  PlanBuilder b(r.channels);
  const int N = shape.servers, G = shape.gpus;
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    const TreeShape tree = tree_shape(N, c % 2);  // one server: a lone root
    const std::vector<int>& parent = tree.parent;
    const std::vector<std::vector<int>>& children = tree.children;
    const int root = tree.root;
    const std::vector<int>& order = tree.order;
    for (int l = 0; l < G; ++l) {
      const int64_t slice = piece(data, G, l);
      const int64_t k = std::max<int64_t>(1, (slice + r.step_bytes() - 1) / r.step_bytes());
      std::vector<uint32_t> reduce(N), up(N), down(N);
      for (int64_t q = 0; q < k; ++q) {
        const int64_t bytes = piece(slice, k, q);
        for (int s = 0; s < N; ++s) reduce[s] = b.add_nvls(shape.rank(s, l), bytes, c, kNvlsReduce);
        // Up the tree, children before parents: a head sends once its own
        // server's sum and its children's sums are in.
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
          const int s = *it;
          if (s == root) continue;
          up[s] = b.add(shape.rank(s, l), shape.rank(parent[s], l), bytes, c);
          b.edge(reduce[s], up[s]);
          for (int ch : children[s]) b.edge(up[ch], up[s]);
        }
        // The root holds the sum once its own and its children's are in; it
        // comes down the tree, and every head has its switch multicast it.
        auto after_total = [&](uint32_t t) {
          b.edge(reduce[root], t);
          for (int ch : children[root]) b.edge(up[ch], t);
        };
        for (int s : order) {
          if (s == root) continue;
          down[s] = b.add(shape.rank(parent[s], l), shape.rank(s, l), bytes, c);
          if (parent[s] == root)
            after_total(down[s]);
          else
            b.edge(down[parent[s]], down[s]);
        }
        for (int s = 0; s < N; ++s) {
          const uint32_t m = b.add_nvls(shape.rank(s, l), bytes, c, kNvlsMulticast);
          if (s == root)
            after_total(m);
          else
            b.edge(down[s], m);
        }
      }
    }
  }
  return b.finish();
}

}  // namespace rdmasim
