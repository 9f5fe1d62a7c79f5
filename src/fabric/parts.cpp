#include "fabric/parts.h"

#include <algorithm>
#include <stdexcept>

#include "cc/dcqcn.h"
#include "cc/dctcp.h"
#include "cc/hpcc.h"
#include "cc/ib_cc.h"
#include "cc/timely.h"
#include "fabric/fabric.h"
#include "transport/rc.h"

namespace rdmasim {

std::unique_ptr<Transport> make_transport(const FabricConfig& cfg, Network& net) {
  if (cfg.transport == "rc") return std::make_unique<RcEngine>(net, cfg.rc);
  throw std::invalid_argument("unknown transport '" + cfg.transport + "' (expected rc)");
}

std::unique_ptr<CongestionControl> make_congestion_control(const FabricConfig& cfg, const PartContext& ctx) {
  if (cfg.cc == "none") return nullptr;
  if (cfg.cc == "dcqcn") return std::make_unique<Dcqcn>(cfg.dcqcn);
  if (cfg.cc == "dctcp") {
    DctcpConfig d = cfg.dctcp;
    if (d.initial_window == 0) d.initial_window = ctx.bdp_packets;
    return std::make_unique<Dctcp>(d);
  }
  if (cfg.cc == "timely") return std::make_unique<Timely>(cfg.timely);
  if (cfg.cc == "hpcc") {
    HpccConfig h = cfg.hpcc;
    if (h.base_rtt == Time::zero()) h.base_rtt = ctx.max_base_rtt;
    return std::make_unique<Hpcc>(h);
  }
  if (cfg.cc == "ibcc") return std::make_unique<IbCc>(cfg.ibcc);
  throw std::invalid_argument("unknown congestion control '" + cfg.cc +
                              "' (expected none, dcqcn, dctcp, timely, hpcc or ibcc)");
}

std::string link_flow_control_name(const FabricConfig& cfg) {
  if (cfg.ib.enabled) return "credit";
  return cfg.sw.mmu.lossless_mask != 0 ? "pfc" : "lossy";
}

LinkFlowControl make_link_flow_control(const std::string& name, const FabricConfig& cfg, const Port& port) {
  if (name == "lossy") return LinkFlowControl(LossyFlowControl{});
  if (name == "pfc") return LinkFlowControl(PfcFlowControl{});
  if (name == "credit") {
    const uint32_t max_packet = cfg.framing.data_wire(cfg.rc.mtu, true);
    uint64_t bytes = cfg.ib.credit.vl_buffer_bytes;
    // Auto: one credit loop at line rate (the cable both ways and our
    // pipeline, during which the sender keeps sending) plus a packet being
    // sent at each end, so one flow alone never waits for credit.
    if (bytes == 0)
      bytes = static_cast<uint64_t>(
                  port.rate().bytes_in(port.delay() * 2 + port.owner().ingress_latency()).count()) +
              2ull * max_packet + kFcpBytes;
    const uint64_t blocks =
        std::max<uint64_t>(credit_blocks(static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX))),
                           credit_blocks(max_packet));
    return LinkFlowControl(CreditFlowControl(&cfg.ib.credit, blocks, max_packet));
  }
  throw std::invalid_argument("unknown link flow control '" + name + "' (expected lossy, pfc or credit)");
}

std::string forwarding_policy_name(const FabricConfig& cfg) {
  if (!cfg.ib.enabled) return "ecmp";
  return cfg.ib.sm.adaptive ? "adaptive" : "lft";
}

ForwardingPolicy make_forwarding_policy(const std::string& name, const Switch& sw) {
  if (name == "ecmp") return ForwardingPolicy(EcmpForwarding(sw.ecmp_seed()));
  if (name == "lft") return ForwardingPolicy(LftForwarding{});
  if (name == "adaptive") return ForwardingPolicy(AdaptiveForwarding{});
  throw std::invalid_argument("unknown forwarding policy '" + name + "' (expected ecmp, lft or adaptive)");
}

std::vector<std::string> congestion_point_names(const FabricConfig& cfg) {
  std::vector<std::string> names;
  // ibcc's FECN replaces RED: InfiniBand refuses the fabric.ecn block.
  if (cfg.cc == "ibcc")
    names.emplace_back("fecn");
  else if (cfg.sw.ecn.enabled)
    names.emplace_back("red");
  // INT stamps only packets that carry a stack, which the transport attaches
  // when its congestion control asks for telemetry (HPCC, or one installed
  // later): every switch keeps it, as a real INT pipeline is always there.
  names.emplace_back("int");
  return names;
}

CongestionPoint make_congestion_point(const std::string& name, const FabricConfig& cfg, const Switch& sw) {
  if (name == "red") {
    std::vector<Rate> rates;
    for (size_t i = 0; i < sw.num_ports(); ++i) rates.push_back(sw.port(i).rate());
    return RedEcnPoint(cfg.sw.ecn, rates, sw.ecmp_seed());
  }
  if (name == "fecn") return FecnPoint(cfg.ibcc.threshold_bytes);
  if (name == "int") return IntPoint{};
  throw std::invalid_argument("unknown congestion point '" + name + "' (expected red, fecn or int)");
}

}  // namespace rdmasim
