#include "fabric/schema.h"

#include <array>
#include <initializer_list>
#include <type_traits>

#include "config/cfg_node.h"
#include "config/params.h"
#include "config/traffic_class_codec.h"

namespace rdmasim {
namespace {

using json = nlohmann::ordered_json;

// A small integer from a list element, e.g. a VL in [0, 7].
int list_int(const CfgNode& e, int lo, int hi, const std::string& what) {
  int v = -1;
  try {
    v = std::stoi(e.scalar());
  } catch (...) {
  }
  if (v < lo || v > hi || std::to_string(v) != e.scalar())
    throw e.error("", "expected " + what + " " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

// A fixed-length list of small integers in [Lo, Hi], echoed as a list.
template <typename T, size_t N, int Lo, int Hi, const char* Count, const char* Item>
struct IntArrayCodec {
  static void read(const CfgNode& n, const char* key, std::array<T, N>& x) {
    const auto l = n.list(key);
    if (l.size() != N) throw n.error(key, Count);
    for (size_t i = 0; i < N; ++i) x[i] = static_cast<T>(list_int(l[i], Lo, Hi, Item));
  }
  static json echo(const std::array<T, N>& x) {
    json a = json::array();
    for (const T v : x) a.push_back(v);
    return a;
  }
  static std::string form() {
    return "list of " + std::to_string(N) + " integers " + std::to_string(Lo) + ".." + std::to_string(Hi);
  }
};

// fabric.ib.sl2vl: one data VL per SL 0..15 (OpenSM qos_sl2vl).
constexpr char kSl2VlCount[] = "expected 16 VLs, one per SL 0..15";
constexpr char kDataVl[] = "a data VL";
using Sl2VlCodec = IntArrayCodec<uint8_t, kNumSls, 0, 7, kSl2VlCount, kDataVl>;

// fabric.ib.vl_buffer: a size, auto (0) or credit-loop (kVlBufferCreditLoop).
struct VlBufferCodec {
  static void read(const CfgNode& n, const char* key, uint32_t& x) {
    const std::string text = n.str(key);
    if (text == "auto") {
      x = 0;
      return;
    }
    if (text == "credit-loop") {
      x = kVlBufferCreditLoop;
      return;
    }
    int64_t v = 0;
    try {
      v = parse_bytes(text).count();
    } catch (const std::invalid_argument& err) {
      throw n.error(key,
                    std::string("expected a size, e.g. 64KiB, auto or credit-loop (") + err.what() + ")");
    }
    if (v <= 0 || v > (int64_t{1} << 30))
      throw n.error(key, "expected a size up to 1GiB, auto or credit-loop");
    x = static_cast<uint32_t>(v);
  }
  static json echo(uint32_t x) {
    if (x == 0) return "auto";
    if (x == kVlBufferCreditLoop) return "credit-loop";
    return format_bytes(Bytes(x));
  }
  static std::string form() { return "size | auto | credit-loop"; }
};

// fabric.ib.vlarb_high / vlarb_low: a VLArbitrationTable of "vl:weight" entries.
struct VlArbCodec {
  static void read(const CfgNode& n, const char* key, std::vector<VlArbEntry>& x) {
    std::vector<VlArbEntry> t;
    for (const auto& e : n.list(key)) {
      const std::string v = e.scalar();
      const auto colon = v.find(':');
      int vl = -1, w = -1;
      try {
        if (colon != std::string::npos) {
          vl = std::stoi(v.substr(0, colon));
          w = std::stoi(v.substr(colon + 1));
          if (std::to_string(vl) + ":" + std::to_string(w) != v) vl = -1;
        }
      } catch (...) {
        vl = -1;
      }
      if (vl < 0 || vl >= kNumVls || w < 0 || w > 255)
        throw e.error(
            "", "expected a 'vl:weight' entry with vl 0..7 and weight 0..255 (64-byte units), e.g. 1:4");
      t.push_back(VlArbEntry{static_cast<uint8_t>(vl), static_cast<uint8_t>(w)});
    }
    if (t.size() > 64) throw n.error(key, "expected at most 64 entries (IBTA Vol.1 §7.6.9)");
    x = std::move(t);
  }
  static json echo(const std::vector<VlArbEntry>& x) {
    json a = json::array();
    for (const VlArbEntry& e : x) a.push_back(std::to_string(e.vl) + ":" + std::to_string(e.weight));
    return a;
  }
  static std::string form() { return "list of up to 64 'vl:weight' entries, e.g. [0:32, 1:32]"; }
};

// fabric.scheduler.strict: the traffic classes served by strict priority.
struct StrictCodec {
  static void read(const CfgNode& n, const char* key, std::array<bool, kNumTcs>& x) {
    const uint8_t mask = read_tc_set(n, key);
    for (int tc = 0; tc < kNumTcs; ++tc) x[tc] = ((mask >> tc) & 1u) != 0;
  }
  static json echo(const std::array<bool, kNumTcs>& x) {
    json a = json::array();
    for (int tc = 0; tc < kNumTcs; ++tc)
      if (x[tc]) a.push_back(tc);
    return a;
  }
  static std::string form() { return "list of traffic classes 0..7, e.g. [7]"; }
};

// fabric.scheduler.weights: a DWRR weight per traffic class.
constexpr char kWeightsCount[] = "expected 8 DWRR weights, one per traffic class";
constexpr char kWeight[] = "a weight";
using WeightsCodec = IntArrayCodec<uint32_t, kNumTcs, 1, 1000, kWeightsCount, kWeight>;

// topology.switch.buffer: the shared buffer, "unlimited" on fabrics whose
// switches never drop for space (ideal; InfiniBand, where credits bound it).
struct BufferCodec {
  static void read(const CfgNode& n, const char* key, MmuConfig& m) {
    if (n.str(key) == "unlimited") {
      m.unlimited = true;
      return;
    }
    // A size on a fabric whose switches have no shared-buffer limit would be read and never used.
    if (m.unlimited)
      throw n.error(
          key,
          "has no effect: this profile's switches have no shared-buffer limit (ideal never drops; "
          "on InfiniBand credits bound each VL, see fabric.ib.vl_buffer): remove it or write unlimited");
    const Bytes b = n.bytes(key);
    if (b.count() < 1500) throw n.error(key, "expected a buffer of at least one MTU-sized frame (1500B)");
    m.buffer_bytes = static_cast<uint64_t>(b.count());
  }
  static json echo(const MmuConfig& m) {
    return m.unlimited ? std::string("unlimited") : format_bytes(Bytes(static_cast<int64_t>(m.buffer_bytes)));
  }
  static std::string form() { return "size of at least 1500B, e.g. 32MB | unlimited"; }
};

std::string recovery_name(LossRecovery r) {
  return r == LossRecovery::kIrn ? "irn" : r == LossRecovery::kGoBack0 ? "go-back-0" : "go-back-n";
}

// --- Transport: RC (IBTA Vol.1 ch. 9) and its loss recovery. -------------
template <typename V>
void visit_rc(V& v, RcConfig& rc) {
  v.size(Key{"mtu", "RC path MTU: payload bytes per data packet (the framing adds its headers)"}, rc.mtu);
  // InfiniBand's path MTU is at most 4096 B (IBTA Vol.1 §7.7.9), and RoCE
  // takes its MTU from the same enumeration (Annex A16/A17), whatever the
  // Ethernet MTU. Sizes that are no IBTA value (1000 B, as the HPCC and
  // DCQCN simulations use) stay open for comparisons with them.
  v.check(rc.mtu >= 64 && rc.mtu <= 4096, "mtu",
          "expected a payload MTU between 64B and 4096B, the largest path MTU of InfiniBand and RoCE (got " +
              std::to_string(rc.mtu) + "B)");
  v.choice(
      {"recovery",
       "how the requester resends losses: from the lost PSN, from its message's start, or IRN's SACK repair"},
      rc.recovery,
      {{"go-back-n", LossRecovery::kGoBackN},
       {"go-back-0", LossRecovery::kGoBack0},
       {"irn", LossRecovery::kIrn}});
  // IRN ACKs every packet and times out by its own two timeouts: these would do nothing under it.
  if (rc.recovery != LossRecovery::kIrn) {
    v.count({"ack_interval",
             "responder ACKs every N in-order packets and each message's end (IRN ACKs every packet)"},
            rc.ack_interval, 1, 1 << 20);
    v.time(
        {"rto", "local ACK timeout of go-back-N/0: no ACK progress for this long resends (IBTA §9.7.6.1.3)"},
        rc.rto);
    v.check(rc.rto >= Time::from_ns(100), "rto", "expected a retransmission timeout of at least 100ns");
  } else {
    for (const char* key : {"ack_interval", "rto"})
      v.refuse(key,
               "has no effect under fabric.recovery: irn (IRN ACKs every packet and times out after "
               "irn_rto_low/irn_rto_high)");
  }
  v.count({"rto_max_backoff",
           "doublings of the timeout over consecutive timeouts (rto x 2^n); ACK progress resets n"},
          rc.rto_max_backoff, 0, 20);
  v.count({"retry_limit",
           "timeouts in a row before a QP stops retrying (IBTA retry_cnt: it would enter error); 0: forever"},
          rc.retry_limit, 0, 1 << 20);
  v.count({"data_tc",
           "traffic class (the SL on InfiniBand) of QPs' data packets, READ requests and READ responses"},
          rc.data_tc, 0, 7);
  v.count({"ack_tc", "traffic class (the SL on InfiniBand) of the ACKs, NAKs and CNPs a responder returns"},
          rc.ack_tc, 0, 7);
  // IRN's window and timeouts (Mittal et al., SIGCOMM 2018) mean nothing to go-back-N/0.
  if (rc.recovery == LossRecovery::kIrn) {
    v.count_or(
        {"irn_window",
         "IRN: most packets a QP keeps in flight past its oldest unACKed PSN; auto: one BDP (IRN §3.1)"},
        rc.irn_window, "auto", 1, 1 << 24);  // auto: one BDP (Fabric)
    v.time({"irn_rto_low",
            "IRN timeout while at most 3 packets are outstanding (a tail loss has no later packet to NACK)"},
           rc.irn_rto_low, kPositive);
    v.time({"irn_rto_high",
            "IRN timeout while more than 3 packets are outstanding (Mittal et al., SIGCOMM 2018 §4.1)"},
           rc.irn_rto_high, kPositive);
  } else {
    for (const char* key : {"irn_window", "irn_rto_low", "irn_rto_high"})
      v.refuse(key, "has no effect: fabric.recovery is '" + recovery_name(rc.recovery) +
                        "' (set fabric.recovery: irn to use it)");
  }
}

// --- Ethernet switch: shared buffer, ECMP, the egress scheduler. ----------
template <typename V>
void visit_ethernet_switch(V& v, SwitchSettings& sw) {
  // Refused, and so left out of results.json's echo, where the buffer is
  // unlimited: an echo fed back as a scenario must load. A buffer made
  // unlimited by topology.switch.buffer is checked after loading
  // (check_unlimited_buffer, config/scenario.cpp).
  if (sw.mmu.unlimited)
    v.refuse(
        "buffer_alpha",
        "has no effect: the switch buffer is unlimited, so no queue is ever held to alpha x the free buffer");
  else
    v.real({"buffer_alpha",
            "dynamic threshold of lossy queues: one may grow while below alpha x free shared buffer "
            "(Choudhury-Hahne)"},
           sw.mmu.alpha, 1.0 / 128, 1e12);
  v.choice(
      {"ecmp_seed",
       "ECMP hash seed: one per switch (avoids polarization) or the same on every switch (reproduces it)"},
      sw.same_ecmp_seed, {{"per-switch", false}, {"same", true}});
  // Echoed only when on: the results of fabrics without it predate the key.
  if constexpr (std::is_same_v<V, ParamEcho>)
    if (!sw.adaptive_routing) return;
  v.flag({"adaptive_routing",
          "switches send each packet to the least-loaded of its equal-cost ports (Ethernet AR, as "
          "Spectrum-X-class switches); RC responders then place out-of-order packets"},
         sw.adaptive_routing);
}

template <typename V>
void visit_nic_jitter(V& v, NicJitter& j) {
  v.flag({"enabled", "add the variable delay; off: every message takes the fixed NIC latencies"}, j.enabled);
  if (!j.enabled) {
    for (const char* key : {"p50", "p99", "p999", "max"})
      v.refuse(key, "has no effect: NIC jitter is off (set fabric.nic_jitter.enabled: true to use it)");
    return;
  }
  v.time({"p50", "median extra delay per draw"}, j.p50);
  v.time({"p99", "99th-percentile extra delay per draw"}, j.p99);
  v.time({"p999", "99.9th-percentile extra delay per draw"}, j.p999);
  v.time({"max", "largest extra delay a draw can give"}, j.max);
  v.check(j.p50 <= j.p99, "p99", "expected p99 >= p50 (the quantiles of one distribution rise)");
  v.check(j.p99 <= j.p999, "p999", "expected p999 >= p99 (the quantiles of one distribution rise)");
  v.check(j.p999 <= j.max, "max", "expected max >= p999 (the quantiles of one distribution rise)");
}

template <typename V>
void visit_nic(V& v, NicConfig& nic) {
  v.time({"nic_tx_latency", "NIC delay from a doorbell (a posted WQE) until its first packet may leave"},
         nic.tx_latency);
  v.time({"nic_rx_latency", "NIC delay from a packet's arrival until the transport processes it"},
         nic.rx_latency);
  // Echoed only when on: the results of fabrics without it predate the key.
  if constexpr (std::is_same_v<V, ParamEcho>)
    if (!nic.jitter.enabled) return;
  v.block(Key{"nic_jitter",
              "variable host/NIC delay (doorbell, PCIe, CQE, polling) drawn per doorbell and per received "
              "packet, on top of nic_tx_latency and nic_rx_latency"},
          [&](auto& b) { visit_nic_jitter(b, nic.jitter); });
}

template <typename V>
void visit_scheduler(V& v, TcSchedulerConfig& s) {
  v.custom({"strict",
            "traffic classes served by strict priority (the higher class first) before DWRR serves the rest"},
           s.strict, StrictCodec{});
  v.custom(
      {"weights",
       "DWRR weight of each traffic class among the non-strict ones (weight x 1500 B quantum per round)"},
      s.weight, WeightsCodec{});
}

// --- PFC watchdog: storm detection and restoration per egress queue. -----
// Simulated runs last milliseconds, so the times go down to microseconds;
// the upper bounds are SONiC's (pfcwd: detection 100..5000 ms, restoration
// 100..60000 ms, polling at most 1000 ms).
template <typename V>
void visit_pfc_watchdog(V& v, PfcWatchdogConfig& w) {
  v.flag(
      {"enabled",
       "PFC watchdog on every switch egress queue of a lossless class: a queue paused by its peer without a "
       "break while holding packets is declared stormed, and restored when the pauses stop"},
      w.enabled);
  if (!w.enabled) {
    for (const char* key : {"detection_time", "restoration_time", "polling_interval", "action"})
      v.refuse(key,
               "has no effect: the PFC watchdog is off (set fabric.pfc.watchdog.enabled: true to use it)");
    return;
  }
  const auto in = [](Time t, Time hi) { return t >= Time::from_us(1) && t <= hi; };
  v.time({"detection_time",
          "how long a queue must stay paused with packets waiting before it is stormed (1us..5s)"},
         w.detection_time);
  v.check(in(w.detection_time, Time::from_s(5)), "detection_time",
          "expected a time from 1us to 5s (SONiC allows 100..5000 ms; microseconds for simulated runs)");
  v.time({"restoration_time",
          "how long a stormed queue must go without a pause in force before it is restored (1us..60s)"},
         w.restoration_time);
  v.check(in(w.restoration_time, Time::from_s(60)), "restoration_time",
          "expected a time from 1us to 60s (SONiC allows 100..60000 ms; microseconds for simulated runs)");
  v.time({"polling_interval",
          "how often the watchdog looks at the queues (detection lands up to one interval late; 1us..1s)"},
         w.polling_interval);
  v.check(in(w.polling_interval, Time::from_s(1)), "polling_interval",
          "expected a time from 1us to 1s (SONiC's largest polling interval is 1000 ms)");
  v.check(w.polling_interval <= w.detection_time && w.polling_interval <= w.restoration_time,
          "polling_interval",
          "expected at most detection_time and restoration_time (SONiC refuses a longer polling interval)");
  v.choice({"action",
            "what a stormed queue does: drop its packets and those arriving for it, or forward ignoring the "
            "peer's pauses"},
           w.action,
           {{"drop", PfcWatchdogConfig::Action::kDrop}, {"forward", PfcWatchdogConfig::Action::kForward}});
}

// --- Link layer: PFC (IEEE 802.1Qbb) on the lossless classes. -------------
template <typename V>
void visit_pfc(V& v, SwitchSettings& sw, uint8_t data_tc) {
  MmuConfig& m = sw.mmu;
  bool on = m.lossless_mask != 0;
  uint8_t classes = m.lossless_mask;
  v.flag(
      {"enabled",
       "PFC (IEEE 802.1Qbb): switches pause the upstream per priority instead of dropping lossless classes"},
      on);
  if (!on) {
    m.lossless_mask = 0;
    for (const char* key : {"classes", "xoff", "alpha", "xon_offset", "reserved", "headroom", "response_time",
                            "quanta", "refresh", "watchdog", "deadlock_detection"})
      v.refuse(key, "has no effect: PFC is off (set fabric.pfc.enabled: true to use it)");
    return;
  }
  v.tc_set(
      {"classes", "lossless traffic classes (PFC priorities); the other classes stay lossy and tail-drop"},
      classes);
  v.check(classes != 0 || m.lossless_mask == 0, "classes", "expected at least one lossless traffic class");
  m.lossless_mask = classes != 0 ? classes : static_cast<uint8_t>(1u << data_tc);
  v.size_or({"xoff",
             "shared buffer a PG (ingress port x priority) may use before it sends XOFF; dynamic: alpha x "
             "free buffer"},
            m.xoff_bytes, "dynamic");
  v.real({"alpha", "dynamic XOFF threshold as a multiple of the free shared buffer (when xoff is dynamic)"},
         m.pfc_alpha, 1.0 / 1024, 64.0);
  v.size(Key{"xon_offset",
             "XON goes upstream once the PG's shared use is this far below its XOFF threshold (hysteresis)"},
         m.xon_offset_bytes);
  v.size(Key{"reserved", "buffer guaranteed to each lossless PG, used before the shared pool"},
         m.pg_reserved_bytes);
  v.size_or({"headroom",
             "per-PG buffer for bytes arriving after XOFF; auto: rate x (2 x cable + pipeline + "
             "response_time) + 2 frames"},
            sw.pfc_headroom_bytes, "auto");
  // The reaction time only sizes the automatic headroom: with a given headroom it would do nothing.
  if (sw.pfc_headroom_bytes == 0)
    v.time({"response_time",
            "upstream's reaction time to XOFF that auto headroom covers (sizes headroom only; PAUSE acts on "
            "receipt)"},
           sw.pfc_response_time);
  else
    v.refuse("response_time", "has no effect: it only sizes headroom: auto, and headroom is given");
  v.count(
      {"quanta", "pause time each XOFF asks for, in quanta of 512 bit times at the link rate (XON sends 0)"},
      sw.pfc.quanta, 1, 0xFFFF);
  v.real({"refresh",
          "a still-paused PG re-sends XOFF after this share of the pause time, so the upstream never resumes "
          "early"},
         sw.pfc.refresh_fraction, 0.05, 0.95);
  v.block(Key{"watchdog", "PFC watchdog (storm detection and restoration) on the switches' lossless queues"},
          [&](auto& b) { visit_pfc_watchdog(b, sw.pfc_watchdog); });
  // 0s would end the run at the first instant a cycle is paused, which is
  // congestion, not a deadlock: time_or refuses it rather than read it as off.
  v.time_or({"deadlock_detection",
             "end the run as 'deadlock' when a cycle of egress queues has been paused, non-empty and not "
             "draining this long (cyclic buffer dependency); off: run on"},
            sw.pfc_deadlock_detection, "off");
}

// --- Congestion point: RED/ECN marking at switch egress. -----------------
// Why nothing the fabric runs reacts to a CE mark, or "" when something
// does: a congestion control fed by CNPs or ECN-Echo (DCQCN, DCTCP, NSCC),
// TCP answering ECN-Echo as a loss (RFC 3168, fabric.tcp.ecn, any iWARP
// congestion control), or REPS, which recycles only unmarked entropies.
std::string ecn_marks_unread(const FabricConfig& c) {
  const std::string signal = congestion_control_feedback(c);
  if (signal == "cnp" || signal == "ecn-echo") return "";
  if (c.transport == "iwarp" && c.tcp.ecn && c.cc != "none") return "";
  if (c.transport == "uet" && c.paths.name == "reps") return "";
  return "has no effect: nothing reacts to ECN marks on '" + c.name + "' (congestion control '" + c.cc +
         "' reads " + (signal == "none" ? std::string("no") : signal) + " feedback" +
         (c.transport == "iwarp" ? std::string(" and TCP's ECN is off (fabric.tcp.ecn)") : std::string()) +
         "): set fabric.cc to one that reads them (dcqcn, dctcp" +
         (c.transport == "uet" ? std::string(", nscc") : std::string()) + ")";
}

// `unread`: non-empty when nothing reacts to the marks (ecn_marks_unread):
// then a scenario's marking keys are refused, as marks nobody reads change
// only the mark counters. The echo still records what the switches run.
template <typename V>
void visit_red_ecn(V& v, EcnConfig& e, const std::string& unread = "") {
  v.flag({"enabled", "RED/ECN: switches set CE on ECT packets by egress queue length; false: no marking"},
         e.enabled);
  if (!e.enabled) {
    for (const char* key : {"kmin", "kmax", "pmax", "mark", "reference_rate"})
      v.refuse(key, "has no effect: ECN marking is off (set fabric.ecn.enabled: true to use it)");
    return;
  }
  if constexpr (!V::kEchoes) {
    if (!unread.empty()) {
      // Only a reader refuses enabled: true; the reference lists it as a key of every Ethernet fabric.
      if constexpr (V::kReads) v.refuse("enabled", unread);
      for (const char* key : {"kmin", "kmax", "pmax", "mark", "reference_rate"}) v.refuse(key, unread);
      return;
    }
  }
  v.size(Key{"kmin", "egress queue length (per port and class) at or below which RED marks nothing"},
         e.kmin_bytes);
  v.size(Key{"kmax",
             "queue length above which RED marks every packet; from kmin the probability rises linearly to "
             "pmax"},
         e.kmax_bytes);
  v.check(e.kmax_bytes >= e.kmin_bytes, "kmax",
          "expected kmax at or above kmin (kmax = kmin marks as a step at K)");
  v.real({"pmax", "RED marking probability at kmax (max_p)"}, e.pmax, 0.0, 1.0);
  v.choice({"mark",
            "when RED reads the queue: as the packet leaves it (HPCC simulator, DCQCN fluid model) or as it "
            "joins"},
           e.mark_on_dequeue, {{"dequeue", true}, {"enqueue", false}});
  v.rate_or({"reference_rate",
             "port rate kmin and kmax are given for; other ports scale them by their rate; none: same bytes "
             "on all"},
            e.reference_rate, "none");
}

// --- Ethernet: how switches route around a failed link. ----------------
template <typename V>
void visit_reroute(V& v, RerouteConfig& r) {
  v.time(
      {"link_detect", "loss of signal until the port is down at both ends (a link debounce timer adds here)"},
      r.link_detect);
  v.time({"local_repair", "port down until that switch's ECMP next-hop groups skip it"}, r.local_repair);
  v.time(
      {"bfd_interval",
       "BFD hello interval: a gray failure (faults[].silent) is noticed after bfd_multiplier missed hellos"},
      r.bfd_interval, kPositive);
  v.count({"bfd_multiplier", "BFD detect multiplier: hellos missed before the neighbour is declared down"},
          r.bfd_multiplier, 1, 255);
  v.time({"bgp_convergence",
          "detection until every switch forwards by routes recomputed without the link (BGP withdrawal, "
          "best-path, FIB update)"},
         r.bgp_convergence);
}

// --- InfiniBand: credit link layer per VL and the subnet manager. --------
template <typename V>
void visit_infiniband(V& v, InfinibandSettings& ib, uint32_t mtu_packet) {
  CreditConfig& cr = ib.credit;
  v.custom({"vl_buffer",
            "receive buffer per port and data VL, advertised as 64 B credits; auto: the 128 KiB (2048 "
            "credits) IBTA lets a receiver advertise, or one credit loop + 3 MTU packets where a long cable "
            "needs more; credit-loop: that loop alone, the least with which one flow never waits for credit"},
           cr.vl_buffer_bytes, VlBufferCodec{});
  v.check(cr.vl_buffer_bytes == 0 || cr.vl_buffer_bytes == kVlBufferCreditLoop ||
              (cr.vl_buffer_bytes >= mtu_packet && cr.vl_buffer_bytes <= (1u << 30)),
          "vl_buffer",
          "expected auto, credit-loop or a size between one MTU packet (" + std::to_string(mtu_packet) +
              "B) and 1GiB");
  v.time({"credit_update",
          "freed credits are batched up to this long into one FCP (at once when the VL drains); 0: FCP on "
          "every free"},
         cr.update_period);
  v.custom({"sl2vl", "the data VL each SL maps to, one table for every port (OpenSM qos_sl2vl)"}, cr.sl2vl,
           Sl2VlCodec{});
  v.custom(
      {"vlarb_high",
       "high-priority VLArbitrationTable of every switch and HCA port: VLs served by weighted round robin "
       "(IBTA §7.6.9, qos_vlarb_high)"},
      cr.vlarb_high, VlArbCodec{});
  v.custom(
      {"vlarb_low",
       "low-priority VLArbitrationTable, served when no high-priority VL is ready or high_limit is reached"},
      cr.vlarb_low, VlArbCodec{});
  v.count({"high_limit",
           "LimitOfHighPriority: 4 KiB units of high-priority data before a waiting low-priority packet; "
           "255: no limit"},
          cr.high_limit, 0, 255);
  SubnetManagerConfig& sm = ib.sm;
  v.choice({"routing", "OpenSM routing engine that computes every switch's linear forwarding table (LFT)"},
           sm.engine,
           {{"minhop", RoutingEngine::kMinHop},
            {"updn", RoutingEngine::kUpDown},
            {"ftree", RoutingEngine::kFtree}});
  v.flag(
      {"adaptive_routing",
       "switches pick among equal-cost ports per packet (AR); responders then accept out-of-order packets"},
      sm.adaptive);
  v.time({"sm_detection_delay",
          "time from a link failure until the subnet manager's heavy sweep sees it (trap + sweep start)"},
         sm.detection_delay);
  v.time({"sm_compute_time",
          "time from the subnet manager's sweep until the new LFTs are installed in the switches"},
         sm.compute_time);
  v.flag({"shield",
          "SHIELD self-healing: a switch whose LFT port is down uses another equal-cost port at once (FLFR), "
          "and one left without a port to some destinations tells its neighbours (FLFN)"},
         sm.shield);
  if (sm.shield) {
    v.time({"flfn_delay", "SHIELD: time for a fast link fault notification to reach and update a neighbour"},
           sm.flfn_delay);
  } else {
    v.refuse("flfn_delay", "has no effect: fabric.ib.shield is off");
  }
}

// A VL that no arbitration table serves never sends: refuse the
// configuration instead of letting its traffic wait forever.
std::string unserved_vl(const FabricConfig& c, std::initializer_list<uint8_t> sls) {
  const CreditConfig& cr = c.ib.credit;
  for (const uint8_t sl : sls) {
    const uint8_t vl = cr.sl2vl[sl & 15];
    bool served = false;
    for (const auto* t : {&cr.vlarb_high, &cr.vlarb_low})
      for (const VlArbEntry& e : *t) served = served || (e.vl == vl && e.weight > 0);
    if (!served)
      return "SL " + std::to_string(sl) + " maps to VL " + std::to_string(vl) +
             ", which has no entry with a weight above 0 in vlarb_high or vlarb_low";
  }
  return "";
}

// --- In-network aggregation: SHARP in the switches (sharp/sharp.h). ------
template <typename V>
void visit_sharp(V& v, SharpConfig& s) {
  v.flag({"enabled",
          "switches reduce collectives in the network (SHARP), what algo sharp runs on: InfiniBand profiles "
          "have it; true on Ethernet models a vendor extension (an assumption)"},
         s.enabled);
  if (!s.enabled) {
    for (const char* key :
         {"aggregation_efficiency", "switch_latency", "window", "max_groups_per_switch", "traffic_class"})
      v.refuse(key,
               "has no effect: in-network aggregation is off (set fabric.sharp.enabled: true to use it)");
    return;
  }
  v.real({"aggregation_efficiency", "share of the port rate at which a switch's aggregation unit reduces"},
         s.aggregation_efficiency, 0.01, 1.0);
  v.time({"switch_latency",
          "latency of a switch's aggregation unit, per reduced packet, on top of its pipeline"},
         s.switch_latency);
  v.size(
      {"window",
       "bytes a host may have outstanding in one operation (sent, result not back): what each switch of the "
       "tree buffers per operation"},
      s.window_bytes, int64_t{1} << 30, "expected a window of at least one byte");
  v.count({"max_groups_per_switch",
           "aggregation groups (one per communicator) a switch holds at once; a communicator that finds a "
           "switch full runs the ring instead"},
          s.max_groups_per_switch, 1, 1024);
  // Echoed only when set: the results of runs before the key carry SHARP in the data class.
  if constexpr (std::is_same_v<V, ParamEcho>)
    if (s.traffic_class < 0) return;
  v.custom(
      {"traffic_class",
       "class SHARP's packets travel in (IB SL, RoCE priority): its own SL lets VL arbitration shield it "
       "from other traffic; default: the fabric's data class"},
      s.traffic_class, TrafficClassCodec{});
}

// --- Transport: iWARP, RDMAP/DDP/MPA over the RNIC's TCP. ----------------
template <typename V>
void visit_iwarp(V& v, FabricConfig& c) {
  const std::string why = "applies to the RC transport (RoCEv2, InfiniBand); '" + c.name +
                          "' runs iWARP over TCP (see fabric.tcp)";
  for (const char* key : {"mtu", "recovery", "ack_interval", "rto", "rto_max_backoff", "retry_limit",
                          "ack_tc", "irn_window", "irn_rto_low", "irn_rto_high"})
    v.refuse(key, why);
  v.count({"data_tc", "traffic class of the connections' segments and of their ACKs"}, c.rc.data_tc, 0, 7);
  v.block(Key{"tcp", "TCP as the RNIC's offload engine runs it: segments, ACKs, timers, ECN"},
          [&](auto& b) { c.tcp.visit(b); });
}

// --- Transport: UET's Packet Delivery Sublayer. ----------------------------
template <typename V>
void visit_uet(V& v, FabricConfig& c) {
  const std::string why =
      "applies to the RC transport (RoCEv2, InfiniBand); '" + c.name + "' runs UET's PDS (see fabric.uet)";
  for (const char* key : {"mtu", "recovery", "ack_interval", "rto", "rto_max_backoff", "retry_limit",
                          "ack_tc", "irn_window", "irn_rto_low", "irn_rto_high"})
    v.refuse(key, why);
  v.refuse("tcp", "applies to iWARP profiles (iwarp-cubic, iwarp-dctcp), not '" + c.name + "'");
  v.count({"data_tc", "traffic class of the PDCs' data packets"}, c.rc.data_tc, 0, 7);
  v.block(
      Key{"uet", "UET Packet Delivery Sublayer: delivery mode, packet size, ACKs, SACK loss rule, timeout"},
      [&](auto& b) { c.uet.visit(b); });
  v.block(Key{"rccc", "UET receiver credits (RCCC): receivers share their link among converging senders"},
          [&](auto& b) { c.uet.rccc.visit(b); });
  v.check(!c.uet.rccc.enabled || c.uet.mode != DeliveryMode::kUud, "rccc",
          "RCCC grants follow acknowledged delivery; mode uud has none (expected rud, rod or rudi)");
  c.rc.mtu = c.uet.mtu;  // the packet size the fabric sizes buffers and BDPs by
  v.check(c.uet.mode != DeliveryMode::kUud || c.cc == "none", "cc",
          "mode uud returns no ACKs, so congestion control '" + c.cc +
              "' would never hear from the network "
              "(expected cc: none)");
}

// Packet trimming at the switches (net/congestion_point/trim).
template <typename V>
void visit_trim(V& v, TrimConfig& t) {
  v.flag({"enabled",
          "switches cut a data packet to its headers instead of dropping it (or once its queue passes the "
          "threshold) and forward it in a priority class; the target NACKs it at once"},
         t.enabled);
  if (!t.enabled) {
    for (const char* key : {"size", "threshold", "tc", "class_limit"})
      v.refuse(key, "has no effect: trimming is off (set fabric.trimming.enabled: true to use it)");
    return;
  }
  v.size(
      {"size", "bytes a trimmed packet keeps, FCS included: at least Ethernet, IPv4, UDP and the PDS header"},
      t.header_bytes, 1024);
  v.check(
      t.header_bytes >= Framing::kUetTrimMin, "size",
      "expected at least " + std::to_string(Framing::kUetTrimMin) +
          "B: a trimmed packet must keep Ethernet 14 + IPv4 20 + UDP 8 + PDS 12 + FCS 4 so the target can "
          "NACK it");
  v.size_or({"threshold",
             "egress class depth above which data is trimmed before it joins the queue; bdp: one "
             "bandwidth-delay product of the host link (VALIDATION D.12)"},
            t.threshold_bytes, "bdp");
  v.count({"tc", "traffic class trimmed headers ride (strict priority by default)"}, t.tc, 0, 7);
  v.size(
      {"class_limit",
       "bytes of trimmed headers one egress queues at most: the bounded share; beyond it a trim is a drop"},
      t.class_limit_bytes);
  v.check(t.class_limit_bytes >= t.header_bytes, "class_limit",
          "expected room for at least one trimmed header");
}

// The keys the flow-level model reads; any other fabric key a scenario sets
// would have no effect there and is refused (read_fabric_params).
constexpr std::string_view kFlowModelKeys[] = {
    "profile", "model", "flow_epoch", "mtu", "ack_interval", "nic_tx_latency", "nic_rx_latency", "ecmp_seed"};

template <typename V>
void visit_model(V& v, FabricConfig& c) {
  // Echoed only for flow-level runs: packet-level results predate the key.
  if constexpr (std::is_same_v<V, ParamEcho>)
    if (c.model == "packet") return;
  v.choice({"model",
            "packet: every packet through NICs, ports, queues and switches; flow: each flow a fluid at its "
            "max-min fair share of the links its packets would cross, and collectives and training "
            "iterations with each RDMA WRITE such a fluid (docs/FLOW_LEVEL.md)"},
           c.model, {"packet", "flow"});
  if (c.model == "flow") {
    v.time({"flow_epoch",
            "flow model: rates are recomputed at most this often (0: at every arrival and completion, exact "
            "max-min; larger: faster on huge runs, a new flow waits for the next recompute)"},
           c.flow_epoch);
  } else {
    v.refuse("flow_epoch", "applies to the flow-level model (set fabric.model: flow)");
  }
}

template <typename V>
void visit_fabric(V& v, FabricConfig& c) {
  visit_model(v, c);
  if (c.transport == "iwarp") {
    visit_iwarp(v, c);
  } else if (c.transport == "uet") {
    visit_uet(v, c);
  } else {
    visit_rc(v, c.rc);
    v.refuse("tcp", "applies to iWARP profiles (iwarp-cubic, iwarp-dctcp), not '" + c.name + "'");
  }
  if (c.transport != "uet") {
    v.refuse("uet", "applies to UET profiles (uet-nscc, uet-nscc-rccc), not '" + c.name + "'");
    v.refuse("rccc", "applies to UET profiles (uet-nscc, uet-nscc-rccc), not '" + c.name + "'");
    v.refuse("trimming", "applies to UET profiles: only UET's PDS NACKs a trimmed packet, and '" + c.name +
                             "' would take it as a loss");
  }
  const bool ib = c.ib.enabled;
  if (ib) {
    // InfiniBand links are lossless by credits, arbitrate VLs instead of
    // traffic classes, forward by the SM's LFTs and mark FECN through ibcc.
    const std::string why = "applies to Ethernet profiles; '" + c.name +
                            "' links are lossless by credit flow control (see fabric.ib, fabric.ibcc)";
    for (const char* key : {"buffer_alpha", "ecmp_seed", "scheduler", "pfc", "ecn"}) v.refuse(key, why);
    v.refuse("adaptive_routing", "applies to Ethernet profiles; InfiniBand's is fabric.ib.adaptive_routing");
  } else {
    visit_ethernet_switch(v, c.sw);
    v.check(!c.sw.adaptive_routing || c.transport == "rc" ||
                (c.transport == "uet" && c.uet.mode != DeliveryMode::kRod),
            "adaptive_routing",
            "adaptive routing reorders packets, and " + c.transport_label() +
                " takes reordering as loss (expected an RC transport, which places them as they come)");
  }
  visit_nic(v, c.nic);
  if (!ib) {
    v.block(Key{"scheduler",
                "egress arbiter between the 8 traffic classes of every switch port and of every NIC (ETS, as "
                "a NIC in DCBX willing mode takes its switch's)"},
            [&](auto& b) { visit_scheduler(b, c.sw.scheduler); });
    v.block(
        Key{"pfc",
            "priority flow control (IEEE 802.1Qbb) of the lossless classes, with thresholds per ingress PG"},
        [&](auto& b) { visit_pfc(b, c.sw, c.rc.data_tc); });
  }
  v.choice(
      {"cc", "congestion control each QP's sender runs; its parameters go in the block of the same name"},
      c.cc, congestion_control_names());
  v.check(c.cc != "ibcc" || ib, "cc",
          "'ibcc' (InfiniBand congestion control) needs an InfiniBand profile (ib-ndr, ib-hdr)");
  // A parameter block of an algorithm the fabric does not run would be silently ignored.
  for (const std::string& name : congestion_control_names())
    if (name != c.cc)
      v.refuse(name.c_str(), "has no effect: the fabric's congestion control is '" + c.cc +
                                 "' (set fabric.cc: " + name + " to use it)");
  if (congestion_control_has_params(c.cc))
    v.block(Key{c.cc.c_str(), "parameters of the congestion control that cc names"},
            [&](auto& b) { visit_congestion_control_params(c, b); });
  else
    v.refuse(c.cc.c_str(), "congestion control '" + c.cc + "' has no parameters");
  visit_path_selection(c, v);  // fabric.path_selection and its selector's block (fabric/parts.cpp)
  if (!ib)
    v.block(Key{"ecn", "RED/ECN marking at switch egress queues (the congestion point of DCQCN and DCTCP)"},
            [&](auto& b) { visit_red_ecn(b, c.sw.ecn, ecn_marks_unread(c)); });
  if (!ib && c.transport == "uet")
    v.block(Key{"trimming", "packet trimming at switch egress (UET): cut to headers instead of dropping"},
            [&](auto& b) { visit_trim(b, c.sw.trim); });
  // A congestion control whose signal the fabric never produces would run
  // as if the network were never congested.
  const std::string signal = congestion_control_feedback(c);
  const bool needs_marks = signal == "cnp" || signal == "ecn-echo";
  // A TCP receiver returns ACKs (with ECN-Echo when fabric.tcp.ecn is on), nothing else.
  if (c.transport == "iwarp") {
    v.check(signal == "none" || signal == "ecn-echo", "cc",
            "'" + c.cc + "' needs " + signal +
                " feedback, which TCP does not return (iWARP takes none, newreno, "
                "cubic or dctcp)");
    v.check(signal != "ecn-echo" || c.tcp.ecn, "cc",
            "'" + c.cc + "' reads ECN-Echo: set fabric.tcp.ecn: true (and fabric.ecn at the switches)");
  }
  if (ib) {
    v.check(!needs_marks || c.cc == "ibcc", "cc",
            "'" + c.cc +
                "' reacts to ECN marks, which InfiniBand switches do not make (they mark FECN for ibcc)");
    v.check(signal != "int-echo", "cc",
            "'" + c.cc + "' reads INT telemetry, which InfiniBand switches do not stamp");
  } else {
    v.check(!needs_marks || c.sw.ecn.enabled, "cc",
            "'" + c.cc + "' reacts to ECN marks, but ECN marking is off under '" + c.name +
                "' (set fabric.ecn.enabled: true and its thresholds)");
  }
  if (ib) {
    v.block(
        Key{"ib", "InfiniBand link layer (per-VL credits, VL arbitration) and the subnet manager's routing"},
        [&](auto& b) { visit_infiniband(b, c.ib, c.framing.data_wire(c.rc.mtu, true)); });
    const std::string why = unserved_vl(c, {c.rc.data_tc, c.rc.ack_tc});
    v.check(why.empty(), "ib", why);
    v.refuse("reroute", "applies to Ethernet profiles; on '" + c.name +
                            "' the subnet manager reroutes (fabric.ib.sm_detection_delay, sm_compute_time)");
  } else {
    v.refuse("ib", "applies to InfiniBand profiles (ib-ndr, ib-hdr), not '" + c.name + "'");
    v.block(
        Key{"reroute", "how switches route around a failed link: local ECMP repair, then BGP reconvergence"},
        [&](auto& b) { visit_reroute(b, c.reroute); });
  }
  v.block(Key{"sharp", "in-network aggregation in the switches (SHARP), used by collectives' algo sharp"},
          [&](auto& b) { visit_sharp(b, c.sharp); });
  if (ib && c.sharp.enabled && c.sharp.traffic_class >= 0) {
    const std::string why = unserved_vl(c, {static_cast<uint8_t>(c.sharp.traffic_class)});
    v.check(why.empty(), "sharp", why);
  }
  // RC responders place reordered packets only where the fabric reorders
  // them (Fabric turns accept_out_of_order on from the same settings).
  const bool reorders =
      c.transport == "rc" && (ib ? c.ib.sm.adaptive : c.sw.adaptive_routing || c.paths.name == "spray");
  if (reorders) {
    v.count({"reorder_nak",
             "out-of-order placement: a gap still open when a packet this many PSNs past it arrives is "
             "NAKed once as a loss (0: only the timeout recovers it)"},
            c.rc.reorder_nak, 0, 1 << 24);
  } else {
    v.refuse("reorder_nak",
             "has no effect: responders place packets out of order only with adaptive routing or spraying");
  }
}

template <typename V>
void visit_switch(V& v, SwitchSettings& sw) {
  v.choice(
      {"forwarding",
       "cut-through: a switch forwards once cut_through_bytes arrived; store-and-forward: the whole packet"},
      sw.cut_through, {{"store-and-forward", false}, {"cut-through", true}});
  v.time({"latency",
          "switch pipeline delay of every forwarded packet from ingress to egress (PFC and credit frames "
          "skip it)"},
         sw.latency);
  v.custom({"buffer", "shared packet buffer of each switch, over all its ports and traffic classes"}, sw.mmu,
           BufferCodec{});
  if (sw.cut_through) {
    v.size(Key{"cut_through_bytes",
               "bytes a cut-through switch receives (from the first bit) before it may start forwarding"},
           sw.cut_through_bytes);
    v.check(sw.cut_through_bytes >= 1 && sw.cut_through_bytes <= 9216, "cut_through_bytes",
            "expected between 1B and 9216B");
  } else {
    v.refuse("cut_through_bytes",
             "has no effect: the switches store and forward (set forwarding: cut-through to use it)");
  }
}

// topology.router: what the routers between two sites run. The keys a
// fabric has no use for are refused: no buffer on InfiniBand (credits bound
// each VL), no lossless choice without PFC.
template <typename V>
void visit_router(V& v, FabricConfig& cfg) {
  RouterSettings& r = cfg.router;
  v.time_auto({"latency",
               "a router's pipeline, ingress to egress; auto: the switches' on InfiniBand (an IB router is a "
               "switch forwarding by GRH, an assumption), 2 us on Ethernet (Juniper: fixed-pipeline routers "
               "1-2 us, Trio-class 8-10 us)"},
              r.latency);
  if (!cfg.ib.enabled) {
    v.size(Key{"buffer",
               "a router's shared packet buffer (assumption: 4 GiB, a deep-buffer DCI router; Jericho-class "
               "routers carry GBs of HBM)"},
           r.buffer_bytes);
  } else {
    v.refuse("buffer", "has no effect on InfiniBand: credits bound each VL (fabric.ib.vl_buffer)");
  }
  if (cfg.sw.mmu.lossless_mask != 0) {
    v.flag({"lossless",
            "whether the lossless class crosses the routed hop (PFC on the routers' ports, headroom for the "
            "long "
            "link); false: the site's lossless domain ends at its routers, which drop as lossy switches"},
           r.lossless);
  } else {
    v.refuse("lossless", "has no effect: this fabric has no PFC lossless class to extend across the routers");
  }
}

}  // namespace

void read_fabric_params(const CfgNode& fabric, FabricConfig& cfg) {
  // Writing an ecn block asks for marking: enabled defaults to true there.
  if (!cfg.ib.enabled && fabric.has("ecn")) cfg.sw.ecn.enabled = true;
  ParamReader r(fabric);
  visit_fabric(r, cfg);
  if (cfg.model != "flow") return;
  if (cfg.transport != "rc")
    throw fabric.error("model", "the flow-level model runs RC: RoCEv2, Ethernet and InfiniBand profiles; '" +
                                    cfg.name + "' is not one (its " + cfg.transport_label() +
                                    " is not modelled at flow level)");
  if (cfg.ib.enabled && cfg.ib.sm.adaptive)
    throw fabric.error("model",
                       "the flow-level model follows the subnet manager's LFTs, one port per "
                       "destination; '" +
                           cfg.name + "' uses adaptive routing (fabric.ib.adaptive_routing)");
  if (cfg.sw.adaptive_routing || cfg.paths.name != "per-connection")
    throw fabric.error("model", "the flow-level model follows ECMP with one path per QP; '" + cfg.name +
                                    "' uses adaptive routing or another path selection");
  for (const std::string& key : fabric.keys()) {
    bool used = false;
    for (const std::string_view k : kFlowModelKeys) used = used || key == k;
    if (!used)
      throw fabric.error(key,
                         "has no effect in the flow-level model (fabric.model: flow), which gives each "
                         "flow its max-min fair share of its links: queues, PFC, ECN, congestion "
                         "control and loss recovery are not modelled (use fabric.model: packet)");
  }
}

void read_device_params(const CfgNode& set, FabricConfig& cfg) {
  ParamReader r(set);
  if (set.has("mtu") || set.has("data_tc")) visit_rc(r, cfg.rc);
  if (set.has("pfc")) r.block(Key{"pfc"}, [&](auto& b) { visit_pfc(b, cfg.sw, cfg.rc.data_tc); });
  if (set.has("ecn")) {
    cfg.sw.ecn.enabled = true;  // as in fabric: writing the block asks for marking
    r.block(Key{"ecn"}, [&](auto& b) { visit_red_ecn(b, cfg.sw.ecn); });
  }
  if (congestion_control_has_params(cfg.cc))
    r.block(Key{cfg.cc.c_str()}, [&](auto& b) { visit_congestion_control_params(cfg, b); });
}

void read_router_params(const CfgNode& n, FabricConfig& cfg) {
  ParamReader r(n);
  visit_router(r, cfg);
  if (cfg.router.buffer_bytes < 1500)
    throw n.error("buffer", "expected at least one MTU-sized frame (1500B)");
}

namespace {

// The echo and the schema of what `visit` declares on a copy of x: the
// visits take the struct by reference, echo and schema do not write.
template <class T, class Visit>
json echo_with(const T& x, Visit visit) {
  T copy = x;
  json j = json::object();
  ParamEcho e(j);
  visit(e, copy);
  return j;
}

template <class T, class Visit>
std::vector<KeyInfo> schema_with(const T& x, Visit visit) {
  T copy = x;
  ParamSchema schema;
  visit(schema, copy);
  return schema.keys;
}

}  // namespace

Time router_latency(const FabricConfig& cfg) {
  if (cfg.router.latency != Time::never()) return cfg.router.latency;
  return cfg.ib.enabled ? cfg.sw.latency : Time::from_us(2);
}

nlohmann::ordered_json router_params_json(const FabricConfig& cfg) {
  return echo_with(cfg, [](auto& v, FabricConfig& c) { visit_router(v, c); });
}

std::vector<KeyInfo> router_param_schema(const FabricConfig& cfg) {
  return schema_with(cfg, [](auto& v, FabricConfig& c) { visit_router(v, c); });
}

nlohmann::ordered_json fabric_params_json(const FabricConfig& cfg) {
  return echo_with(cfg, [](auto& v, FabricConfig& c) { visit_fabric(v, c); });
}

void read_switch_params(const CfgNode& sw, SwitchSettings& cfg) {
  ParamReader r(sw);
  visit_switch(r, cfg);
}

nlohmann::ordered_json switch_params_json(const SwitchSettings& cfg) {
  return echo_with(cfg, [](auto& v, SwitchSettings& c) { visit_switch(v, c); });
}

std::vector<KeyInfo> fabric_param_schema(const FabricConfig& cfg) {
  return schema_with(cfg, [](auto& v, FabricConfig& c) { visit_fabric(v, c); });
}

std::vector<KeyInfo> switch_param_schema(const SwitchSettings& cfg) {
  return schema_with(cfg, [](auto& v, SwitchSettings& c) { visit_switch(v, c); });
}

std::vector<std::string> fabric_param_keys(const FabricConfig& cfg) {
  std::vector<std::string> keys;
  for (const auto& k : key_names(fabric_param_schema(cfg))) keys.push_back("fabric." + k);
  for (const auto& k : key_names(switch_param_schema(cfg.sw))) keys.push_back("topology.switch." + k);
  return keys;
}

}  // namespace rdmasim
