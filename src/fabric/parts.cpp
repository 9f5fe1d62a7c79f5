#include "fabric/parts.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "cc/cubic/cubic.h"
#include "cc/dcqcn.h"
#include "cc/dctcp.h"
#include "cc/hpcc.h"
#include "cc/ib_cc.h"
#include "cc/newreno/newreno.h"
#include "cc/nscc/nscc.h"
#include "cc/timely.h"
#include "config/params.h"
#include "fabric/fabric.h"
#include "feedback/cnp.h"
#include "feedback/ecn_echo.h"
#include "feedback/int_echo.h"
#include "feedback/rtt_echo.h"
#include "link/credit/sl_arbiter.h"
#include "net/network.h"
#include "nic/path/per_connection/per_connection_paths.h"
#include "nic/path/plb/plb_paths.h"
#include "nic/path/spray/spray_paths.h"
#include "transport/iwarp/iwarp.h"
#include "transport/rc.h"
#include "transport/uet/pds.h"

namespace rdmasim {

std::unique_ptr<Transport> make_transport(const FabricConfig& cfg, Network& net, const PartContext& ctx) {
  if (cfg.transport == "rc") return std::make_unique<RcEngine>(net, cfg.rc, ctx.route_header);
  if (cfg.transport == "iwarp") return std::make_unique<IwarpTransport>(net, cfg.tcp);
  if (cfg.transport == "uet") return std::make_unique<UetPds>(net, cfg.uet, ctx.unloaded_rtt);
  throw std::invalid_argument("unknown transport '" + cfg.transport + "' (expected rc, iwarp or uet)");
}

namespace {

// One entry per congestion-control algorithm: its name in fabric.cc, how to
// build it from the fabric's settings, and where its parameters live in
// FabricConfig (their keys are declared once, by the parameter struct).
struct CcEntry {
  const char* name;
  std::unique_ptr<CongestionControl> (*make)(const FabricConfig& cfg, const PartContext& ctx);
  void (*read)(FabricConfig& cfg, ParamReader& r) = nullptr;  // nullptr: no parameters
  void (*echo)(const FabricConfig& cfg, ParamEcho& e) = nullptr;
  void (*keys)(ParamSchema& k) = nullptr;
};

// The three visitors over the parameter struct at Config::*Member, for a
// registry entry (congestion control, path selection).
template <class Config, auto Member>
struct ParamsAt {
  static void read(Config& cfg, ParamReader& r) { (cfg.*Member).visit(r); }
  static void echo(const Config& cfg, ParamEcho& e) { visit_const(cfg.*Member, e); }
  static void keys(ParamSchema& k) {
    std::remove_cvref_t<decltype(std::declval<Config&>().*Member)> p{};
    p.visit(k);
  }
};

template <auto Member>
CcEntry with_params(const char* name,
                    std::unique_ptr<CongestionControl> (*make)(const FabricConfig&, const PartContext&)) {
  using P = ParamsAt<FabricConfig, Member>;
  return CcEntry{name, make, &P::read, &P::echo, &P::keys};
}

const CcEntry kCongestionControls[] = {
    {"none",
     [](const FabricConfig&, const PartContext&) -> std::unique_ptr<CongestionControl> { return nullptr; }},
    with_params<&FabricConfig::dcqcn>(
        "dcqcn",
        [](const FabricConfig& cfg, const PartContext&) -> std::unique_ptr<CongestionControl> {
          return std::make_unique<Dcqcn>(cfg.dcqcn);
        }),
    with_params<&FabricConfig::dctcp>(
        "dctcp",
        [](const FabricConfig& cfg, const PartContext& ctx) -> std::unique_ptr<CongestionControl> {
          DctcpConfig d = cfg.dctcp;
          if (d.initial_window == 0) d.initial_window = d.tcp ? 10 : ctx.bdp_packets();
          return std::make_unique<Dctcp>(d);
        }),
    with_params<&FabricConfig::timely>(
        "timely",
        [](const FabricConfig& cfg, const PartContext&) -> std::unique_ptr<CongestionControl> {
          return std::make_unique<Timely>(cfg.timely);
        }),
    with_params<&FabricConfig::hpcc>(
        "hpcc",
        [](const FabricConfig& cfg, const PartContext& ctx) -> std::unique_ptr<CongestionControl> {
          HpccConfig h = cfg.hpcc;
          if (h.base_rtt == Time::zero()) h.base_rtt = ctx.max_base_rtt();
          return std::make_unique<Hpcc>(h);
        }),
    with_params<&FabricConfig::ibcc>(
        "ibcc",
        [](const FabricConfig& cfg, const PartContext&) -> std::unique_ptr<CongestionControl> {
          return std::make_unique<IbCc>(cfg.ibcc);
        }),
    {"newreno",
     [](const FabricConfig&, const PartContext&) -> std::unique_ptr<CongestionControl> {
       return std::make_unique<NewReno>();
     }},
    with_params<&FabricConfig::cubic>(
        "cubic",
        [](const FabricConfig& cfg, const PartContext&) -> std::unique_ptr<CongestionControl> {
          return std::make_unique<Cubic>(cfg.cubic);
        }),
    with_params<&FabricConfig::nscc>(
        "nscc",
        [](const FabricConfig& cfg, const PartContext& ctx) -> std::unique_ptr<CongestionControl> {
          NsccConfig n = cfg.nscc;
          // The RTT a lone packet really measures: the delay is RTT - base RTT,
          // so an overstated base makes every flow lower its own from its first
          // samples, each inflated by a different start-up queue, and flows
          // that see different delays on one FIFO do not share it.
          if (n.base_rtt == Time::zero() && ctx.unloaded_rtt) n.base_rtt = ctx.unloaded_rtt();
          if (n.base_rtt == Time::zero()) n.base_rtt = ctx.max_base_rtt();
          // Without trimming the target is one base RTT (UEC htsim initNsccParams).
          if (n.target_qdelay == Time::zero() && !cfg.sw.trim.enabled) n.target_qdelay = n.base_rtt;
          return std::make_unique<Nscc>(n);
        }),
};

const CcEntry* find_cc(const std::string& name) {
  for (const CcEntry& e : kCongestionControls)
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace

std::vector<std::string> congestion_control_names() {
  std::vector<std::string> names;
  for (const CcEntry& e : kCongestionControls) names.emplace_back(e.name);
  return names;
}

bool congestion_control_has_params(const std::string& name) {
  const CcEntry* e = find_cc(name);
  return e != nullptr && e->read != nullptr;
}

void visit_congestion_control_params(FabricConfig& cfg, ParamReader& v) {
  if (const CcEntry* e = find_cc(cfg.cc); e != nullptr && e->read != nullptr) e->read(cfg, v);
}

void visit_congestion_control_params(FabricConfig& cfg, ParamEcho& v) {
  if (const CcEntry* e = find_cc(cfg.cc); e != nullptr && e->echo != nullptr) e->echo(cfg, v);
}

void visit_congestion_control_params(FabricConfig& cfg, ParamSchema& v) {
  if (const CcEntry* e = find_cc(cfg.cc); e != nullptr && e->keys != nullptr) e->keys(v);
}

std::vector<std::string> congestion_control_param_keys(const std::string& name) {
  ParamSchema k;
  const CcEntry* e = find_cc(name);
  if (e != nullptr && e->keys != nullptr) e->keys(k);
  return key_names(k.keys);
}

std::unique_ptr<CongestionControl> make_congestion_control(const FabricConfig& cfg, const PartContext& ctx) {
  for (const CcEntry& e : kCongestionControls)
    if (cfg.cc == e.name) return e.make(cfg, ctx);
  std::string known;
  for (const CcEntry& e : kCongestionControls) known += std::string(known.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("unknown congestion control '" + cfg.cc + "' (expected " + known + ")");
}

std::string congestion_control_feedback(const FabricConfig& cfg) {
  // Only the name is wanted: a context that needs no topology.
  const PartContext ctx{[] { return Time::from_us(1); }, [] { return 1u; }, [] { return Time::from_us(1); },
                        [](int, int) { return 0u; }};
  const std::unique_ptr<CongestionControl> cc = make_congestion_control(cfg, ctx);
  return cc != nullptr ? cc->feedback() : "none";
}

std::unique_ptr<ReceiverFeedback> make_receiver_feedback(const CongestionControl* cc, Network& net) {
  const std::string name = cc != nullptr ? cc->feedback() : "none";
  if (name == "none") return std::make_unique<NoFeedback>();
  if (name == "cnp") return std::make_unique<CnpFeedback>(cc->cnp_interval());
  if (name == "ecn-echo") return std::make_unique<EcnEcho>();
  if (name == "rtt-echo") return std::make_unique<RttEcho>();
  if (name == "int-echo") return std::make_unique<IntEcho>(net.telemetry());
  throw std::invalid_argument("congestion control '" + std::string(cc->name()) +
                              "' names receiver feedback '" + name +
                              "' (expected none, cnp, ecn-echo, rtt-echo or int-echo)");
}

std::string link_flow_control_name(const FabricConfig& cfg) {
  if (cfg.ib.enabled) return "credit";
  return cfg.sw.mmu.lossless_mask != 0 ? "pfc" : "lossy";
}

LinkFlowControl make_link_flow_control(const std::string& name, const FabricConfig& cfg, const Port& port) {
  if (name == "lossy") return LinkFlowControl(LossyFlowControl{});
  if (name == "pfc") return LinkFlowControl(PfcFlowControl(cfg.sw.pfc));
  if (name == "credit") {
    const uint32_t max_packet = cfg.framing.data_wire(cfg.rc.mtu, true);
    uint64_t bytes = cfg.ib.credit.vl_buffer_bytes;
    // Auto: the 2048 credits a receiver with buffer to spare advertises
    // (an assumption: NVIDIA publishes no switch buffer size), or, on a cable
    // long enough to need more, one credit loop at line rate (the cable both
    // ways and our pipeline, during which the sender keeps sending), a
    // packet being sent at each end, and one more for the FCP, which waits
    // behind the data packet already on the reverse link when traffic flows
    // both ways (a ring), as long-haul IB extenders size their buffers.
    // With the credit loop alone in-rack (~32 KiB at 400 Gb/s) a fan-in of
    // two backed up into its senders' other traffic: NVLSTree on 4 x 8 H100
    // took 16% longer than a published run that NCCL's model matches.
    const uint64_t loop =
        static_cast<uint64_t>(
            port.rate().bytes_in(port.delay() * 2 + port.owner().ingress_latency()).count()) +
        3ull * max_packet + kFcpBytes;
    if (bytes == kVlBufferCreditLoop) bytes = loop;
    if (bytes == 0) bytes = std::max<uint64_t>(kMaxAdvertisedCredit, loop);
    const uint64_t blocks =
        std::max<uint64_t>(credit_blocks(static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX))),
                           credit_blocks(max_packet));
    return LinkFlowControl(CreditFlowControl(&cfg.ib.credit, blocks, max_packet));
  }
  throw std::invalid_argument("unknown link flow control '" + name + "' (expected lossy, pfc or credit)");
}

std::unique_ptr<ClassArbiter> make_class_arbiter(const std::string& name, const FabricConfig& cfg) {
  if (name == "lossy" || name == "pfc") return std::make_unique<EtsArbiter>(cfg.sw.scheduler);
  if (name == "credit") return std::make_unique<SlArbiter>(cfg.ib.credit);
  throw std::invalid_argument("unknown link flow control '" + name + "' (expected lossy, pfc or credit)");
}

std::string forwarding_policy_name(const FabricConfig& cfg) {
  if (!cfg.ib.enabled) return cfg.sw.adaptive_routing ? "adaptive" : "ecmp";
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
  if (cfg.sw.trim.enabled) names.emplace_back("trim");
  return names;
}

CongestionPoint make_congestion_point(const std::string& name, const FabricConfig& cfg, const Switch& sw) {
  if (name == "red") {
    std::vector<Rate> rates;
    for (size_t i = 0; i < sw.num_ports(); ++i) rates.push_back(sw.port(i).rate());
    return RedEcnPoint(cfg.sw.ecn, rates, sw.ecmp_seed());
  }
  if (name == "fecn") return FecnPoint(cfg.ibcc.threshold_bytes);
  if (name == "int") {
    // IntHop::port_id: node id << 16 | port index in 32 bits.
    if (sw.id() >= (1 << 16))
      throw std::invalid_argument(
          "INT telemetry (HPCC) names a port by its switch's node id in 16 bits; switch '" + sw.name() +
          "' is node " + std::to_string(sw.id()) + ": networks of more than 65,536 nodes cannot run it");
    return cfg.hpcc.class_int ? IntPoint(sw.num_ports()) : IntPoint{};
  }
  if (name == "trim") return TrimPoint(cfg.sw.trim);
  throw std::invalid_argument("unknown congestion point '" + name + "' (expected red, fecn, int or trim)");
}

namespace {

// One entry per path selector: its name in fabric.path_selection, how to
// build it, the receiver feedback it reads (nullptr: none) and its
// parameters in PathSelectionConfig (declared once, by the parameter struct).
struct PathEntry {
  const char* name;
  PathSelector (*make)(const PathSelectionConfig& cfg, uint64_t seed);
  const char* needs_feedback = nullptr;
  void (*read)(PathSelectionConfig& cfg, ParamReader& r) = nullptr;  // nullptr: no parameters
  void (*echo)(const PathSelectionConfig& cfg, ParamEcho& e) = nullptr;
  void (*keys)(ParamSchema& k) = nullptr;
};

template <auto Member>
PathEntry path_with_params(const char* name, PathSelector (*make)(const PathSelectionConfig&, uint64_t),
                           const char* needs_feedback) {
  using P = ParamsAt<PathSelectionConfig, Member>;
  return PathEntry{name, make, needs_feedback, &P::read, &P::echo, &P::keys};
}

const PathEntry kPathSelectors[] = {
    {"per-connection",
     [](const PathSelectionConfig&, uint64_t) { return PathSelector(PerConnectionPaths{}); }},
    path_with_params<&PathSelectionConfig::plb>(
        "plb",
        [](const PathSelectionConfig& cfg, uint64_t seed) { return PathSelector(PlbPaths(cfg.plb, seed)); },
        "ecn-echo"),
    path_with_params<&PathSelectionConfig::spray>(
        "spray", [](const PathSelectionConfig& cfg, uint64_t) { return PathSelector(SprayPaths(cfg.spray)); },
        nullptr),
    path_with_params<&PathSelectionConfig::reps>(
        "reps",
        [](const PathSelectionConfig& cfg, uint64_t seed) { return PathSelector(RepsPaths(cfg.reps, seed)); },
        nullptr),
};

// What fabric.path_selection and its selector's block do, for the key reference.
constexpr const char* kPathSelectionDoc =
    "how a QP picks the entropy ECMP hashes (RoCEv2 UDP source port): fixed per QP, re-drawn by PLB, or "
    "sprayed per packet over an EV set, obliviously (spray) or recycling the EVs whose ACKs came back "
    "unmarked "
    "(reps, UET only); the receiver then places out-of-order packets";
constexpr const char* kPathParamsDoc = "parameters of the path selector that path_selection names";

const PathEntry* find_path_selector(const std::string& name) {
  for (const PathEntry& e : kPathSelectors)
    if (name == e.name) return &e;
  return nullptr;
}

// Why the fabric cannot run selector `e` ("" if it can).
std::string path_selector_unmet(const PathEntry& e, const FabricConfig& cfg, const std::string& feedback) {
  const std::string name = e.name;
  if (name == kPathSelectors[0].name) return "";
  if (forwarding_policy_name(cfg) != "ecmp")
    return "'" + name + "' changes the entropy ECMP hashes; this fabric forwards by " +
           forwarding_policy_name(cfg) + ", which does not read it";
  if ((name == "spray" || name == "reps") && cfg.transport == "uet" && cfg.uet.mode == DeliveryMode::kRod)
    return "'" + name +
           "' reorders every PDC's packets; UET's ordered mode rod keeps one path (use mode rud)";
  if (name == "reps" && (cfg.transport != "uet" || cfg.uet.mode == DeliveryMode::kUud))
    return "'reps' recycles the entropy of each acknowledged packet, which only UET's PDS reports per packet "
           "(expected a UET profile with an acknowledged mode; spray is the oblivious spraying RC takes)";
  if (name == "spray" && cfg.transport != "rc" && cfg.transport != "uet")
    return "'spray' reorders every QP's packets; " + cfg.transport_label() +
           " takes reordering as loss (expected an RC or UET transport, which place them as they come)";
  if (e.needs_feedback != nullptr && feedback != e.needs_feedback)
    return "'" + name + "' reads " + e.needs_feedback + " receiver feedback; congestion control '" + cfg.cc +
           "' returns " + feedback + " (use fabric.cc: dctcp)";
  return "";
}

}  // namespace

std::vector<std::string> path_selector_names() {
  std::vector<std::string> names;
  for (const PathEntry& e : kPathSelectors) names.emplace_back(e.name);
  return names;
}

void visit_path_selection(FabricConfig& cfg, ParamReader& v) {
  PathSelectionConfig& p = cfg.paths;
  v.choice({"path_selection", kPathSelectionDoc}, p.name, path_selector_names());
  // A parameter block of a selector the fabric does not run would be silently ignored.
  for (const PathEntry& e : kPathSelectors)
    if (p.name != e.name)
      v.refuse(e.name, "has no effect: fabric.path_selection is '" + p.name +
                           "' (set fabric.path_selection: " + e.name + " to use it)");
  const PathEntry* e = find_path_selector(p.name);
  const std::string why = path_selector_unmet(*e, cfg, congestion_control_feedback(cfg));
  v.check(why.empty(), "path_selection", why);
  if (e->read != nullptr)
    v.block(Key{e->name, kPathParamsDoc}, [&](ParamReader& b) { e->read(p, b); });
  else
    v.refuse(e->name, "path selection '" + p.name + "' has no parameters");
}

void visit_path_selection(FabricConfig& cfg, ParamEcho& v) {
  const PathEntry* e = find_path_selector(cfg.paths.name);
  if (e == nullptr) return;
  v.choice({"path_selection", kPathSelectionDoc}, cfg.paths.name, path_selector_names());
  if (e->echo != nullptr) v.block(Key{e->name, kPathParamsDoc}, [&](ParamEcho& b) { e->echo(cfg.paths, b); });
}

void visit_path_selection(FabricConfig& cfg, ParamSchema& v) {
  const PathEntry* e = find_path_selector(cfg.paths.name);
  if (e == nullptr) return;
  v.choice({"path_selection", kPathSelectionDoc}, cfg.paths.name, path_selector_names());
  if (e->keys != nullptr) v.block(Key{e->name, kPathParamsDoc}, [&](ParamSchema& b) { e->keys(b); });
}

std::vector<std::string> path_selector_param_keys(const std::string& name) {
  ParamSchema k;
  const PathEntry* e = find_path_selector(name);
  if (e != nullptr && e->keys != nullptr) e->keys(k);
  return key_names(k.keys);
}

PathSelector make_path_selector(const FabricConfig& cfg, const CongestionControl* cc, uint64_t seed) {
  const PathEntry* e = find_path_selector(cfg.paths.name);
  if (e == nullptr) {
    std::string known;
    for (const PathEntry& x : kPathSelectors) known += std::string(known.empty() ? "" : ", ") + x.name;
    throw std::invalid_argument("unknown path selection '" + cfg.paths.name + "' (expected " + known + ")");
  }
  if (const std::string why = path_selector_unmet(*e, cfg, cc != nullptr ? cc->feedback() : "none");
      !why.empty())
    throw std::invalid_argument("path selection " + why);
  return e->make(cfg.paths, seed);
}

}  // namespace rdmasim
