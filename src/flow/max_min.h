// Max-min fair rates by progressive filling (Bertsekas and Gallager, Data
// Networks, §6.5.2): every flow's rate rises together until a link fills;
// the flows crossing it keep the rate they reached, and the rest go on.
//
// A flow loads each link it uses with a coefficient: 1 for the links its
// data crosses, a fraction for the links its ACKs cross back (ACK bytes per
// data byte), so a link carrying data one way and ACKs of other flows the
// other way fills as it does at packet level.
//
// The solver keeps its buffers between calls: after the first few solves it
// allocates nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rdmasim {

// One flow's use of the links: entries [begin, end) of the arrays given to solve().
struct LinkUse {
  uint32_t begin = 0;
  uint32_t end = 0;
};

class MaxMinSolver {
 public:
  // `capacity[l]` in any unit of rate; rates come out in the same unit.
  explicit MaxMinSolver(std::vector<double> capacity);

  // Sets rate[i] for every flow i of `flows`, each using links
  // link[e] with coefficient coef[e] for e in its range.
  void solve(std::span<const LinkUse> flows, std::span<const uint32_t> link, std::span<const float> coef,
             std::span<double> rate);

  // Links that filled (bottlenecks) in the last solve.
  [[nodiscard]] uint64_t levels() const { return levels_; }

 private:
  struct Entry {
    double level;
    uint32_t link;
    bool operator>(const Entry& o) const { return level > o.level || (level == o.level && link > o.link); }
  };
  void push(uint32_t l);

  std::vector<double> capacity_;
  std::vector<double> residual_;
  std::vector<double> weight_;      // Σ coefficients of the flows not yet fixed
  std::vector<uint32_t> unfixed_;   // how many such flows
  std::vector<uint32_t> stamp_;     // solve number that last reset the link
  std::vector<uint32_t> on_begin_;  // flows on link l: on_[on_begin_[l] .. on_begin_[l] + count)
  std::vector<uint32_t> on_fill_;
  std::vector<uint32_t> on_;
  std::vector<uint32_t> touched_;
  std::vector<char> fixed_;
  std::vector<Entry> heap_;
  uint32_t solve_ = 0;
  uint64_t levels_ = 0;
};

}  // namespace rdmasim
