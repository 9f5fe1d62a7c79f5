// RCCC, UET's receiver-credit congestion control (UEC 1.0 congestion
// management): for incast, the receiver, which alone sees every sender that
// converges on it, shares its link among them. Here each receiving host
// keeps an in-flight budget of `budget_bdp` x its BDP (its NIC rate x the
// fabric's base RTT) and grants each active sender an equal share of it as
// a window: the sender keeps at most that many bytes in flight to it
// (besides its own congestion window, NSCC's when both run). A sender is
// active while packets it has posted to the receiver are still to arrive
// (what the credit_target of UET's request CC header tells the receiver).
// Grants travel in credit control packets, sent when a sender's share moves
// by at least one MTU: when a sender becomes active or idle, every active
// sender of that receiver is told. A new sender starts with
// `initial_credit` before its first grant arrives.
//
// Grants are windows rather than increments, so a lost credit packet costs
// nothing but the update it carried. An assumption where the specification
// (not public in full) may differ: credits are bytes in flight, not a rate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "engine/units.h"

namespace rdmasim {

struct RcccConfig {
  bool enabled = false;
  double budget_bdp = 1.5;     // a receiver's in-flight budget, in BDPs of its link
  int64_t initial_credit = 0;  // bytes a sender may send before its first grant; 0: one BDP / 4

  template <class V>
  void visit(V& v) {
    v.flag({"enabled",
            "receivers share their link among the senders converging on them by granting each a window "
            "(UET RCCC, for incast); a sender keeps within its grant and its congestion window"},
           enabled);
    if (!enabled) {
      for (const char* key : {"budget", "initial_credit"})
        v.refuse(key, "has no effect: RCCC is off (set fabric.rccc.enabled: true to use it)");
      return;
    }
    v.real({"budget",
            "a receiver's in-flight budget in BDPs of its link, shared equally among its active senders"},
           budget_bdp, 0.25, 16);
    v.size_or({"initial_credit", "bytes a sender may send before its first grant; auto: a quarter BDP"},
              initial_credit, "auto");
  }
};

class RcccScheduler {
 public:
  // `rates[h]`: host h's NIC rate. `mtu`: payload bytes per packet.
  RcccScheduler(const RcccConfig& cfg, Time base_rtt, const std::vector<Rate>& rates, int64_t mtu)
      : mtu_(mtu) {
    receivers_.resize(rates.size());
    int64_t min_bdp = -1;
    for (size_t h = 0; h < rates.size(); ++h) {
      const int64_t bdp = rates[h].bytes_in(base_rtt).count();
      receivers_[h].budget = static_cast<int64_t>(cfg.budget_bdp * static_cast<double>(bdp));
      min_bdp = min_bdp < 0 ? bdp : std::min(min_bdp, bdp);
    }
    initial_ = cfg.initial_credit > 0 ? cfg.initial_credit : std::max(mtu, std::max<int64_t>(min_bdp, 0) / 4);
  }

  [[nodiscard]] int64_t initial_credit() const { return initial_; }

  // A data packet of `flow` reached host `r`, which still expects `backlog`
  // packets of it. Calls grant(flow, bytes) for each sender whose share
  // moved by at least one MTU.
  template <class Grant>
  void on_arrival(int r, uint32_t flow, uint64_t backlog, Grant&& grant) {
    if (flow >= flows_.size()) flows_.resize(flow + 1);
    Receiver& rc = receivers_[static_cast<size_t>(r)];
    Flow& f = flows_[flow];
    const bool was = f.slot >= 0;
    if (backlog > 0 && !was) {
      f.slot = static_cast<int32_t>(rc.active.size());
      rc.active.push_back(flow);
    } else if (backlog == 0 && was) {
      const uint32_t last = rc.active.back();
      rc.active[static_cast<size_t>(f.slot)] = last;
      flows_[last].slot = f.slot;
      rc.active.pop_back();
      f.slot = -1;
      f.sent = 0;
    }
    if (rc.active.empty()) return;
    const int64_t share = std::max(mtu_, rc.budget / static_cast<int64_t>(rc.active.size()));
    const bool membership = was != (f.slot >= 0);
    if (membership) {
      for (const uint32_t a : rc.active) send_if_moved(a, share, grant);
    } else if (f.slot >= 0) {
      send_if_moved(flow, share, grant);
    }
  }

  [[nodiscard]] size_t active(int r) const { return receivers_[static_cast<size_t>(r)].active.size(); }
  [[nodiscard]] uint64_t grants_sent() const { return grants_; }

 private:
  struct Receiver {
    std::vector<uint32_t> active;
    int64_t budget = 0;
  };
  struct Flow {
    int32_t slot = -1;  // index in its receiver's active list
    int64_t sent = 0;   // the last grant sent
  };
  template <class Grant>
  void send_if_moved(uint32_t flow, int64_t share, Grant& grant) {
    Flow& f = flows_[flow];
    if (f.sent != 0 && std::abs(share - f.sent) < mtu_) return;
    f.sent = share;
    ++grants_;
    grant(flow, share);
  }

  int64_t mtu_;
  int64_t initial_ = 0;
  std::vector<Receiver> receivers_;
  std::vector<Flow> flows_;
  uint64_t grants_ = 0;
};

}  // namespace rdmasim
