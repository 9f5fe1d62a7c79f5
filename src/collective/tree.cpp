// Double binary tree AllReduce (NCCL 2.4+): servers form two binary trees,
// each carrying half of every channel's data; inside a server the GPUs form a chain
// to the server's tree endpoint (its leader). Per chunk: reduce up the chain,
// up the tree to the root, then broadcast down the tree and down each chain.
// Chunks pipeline: chunk q+1 climbs while chunk q descends.
#include <algorithm>

#include "collective/algorithms.h"

namespace rdmasim {

namespace {

// NCCL's binary tree over ranks 0..n-1 (src/graph/trees.cc ncclGetBtree):
// rank 0 is the root with one child; below it, a rank whose lowest set bit
// is b has the parent (r ^ b) | 2b (or r ^ b when that is out of range) and
// the children r - b/2 and r + b/2 (the latter shrunk into range). Odd ranks
// are leaves, so about half the ranks are leaves and the rest interior.
int btree_parent(int n, int r) {
  if (r == 0) return -1;
  int bit = 1;
  while (bit < n && (bit & r) == 0) bit <<= 1;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

}  // namespace

std::vector<int> binary_tree_parents(int n, int tree) {
  std::vector<int> parent(n, -1);
  for (int r = 0; r < n; ++r) {
    if (tree == 0) {
      parent[r] = btree_parent(n, r);
    } else if (n % 2 == 0) {
      // ncclGetDtree's second tree on an even count: the mirror image, so
      // the first tree's leaves (odd ranks) are its interior nodes.
      const int u = btree_parent(n, n - 1 - r);
      parent[r] = u < 0 ? -1 : n - 1 - u;
    } else {
      // On an odd count: the first tree shifted by one rank.
      const int u = btree_parent(n, (r - 1 + n) % n);
      parent[r] = u < 0 ? -1 : (u + 1) % n;
    }
  }
  return parent;
}

TreeShape tree_shape(int n, int tree) {
  TreeShape t;
  t.parent = binary_tree_parents(n, tree);
  t.children.resize(n);
  for (int s = 0; s < n; ++s)
    if (t.parent[s] < 0)
      t.root = s;
    else
      t.children[t.parent[s]].push_back(s);
  t.order.assign(1, t.root);
  for (size_t i = 0; i < t.order.size(); ++i)
    for (int ch : t.children[t.order[i]]) t.order.push_back(ch);
  return t;
}

namespace {

// One tree's share of a channel: `bytes` in `k` pipelined chunks, reduced up
// each server's chain to its leader, up the tree to the root, then down the
// tree and down each chain.
void add_tree_pass(PlanBuilder& b, int c, int64_t bytes_total, int64_t k, const TreeShape& tree,
                   const std::vector<int>& chain, const CommShape& shape) {
  const int N = shape.servers, G = shape.gpus;
  const std::vector<int>& parent = tree.parent;
  const std::vector<std::vector<int>>& children = tree.children;
  const int root = tree.root;
  const std::vector<int>& order = tree.order;
  for (int64_t q = 0; q < k; ++q) {
    const int64_t bytes = piece(bytes_total, k, q);
    std::vector<std::vector<uint32_t>> at_leader(N);  // reduce inputs arriving at each leader
    // Reduce up each chain: position G-1 -> ... -> 0.
    for (int s = 0; s < N; ++s) {
      uint32_t last = 0;
      for (int i = G - 1; i >= 1; --i) {
        const uint32_t t = b.add(shape.rank(s, chain[i]), shape.rank(s, chain[i - 1]), bytes, c);
        if (i < G - 1) b.edge(last, t);
        last = t;
      }
      if (G > 1) at_leader[s].push_back(last);
    }
    // Up the tree, leaves first.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int s = *it;
      if (parent[s] < 0) continue;
      const uint32_t t = b.add(shape.rank(s, chain[0]), shape.rank(parent[s], chain[0]), bytes, c);
      for (uint32_t d : at_leader[s]) b.edge(d, t);
      at_leader[parent[s]].push_back(t);
    }
    // Down the tree: the root starts once its reduction is complete.
    std::vector<std::vector<uint32_t>> ready(N);
    ready[root] = at_leader[root];
    for (int s : order) {
      // The leader's down step sends to its tree children and down its chain
      // in one pass over the data (NCCL's recvCopySend to every peer).
      const int sends = static_cast<int>(children[s].size()) + (G > 1 ? 1 : 0);
      for (int ch : children[s]) {
        const uint32_t t = b.add(shape.rank(s, chain[0]), shape.rank(ch, chain[0]), bytes, c);
        b.set_share(t, sends);
        for (uint32_t d : ready[s]) b.edge(d, t);
        ready[ch] = {t};
      }
      uint32_t last = 0;
      for (int i = 0; i + 1 < G; ++i) {
        const uint32_t t = b.add(shape.rank(s, chain[i]), shape.rank(s, chain[i + 1]), bytes, c);
        if (i == 0) {
          b.set_share(t, sends);
          for (uint32_t d : ready[s]) b.edge(d, t);
        } else {
          b.edge(last, t);
        }
        last = t;
      }
    }
  }
}

}  // namespace

Plan build_tree(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int G = shape.gpus;
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    // chain[i]: local GPU at chain position i; position 0 is the leader.
    std::vector<int> chain(G);
    for (int i = 0; i < G; ++i) chain[i] = (c + i) % G;
    // NCCL duplicates every tree channel (connect.cc connectTrees: channel c
    // runs the first tree and channel c + nChannels, on the same GPUs and
    // NIC, the second), so each leader's NIC carries both trees: interior in
    // one, a leaf in the other. A channel here stands for that pair and sends
    // half its data down each tree. A channel with less than a step for each
    // runs its own tree alone, as NCCL runs small operations on fewer
    // channels than it has (enqueue.cc), leaving the duplicates idle.
    const int halves = data >= 2 * r.step_bytes() ? 2 : 1;
    for (int h = 0; h < halves; ++h) {
      const int64_t half = piece(data, halves, h);
      const int64_t k = std::max<int64_t>(1, (half + r.step_bytes() - 1) / r.step_bytes());
      const TreeShape tree = tree_shape(shape.servers, (c + h) % 2);
      add_tree_pass(b, c, half, k, tree, chain, shape);
    }
  }
  return b.finish();
}

}  // namespace rdmasim
