// The registry of a fabric's parts: each part is chosen by name from the
// fabric configuration and built here, so adding a transport or a
// congestion-control algorithm is its own folder plus one entry below.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cc/congestion_control.h"
#include "feedback/receiver_feedback.h"
#include "link/link_flow_control.h"
#include "net/class_arbiter.h"
#include "net/congestion_point/congestion_point.h"
#include "nic/path/path_selector.h"
#include "route/forwarding/forwarding_policy.h"
#include "transport/transport.h"

namespace rdmasim {

struct FabricConfig;
class CfgNode;
class ParamReader;
class ParamEcho;
class ParamSchema;
class Network;
class Port;
class Switch;

// What a part may ask of the fabric it joins, computed on demand (a BFS over
// the topology) so parts that need neither cost nothing.
struct PartContext {
  std::function<Time()> max_base_rtt;     // longest unloaded host-to-host RTT (HPCC's T)
  std::function<uint32_t()> bdp_packets;  // one bandwidth-delay product of full packets
  std::function<Time()> unloaded_rtt;     // longest RTT a lone packet measures (Fabric::unloaded_rtt)
  // Header bytes every packet between two endpoints adds for routing between
  // subnets (InfiniBand's GRH); 0 within one.
  std::function<uint32_t(int, int)> route_header;
};

// Throws std::invalid_argument naming the known transports for an unknown name.
[[nodiscard]] std::unique_ptr<Transport> make_transport(const FabricConfig& cfg, Network& net,
                                                        const PartContext& ctx);
// The congestion-control names the registry knows ("none" first): what
// fabric.cc accepts.
[[nodiscard]] std::vector<std::string> congestion_control_names();
// The parameter block of congestion control `cfg.cc` (fabric.<name>), read,
// echoed and listed from the algorithm's own declaration (config/params.h)
// by the visitor it is given. An algorithm without parameters has no block.
[[nodiscard]] bool congestion_control_has_params(const std::string& name);
void visit_congestion_control_params(FabricConfig& cfg, ParamReader& v);
void visit_congestion_control_params(FabricConfig& cfg, ParamEcho& v);
void visit_congestion_control_params(FabricConfig& cfg, ParamSchema& v);
[[nodiscard]] std::vector<std::string> congestion_control_param_keys(const std::string& name);
// nullptr for "none". Throws std::invalid_argument for an unknown name.
[[nodiscard]] std::unique_ptr<CongestionControl> make_congestion_control(const FabricConfig& cfg,
                                                                         const PartContext& ctx);
// The receiver feedback `cfg.cc` asks for ("none", "cnp", "ecn-echo",
// "rtt-echo", "int-echo"): which congestion signal the fabric must provide.
[[nodiscard]] std::string congestion_control_feedback(const FabricConfig& cfg);
// The receiver feedback `cc` names (NoFeedback for no congestion control).
// Throws std::invalid_argument for a name no class implements.
[[nodiscard]] std::unique_ptr<ReceiverFeedback> make_receiver_feedback(const CongestionControl* cc,
                                                                       Network& net);

// The link-layer flow control every port of the fabric runs: "credit" on
// InfiniBand, "pfc" on Ethernet with a lossless class, else "lossy".
[[nodiscard]] std::string link_flow_control_name(const FabricConfig& cfg);
// The part for `port` (its rate, cable and node size a credit buffer). Call
// once the port's node and link exist. Throws std::invalid_argument naming the
// known parts for an unknown name.
[[nodiscard]] LinkFlowControl make_link_flow_control(const std::string& name, const FabricConfig& cfg,
                                                     const Port& port);
// The arbiter between the traffic classes of a NIC port's own traffic, as
// the link layer `name` arbitrates: ETS on Ethernet, VLArb on credit links.
[[nodiscard]] std::unique_ptr<ClassArbiter> make_class_arbiter(const std::string& name,
                                                               const FabricConfig& cfg);

// How switches pick an egress: "lft" or "adaptive" on InfiniBand (as the
// subnet manager is configured), else "ecmp".
[[nodiscard]] std::string forwarding_policy_name(const FabricConfig& cfg);
// The policy for `sw` (its seed hashes ECMP). Throws std::invalid_argument for an unknown name.
[[nodiscard]] ForwardingPolicy make_forwarding_policy(const std::string& name, const Switch& sw);

// The congestion points at every switch egress, in call order: "fecn" with
// InfiniBand CC, "red" when ECN marking is on, then "int" (HPCC's telemetry,
// on packets that carry a stack).
[[nodiscard]] std::vector<std::string> congestion_point_names(const FabricConfig& cfg);
// The point for `sw` (its ports' rates scale RED thresholds; its seed draws
// RED's "ecn" stream). Throws std::invalid_argument for an unknown name.
[[nodiscard]] CongestionPoint make_congestion_point(const std::string& name, const FabricConfig& cfg,
                                                    const Switch& sw);

// How requesters choose the entropy of their packets (fabric.path_selection):
// the names the registry holds, "per-connection" first (the default).
[[nodiscard]] std::vector<std::string> path_selector_names();
// fabric.path_selection and the chosen selector's parameter block
// (fabric.<name>, keys declared by its parameter struct), read, echoed and
// listed by the visitor it is given (fabric/schema.cpp). Reading refuses the
// block of a selector the fabric does not run, and a selector the fabric
// cannot serve (it needs ECMP, or a receiver feedback the congestion control
// does not name); call it after fabric.cc. The echo and the key list leave
// out the default, per-connection: the outputs of fabrics that keep it
// predate the part.
void visit_path_selection(FabricConfig& cfg, ParamReader& v);
void visit_path_selection(FabricConfig& cfg, ParamEcho& v);
void visit_path_selection(FabricConfig& cfg, ParamSchema& v);
[[nodiscard]] std::vector<std::string> path_selector_param_keys(const std::string& name);
// The selector for a fabric whose congestion control is `cc` (nullptr: none);
// `seed` seeds its random stream. Throws std::invalid_argument for an unknown
// name or a requirement the fabric does not meet.
[[nodiscard]] PathSelector make_path_selector(const FabricConfig& cfg, const CongestionControl* cc,
                                              uint64_t seed);

}  // namespace rdmasim
