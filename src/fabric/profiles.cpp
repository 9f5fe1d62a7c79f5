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
      {"topology.switch.forwarding", "store-and-forward",
       "ns-3 / HPCC simulator switches are store-and-forward"},
  };
  return p;
}

}  // namespace

std::vector<std::string> profile_names() { return {"ethernet-lossy", "ideal"}; }

Profile find_profile(const std::string& name) {
  if (name == "ethernet-lossy")
    return ethernet_base(name,
                         "RoCEv2 framing over plain lossy Ethernet: shared-buffer tail drop, no PFC, no "
                         "congestion control, go-back-N recovery");
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
