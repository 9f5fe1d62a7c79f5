// plb: Protective Load Balancing (Qureshi et al., "PLB: Congestion Signals are
// Simple and Effective for Network Load Balancing", SIGCOMM 2022,
// doi:10.1145/3544216.3544226). A QP that sees sustained ECN congestion draws
// a new random entropy, so ECMP moves it to another path; "preferring idle
// periods to minimize transport interactions" (the paper's abstract).
//
// The rules, with the defaults of the authors' Linux implementation
// (net/ipv4/tcp_plb.c and the tcp_plb_* sysctls in
// Documentation/networking/ip-sysctl.rst):
//  - a round is one RTT of ACKs: it ends with the ACK that reaches the
//    sequence number that was next to send when it began;
//  - a round is congested when at least `congested_fraction` of its ACKs
//    carry ECN-Echo (tcp_plb_cong_thresh 128/256 = 0.5, K in the paper); a
//    clean round resets the count of consecutive congested rounds;
//  - after `rounds` consecutive congested rounds, the QP re-paths at the end
//    of a round with nothing in flight (tcp_plb_idle_rehash_rounds = 3, M in
//    the paper);
//  - after `forced_rounds` it re-paths even with packets in flight
//    (tcp_plb_rehash_rounds = 12, N in the paper: "a small value increases
//    the risk of retransmissions"). On RC with go-back-N a packet overtaken
//    on the new path is a sequence error: the responder NAKs and the
//    requester resends what was in flight. Off by default here, so RC only
//    re-paths when nothing is in flight and never reorders; set it to let a
//    QP that never idles (one long message) leave a hot path, paying one
//    go-back-N episode per forced move (irn or reorder-tolerant recovery
//    pay less);
//  - a retransmission timeout re-paths at once when `rto_repath` is set, as
//    Linux does at an RTO (tcp_write_timeout -> sk_rethink_txhash): the
//    resent packets leave a path that may have failed. Linux also suspends
//    congestion re-pathing for 60-120 s after an RTO
//    (tcp_plb_suspend_rto_sec), longer than any run here, so not modelled.
// The congestion signal is ECN-Echo on ACKs: the fabric needs a congestion
// control whose receiver feedback echoes ECN (dctcp), which the registry
// checks. The new entropy comes from the simulation's "plb" random stream.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "nic/path/path_signal.h"

namespace rdmasim {

struct PlbConfig {
  double congested_fraction = 0.5;
  uint32_t rounds = 3;
  uint32_t forced_rounds = 0;  // 0: never with packets in flight
  bool rto_repath = true;

  template <class V>
  void visit(V& v) {
    v.real({"congested_fraction",
            "a round is congested when this share of its ACKs carries ECN-Echo (K; tcp_plb_cong_thresh)"},
           congested_fraction, 0.0, 1.0);
    v.count({"rounds",
             "congested rounds in a row before a QP re-paths at a round end with nothing in flight (M)"},
            rounds, 1, 1000);
    v.count_or({"forced_rounds",
                "congested rounds in a row before a QP re-paths even with packets in flight (N); off: never"},
               forced_rounds, "off", 1, 1000);
    v.flag({"rto_repath",
            "a retransmission timeout draws a new entropy at once, as Linux does (sk_rethink_txhash)"},
           rto_repath);
  }
};

class PlbPaths {
 public:
  PlbPaths(const PlbConfig& cfg, uint64_t seed) : cfg_(cfg), rng_(seed, "plb") {}

  // QP ids arrive dense from 0; the first entropy is the QP's own (base).
  void connect(uint32_t qp, uint32_t base) {
    if (st_.size() <= qp) st_.resize(qp + 1);
    st_[qp].entropy = base;
  }
  [[nodiscard]] uint32_t entropy(uint32_t qp, uint32_t /*base*/, uint64_t /*seq*/) const noexcept {
    return st_[qp].entropy;
  }

  void on_ack(uint32_t qp, const PathAck& a) noexcept {
    State& s = st_[qp];
    ++s.acks;
    if (a.ecn_echo) ++s.marked;
    if (a.acked < s.round_end) return;  // the round goes on
    const bool congested = static_cast<double>(s.marked) >= cfg_.congested_fraction * s.acks;
    s.congested = congested ? std::min(s.congested + 1, kMaxCount) : 0;
    s.acks = 0;
    s.marked = 0;
    s.round_end = a.sent;
    if ((s.congested >= cfg_.rounds && !a.in_flight) ||
        (cfg_.forced_rounds != 0 && s.congested >= cfg_.forced_rounds))
      repath(s);
  }
  void on_rto(uint32_t qp) noexcept {
    if (cfg_.rto_repath) repath(st_[qp]);
  }

  [[nodiscard]] const PlbConfig& config() const noexcept { return cfg_; }
  // Re-paths so far, of one QP and of all.
  [[nodiscard]] uint64_t repaths(uint32_t qp) const noexcept { return st_[qp].repaths; }
  [[nodiscard]] uint64_t repaths() const noexcept { return repaths_; }
  [[nodiscard]] uint32_t congested_rounds(uint32_t qp) const noexcept { return st_[qp].congested; }

 private:
  static constexpr uint32_t kMaxCount = 1u << 20;
  struct State {
    uint32_t entropy = 0;
    uint32_t acks = 0;       // ACKs in the current round
    uint32_t marked = 0;     // of which with ECN-Echo
    uint32_t congested = 0;  // consecutive congested rounds
    uint64_t round_end = 0;  // the round ends when the ACKs reach it
    uint64_t repaths = 0;
  };
  void repath(State& s) noexcept {
    s.entropy = static_cast<uint32_t>(rng_() >> 32);
    s.congested = 0;
    ++s.repaths;
    ++repaths_;
  }

  PlbConfig cfg_;
  Rng rng_;
  std::vector<State> st_;
  uint64_t repaths_ = 0;
};

}  // namespace rdmasim
