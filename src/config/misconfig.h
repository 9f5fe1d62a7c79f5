// misconfig: in a scenario, the injections an operator gets wrong on one
// device: PFC off or on the wrong priority, headroom and XOFF/XON off, ECN
// thresholds off, a NIC marking another priority (DSCP mismatch), its
// congestion-control parameters off, a switch MTU below the fabric's.
//
//   misconfig:
//     - switch: leaf0           # or nic: h3, port: leaf0:2, switch: all, nic: all
//       set: {pfc: {headroom: 2KB}}
//
// `set` holds fabric keys, read by the fabric's own declarations
// (read_device_params) on top of what the device ran so far; which keys a
// kind of device takes, and what each does, is the table in misconfig.cpp
// (docs/FAILURES.md). A key the profile has no use for, one that changes
// nothing, or a target that does not exist is refused at its line.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "config/params.h"
#include "fabric/fabric.h"
#include "topo/topology.h"

namespace rdmasim {

class CfgNode;

// Reads root's misconfig: list into fabric.misconfig, checking targets
// against `t`. Throws InputError.
void read_misconfig(const CfgNode& root, FabricConfig& fabric, const Topology& t);
// One entry as results.json records it: its target and the values it set.
[[nodiscard]] nlohmann::ordered_json misconfig_json(const DeviceOverride& o);
// The entry's keys and, under set., every key an injection may take.
[[nodiscard]] std::vector<KeyInfo> misconfig_keys();

}  // namespace rdmasim
