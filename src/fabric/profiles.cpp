#include "fabric/profiles.h"

#include <algorithm>
#include <stdexcept>

#include "config/params.h"
#include "config/units_parse.h"
#include "fabric/schema.h"

namespace rdmasim {
namespace {

// Sets the profile's citation for `key`, replacing one it inherited.
void cite(Profile& p, const std::string& key, std::string source) {
  for (ProfileSource& s : p.sources)
    if (s.key == key) {
      s.source = std::move(source);
      return;
    }
  p.sources.push_back({key, std::move(source)});
}

// Settings shared by every Ethernet-framed profile.
Profile ethernet_base(std::string name, std::string summary) {
  Profile p;
  p.name = std::move(name);
  p.family = "RoCEv2";  // RoCEv2 framing; lossless or not is the profile's choice
  p.summary = std::move(summary);
  p.config.name = p.name;
  p.config.framing = Framing::rocev2();
  p.sources = {
      {"fabric.framing",
       "Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4; RETH 16, AETH 4 (IBTA Vol.1 §9.3, Annex A17); "
       "preamble+SFD 8 + IFG 12 (IEEE 802.3 §4.4.2)"},
      {"fabric.mtu",
       "payload per packet used by the HPCC/DCQCN simulations (HPCC config.txt PACKET_PAYLOAD_SIZE)"},
      {"fabric.ack_interval", "ACK every packet, as the HPCC simulator's L2_ACK_INTERVAL 1"},
      {"fabric.rto",
       "IB local ACK timeout 4.096us x 2^10 (IBTA Vol.1 §9.7.6.1.3), above the 2.7 ms a 32 MiB buffer takes "
       "to drain at 100 Gb/s"},
      {"fabric.rto_max_backoff", "timeout doubles up to 8x (RoCE NIC adaptive retransmission)"},
      {"fabric.data_tc", "RoCE traffic class 3 (NVIDIA RoCE configuration guides)"},
      {"fabric.ack_tc", "ACK/NAK at high priority (HPCC simulator ACK_HIGH_PRIO 1, its DCQCN runs)"},
      {"fabric.buffer_alpha", "dynamic threshold alpha = 2^3 (SONiC egress_lossy_profile dynamic_th 3)"},
      {"topology.switch.buffer", "HPCC paper simulations: 32 MB shared buffer per switch"},
      {"topology.switch.latency", "switch pipeline latency off unless the scenario sets it"},
      {"topology.link.rate", "100GbE host links, as in the HPCC and DCQCN simulations"},
      {"topology.link.delay", "HPCC simulator fat-tree topology file: 1000ns per link (data/reference)"},
      {"topology.switch.forwarding", "ns-3 / HPCC simulator switches are store-and-forward"},
  };
  return p;
}

}  // namespace

// RoCEv2 as deployed for RDMA: PFC on the RDMA class with the HPCC
// simulator's dynamic threshold; the congestion control is added on top.
Profile lossless_rocev2(std::string name, std::string summary, std::vector<ProfileSource> more) {
  Profile p = ethernet_base(std::move(name), std::move(summary));
  FabricConfig& c = p.config;
  c.sw.mmu.lossless_mask = 1u << c.rc.data_tc;
  c.sw.mmu.xoff_bytes = 0;
  c.sw.mmu.pfc_alpha = 1.0 / 8;
  p.sources.push_back(
      {"fabric.pfc.classes", "RDMA on a lossless priority 3 (NVIDIA RoCE configuration guides)"});
  p.sources.push_back(
      {"fabric.pfc.xoff", "HPCC simulator: dynamic PFC threshold (USE_DYNAMIC_PFC_THRESHOLD 1)"});
  p.sources.push_back(
      {"fabric.pfc.enabled", "RoCE for RDMA runs lossless (NVIDIA RoCE configuration guides)"});
  p.sources.push_back({"fabric.pfc.alpha", "HPCC simulator: XOFF at free buffer / 8"});
  p.sources.push_back(
      {"fabric.pfc.headroom", "rate x (2 x cable delay + 1us response) + 2 max frames (802.1Qbb Annex N)"});
  p.sources.insert(p.sources.end(), more.begin(), more.end());
  return p;
}

// ACKs in the data class, queued behind data at every switch: how the HPCC
// simulator runs HPCC (run.py ack_prio 0), and how RoCE NICs send them (on
// the QP's priority). Its DCQCN runs keep ACKs at high priority.
void acks_with_data(Profile& p) {
  p.config.rc.ack_tc = p.config.rc.data_tc;
  for (auto& d : p.sources)
    if (d.key == "fabric.ack_tc")
      d = {d.key, "ACKs in the data class: HPCC simulator run.py ack_prio 0 for HPCC (ACK_HIGH_PRIO 0)"};
}

// PFC, RED/ECN marking and DCQCN with the DCQCN paper's parameters.
Profile rocev2_dcqcn() {
  Profile p = lossless_rocev2(
      "rocev2-dcqcn",
      "RoCEv2 with PFC on traffic class 3, RED/ECN marking and DCQCN rate control (the DCQCN paper's "
      "reaction-point parameters); go-back-N recovery",
      {
          {"fabric.ecn.kmin", "HPCC simulator config.txt KMIN_MAP at 100 Gb/s"},
          {"fabric.ecn.kmax", "HPCC simulator config.txt KMAX_MAP at 100 Gb/s"},
          {"fabric.ecn.pmax", "HPCC simulator config.txt PMAX_MAP"},
          {"fabric.ecn.reference_rate", "thresholds scale with link rate, as HPCC's per-rate maps do"},
          {"fabric.ecn.mark",
           "HPCC simulator switch-node.cc marks in SwitchNotifyDequeue on the queue left behind; the DCQCN "
           "fluid model (Zhu et al., CoNEXT 2016) assumes a mark carries no queueing delay"},
          {"fabric.cc", "DCQCN (Zhu et al., SIGCOMM 2015), the congestion control RoCE NICs ship"},
          {"fabric.ecn.enabled", "RED/ECN marking: DCQCN's congestion point"},
      });
  FabricConfig& c = p.config;
  c.sw.ecn.enabled = true;
  c.sw.ecn.kmin_bytes = 400'000;
  c.sw.ecn.kmax_bytes = 1'600'000;
  c.sw.ecn.pmax = 0.2;
  c.sw.ecn.reference_rate = Rate::from_gbps(100);
  c.cc = "dcqcn";
  c.dcqcn = DcqcnConfig{};
  return p;
}

// DCQCN as ConnectX NICs run it and as the HPCC simulator models them (its
// CC_MODE 1): a marked packet notifies the sender at most once per
// microsecond per QP (the simulator echoes CE on every ACK and samples it every
// 1 us), the rate is cut at most every 4 us and first 4 us after the first
// notification, increases come from a 300 us timer alone, and the target rate
// is kept across back-to-back cuts.
Profile rocev2_dcqcn_mlx() {
  Profile p = rocev2_dcqcn();
  p.name = "rocev2-dcqcn-mlx";
  p.config.name = p.name;
  p.summary =
      "RoCEv2 with PFC on traffic class 3, RED/ECN marking and DCQCN as NVIDIA ConnectX NICs run it "
      "(the HPCC simulator's Mellanox-style DCQCN settings); go-back-N recovery";
  DcqcnConfig& d = p.config.dcqcn;
  d.alpha_timer = Time::from_us(1);
  d.increase_timer = Time::from_us(300);
  d.byte_counter = 0;
  d.fast_recovery_steps = 1;
  d.rate_ai = Rate::from_bps(20'000'000);
  d.rate_hai = Rate::from_bps(200'000'000);
  d.min_rate = Rate::from_bps(1'000'000'000);
  d.cnp_interval = Time::from_us(1);
  d.rate_decrease_interval = Time::from_us(4);
  d.clamp_target_rate = false;
  d.start_at_first_cnp = true;
  const char* src = "HPCC simulator's DCQCN (CC_MODE 1) settings, data/README.md";
  cite(p, "fabric.dcqcn.alpha_timer", std::string(src) + ": alpha resume interval");
  cite(p, "fabric.dcqcn.increase_timer", std::string(src) + ": rate-increase timer");
  cite(p, "fabric.dcqcn.byte_counter", std::string(src) + ": no byte counter");
  cite(p, "fabric.dcqcn.fast_recovery_steps", std::string(src) + ": fast-recovery times");
  cite(p, "fabric.dcqcn.rate_ai", src);
  cite(p, "fabric.dcqcn.rate_hai", src);
  cite(p, "fabric.dcqcn.cnp_interval",
       "the HPCC simulator echoes CE on the ACK of every packet and alpha samples it every 1 us "
       "(rdma-hw.cc UpdateAlphaMlx)");
  p.sources.push_back({"fabric.dcqcn.min_rate", src});
  p.sources.push_back(
      {"fabric.dcqcn.rate_decrease_interval",
       std::string(src) + ": rate-decrease interval (ConnectX rate_reduce_monitor_period 4)"});
  p.sources.push_back({"fabric.dcqcn.clamp_target_rate",
                       "HPCC simulator CLAMP_TARGET_RATE 0 (ConnectX clamp_tgt_rate 0, "
                       "clamp_tgt_rate_after_time_inc 1)"});
  p.sources.push_back(
      {"fabric.dcqcn.start_at_first_cnp",
       "HPCC simulator cnp_received_mlx: alpha = 1 and the RP timers start at the first CNP"});
  return p;
}

// PFC, step ECN marking and DCTCP window control, with the settings the HPCC
// simulator's run.py gives its DCTCP comparison.
Profile rocev2_dctcp() {
  Profile p = lossless_rocev2(
      "rocev2-dctcp",
      "RoCEv2 with PFC on traffic class 3, step ECN marking at K and DCTCP window control (the HPCC "
      "simulator's DCTCP comparison settings); go-back-N recovery",
      {
          {"fabric.ecn.kmin", "HPCC simulator run.py for dctcp: K = 30 KB x rate / 10 Gb/s"},
          {"fabric.ecn.kmax", "run.py: KMAX = KMIN, a step at K as in the DCTCP paper"},
          {"fabric.ecn.pmax", "run.py PMAX_MAP 1.0: every packet above K is marked"},
          {"fabric.ecn.reference_rate", "K scales with link rate, as run.py's per-rate map"},
          {"fabric.ecn.mark", "HPCC simulator switch-node.cc marks in SwitchNotifyDequeue"},
          {"fabric.cc", "DCTCP (Alizadeh et al., SIGCOMM 2010), the HPCC paper's window-based baseline"},
          {"fabric.ecn.enabled", "step ECN marking: DCTCP's congestion point"},
          {"fabric.dctcp.g", "DCTCP paper (Alizadeh et al., SIGCOMM 2010); run.py EWMA_GAIN 0.0625"},
      });
  FabricConfig& c = p.config;
  c.sw.ecn.enabled = true;
  c.sw.ecn.kmin_bytes = 300'000;
  c.sw.ecn.kmax_bytes = 300'000;  // a step: every packet that leaves more than K behind is marked
  c.sw.ecn.pmax = 1.0;
  c.sw.ecn.reference_rate = Rate::from_gbps(100);
  c.cc = "dctcp";
  c.dctcp = DctcpConfig{};
  // ACKs stay at high priority. The HPCC simulator queues its DCTCP's ACKs
  // with data (run.py ack_prio 0), but its DCTCP is rate-based under a window;
  // this one is a window DCTCP, and queued ACKs would add their own queueing
  // to its clock (measured on B.6: 3.35 / 4.52 against 2.6 / 3.8 published).
  for (auto& d : p.sources)
    if (d.key == "fabric.ack_tc")
      d.source +=
          "; the HPCC simulator's DCTCP (rate-based) queues ACKs with data, this window DCTCP does not";
  return p;
}

// PFC and HPCC window + pacing from INT, with the HPCC simulator's settings.
Profile rocev2_hpcc() {
  Profile p = lossless_rocev2(
      "rocev2-hpcc",
      "RoCEv2 with PFC on traffic class 3 and HPCC (INT telemetry per hop, window + pacing; the HPCC "
      "simulator's settings); go-back-N recovery",
      {
          {"fabric.ecn.enabled", "HPCC reacts to INT, not to ECN marks"},
          {"fabric.cc", "HPCC (Li et al., SIGCOMM 2019)"},
      });
  p.config.sw.ecn.enabled = false;
  p.config.cc = "hpcc";
  p.config.hpcc = HpccConfig{};
  acks_with_data(p);
  return p;
}

// The ConnectX NIC's share of one-way latency is not published per side;
// both sides are assumptions that move together within these bounds.
void nic_latency_range(Profile& p) {
  for (const char* key : {"fabric.nic_tx_latency", "fabric.nic_rx_latency"})
    p.ranges.push_back(
        {key, "200ns", "550ns",
         "low: an assumption for a PCIe Gen5 host with the WQE inlined; high: perftest ib_write_lat of 2 B "
         "through one HDR switch measures 1.26 us typical on ConnectX-6 HDR100 (UMD Zaratan cluster), "
         "which leaves about 1.1 us for the two NICs and hosts"});
}

// Host and NIC latency variability as bare-metal ConnectX hosts show it:
// the quantiles are chosen so that perftest write_lat on the model reproduces
// a published ConnectX-5 back-to-back run's spread above its minimum
// (rdmasim validate C.9: median +0.06, 99% +0.22, 99.9% +0.47 us); a
// ConnectX-7 run checks it independently there.
void host_jitter(Profile& p) {
  NicJitter& j = p.config.nic.jitter;
  j.enabled = true;
  j.p50 = Time::from_ns(5);
  j.p99 = Time::from_ns(120);
  j.p999 = Time::from_ns(300);
  j.max = Time::from_us(1);
  const std::string src =
      "per draw, fitted so perftest write_lat reproduces a published ConnectX-5 100GbE back-to-back run, "
      "8 B x 10000: t_min 0.93, typical 0.99, 99% 1.15, 99.9% 1.40 us (morrismeyer/warpforge "
      "holmes-lab/mark1/mellanox-perf/CONNECTX5.md @848da07); validate C.9";
  p.sources.push_back(
      {"fabric.nic_jitter.enabled",
       "realistic hosts: doorbell, PCIe and polling make every message's latency vary; off in "
       "the profiles that reproduce simulator results exactly"});
  for (const char* key :
       {"fabric.nic_jitter.p50", "fabric.nic_jitter.p99", "fabric.nic_jitter.p999", "fabric.nic_jitter.max"})
    p.sources.push_back({key, src});
}

// A 400 Gb/s AI-cluster deployment of a 100 Gb/s profile: 400G links with
// in-rack cables, 4096 B MTU, cut-through switches, and the NIC and switch
// latencies of real hardware, so that perftest and collectives compare with
// ib-ndr on the same terms (the 100G profiles keep the HPCC simulator's
// zero-latency, store-and-forward switches). ECN thresholds already scale
// with link rate.
Profile at_400g(Profile p) {
  p.name += "-400g";
  p.config.name = p.name;
  p.summary += "; 400 Gb/s links, 4096 B MTU, cut-through switches, NIC and switch latencies";
  FabricConfig& c = p.config;
  c.link = {Rate::from_gbps(400), Time::from_ns(25)};
  c.rc.mtu = 4096;
  c.sw.cut_through = true;
  c.sw.cut_through_bytes = 64;
  c.sw.latency = Time::from_ns(600);
  c.nic.tx_latency = Time::from_ns(300);
  c.nic.rx_latency = Time::from_ns(300);
  for (auto& d : p.sources) {
    if (d.key == "fabric.mtu")
      d = {d.key, "largest RoCE MTU; NVIDIA recommends 4096 for RDMA on 400GbE (ConnectX-7 docs)"};
    else if (d.key == "topology.link.rate")
      d = {d.key, "400GbE (ConnectX-7 / Spectrum-4 class)"};
    else if (d.key == "topology.link.delay")
      d = {d.key, "a 5 m in-rack cable at ~5 ns/m, as ib-ndr"};
    else if (d.key == "topology.switch.forwarding")
      d = {d.key, "Spectrum-class switches forward cut-through (NVIDIA Spectrum-4 announcement)"};
    else if (d.key == "topology.switch.latency")
      d = {d.key,
           "assumption: no port-to-port figure is published for Spectrum-4 or Tomahawk 5; with the NIC "
           "latencies "
           "it puts RoCE write "
           "latency at the low end of the 'tuned RoCE 1.5-2 us' class of VALIDATION.md C.9"};
  }
  p.ranges.push_back(
      {"topology.switch.latency", "250ns", "1us",
       "low: Broadcom's Tomahawk Ultra, 250 ns port-to-port, the lowest announced for a 51.2 Tb/s Ethernet "
       "switch "
       "(https://www.fs.com/blog/broadcom-tomahawk-ultra-redefines-ethernet-switching-for-ai-and-hpc-scaleup-"
       "b41439.html); high: an assumption for deep-buffer switches"});
  p.sources.push_back(
      {"fabric.nic_tx_latency", "assumption, the same ConnectX-7 NIC as ib-ndr: no published tx/rx split"});
  p.sources.push_back({"fabric.nic_rx_latency", "assumption: see nic_tx_latency"});
  nic_latency_range(p);
  host_jitter(p);
  if (c.sw.mmu.lossless_mask != 0) {
    // IEEE 802.3 Annex 31B.3.7: a 400GBASE port must stop within 905 pause
    // quanta of 512 bit times (the table SONiC sizes headroom from).
    c.sw.pfc_response_time = Time::from_ps(905LL * 512 * 1'000'000'000'000 / 400'000'000'000);
    cite(p, "fabric.pfc.response_time",
         "IEEE 802.3 Annex 31B.3.7 at 400 Gb/s: 905 quanta of 512 bit times (sonic-swss "
         "cfgmgr/buffer_headroom_mellanox.lua pause-quanta table)");
    cite(p, "fabric.pfc.headroom",
         "rate x (2 x cable delay + 802.3 31B response + pipeline) + 2 max frames (802.1Qbb Annex N)");
  }
  return p;
}

// DCQCN as ConnectX NICs ship it, on the switches' vendor-default ECN
// thresholds: the 400G RoCE deployment the 100G paper parameters are not.
// The firmware's reaction point cuts at most every 4 us, raises the rate on a
// 300 us timer and after every 32767 bytes sent (so a throttled QP recovers
// within microseconds, not the paper's 10 MB), and its notification point
// sends at most one CNP per 4 us per QP.
Profile rocev2_dcqcn_400g() {
  Profile p = at_400g(rocev2_dcqcn());
  p.summary =
      "RoCEv2 with PFC on traffic class 3, RED/ECN marking at the NVIDIA switch defaults and DCQCN with "
      "the ConnectX firmware defaults; go-back-N recovery; 400 Gb/s links, 4096 B MTU, cut-through "
      "switches, NIC and switch latencies";
  DcqcnConfig& d = p.config.dcqcn;
  d.g = 5.0 / 1024;  // alpha <- (1019 alpha + 5 [CNP]) / 1024
  d.alpha_timer = Time::from_us(1);
  d.initial_alpha = 1023.0 / 1024;
  d.rate_decrease_interval = Time::from_us(4);
  d.increase_timer = Time::from_us(300);
  d.byte_counter = 32767;
  d.fast_recovery_steps = 1;
  d.rate_ai = Rate::from_bps(5'000'000);
  d.rate_hai = Rate::from_bps(50'000'000);
  d.min_rate = Rate::from_bps(1'000'000);
  d.cnp_interval = Time::from_us(4);
  d.clamp_target_rate = false;
  d.start_at_first_cnp = true;
  // The firmware's defaults are one table for ConnectX-4 and later; mlxconfig
  // dumps of ConnectX-5, -6 Lx and BlueField-2 cards show the same values.
  const std::string fw = "ConnectX firmware default (sources at fabric.cc): ";
  cite(p, "fabric.dcqcn.g", fw + "dce_tcp_g 1019, alpha <- (1019 alpha + 5 CNP) / 1024");
  cite(p, "fabric.dcqcn.alpha_timer", fw + "dce_tcp_rtt 1 us");
  cite(p, "fabric.dcqcn.initial_alpha", fw + "initial_alpha_value 1023 (of 1024)");
  cite(p, "fabric.dcqcn.rate_decrease_interval", fw + "rate_reduce_monitor_period 4 us");
  cite(p, "fabric.dcqcn.increase_timer", fw + "rpg_time_reset 300 us");
  cite(p, "fabric.dcqcn.byte_counter", fw + "rpg_byte_reset 32767 B");
  cite(p, "fabric.dcqcn.fast_recovery_steps", fw + "rpg_threshold 1");
  cite(p, "fabric.dcqcn.rate_ai", fw + "rpg_ai_rate 5 Mb/s (not scaled with link rate)");
  cite(p, "fabric.dcqcn.rate_hai", fw + "rpg_hai_rate 50 Mb/s");
  cite(p, "fabric.dcqcn.min_rate", fw + "rpg_min_rate 1 Mb/s");
  cite(p, "fabric.dcqcn.cnp_interval", fw + "min_time_between_cnps 4 us");
  cite(p, "fabric.dcqcn.clamp_target_rate", fw + "clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1");
  cite(p, "fabric.dcqcn.start_at_first_cnp",
       fw + "rate_to_set_on_first_cnp 0 (a QP is rate-limited from its first CNP, at its current rate); "
            "rpg_gd 11 and rpg_min_dec_fac 50% give the paper's cut Rc (1 - alpha/2)");
  cite(p, "fabric.cc",
       "DCQCN (Zhu et al., SIGCOMM 2015) with the ConnectX firmware defaults: NVIDIA DOCA 'DCQCN CC "
       "Parameters' (one table for ConnectX-4 and later) and mlxconfig dumps of shipped cards "
       "(k8snetworkplumbingwg/sriov-network-operator PR 358, ConnectX-6 Lx; Mellanox/mstflint issue 830, "
       "BlueField-2)");
  FabricConfig& c = p.config;
  // Absolute thresholds, whatever the port rate, as the switches configure them.
  c.sw.ecn.kmin_bytes = 150'000;
  c.sw.ecn.kmax_bytes = 1'500'000;
  c.sw.ecn.reference_rate = Rate::from_bps(0);
  const std::string nv =
      "NVIDIA Spectrum default for RoCE lossless (Cumulus Linux 5.x 'Default RoCE Configuration': ECN "
      "absolute threshold 150000-1500000 B on traffic class 3; Onyx 'show roce': absolute min 150 max "
      "1500 KB)";
  cite(p, "fabric.ecn.kmin", nv);
  cite(p, "fabric.ecn.kmax", nv);
  cite(p, "fabric.ecn.reference_rate", "the vendor thresholds are absolute bytes, not scaled with rate");
  cite(p, "fabric.ecn.pmax",
       "assumption: the NVIDIA pages give no marking probability at Kmax; 0.2 as the HPCC simulator's "
       "PMAX_MAP");
  p.ranges.push_back({"fabric.ecn.pmax", "0.05", "1.0",
                      "low: SONiC's AZURE_LOSSLESS WRED profile, 5% at Kmax (sonic-buildimage "
                      "files/build_templates/qos_config.j2); high: marking every packet at Kmax"});
  return p;
}

// RoCE with Ethernet adaptive routing (Spectrum-X class): the 400G DCQCN
// profile whose switches pick the least-loaded equal-cost port per packet and
// whose NICs place what arrives out of order.
Profile rocev2_ar() {
  Profile p = rocev2_dcqcn_400g();
  p.name = "rocev2-ar";
  p.config.name = p.name;
  p.summary += "; Ethernet adaptive routing with out-of-order placement";
  p.config.sw.adaptive_routing = true;
  cite(p, "fabric.adaptive_routing",
       "Spectrum-4 adaptive routing picks forwarding paths per packet by queue occupancy and port "
       "utilization, with RoCE lossless (Cumulus Linux NVUE reference, Adaptive Routing, CL 5.6+); the "
       "NIC places out-of-order packets (MLNX_OFED 'Out-of-Order (OOO) Data Placement', ConnectX-5+). "
       "Modelled as least queued bytes, no link-utilization threshold: assumption");
  cite(p, "fabric.cc",
       "assumption: DCQCN stands in for Spectrum-X's congestion control, which is not published");
  return p;
}

// Native InfiniBand: credit-based lossless links, cut-through switches, RC
// transport with go-back-N. NDR and HDR differ in rate and switch latency.
Profile infiniband(std::string name, int gbps, Time switch_latency, std::string latency_source,
                   std::string sharp_source) {
  Profile p;
  p.name = std::move(name);
  p.family = "InfiniBand";
  p.summary = "InfiniBand " + std::to_string(gbps) +
              " Gb/s: credit-based flow control per VL (never drops for buffer), cut-through switches, "
              "OpenSM-default SL2VL and VL arbitration, RC with go-back-N";
  FabricConfig& c = p.config;
  c.link = {Rate::from_gbps(gbps), Time::from_ns(25)};
  c.name = p.name;
  c.framing = Framing::infiniband();
  c.rc.mtu = 4096;
  c.rc.ack_interval = 1;
  c.rc.data_tc = 0;  // on IB links the transport's class is the SL
  c.rc.ack_tc = 0;
  c.rc.rto = Time::from_ps(4'096'000 * (int64_t{1} << 14));
  c.sw.cut_through = true;
  c.sw.cut_through_bytes = 8;
  c.sw.latency = switch_latency;
  c.rc.reorder_nak = 256;     // used once adaptive_routing is on (part_default_sources)
  c.sw.mmu.unlimited = true;  // the per-VL credit buffers are the limit
  c.sw.mmu.lossless_mask = 0;
  c.sw.ecn.enabled = false;
  c.sw.ecn.mark_on_dequeue = false;  // FECN (cc: ibcc) marks the queue a packet joins
  c.nic.tx_latency = Time::from_ns(300);
  c.nic.rx_latency = Time::from_ns(300);
  c.cc = "none";
  c.ib.enabled = true;
  c.ib.credit = CreditConfig{};
  c.sharp.enabled = true;
  p.sources = {
      {"fabric.framing",
       "LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per packet; RETH 16, AETH 4 (IBTA Vol.1 §7.7, §9.2-9.3); no "
       "IFG: delimiters are inside the 64b/66b line code"},
      {"fabric.mtu", "largest IB path MTU (IBTA Vol.1 §7.7.8 MTU 4096), the ConnectX/Quantum default"},
      {"fabric.ack_interval", "ACK every packet: ConnectX ACK coalescing is not published"},
      {"fabric.rto", "local ACK timeout 4.096us x 2^14: perftest's default -u 14"},
      {"fabric.data_tc", "SL 0: the default service level of perftest and NCCL (--sl 0)"},
      {"fabric.ack_tc", "ACKs travel on the QP's SL (IBTA Vol.1 §9.7.5: same path as the QP)"},
      {"fabric.rto_max_backoff",
       "assumption: the timeout doubles up to 8x, as the RoCE profiles (the spec retries at a fixed "
       "timeout)"},
      {"fabric.nic_tx_latency",
       "assumption: no published ConnectX-7 split; NIC tx+rx 600ns is the class of adapter latency "
       "vendors quote"},
      {"fabric.nic_rx_latency", "assumption: see nic_tx_latency"},
      {"topology.switch.forwarding", "InfiniBand switches forward cut-through"},
      {"topology.switch.cut_through_bytes", "LRH (8 B) holds DLID, SL and VL: all a lookup needs"},
      {"topology.switch.latency", std::move(latency_source)},
      {"topology.switch.buffer",
       "credits, not a shared buffer, bound what a switch holds: see fabric.ib.vl_buffer"},
      {"fabric.ib.vl_buffer",
       "assumption: per port and VL the switch advertises the most IBTA allows, 2048 credits of 64 B "
       "(Vol.1 §7.9.4.2: FCCL = ABR + 2048 at most), 128 KiB; NVIDIA publishes no Quantum-2 buffer "
       "size. A cable whose credit loop needs more (2 x cable + pipeline + 3 MTU packets) gets that"},
      {"fabric.ib.credit_update",
       "an FCP whenever buffer frees (one waiting per VL, sent with the newest FCCL); the spec bounds only "
       "the longest gap between FCPs (IBTA Vol.1 §7.9.4.2)"},
      {"fabric.ib.sl2vl", "OpenSM qos_sl2vl 0,1,...,14,7 folded onto 8 data VLs (SL8-15 -> VL7)"},
      {"fabric.ib.vlarb_high", "OpenSM qos_vlarb_high 0:4 (VL0, weight 4 x 64 B)"},
      {"fabric.ib.vlarb_low", "OpenSM qos_vlarb_low 0:0,1:4,...,7:4"},
      {"fabric.ib.high_limit", "OpenSM qos_high_limit 0 (one high-priority packet, IBTA Vol.1 §7.6.9)"},
      {"fabric.ib.routing",
       "OpenSM's fat-tree engine (opensm(8) ROUTING: ftree), the usual choice for Clos fabrics; minhop and "
       "updn also available"},
      {"fabric.ib.adaptive_routing",
       "static LFT routing unless AR is enabled (OpenSM ar_* engines / UFM opt-in)"},
      {"fabric.ib.sm_detection_delay",
       "assumption: port-down trap to SM plus the start of a heavy sweep (OpenSM reacts to traps at once; "
       "its periodic sweep, OSM_DEFAULT_SWEEP_INTERVAL_SECS 10 in opensm osm_base.h, is the slow path)"},
      {"fabric.ib.sm_compute_time",
       "assumption: LFT computation and SMP writes for a small fabric; Mellanox puts it at up to 10-20 s "
       "for very large fabrics (EnterpriseAI, 2017-06-15)"},
      {"fabric.ib.shield",
       "SHIELD on, as opensm.conf's shield_mode ships it: FLFR takes an alternative port when the LFT's is "
       "not "
       "Active, FLFN tells neighbours when there is none (NVIDIA InfiniBand Cluster Bring-up Procedure, "
       "https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/shield)"},
      {"fabric.ib.flfn_delay",
       "assumption: one notification packet over one hop and a table update in switch hardware; no figure is "
       "published"},
      {"topology.link.rate", "the port rate"},
      {"topology.link.delay", "a 5 m in-rack cable at ~5 ns/m"},
      {"fabric.cc",
       "IB congestion control is off unless the SM enables it (OpenSM congestion_control FALSE)"},
      {"fabric.sharp.enabled", std::move(sharp_source)},
  };
  nic_latency_range(p);
  host_jitter(p);
  p.ranges.push_back(
      {"fabric.ib.vl_buffer", "credit-loop", "auto",
       "low: one credit loop at line rate + 3 MTU packets, the least with which one flow never "
       "waits for credit (a switch with no buffer to spare); high: the default, the most IBTA "
       "lets a receiver advertise per VL"});
  p.ranges.push_back({"fabric.ib.sm_detection_delay", "10us", "10s",
                      "low: a trap over one hop to an SM that sweeps at once; high: the trap is lost and the "
                      "next periodic sweep finds the port (OpenSM sweep_interval default 10 s)"});
  p.ranges.push_back({"fabric.ib.sm_compute_time", "100us", "20s",
                      "low: a handful of switches; high: 'as long as 10-20 seconds' for very large fabrics "
                      "(Mellanox, EnterpriseAI 2017-06-15, "
                      "https://www.enterpriseai.news/2017/06/15/mellanox-raises-shield-enhanced-network-"
                      "resiliency/)"});
  p.ranges.push_back(
      {"fabric.ib.flfn_delay", "1us", "4ms",
       "low: one hop and a lookup; high: the subnet manager's 10-20 s re-sweep of a very large "
       "fabric divided by the 5,000x faster recovery Mellanox claims for SHIELD "
       "(https://www.enterpriseai.news/2017/06/15/mellanox-raises-shield-enhanced-network-resiliency/)"});
  return p;
}

// iWARP: the RNIC's TCP over Ethernet; the two profiles differ in the
// congestion control and in what the switches mark.
Profile iwarp_base(std::string name, std::string summary) {
  Profile p = ethernet_base(std::move(name), std::move(summary));
  p.family = "iWARP";
  // RC's keys do not apply: TCP has its own MTU, ACKs and timers.
  std::erase_if(p.sources, [](const ProfileSource& s) {
    return s.key == "fabric.mtu" || s.key == "fabric.ack_interval" || s.key == "fabric.rto" ||
           s.key == "fabric.rto_max_backoff" || s.key == "fabric.ack_tc";
  });
  FabricConfig& c = p.config;
  c.transport = "iwarp";
  c.tcp = TcpConfig{};
  c.framing = Framing::iwarp(c.tcp.timestamps);
  // Chelsio T5: about 1.5 us end-to-end RDMA latency; less ~30 ns of wire at
  // 40GbE, 1.47 us of RNIC processing, split evenly (an assumption).
  c.nic.tx_latency = Time::from_ns(735);
  c.nic.rx_latency = Time::from_ns(735);
  cite(p, "fabric.framing",
       "Eth 14 + FCS 4 + IPv4 20 + TCP 20 + MPA 2 + CRC 4 + DDP tagged 14 / untagged 18 (RFC 5040, 5041, "
       "5044); preamble+SFD 8 + IFG 12 (IEEE 802.3)");
  cite(p, "fabric.data_tc",
       "assumption: the class RoCE profiles give RDMA, so topologies compare like for like");
  cite(p, "fabric.nic_tx_latency",
       "Chelsio T5 about 1.5 us end-to-end RDMA latency (chelsio.com/nic/rdma-iwarp), back to back; less the "
       "wire, split evenly between sender and receiver (assumption)");
  cite(p, "fabric.nic_rx_latency", "see nic_tx_latency");
  cite(p, "fabric.path_selection",
       "one 5-tuple (an ephemeral TCP source port) per connection: ECMP keeps a connection on one path");
  p.sources.push_back({"fabric.tcp.ip_mtu", "standard Ethernet MTU 1500 (RFC 894), the RNIC default"});
  p.sources.push_back({"fabric.tcp.timestamps", "assumption: off, as offload engines commonly run"});
  p.sources.push_back(
      {"fabric.tcp.markers", "off: RFC 6581 made them optional; Chelsio, Intel and siw drivers default off"});
  p.sources.push_back({"fabric.tcp.delayed_ack", "RFC 5681 §4.2: an ACK at least every second full segment"});
  p.sources.push_back(
      {"fabric.tcp.delayed_ack_timeout", "Linux TCP_DELACK_MIN 40 ms (RFC 1122: at most 500 ms)"});
  p.sources.push_back({"fabric.tcp.min_rto", "Linux TCP_RTO_MIN 200 ms (Chelsio's T3 offload: 250 ms)"});
  p.sources.push_back({"fabric.tcp.max_rto", "RFC 6298 §2.5: at least 60 s"});
  p.sources.push_back({"fabric.tcp.dupack_threshold", "RFC 5681 §3.2: three duplicate ACKs"});
  p.sources.push_back({"fabric.tcp.receive_window", "assumption: 4 MiB, far above one BDP"});
  p.sources.push_back({"fabric.tcp.sack", "assumption: off until SACK recovery is validated here"});
  p.sources.push_back({"fabric.tcp.handshake",
                       "assumption: off, connections set up before traffic as rdma_cm does ahead of a job"});
  return p;
}

// Plain lossy Ethernet: drop-tail switches, CUBIC (Linux's default).
Profile iwarp_cubic() {
  Profile p = iwarp_base(
      "iwarp-cubic",
      "iWARP (RDMAP/DDP/MPA over TCP, RFC 5040-5044) on plain lossy Ethernet: drop-tail switches, the RNIC's "
      "TCP recovers losses (NewReno fast retransmit, RFC 6298 timeouts) under CUBIC");
  p.config.cc = "cubic";
  p.config.cubic = CubicConfig{};
  cite(p, "fabric.cc", "CUBIC (RFC 9438), Linux's default TCP congestion control");
  p.sources.push_back({"fabric.tcp.ecn", "plain drop-tail Ethernet: no ECN"});
  return p;
}

// DCTCP as its deployments configure it: ECN step marking at K in the
// switches, ECN-capable segments, DCTCP over TCP (RFC 8257).
Profile iwarp_dctcp() {
  Profile p = iwarp_base(
      "iwarp-dctcp",
      "iWARP (RDMAP/DDP/MPA over TCP) with DCTCP (RFC 8257): ECN step marking at K in the switches, "
      "no PFC; the RNIC's TCP recovers what is still lost");
  FabricConfig& c = p.config;
  c.cc = "dctcp";
  c.dctcp = DctcpConfig{};
  c.dctcp.tcp = true;
  c.tcp.ecn = true;
  c.sw.ecn.enabled = true;
  c.sw.ecn.kmin_bytes = 65 * 1538;  // K = 65 full segments at 10 Gb/s
  c.sw.ecn.kmax_bytes = c.sw.ecn.kmin_bytes;
  c.sw.ecn.pmax = 1.0;
  c.sw.ecn.reference_rate = Rate::from_gbps(10);
  c.sw.ecn.mark_on_dequeue = false;
  cite(p, "fabric.cc", "DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257)");
  cite(p, "fabric.ecn.enabled", "step ECN marking: DCTCP's congestion point");
  p.sources.push_back({"fabric.tcp.ecn", "DCTCP needs ECN-capable segments and ECN-Echo (RFC 8257 §3.2)"});
  p.sources.push_back({"fabric.ecn.kmin",
                       "DCTCP paper and Linux dctcp.rst: K = 65 packets at 10 Gb/s (65 x 1538 B segments)"});
  p.sources.push_back({"fabric.ecn.kmax", "a step: KMAX = KMIN (DCTCP paper)"});
  p.sources.push_back({"fabric.ecn.pmax", "every packet above K is marked (DCTCP paper)"});
  p.sources.push_back({"fabric.ecn.reference_rate", "K grows with link rate (K > C x RTT / 7, DCTCP paper)"});
  p.sources.push_back(
      {"fabric.ecn.mark", "DCTCP marks on the instantaneous queue a packet joins (DCTCP paper)"});
  p.sources.push_back(
      {"fabric.dctcp.tcp", "RFC 8257: DCTCP is TCP's congestion control: slow start, loss response"});
  p.sources.push_back({"fabric.dctcp.initial_window", "RFC 6928: 10 segments, then slow start"});
  return p;
}

// iWARP on the 400G Ethernet of an AI cluster: iwarp-dctcp's RNIC and TCP
// on the links and switches of rocev2-*-400g, so that an evaluation compares
// the transports on the same hardware without setting the switch by hand.
// The RNIC keeps its measured latency (no 400G RNIC publishes one) and the
// RNIC default MTU; host jitter as every realistic profile has it.
Profile iwarp_dctcp_400g() {
  Profile p = iwarp_dctcp();
  p.name = "iwarp-dctcp-400g";
  p.config.name = p.name;
  p.summary += "; 400 Gb/s links, cut-through switches as rocev2-*-400g, the RNIC's own latency";
  FabricConfig& c = p.config;
  c.link = {Rate::from_gbps(400), Time::from_ns(25)};
  c.sw.cut_through = true;
  c.sw.cut_through_bytes = 64;
  c.sw.latency = Time::from_ns(600);
  cite(p, "topology.link.rate",
       "400GbE; Chelsio's T7 is its 400G-generation iWARP part (servethehome.com, 'Chelsio T7 DPU line "
       "launched for 400G generation')");
  cite(p, "topology.link.delay", "a 5 m in-rack cable at ~5 ns/m, as ib-ndr and rocev2-*-400g");
  cite(p, "topology.switch.forwarding",
       "the same Spectrum-class cut-through Ethernet switch as rocev2-*-400g (NVIDIA Spectrum-4 "
       "announcement)");
  cite(p, "topology.switch.latency",
       "assumption, as rocev2-*-400g: no port-to-port figure is published for Spectrum-4 or Tomahawk 5");
  p.ranges.push_back(
      {"topology.switch.latency", "250ns", "1us",
       "low: Broadcom's Tomahawk Ultra, 250 ns port-to-port (fs.com blog); high: an assumption "
       "for deep-buffer switches (as rocev2-*-400g)"});
  cite(p, "fabric.nic_tx_latency",
       "assumption for a 400G RNIC: Chelsio T5's about 1.5 us end-to-end RDMA latency "
       "(chelsio.com/nic/rdma-iwarp), split evenly; no latency is published for T7, T6 claims 'sub-us' "
       "without a figure");
  cite(p, "fabric.nic_rx_latency", "assumption: see nic_tx_latency");
  p.ranges.push_back({"fabric.nic_tx_latency", "400ns", "800ns",
                      "low: T6's 'sub-microsecond' claim split over two NICs; high: T5's measured 1.5 us"});
  p.ranges.push_back({"fabric.nic_rx_latency", "400ns", "800ns", "as nic_tx_latency"});
  host_jitter(p);
  return p;
}

// Ultra Ethernet (UET 1.0): the PDS over lossy Ethernet at 400 Gb/s, with
// per-packet spraying, ECN marking and packet trimming in the switches.
// The links, NIC and switch latencies are rocev2-*-400g's, so the fabrics
// compare on the same hardware; what differs is the transport and the
// switches' response to congestion.
Profile uet_base(std::string name, std::string summary) {
  Profile p = at_400g(ethernet_base(std::move(name), std::move(summary)));
  p.name.resize(p.name.size() - 5);  // at_400g appended "-400g"
  p.config.name = p.name;
  p.family = "UET";
  std::erase_if(p.sources, [](const ProfileSource& s) {
    return s.key == "fabric.mtu" || s.key == "fabric.ack_interval" || s.key == "fabric.rto" ||
           s.key == "fabric.rto_max_backoff" || s.key == "fabric.ack_tc";
  });
  FabricConfig& c = p.config;
  c.transport = "uet";
  c.framing = Framing::uet();
  c.uet = PdsConfig{};
  c.rc.mtu = c.uet.mtu;
  c.sw.mmu.lossless_mask = 0;  // UET runs best-effort: trimming, not PFC, handles overflow
  c.paths.name = "spray";
  c.paths.spray.evs = 256;
  c.sw.ecn.enabled = true;
  c.sw.ecn.reference_rate = Rate::from_gbps(400);
  // VALIDATION D.12: ECN marking between 0.2 and 0.8 BDP, trimming at 1 BDP.
  // One BDP at 400 Gb/s over the ~8 us base RTT of a 3-tier fabric of these
  // switches (5 x 600 ns switches, 300+300 ns NICs, each way) is 400 KB.
  c.sw.ecn.kmin_bytes = 80'000;
  c.sw.ecn.kmax_bytes = 320'000;
  c.sw.ecn.pmax = 1.0;
  c.sw.ecn.mark_on_dequeue = false;
  c.sw.trim.enabled = true;
  c.sw.trim.header_bytes = 64;
  // One BDP of the same reference fabric as the ECN ramp, so marking always
  // starts before trimming (threshold: bdp takes the scenario's own BDP).
  c.sw.trim.threshold_bytes = 400'000;
  c.sw.trim.tc = 7;
  c.sw.trim.class_limit_bytes = 256 * 1024;
  cite(p, "fabric.framing",
       "Eth 14 + IPv4 20 + UDP 8 + PDS RUD/ROD request 12 + SES standard request 44 + FCS 4 per data packet; "
       "ACK_CC 32 B with the 64-bit SACK bitmap (UEC 1.0 §3.4-3.5 formats); preamble+SFD 8 + IFG 12");
  cite(p, "fabric.data_tc",
       "assumption: the class RoCE profiles give RDMA, so topologies compare like for like");
  cite(p, "fabric.path_selection",
       "UET load balancing sprays each packet over an entropy-value set (UEC 1.0 §3.5.5; REPS, Bonato et al. "
       "2024, uses 256 EVs)");
  cite(p, "fabric.spray.evs",
       "REPS / SMaRTT evaluations spray over 256 entropy values; VALIDATION D.12: 64-256");
  cite(p, "fabric.ecn.enabled", "NSCC reads ECN marks with delay (UEC 1.0 congestion management)");
  cite(p, "fabric.ecn.kmin", "VALIDATION D.12: marking from 0.2 BDP (80 KB of a 400 KB BDP at 400 Gb/s)");
  cite(p, "fabric.ecn.kmax", "VALIDATION D.12: marking up to 0.8 BDP (320 KB)");
  cite(p, "fabric.ecn.pmax", "assumption: probability 1 at 0.8 BDP, the SMaRTT/NSCC evaluations' ramp end");
  cite(p, "fabric.ecn.reference_rate", "the thresholds above are for 400 Gb/s ports, scaled with port rate");
  cite(p, "fabric.ecn.mark", "assumption: marked on the queue a packet joins");
  cite(p, "fabric.trimming.enabled", "UET packet trimming (UEC 1.0 §3.5; NDP, Handley et al. SIGCOMM 2017)");
  cite(p, "fabric.trimming.size",
       "assumption: one 64 B minimum frame, which holds Ethernet, IPv4, UDP and the PDS header the NACK "
       "needs");
  cite(p, "fabric.trimming.threshold",
       "VALIDATION D.12: trimming at 1 BDP of queue (400 KB, the reference BDP of the ECN thresholds)");
  cite(p, "fabric.trimming.tc",
       "trimmed headers go ahead of data (VALIDATION D.12), here in the strict ACK class");
  cite(p, "fabric.trimming.class_limit",
       "assumption: 256 KiB of headers per port (about 3000 trims) bounds the trimmed class's share");
  cite(p, "fabric.uet.mode", "RUD, the mode UET uses for AI collectives (UEC 1.0 §3.5 overview)");
  cite(p, "fabric.uet.mtu",
       "assumption: 4 KiB payload, as the 400G RoCE profiles and the htsim UEC experiments");
  cite(p, "fabric.uet.ack_every", "assumption: every packet ACKed, as the NSCC/REPS simulations do");
  cite(p, "fabric.uet.psn_window", "assumption: 1024 PSNs, above 2.5 BDPs of 4 KiB packets at 400 Gb/s");
  cite(p, "fabric.uet.sack_loss_threshold",
       "assumption: half the 64-PSN SACK bitmap, so spraying's reordering is not taken for loss");
  cite(p, "fabric.uet.rto", "assumption: about 30 base RTTs; trims make timeouts the rare path");
  cite(p, "fabric.uet.rto_max_backoff", "assumption: up to 8x, as the RoCE profiles");
  cite(p, "fabric.uet.ack_tc", "ACKs and NACKs at high priority, as the RoCE profiles");
  cite(p, "fabric.rccc.enabled", "NSCC alone, sender-based, is UET's default congestion control (UEC 1.0)");
  return p;
}

// UET with NSCC, the sender-based congestion control (UEC 1.0).
Profile uet_nscc() {
  Profile p = uet_base(
      "uet-nscc",
      "Ultra Ethernet (UET 1.0): the PDS in RUD mode (SACK, NACK on trims) over lossy 400G Ethernet, "
      "per-packet spraying over 256 entropy values, ECN marking and packet trimming in the switches, NSCC");
  p.config.cc = "nscc";
  p.config.nscc = NsccConfig{};
  cite(p, "fabric.cc", "NSCC (UEC 1.0 congestion management; SMaRTT, Bonato et al. 2024)");
  return p;
}

// uet-nscc with receiver credits (RCCC) for incast: receivers share their
// link among the senders converging on them.
Profile uet_nscc_rccc() {
  Profile p = uet_nscc();
  p.name = "uet-nscc-rccc";
  p.config.name = p.name;
  p.summary += "; receiver credits (RCCC) share each receiver's link among its senders";
  p.config.uet.rccc.enabled = true;
  cite(p, "fabric.rccc.enabled", "UEC 1.0 congestion management: RCCC, receiver-issued credits, with NSCC");
  cite(p, "fabric.rccc.budget",
       "assumption: 1.5 BDPs in flight per receiver, NSCC's maximum window (VALIDATION D.12) shared among "
       "its senders");
  cite(p, "fabric.rccc.initial_credit",
       "assumption: a quarter BDP before the first grant, so a new sender starts at once without flooding an "
       "incast");
  return p;
}

std::vector<std::string> profile_names() {
  return {"ethernet-lossy", "ideal",       "rocev2-dcqcn",     "rocev2-dcqcn-mlx", "rocev2-dcqcn-400g",
          "rocev2-dctcp",   "rocev2-hpcc", "rocev2-hpcc-400g", "rocev2-ar",        "ib-ndr",
          "ib-hdr",         "iwarp-cubic", "iwarp-dctcp",      "iwarp-dctcp-400g", "uet-nscc",
          "uet-nscc-rccc"};
}

std::vector<std::string> fabric_families() {
  std::vector<std::string> out;
  for (const std::string& n : profile_names()) {
    const std::string family = find_profile(n).family;
    if (!family.empty() && std::find(out.begin(), out.end(), family) == out.end()) out.push_back(family);
  }
  return out;
}

Profile find_profile(const std::string& name) {
  if (name == "ethernet-lossy")
    return ethernet_base(name,
                         "RoCEv2 framing over plain lossy Ethernet: shared-buffer tail drop, no PFC, no "
                         "congestion control, go-back-N recovery");
  if (name == "rocev2-dcqcn") return rocev2_dcqcn();
  if (name == "rocev2-dcqcn-mlx") return rocev2_dcqcn_mlx();
  if (name == "rocev2-dcqcn-400g") return rocev2_dcqcn_400g();
  if (name == "rocev2-dctcp") return rocev2_dctcp();
  if (name == "rocev2-hpcc") return rocev2_hpcc();
  if (name == "rocev2-hpcc-400g") return at_400g(rocev2_hpcc());
  if (name == "rocev2-ar") return rocev2_ar();
  if (name == "uet-nscc") return uet_nscc();
  if (name == "uet-nscc-rccc") return uet_nscc_rccc();
  if (name == "ib-ndr") {
    Profile p = infiniband(
        name, 400, Time::from_ns(330),
        "assumption: Quantum-2 NDR cut-through port-to-port ~330 ns is a third-party figure "
        "(yobitel.com/knowledge-base/nvidia-quantum-2); NVIDIA publishes none (QM97xx user manual)",
        "Quantum-2 NDR switches run SHARPv3 in-network aggregation (NVIDIA Quantum-2 InfiniBand platform "
        "datasheet: third-generation SHARP)");
    p.ranges.push_back(
        {"topology.switch.latency", "130ns", "600ns",
         "low: the previous generation's published 130 ns (QM87xx HDR user manual); high: "
         "the 400G Ethernet profiles' assumed 600 ns, where the IB-vs-RoCE switch gap closes"});
    return p;
  }
  if (name == "ib-hdr")
    return infiniband(
        name, 200, Time::from_ns(130),
        "Quantum QM87xx HDR switch: 130 ns port-to-port (NVIDIA QM87xx user manual, Introduction)",
        "Quantum HDR switches run SHARPv2 streaming aggregation (NVIDIA Quantum QM8700 datasheet; Graham et "
        "al., ISC 2020)");
  if (name == "iwarp-cubic") return iwarp_cubic();
  if (name == "iwarp-dctcp") return iwarp_dctcp();
  if (name == "iwarp-dctcp-400g") return iwarp_dctcp_400g();
  if (name == "ideal") {
    Profile p = ethernet_base(name,
                              "the same hosts, links and framing with a buffer no workload can fill: nothing "
                              "is ever dropped (a reference, not a product)");
    p.family.clear();
    p.config.sw.mmu.unlimited = true;
    // No buffer_alpha: with no buffer limit the key is refused, so it has no default to cite.
    std::erase_if(p.sources, [](const auto& d) { return d.key == "fabric.buffer_alpha"; });
    for (auto& d : p.sources)
      if (d.key == "topology.switch.buffer") d = {d.key, "a reference network: queues never overflow"};
    return p;
  }
  std::string known;
  for (const auto& n : profile_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown fabric profile '" + name + "' (known: " + known + ")");
}

}  // namespace rdmasim

namespace rdmasim {

const std::vector<ProfileSource>& part_default_sources() {
  static const std::vector<ProfileSource> sources = {
      {"topology.switch.cut_through_bytes",
       "assumption: one minimum Ethernet frame (64 B) holds the L2-L4 headers a lookup needs"},
      {"fabric.retry_limit",
       "assumption: retry forever and count the retries (a QP with IBTA retry_cnt 7 would move to the error "
       "state; a simulation reports instead)"},
      {"fabric.recovery", "RC as specified: go-back-N on NAK or timeout (IBTA Vol.1 §9.7.5)"},
      {"fabric.ecmp_seed",
       "each switch hashes with its own seed, as deployed ECMP does to avoid polarization"},
      {"fabric.nic_tx_latency", "the HPCC simulator models no NIC processing latency (an ideal NIC)"},
      {"fabric.nic_rx_latency", "see nic_tx_latency"},
      {"fabric.scheduler.strict",
       "the ACK/CNP class 7 served by strict priority, as the HPCC simulator's high-priority queue"},
      {"fabric.scheduler.weights", "assumption: equal DWRR weights for the other classes"},
      {"fabric.pfc.enabled", "plain Ethernet: no PFC"},
      {"fabric.pfc.xon_offset", "assumption: XON two maximum frames below XOFF (hysteresis against chatter)"},
      {"fabric.pfc.reserved", "no guaranteed per-PG buffer: the HPCC simulator shares all of it"},
      {"fabric.pfc.response_time",
       "assumption: the upstream's reaction time to XOFF, which headroom covers (802.1Qbb Annex N)"},
      {"fabric.pfc.quanta", "XOFF with the longest pause (IEEE 802.1Qbb), refreshed while congested"},
      {"fabric.pfc.refresh",
       "assumption: XOFF re-sent at half its pause time, so the upstream never resumes early"},
      {"fabric.pfc.watchdog.enabled",
       "off, as in SONiC unless DEVICE_METADATA default_pfcwd_status is enable (sonic-utilities pfcwd "
       "start_default); when on, SONiC's defaults: detection and restoration 200 ms, polling 200 ms, action "
       "drop"},
      {"fabric.pfc.deadlock_detection",
       "assumption: a simulator's diagnosis, not a switch feature: a cycle stalled for 500 us (well past any "
       "transient pause, short against millisecond runs) never drains"},
      {"fabric.cc", "no congestion control"},
      {"fabric.path_selection",
       "one entropy (UDP source port) per QP, as RoCE NICs and IB RC do: ECMP keeps a QP on one path"},
      {"fabric.ecn.enabled", "no ECN marking"},
      {"fabric.reroute.link_detect",
       "assumption: PHY fault signalling and the port-down interrupt; no link debounce timer, which switch "
       "OSes leave off by default (Dell PowerSwitch N4000 and IP Infusion OcNOS guides)"},
      {"fabric.reroute.local_repair",
       "assumption: the port-down event removes the port from hardware ECMP groups (software next-hop "
       "group updates take tens of ms)"},
      {"fabric.reroute.bfd_interval", "Cisco NX-OS BFD default: interval 50 ms, min_rx 50 ms"},
      {"fabric.reroute.bfd_multiplier", "Cisco NX-OS BFD default multiplier 3 (150 ms to detect)"},
      {"fabric.reroute.bgp_convergence",
       "assumption: eBGP with MRAI 0 as RFC 7938 runs it in data centres; update, best-path and FIB "
       "programming along the fabric's tiers"},
      {"fabric.dcqcn.clamp_target_rate", "DCQCN paper: the target rate takes the current rate at every cut"},
      {"fabric.dcqcn.start_at_first_cnp",
       "DCQCN paper: the reaction point's timers run from the flow's start"},
      {"fabric.dcqcn.min_rate", "assumption: a 10 Mb/s floor (the DCQCN paper states none)"},
      {"fabric.dcqcn.rate_decrease_interval", "DCQCN paper: a cut on every CNP, no minimum interval"},
      {"fabric.dcqcn.initial_alpha", "DCQCN paper: alpha starts at 1"},
      {"fabric.dcqcn.g", "DCQCN paper (Zhu et al., SIGCOMM 2015)"},
      {"fabric.dcqcn.alpha_timer", "DCQCN paper"},
      {"fabric.dcqcn.increase_timer", "DCQCN paper"},
      {"fabric.dcqcn.byte_counter", "DCQCN paper"},
      {"fabric.dcqcn.fast_recovery_steps", "DCQCN paper (F)"},
      {"fabric.dcqcn.rate_ai", "DCQCN paper (R_AI)"},
      {"fabric.dcqcn.rate_hai", "HPCC simulator's DCQCN (RATE_HAI)"},
      {"fabric.dcqcn.cnp_interval", "DCQCN paper (NP: one CNP per QP per 50 us)"},
      {"fabric.ibcc.threshold",
       "assumption: two MTU packets queued on a root port (Annex A10 gives a 4-bit "
       "level of the port buffer, no default)"},
      {"fabric.ibcc.ccti_increase", "assumption within Annex A10's range; OpenSM/UFM defaults unpublished"},
      {"fabric.ibcc.ccti_timer", "assumption: 20 units of 1.024 us (Annex A10 timer unit)"},
      {"fabric.ibcc.ccti_limit", "assumption: a 128-entry linear CCT"},
      {"fabric.ibcc.cct_step", "assumption: entry i delays i/16 of a packet time (linear CCT)"},
      {"fabric.ibcc.ccti_min", "Annex A10: the CCTI floor, 0 = no delay"},
      {"fabric.dctcp.g", "DCTCP paper (Alizadeh et al., SIGCOMM 2010): g = 1/16"},
      {"fabric.dctcp.initial_window", "one BDP: RDMA NICs start at line rate, no slow start"},
      {"fabric.dctcp.tcp",
       "off: the HPCC paper's RDMA variant (no slow start; reacts to marks, not to losses)"},
      {"fabric.timely.ewma_alpha", "TIMELY paper (Mittal et al., SIGCOMM 2015): EWMA weight 0.875"},
      {"fabric.timely.beta", "TIMELY paper: beta 0.8"},
      {"fabric.timely.delta", "TIMELY paper: delta 10 Mb/s"},
      {"fabric.timely.t_low", "TIMELY paper: T_low 50 us"},
      {"fabric.timely.t_high", "TIMELY paper: T_high 500 us"},
      {"fabric.timely.min_rtt", "TIMELY paper: minRTT 20 us"},
      {"fabric.timely.hai_after", "TIMELY paper: N = 5 completions before HAI"},
      {"fabric.timely.segment", "TIMELY paper: one update per 64 KB segment"},
      {"fabric.timely.min_rate", "assumption: a 10 Mb/s floor (the TIMELY paper states none)"},
      {"fabric.hpcc.eta", "HPCC paper §5.1 and the simulator's U_TARGET 0.95"},
      {"fabric.hpcc.max_stage", "HPCC simulator MI_THRESH 0 (the project page: maxStage=0)"},
      {"fabric.hpcc.rate_ai", "HPCC simulator RATE_AI 50Mb/s (W_AI = R_AI x T)"},
      {"fabric.hpcc.min_rate", "HPCC simulator MIN_RATE 100Mb/s"},
      {"fabric.hpcc.base_rtt",
       "the longest unloaded RTT of the topology for every flow (the simulator's GLOBAL_T 1)"},
      {"fabric.hpcc.int_header", "HPCC simulator IntHeader: 5 hops x 8 B + 2 B"},
      {"fabric.cubic.c", "RFC 9438 §5.1: C SHOULD be 0.4"},
      {"fabric.cubic.beta", "RFC 9438 §4.6: beta_cubic SHOULD be 0.7"},
      {"fabric.cubic.fast_convergence",
       "RFC 9438 §4.7: fast convergence SHOULD be implemented (disabled only for a lone flow)"},
      {"fabric.nscc.base_rtt",
       "the longest unloaded RTT of the topology (uet-htsim network_max_unloaded_rtt)"},
      {"fabric.nscc.target_qdelay",
       "0.75 x base RTT with trimming, 1 x without (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification; VALIDATION D.12)"},
      {"fabric.nscc.max_window_bdp",
       "1.5 BDP (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp initNsccParams/initNscc), whose "
       "defaults follow the UEC 1.0 specification; VALIDATION D.12)"},
      {"fabric.nscc.min_window",
       "one MTU (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp initNsccParams/initNscc), whose "
       "defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.fair_increase",
       "fi = 5 MSS x a per window (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.prop_increase",
       "alpha = 4 MSS x a x b / target (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.fast_increase",
       "fi_scale = 0.25 x a (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.eta",
       "eta = 0.15 MSS x a per base RTT (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.gamma",
       "gamma = 0.8 (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp initNsccParams/initNscc), whose "
       "defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.delay_ewma",
       "delay_alpha = 0.0125 (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.qa_gate",
       "qa_gate = 3 (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp initNsccParams/initNscc), whose "
       "defaults follow the UEC 1.0 specification)"},
      {"fabric.nscc.qa_delay",
       "qa_threshold = 4 x target (UEC's reference simulator uet-htsim (htsim/sim/uec.cpp "
       "initNsccParams/initNscc), whose defaults follow the UEC 1.0 specification)"},
      {"fabric.irn_window", "IRN paper (Mittal et al., SIGCOMM 2018) §3.1: one BDP of packets in flight"},
      {"fabric.irn_rto_low", "IRN paper §4.1: RTO_low 100 us"},
      {"fabric.irn_rto_high", "IRN paper §4.1: RTO_high 320 us"},
      {"fabric.sharp.enabled",
       "off: in-network aggregation is a feature of InfiniBand switches (NVIDIA SHARP); true on Ethernet "
       "models a vendor extension (an assumption)"},
      {"fabric.sharp.aggregation_efficiency",
       "Graham et al., COMHPC 2016 (SHArP): streaming aggregation reaches ~95% of network bandwidth for "
       "large messages (VALIDATION.md §C.11)"},
      {"fabric.sharp.switch_latency", "assumption: no primary figure found for a switch's reduction latency"},
      {"fabric.sharp.window",
       "assumption: NVIDIA publishes the OST payload of low-latency operations (SHARP v2.6.1 collective "
       "library: "
       "256 B on Switch-IB 2, 2 KiB on Quantum, at least 2 OSTs per group) but not the streaming aggregation "
       "buffer; 256 KiB covers a 400G tree's round trip"},
      {"fabric.reorder_nak",
       "assumption. InfiniBand with adaptive routing: 256 PSNs, far more reordering than paths through "
       "credit-limited VL buffers can cause; Ethernet AR and spraying: 0 (off), their shared-buffer queues "
       "reorder by thousands of packets (256 made 150,000 spurious resends of the k=4 permutation). NVIDIA "
       "does not publish how an AR responder tells loss from reordering"},
      {"fabric.sharp.max_groups_per_switch",
       "assumption: SHARP switches hold a small number of streaming-aggregation trees"},
  };
  return sources;
}

std::vector<ProfileDefault> profile_defaults(const Profile& p) {
  const FabricConfig& c = p.config;
  std::vector<std::pair<std::string, std::string>> values;
  values.emplace_back("fabric.framing", c.framing.name);
  values.emplace_back("topology.link.rate", format_rate(c.link.rate));
  values.emplace_back("topology.link.delay", format_time(c.link.delay));
  for (auto& kv : flatten_params(switch_params_json(c.sw), "topology.switch"))
    values.push_back(std::move(kv));
  for (auto& kv : flatten_params(fabric_params_json(c), "fabric")) values.push_back(std::move(kv));
  std::vector<ProfileDefault> out;
  for (auto& [key, value] : values) {
    const ProfileSource* src = nullptr;
    for (const ProfileSource& s : p.sources)
      if (s.key == key) src = &s;
    if (src == nullptr)
      for (const ProfileSource& s : part_default_sources())
        if (s.key == key) src = &s;
    ProfileDefault d{key, std::move(value), src != nullptr ? src->source : std::string(), {}, {}, {}};
    for (const AssumptionRange& r : p.ranges)
      if (r.key == key) {
        d.low = r.low;
        d.high = r.high;
        d.range_why = r.why;
      }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace rdmasim
