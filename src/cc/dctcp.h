// DCTCP-style window control over RC (Alizadeh et al., SIGCOMM 2010), as the
// HPCC paper uses it for comparison: the responder echoes CE marks on ACKs;
// once per window the sender updates alpha <- (1-g) alpha + g F (F: share of
// ACKs that echoed CE) and, if any did, cuts the window by alpha/2; otherwise
// it grows by one packet per window. No slow start: a QP starts at one BDP,
// as RDMA NICs start at line rate.
//
// With `tcp` on it is DCTCP as RFC 8257 specifies it for TCP: the window
// starts small and slow-starts (one packet per packet acknowledged) until
// the first CE echo or loss, and a loss or timeout gets TCP's own answer
// (§3.4: halve once per window; a timeout restarts from one packet).
#pragma once

#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct DctcpConfig {
  double g = 1.0 / 16;          // DCTCP paper's estimation gain
  uint32_t initial_window = 0;  // packets; 0 = one BDP (set by the fabric)
  uint32_t min_window = 1;
  bool tcp = false;  // RFC 8257 over TCP: slow start and TCP's loss response

  // The fabric.dctcp keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.real(
        {"g",
         "gain in alpha <- (1-g) alpha + g F, F the share of a window's ACKs that echoed CE (DCTCP paper)"},
        g, 1e-6, 1.0);
    v.count_or({"initial_window", "window a QP starts with, in MTU packets; auto: one BDP (10 with tcp)"},
               initial_window, "auto", 1, 1 << 24);
    v.flag({"tcp",
            "RFC 8257 over TCP: slow start until the first mark or loss, and TCP's loss response; off: the "
            "HPCC paper's RDMA variant, which starts at its initial window and ignores losses"},
           tcp);
  }
};

class Dctcp final : public CongestionControl {
 public:
  explicit Dctcp(const DctcpConfig& cfg) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "dctcp"; }
  [[nodiscard]] const char* feedback() const override { return "ecn-echo"; }
  void on_connect(CcFlow& c) override;
  void on_ack(CcFlow& c, const AckSample& ack) override;
  void on_loss(CcFlow& c) override;
  void on_rto(CcFlow& c) override;

 private:
  struct State {
    double window = 0;
    double alpha = 0;
    uint64_t window_end = 0;  // PSN that closes the current observation window
    uint32_t acks = 0;
    uint32_t marked = 0;
    uint64_t last_una = 0;
    double ssthresh = 1e18;  // tcp: slow start below it
    uint64_t recover = 0;    // tcp: one loss response per window
  };
  void set_window(CcFlow& c, const State& s) const;
  DctcpConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
