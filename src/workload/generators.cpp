#include "workload/generators.h"

#include <algorithm>
#include <numeric>

namespace rdmasim {

std::vector<FlowSpec> make_incast(int num_hosts, int senders, int receiver, Bytes size, Time start,
                                  bool random, Rng& rng) {
  std::vector<int> pool;
  pool.reserve(static_cast<size_t>(num_hosts));
  for (int i = 1; i < num_hosts; ++i) pool.push_back((receiver + i) % num_hosts);
  if (random)
    for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[rng.below(i)]);
  std::vector<FlowSpec> out;
  out.reserve(static_cast<size_t>(std::max(senders, 0)));
  for (int i = 0; i < senders; ++i)
    out.push_back(FlowSpec{i, pool[i], receiver, 3, 4791, size.count(), start});
  return out;
}

std::vector<FlowSpec> make_permutation(int num_hosts, Bytes size, Time start, Rng& rng) {
  // Sattolo's algorithm: a uniformly random cyclic permutation has no fixed point.
  std::vector<int> dst(num_hosts);
  std::iota(dst.begin(), dst.end(), 0);
  for (size_t i = dst.size(); i > 1; --i) std::swap(dst[i - 1], dst[rng.below(i - 1)]);
  std::vector<FlowSpec> out;
  out.reserve(static_cast<size_t>(num_hosts));
  for (int s = 0; s < num_hosts; ++s) out.push_back(FlowSpec{s, s, dst[s], 3, 4791, size.count(), start});
  return out;
}

std::vector<FlowSpec> make_all_to_all(int num_hosts, Bytes size, Time start) {
  std::vector<FlowSpec> out;
  out.reserve(static_cast<size_t>(num_hosts) * (num_hosts - 1));
  for (int s = 0; s < num_hosts; ++s)
    for (int d = 0; d < num_hosts; ++d)
      if (s != d)
        out.push_back(FlowSpec{static_cast<int64_t>(out.size()), s, d, 3, 4791, size.count(), start});
  return out;
}

}  // namespace rdmasim
