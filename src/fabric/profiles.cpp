#include "fabric/profiles.h"

#include <stdexcept>

namespace rdmasim {
namespace {

// Settings shared by every Ethernet-framed profile.
Profile ethernet_base(std::string name, std::string summary) {
  Profile p;
  p.name = std::move(name);
  p.summary = std::move(summary);
  p.config.name = p.name;
  p.config.framing = Framing::rocev2();
  p.defaults = {
      {"fabric.framing", "rocev2",
       "Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4; RETH 16, AETH 4 (IBTA Vol.1 §9.3, Annex A17); "
       "preamble+SFD 8 + IFG 12 (IEEE 802.3 §4.4.2)"},
      {"fabric.mtu", "1000B",
       "payload per packet used by the HPCC/DCQCN simulations (HPCC config.txt PACKET_PAYLOAD_SIZE)"},
      {"fabric.ack_interval", "1", "ACK every packet, as the HPCC simulator's L2_ACK_INTERVAL 1"},
      {"fabric.rto", "4.194304ms",
       "IB local ACK timeout 4.096us x 2^10 (IBTA Vol.1 §9.7.6.1.3), above the 2.7 ms a 32 MiB buffer takes "
       "to drain at 100 Gb/s"},
      {"fabric.rto_max_backoff", "3", "timeout doubles up to 8x (RoCE NIC adaptive retransmission)"},
      {"fabric.data_tc", "3", "RoCE traffic class 3 (NVIDIA RoCE configuration guides)"},
      {"fabric.ack_tc", "7", "ACK/NAK at high priority (HPCC simulator ACK_HIGH_PRIO 1)"},
      {"fabric.buffer_alpha", "8", "dynamic threshold alpha = 2^3 (SONiC egress_lossy_profile dynamic_th 3)"},
      {"topology.switch.buffer", "32MiB", "HPCC paper simulations: 32 MB shared buffer per switch"},
      {"topology.switch.latency", "0ns", "switch pipeline latency off unless the scenario sets it"},
      {"topology.link", "100Gbps", "100GbE host links, as in the HPCC and DCQCN simulations"},
      {"topology.switch.forwarding", "store-and-forward",
       "ns-3 / HPCC simulator switches are store-and-forward"},
  };
  return p;
}

}  // namespace

// RoCEv2 as deployed for RDMA: PFC on the RDMA class, ECN marking, DCQCN.
Profile rocev2_dcqcn() {
  Profile p = ethernet_base("rocev2-dcqcn",
                            "RoCEv2 with PFC on traffic class 3, RED/ECN marking and DCQCN rate control (the "
                            "DCQCN paper's reaction-point parameters); go-back-N recovery");
  FabricConfig& c = p.config;
  c.sw.mmu.lossless_mask = 1u << c.rc.data_tc;
  c.sw.mmu.xoff_bytes = 0;
  c.sw.mmu.pfc_alpha = 1.0 / 8;
  c.sw.ecn.enabled = true;
  c.sw.ecn.kmin_bytes = 400'000;
  c.sw.ecn.kmax_bytes = 1'600'000;
  c.sw.ecn.pmax = 0.2;
  c.sw.ecn.reference_rate = Rate::from_gbps(100);
  c.cc = "dcqcn";
  c.dcqcn = DcqcnConfig{};
  const std::vector<ProfileDefault> more = {
      {"fabric.pfc.classes", "[3]", "RDMA on a lossless priority 3 (NVIDIA RoCE configuration guides)"},
      {"fabric.pfc.xoff", "dynamic", "HPCC simulator: dynamic PFC threshold (USE_DYNAMIC_PFC_THRESHOLD 1)"},
      {"fabric.pfc.alpha", "0.125", "HPCC simulator: XOFF at free buffer / 8"},
      {"fabric.pfc.headroom", "auto",
       "rate x (2 x cable delay + 1us response) + 2 max frames (802.1Qbb Annex N)"},
      {"fabric.ecn.kmin", "400KB", "HPCC simulator config.txt KMIN_MAP at 100 Gb/s"},
      {"fabric.ecn.kmax", "1600KB", "HPCC simulator config.txt KMAX_MAP at 100 Gb/s"},
      {"fabric.ecn.pmax", "0.2", "HPCC simulator config.txt PMAX_MAP"},
      {"fabric.ecn.reference_rate", "100Gbps", "thresholds scale with link rate, as HPCC's per-rate maps do"},
      {"fabric.dcqcn.g", "1/256", "DCQCN paper (Zhu et al., SIGCOMM 2015)"},
      {"fabric.dcqcn.alpha_timer", "55us", "DCQCN paper"},
      {"fabric.dcqcn.increase_timer", "55us", "DCQCN paper"},
      {"fabric.dcqcn.byte_counter", "10MB", "DCQCN paper"},
      {"fabric.dcqcn.fast_recovery_steps", "5", "DCQCN paper (F)"},
      {"fabric.dcqcn.rate_ai", "40Mbps", "DCQCN paper (R_AI)"},
      {"fabric.dcqcn.rate_hai", "200Mbps", "HPCC simulator's DCQCN (RATE_HAI)"},
      {"fabric.dcqcn.cnp_interval", "50us", "DCQCN paper (NP: one CNP per QP per 50 us)"},
  };
  p.defaults.insert(p.defaults.end(), more.begin(), more.end());
  return p;
}

// RoCEv2 with PFC on the RDMA class and HPCC window + pacing from INT.
Profile rocev2_hpcc() {
  Profile p = ethernet_base("rocev2-hpcc",
                            "RoCEv2 with PFC on traffic class 3 and HPCC (INT telemetry per hop, window + "
                            "pacing; the HPCC simulator's settings); go-back-N recovery");
  FabricConfig& c = p.config;
  c.sw.mmu.lossless_mask = 1u << c.rc.data_tc;
  c.sw.mmu.xoff_bytes = 0;
  c.sw.mmu.pfc_alpha = 1.0 / 8;
  c.sw.ecn.enabled = false;
  c.cc = "hpcc";
  c.hpcc = HpccConfig{};
  const std::vector<ProfileDefault> more = {
      {"fabric.pfc.classes", "[3]", "RDMA on a lossless priority 3 (NVIDIA RoCE configuration guides)"},
      {"fabric.pfc.xoff", "dynamic", "HPCC simulator: dynamic PFC threshold (USE_DYNAMIC_PFC_THRESHOLD 1)"},
      {"fabric.pfc.alpha", "0.125", "HPCC simulator: XOFF at free buffer / 8"},
      {"fabric.pfc.headroom", "auto",
       "rate x (2 x cable delay + 1us response) + 2 max frames (802.1Qbb Annex N)"},
      {"fabric.ecn.enabled", "false", "HPCC reacts to INT, not to ECN marks"},
      {"fabric.hpcc.eta", "0.95", "HPCC paper §5.1 and the simulator's U_TARGET 0.95"},
      {"fabric.hpcc.max_stage", "0", "HPCC simulator MI_THRESH 0 (the project page: maxStage=0)"},
      {"fabric.hpcc.rate_ai", "50Mbps", "HPCC simulator RATE_AI 50Mb/s (W_AI = R_AI x T)"},
      {"fabric.hpcc.min_rate", "100Mbps", "HPCC simulator MIN_RATE 100Mb/s"},
      {"fabric.hpcc.base_rtt", "auto",
       "the longest unloaded RTT of the topology for every flow (the simulator's GLOBAL_T 1)"},
      {"fabric.hpcc.int_header", "42B", "HPCC simulator IntHeader: 5 hops x 8 B + 2 B"},
  };
  p.defaults.insert(p.defaults.end(), more.begin(), more.end());
  return p;
}

// A 400 Gb/s deployment of a 100 Gb/s profile: the links and the RoCE MTU
// change; ECN thresholds already scale with link rate.
Profile at_400g(Profile p) {
  p.name += "-400g";
  p.config.name = p.name;
  p.summary += "; 400 Gb/s links, 4096 B MTU";
  p.config.link_rate = Rate::from_gbps(400);
  p.config.rc.mtu = 4096;
  for (auto& d : p.defaults) {
    if (d.key == "fabric.mtu")
      d = {d.key, "4096B", "largest RoCE MTU; NVIDIA recommends 4096 for RDMA on 400GbE (ConnectX-7 docs)"};
    else if (d.key == "topology.link")
      d = {d.key, "400Gbps", "400GbE host and fabric links (ConnectX-7 / Spectrum-4 class)"};
  }
  return p;
}

std::vector<std::string> profile_names() {
  return {"ethernet-lossy", "ideal", "rocev2-dcqcn", "rocev2-dcqcn-400g", "rocev2-hpcc", "rocev2-hpcc-400g"};
}

Profile find_profile(const std::string& name) {
  if (name == "ethernet-lossy")
    return ethernet_base(name,
                         "RoCEv2 framing over plain lossy Ethernet: shared-buffer tail drop, no PFC, no "
                         "congestion control, go-back-N recovery");
  if (name == "rocev2-dcqcn") return rocev2_dcqcn();
  if (name == "rocev2-dcqcn-400g") return at_400g(rocev2_dcqcn());
  if (name == "rocev2-hpcc") return rocev2_hpcc();
  if (name == "rocev2-hpcc-400g") return at_400g(rocev2_hpcc());
  if (name == "ideal") {
    Profile p = ethernet_base(name,
                              "the same hosts, links and framing with a buffer no workload can fill: nothing "
                              "is ever dropped (a reference, not a product)");
    p.config.sw.mmu.unlimited = true;
    for (auto& d : p.defaults)
      if (d.key == "topology.switch.buffer")
        d = {d.key, "unlimited", "a reference network: queues never overflow"};
      else if (d.key == "fabric.buffer_alpha")
        d = {d.key, "unused", "no per-queue limit"};
    return p;
  }
  std::string known;
  for (const auto& n : profile_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown fabric profile '" + name + "' (known: " + known + ")");
}

}  // namespace rdmasim
