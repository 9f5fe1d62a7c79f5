// rdmasim validate, §E (TCP / iWARP): the iWARP transport against the hand
// calculation (exact latency and goodput, as A.1/A.2 check RoCE), DCTCP's
// queue against the paper's own analysis, and TCP incast against Vasudevan
// et al.: what a min RTO of 200 ms costs synchronized reads, and 200 us saves.
#include "validate/iwarp_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "validate/dcqcn_experiment.h"
#include "validate/recording_sink.h"
#include "validate/steady_share.h"

namespace rdmasim {
namespace {

using Sink = RecordingSink;

// One 1000 B Write and one 1000 B Read through one store-and-forward switch
// on iwarp-cubic: the frames by hand from the RFCs' header sizes (1098 B for
// the Write segment and the Read Response, 130 B for the Read Request, 84 B
// for the ACK), 80 ps a byte at 100 Gb/s, 1 us per link, the profile's RNIC
// latencies (Chelsio T5) at both ends and, for the Read, at the responder again.
void exact_cases(std::vector<ValidationResult>& out) {
  FabricConfig cfg = find_profile("iwarp-cubic").config;
  cfg.sw.cut_through = false;
  const int64_t tx = cfg.nic.tx_latency.ps(), rx = cfg.nic.rx_latency.ps(), sw = cfg.sw.latency.ps();
  auto one_way = [&](int64_t wire) { return 2 * (wire * 80 + 1'000'000) + sw + rx; };
  for (const Opcode op : {Opcode::kWrite, Opcode::kRead}) {
    Simulation sim(1);
    Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
    Sink s;
    QueuePair qp = f.verbs().create_qp(0, 1, &s, 3);
    if (op == Opcode::kWrite)
      qp.post_write(1000, 0);
    else
      qp.post_read(1000, 0);
    sim.run(Time::from_ms(1));
    const int64_t expect =
        op == Opcode::kWrite ? tx + one_way(1098) + one_way(84) : tx + one_way(130) + tx + one_way(1098);
    const int64_t got = s.done.empty() ? -1 : s.done[0].completed.ps();
    out.emplace_back(
        "E.iw",
        fmt::format("iwarp-cubic 1000 B {} completion, 1 switch", op == Opcode::kWrite ? "Write" : "Read"),
        fmt::format("{} ps", got), fmt::format("{} ps (exact)", expect),
        got == expect && f.check_invariants().empty());
  }
  // A long Write: line rate x 1440 / 1538 (payload per full segment over its
  // frame), the reverse ACKs costing the forward direction nothing; long
  // enough (10^6 segments) that CUBIC's slow start costs under 0.02%.
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Sink s;
  const int64_t bytes = int64_t{1440} * 1'000'000;
  f.verbs().create_qp(0, 1, &s, 3).post_write(bytes, 0);
  sim.run(Time::from_s(1));
  const double got = s.done.empty() ? 0 : bytes * 8.0 / (s.done[0].completed - s.done[0].posted).sec() / 1e9;
  const double expect = 100.0 * 1440 / 1538;
  out.emplace_back("E.iw", "iwarp-cubic single-flow goodput, 100G, 1500 MTU", fmt::format("{:.3f} Gb/s", got),
                   fmt::format("{:.3f} Gb/s +-0.1%", expect), std::abs(got / expect - 1) <= 0.001);
}

// §E.15: N long flows into one 10 Gb/s port, K = 65 segments. The paper's
// analysis (Alizadeh et al. 2010, §3.3) puts the queue between
// Q_max = K + N and Q_max - A, A = 1/2 sqrt(2N (C x RTT + K)) packets.
void dctcp_cases(std::vector<ValidationResult>& out) {
  for (const int n : {2, 10}) {
    Simulation sim(5);
    const FabricConfig cfg = find_profile("iwarp-dctcp").config;
    Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(10), Time::from_us(10)}), cfg);
    Sink s;
    std::vector<QueuePair> qps;
    for (int h = 1; h <= n; ++h) {
      qps.push_back(f.verbs().create_qp(h, 0, &s, 3));
      qps.back().post_write(int64_t{1} << 40, 0);
    }
    const Time half = Time::from_ms(50);
    QueueSampler q(sim, f.switches()[0]->mmu(), 0, 3, half, Time::from_us(1));
    const SteadyShare share = steady_share(sim, f, n, half);
    // The unloaded round trip: one full segment there and its ACK back,
    // less the sender's doorbell (the NIC's tx latency is not in TCP's RTT).
    const Time rtt = f.ideal_completion(qps[0].id(), Opcode::kWrite, 1440) - cfg.nic.tx_latency;
    const double seg = 1538;
    const double bdp = 10e9 * rtt.sec() / 8 / seg, k = 65;
    const double a = 0.5 * std::sqrt(2.0 * n * (bdp + k));
    const double qmax = k + n, qmin = qmax - a, mean = q.mean() / seg;
    const double payload_line = 10.0 * 1440 / 1538;
    const bool clean = f.switches()[0]->counters().buffer_drops == 0 && f.check_invariants().empty();
    out.emplace_back("E.15", fmt::format("DCTCP {} flows into 10G, K=65: mean queue (packets)", n),
                     fmt::format("{:.1f}", mean), fmt::format("[{:.1f}, {:.1f}] -10%", qmin, qmax),
                     clean && mean >= 0.9 * qmin && mean <= qmax);
    out.emplace_back("E.15", fmt::format("DCTCP {} flows into 10G: utilisation / Jain", n),
                     fmt::format("{:.1f}% / {:.3f}", 100 * share.total_gbps / payload_line, share.jain),
                     ">= 95% / >= 0.95",
                     clean && share.total_gbps >= 0.95 * payload_line && share.jain >= 0.95);
  }
}

}  // namespace

IncastPoint tcp_incast(int n, Time min_rto, int rounds) {
  // The client (host 0) reads 256 KiB from each of n servers at once, the
  // next block only when the last server's answer is in (a striped block
  // read, as in the paper); goodput = bytes read / time.
  struct Client : CompletionSink {
    std::vector<QueuePair> qps;
    int rounds_left = 0;
    size_t pending = 0;
    Time last;
    void post_round() {
      --rounds_left;
      pending = qps.size();
      for (QueuePair& q : qps) q.post_read(kIncastBlock, 0);
    }
    void on_complete(const Completion& c) override {
      last = c.completed;
      if (--pending == 0 && rounds_left > 0) post_round();
    }
  };
  Simulation sim(1);
  FabricConfig cfg = find_profile("iwarp-cubic").config;
  cfg.tcp.min_rto = min_rto;
  cfg.sw.mmu.buffer_bytes = kIncastBuffer;
  Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(10), Time::from_us(5)}), cfg);
  Client c;
  for (int h = 1; h <= n; ++h) c.qps.push_back(f.verbs().create_qp(0, h, &c, 3));
  c.rounds_left = rounds;
  c.post_round();
  sim.run(Time::from_s(100));
  IncastPoint p;
  p.n = n;
  p.completed = c.rounds_left == 0 && c.pending == 0;
  p.goodput_gbps = p.completed ? static_cast<double>(kIncastBlock) * 8 * n * rounds / c.last.sec() / 1e9 : 0;
  for (const QueuePair& q : c.qps) p.timeouts += q.stats().timeouts;
  p.invariants_ok = f.check_invariants().empty();
  return p;
}

void iwarp_cases(std::vector<ValidationResult>& out, bool full) {
  exact_cases(out);
  dctcp_cases(out);
  // §E.16: the incast curve. Collapse: goodput under a quarter of the
  // payload line rate at the largest N with a 200 ms floor; none: above
  // half of it at every N with 200 us.
  const double line = 10.0 * 1440 / 1538;
  for (const Time rto : {Time::from_ms(200), Time::from_us(200)}) {
    const bool coarse = rto == Time::from_ms(200);
    std::vector<IncastPoint> curve;
    for (int n = 1; n <= 48; ++n)
      if (full || n == 1 || n % 8 == 0 || n == 4) curve.push_back(tcp_incast(n, rto, 4));
    std::string measured;
    bool ok = true;
    double worst = line;
    for (const IncastPoint& p : curve) {
      ok = ok && p.completed && p.invariants_ok;
      worst = std::min(worst, p.goodput_gbps);
      if (full || p.n == 1 || p.n % 16 == 0 || p.n == 4 || p.n == 8)
        measured += fmt::format("{}{}:{:.2f}", measured.empty() ? "" : " ", p.n, p.goodput_gbps);
    }
    const double last = curve.back().goodput_gbps;
    out.emplace_back(
        "E.16",
        fmt::format("TCP incast N x 256 KiB reads, 10G, min RTO {}: Gb/s at N", coarse ? "200 ms" : "200 us"),
        measured,
        coarse ? fmt::format("collapse: < {:.2f} at N=48", line / 4)
               : fmt::format("no collapse: >= {:.2f} at every N", line / 2),
        ok && (coarse ? last < line / 4 : worst >= line / 2));
  }
}

}  // namespace rdmasim
