#include "mpi/collectives.h"

#include <bit>
#include <string_view>
#include <vector>

namespace rdmasim {
namespace {

void sendrecv(MpiBody& b, int peer, int64_t send, int64_t recv) {
  b.push_back(MpiStep::irecv(peer, recv));
  b.push_back(MpiStep::isend(peer, send));
  b.push_back(MpiStep::wait_all());
}

void reduce(MpiBody& b, int64_t bytes, const MpiConfig& c) {
  if (bytes > 0) b.push_back(MpiStep::compute(c.reduce_rate.tx_time(Bytes(bytes))));
}

// The largest power of two <= p.
int pof2_below(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p))); }

bool rabenseifner(int p, int64_t bytes, const MpiConfig& c) {
  // MPICH: above the short size, and only with at least one float per rank
  // of the power-of-two group to scatter.
  return bytes > c.allreduce_short.count() && bytes / 4 >= pof2_below(p);
}

}  // namespace

void append_barrier(MpiBody& b, int r, int p) {
  for (int k = 1; k < p; k *= 2) {
    b.push_back(MpiStep::irecv((r - k + p) % p, 0));
    b.push_back(MpiStep::isend((r + k) % p, 0));
    b.push_back(MpiStep::wait_all());
  }
}

const char* allreduce_algorithm(int p, int64_t bytes, const MpiConfig& c) {
  return rabenseifner(p, bytes, c) ? "rabenseifner" : "recursive_doubling";
}

void append_allreduce(MpiBody& b, int r, int p, int64_t bytes, const MpiConfig& c) {
  if (p == 1) return;
  const int pof2 = pof2_below(p);
  const int rem = p - pof2;
  // Fold: of the first 2*rem ranks, each even one hands its vector to the
  // odd one after it and sits out until the result comes back.
  int newrank = 0;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      b.push_back(MpiStep::isend(r + 1, bytes));
      b.push_back(MpiStep::wait_all());
      newrank = -1;
    } else {
      b.push_back(MpiStep::irecv(r - 1, bytes));
      b.push_back(MpiStep::wait_all());
      reduce(b, bytes, c);
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }
  auto real_rank = [&](int nr) { return nr < rem ? nr * 2 + 1 : nr + rem; };
  if (newrank >= 0) {
    if (!rabenseifner(p, bytes, c)) {
      for (int mask = 1; mask < pof2; mask <<= 1) {
        sendrecv(b, real_rank(newrank ^ mask), bytes, bytes);
        reduce(b, bytes, c);
      }
    } else {
      // Recursive halving: each round exchanges half of what is left and
      // reduces it; then recursive doubling gathers the pieces back.
      std::vector<int64_t> piece;
      int64_t left = bytes;
      for (int mask = 1; mask < pof2; mask <<= 1) {
        const int64_t keep = (newrank & mask) != 0 ? left - left / 2 : left / 2;
        const int64_t give = left - keep;
        sendrecv(b, real_rank(newrank ^ mask), give, keep);
        reduce(b, keep, c);
        piece.push_back(give);
        left = keep;
      }
      for (int mask = pof2 / 2, i = static_cast<int>(piece.size()) - 1; mask > 0; mask >>= 1, --i) {
        const int64_t give = piece[static_cast<size_t>(i)];
        sendrecv(b, real_rank(newrank ^ mask), left, give);
        left += give;
      }
    }
  }
  if (r < 2 * rem) {
    if (r % 2 == 1)
      b.push_back(MpiStep::isend(r - 1, bytes));
    else
      b.push_back(MpiStep::irecv(r + 1, bytes));
    b.push_back(MpiStep::wait_all());
  }
}

const char* alltoall_algorithm(int p, int64_t bytes, const MpiConfig& c) {
  if (bytes <= c.alltoall_short.count() && p >= 8) return "bruck";
  if (bytes <= c.alltoall_medium.count()) return "scattered";
  return "pairwise";
}

void append_alltoall(MpiBody& b, int r, int p, int64_t bytes, const MpiConfig& c) {
  const std::string_view algo = alltoall_algorithm(p, bytes, c);
  const Time own_copy = c.copy_rate.tx_time(Bytes(bytes));
  if (algo == "bruck") {
    // Local rotation, log2 p rounds each carrying the blocks whose index has
    // that bit set, and the inverse rotation.
    const Time rotate = c.copy_rate.tx_time(Bytes(bytes * p));
    b.push_back(MpiStep::compute(rotate));
    for (int k = 1; k < p; k *= 2) {
      int64_t blocks = 0;
      for (int i = 0; i < p; ++i)
        if ((i & k) != 0) ++blocks;
      b.push_back(MpiStep::irecv((r - k + p) % p, blocks * bytes));
      b.push_back(MpiStep::isend((r + k) % p, blocks * bytes));
      b.push_back(MpiStep::wait_all());
      // MPICH packs the blocks into a contiguous buffer and unpacks them after.
      b.push_back(MpiStep::compute(c.copy_rate.tx_time(Bytes(2 * blocks * bytes))));
    }
    b.push_back(MpiStep::compute(rotate));
    return;
  }
  b.push_back(MpiStep::compute(own_copy));
  if (algo == "scattered") {
    for (int i = 1; i < p; ++i) b.push_back(MpiStep::irecv((r - i + p) % p, bytes));
    for (int i = 1; i < p; ++i) b.push_back(MpiStep::isend((r + i) % p, bytes));
    b.push_back(MpiStep::wait_all());
    return;
  }
  const bool pof2 = std::has_single_bit(static_cast<unsigned>(p));
  for (int i = 1; i < p; ++i) {
    if (pof2) {
      sendrecv(b, r ^ i, bytes, bytes);
    } else {
      b.push_back(MpiStep::irecv((r - i + p) % p, bytes));
      b.push_back(MpiStep::isend((r + i) % p, bytes));
      b.push_back(MpiStep::wait_all());
    }
  }
}

}  // namespace rdmasim
