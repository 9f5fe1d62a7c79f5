// The fabric's keys, declared once per part (config/params.h explains the
// vocabulary). A scenario's `fabric:` block is read, echoed into
// results.json and listed by `rdmasim profiles` from visit_fabric() alone,
// and `topology.switch` from visit_switch(). Only the parts the profile uses
// are visited: a key of a part the fabric does not run is refused, with the
// reason, instead of being silently ignored.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/params.h"
#include "fabric/fabric.h"

namespace rdmasim {

class CfgNode;

// `fabric:` (less `profile`, which picked `cfg` before reading). Throws InputError.
void read_fabric_params(const CfgNode& fabric, FabricConfig& cfg);
// A misconfig entry's `set:` block on top of `cfg`: only the parts a single
// device carries (rc's mtu and data_tc, pfc, ecn, the congestion control's
// block), without the fabric-wide consistency checks, since breaking those
// is what an injection is for. Throws InputError.
void read_device_params(const CfgNode& set, FabricConfig& cfg);
// The block as results.json records it.
[[nodiscard]] nlohmann::ordered_json fabric_params_json(const FabricConfig& cfg);
// `topology.switch:`, the switch hardware (forwarding, latency, buffer).
void read_switch_params(const CfgNode& sw, SwitchSettings& cfg);
// topology.router (two-site with routers): latency, buffer, lossless.
void read_router_params(const CfgNode& n, FabricConfig& cfg);
[[nodiscard]] nlohmann::ordered_json router_params_json(const FabricConfig& cfg);
[[nodiscard]] std::vector<KeyInfo> router_param_schema(const FabricConfig& cfg);
// topology.router.latency as it runs: the key's value, or for auto the
// switches' latency on InfiniBand and 2 us on Ethernet.
[[nodiscard]] Time router_latency(const FabricConfig& cfg);
[[nodiscard]] nlohmann::ordered_json switch_params_json(const SwitchSettings& cfg);
// Every key `cfg`'s parts accept, dotted from `fabric.` and `topology.switch.`.
[[nodiscard]] std::vector<std::string> fabric_param_keys(const FabricConfig& cfg);
// The keys of `fabric:` and `topology.switch:` under `cfg`, for the key reference.
[[nodiscard]] std::vector<KeyInfo> fabric_param_schema(const FabricConfig& cfg);
[[nodiscard]] std::vector<KeyInfo> switch_param_schema(const SwitchSettings& cfg);

}  // namespace rdmasim
