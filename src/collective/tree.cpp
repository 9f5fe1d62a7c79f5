// Double binary tree AllReduce (NCCL 2.4+): servers form two binary trees,
// each carrying half of the channels; inside a server the GPUs form a chain
// to the server's tree endpoint (its leader). Per chunk: reduce up the chain,
// up the tree to the root, then broadcast down the tree and down each chain.
// Chunks pipeline: chunk q+1 climbs while chunk q descends.
#include <algorithm>
#include <functional>

#include "collective/algorithms.h"

namespace rdmasim {

std::vector<int> binary_tree_parents(int n, int tree) {
  std::vector<int> parent(n, -1);
  // In-order balanced tree over [lo, hi]: the middle is the root of the range.
  std::function<int(int, int)> build = [&](int lo, int hi) -> int {
    if (lo > hi) return -1;
    const int mid = (lo + hi) / 2;
    const int l = build(lo, mid - 1), r = build(mid + 1, hi);
    if (l >= 0) parent[l] = mid;
    if (r >= 0) parent[r] = mid;
    return mid;
  };
  build(0, n - 1);
  if (tree == 0) return parent;
  // The second tree relabels the first: node i plays node map(i). Of the
  // mirror (n-1-i) and the shift (i+1 mod n), keep the one whose leaves are
  // least often leaves of the first tree, so the two trees load nodes evenly.
  auto relabel = [&](auto map) {
    std::vector<int> t(n, -1);
    for (int i = 0; i < n; ++i) t[map(i)] = parent[i] < 0 ? -1 : map(parent[i]);
    return t;
  };
  auto shared_leaves = [&](const std::vector<int>& t) {
    std::vector<char> leaf0(n, 1), leaf1(n, 1);
    for (int i = 0; i < n; ++i) {
      if (parent[i] >= 0) leaf0[parent[i]] = 0;
      if (t[i] >= 0) leaf1[t[i]] = 0;
    }
    int c = 0;
    for (int i = 0; i < n; ++i) c += leaf0[i] && leaf1[i];
    return c;
  };
  const auto mirrored = relabel([n](int i) { return n - 1 - i; });
  const auto shifted = relabel([n](int i) { return (i + 1) % n; });
  return shared_leaves(shifted) < shared_leaves(mirrored) ? shifted : mirrored;
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

Plan build_tree(const PlanRequest& r, const CommShape& shape) {
  PlanBuilder b(r.channels);
  const int N = shape.servers, G = shape.gpus;
  for (int c = 0; c < r.channels; ++c) {
    const int64_t data = piece(r.bytes, r.channels, c);
    const int64_t k = std::max<int64_t>(1, (data + r.step_bytes() - 1) / r.step_bytes());
    const TreeShape tree = tree_shape(N, c % 2);
    const std::vector<int>& parent = tree.parent;
    const std::vector<std::vector<int>>& children = tree.children;
    const int root = tree.root;
    const std::vector<int>& order = tree.order;
    // chain[i]: local GPU at chain position i; position 0 is the leader.
    std::vector<int> chain(G);
    for (int i = 0; i < G; ++i) chain[i] = (c + i) % G;
    for (int64_t q = 0; q < k; ++q) {
      const int64_t bytes = piece(data, k, q);
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
      std::vector<uint32_t> up(N, 0);
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int s = *it;
        if (parent[s] < 0) continue;
        const uint32_t t = b.add(shape.rank(s, chain[0]), shape.rank(parent[s], chain[0]), bytes, c);
        for (uint32_t d : at_leader[s]) b.edge(d, t);
        at_leader[parent[s]].push_back(t);
        up[s] = t;
      }
      // Down the tree: the root starts once its reduction is complete.
      std::vector<std::vector<uint32_t>> ready(N);
      ready[root] = at_leader[root];
      for (int s : order) {
        for (int ch : children[s]) {
          const uint32_t t = b.add(shape.rank(s, chain[0]), shape.rank(ch, chain[0]), bytes, c);
          for (uint32_t d : ready[s]) b.edge(d, t);
          ready[ch] = {t};
        }
        uint32_t last = 0;
        for (int i = 0; i + 1 < G; ++i) {
          const uint32_t t = b.add(shape.rank(s, chain[i]), shape.rank(s, chain[i + 1]), bytes, c);
          if (i == 0) {
            for (uint32_t d : ready[s]) b.edge(d, t);
          } else {
            b.edge(last, t);
          }
          last = t;
        }
      }
    }
  }
  return b.finish();
}

}  // namespace rdmasim
