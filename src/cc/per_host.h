// Congestion control whose parameters differ from one sending NIC to the
// next: the fabric's algorithm for most hosts, and the same algorithm with
// other parameters on the NICs a scenario misconfigures (misconfig: nic:
// with set: {dcqcn: ...}). Each connection is handled, for its whole life,
// by the instance of the host that sends on it (CcFlow::host).
#pragma once

#include <memory>
#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

class PerHostCongestionControl final : public CongestionControl {
 public:
  // `by_host[h]` runs host h's connections (nullptr: `base`). Every
  // instance runs the same algorithm, so feedback, CNP pacing at the
  // receiver and INT are the base's.
  PerHostCongestionControl(std::unique_ptr<CongestionControl> base,
                           std::vector<std::unique_ptr<CongestionControl>> by_host);

  [[nodiscard]] const char* name() const override { return base_->name(); }
  [[nodiscard]] const char* feedback() const override { return base_->feedback(); }
  [[nodiscard]] Time cnp_interval() const override { return base_->cnp_interval(); }
  [[nodiscard]] bool wants_int() const override { return base_->wants_int(); }
  void attach(CcHost* host) override;

  void on_connect(CcFlow& f) override { of(f).on_connect(f); }
  void on_send(CcFlow& f, int64_t payload) override { of(f).on_send(f, payload); }
  void on_ack(CcFlow& f, const AckSample& ack) override { of(f).on_ack(f, ack); }
  void on_cnp(CcFlow& f) override { of(f).on_cnp(f); }
  void on_loss(CcFlow& f) override { of(f).on_loss(f); }
  void on_rto(CcFlow& f) override { of(f).on_rto(f); }
  void on_timer(CcFlow& f, uint32_t tag) override { of(f).on_timer(f, tag); }

 private:
  CongestionControl& of(const CcFlow& f) {
    CongestionControl* c = static_cast<size_t>(f.host) < by_host_.size() ? by_host_[f.host].get() : nullptr;
    return c != nullptr ? *c : *base_;
  }
  std::unique_ptr<CongestionControl> base_;
  std::vector<std::unique_ptr<CongestionControl>> by_host_;
};

}  // namespace rdmasim
