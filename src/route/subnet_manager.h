// The InfiniBand subnet manager's routing: it assigns each endpoint a LID and
// computes every switch's linear forwarding table (LFT: DLID -> one output
// port) with one of OpenSM's routing engines. For adaptive routing each LFT
// entry also lists the other equal-cost ports the switch may pick per packet.
#pragma once

#include <string>
#include <vector>

#include "engine/units.h"
#include "route/route_table.h"
#include "topo/topology.h"

namespace rdmasim {

// OpenSM routing engines (opensm(8), "ROUTING"):
//  minhop: shortest paths, each switch spreading destinations over its
//          equal-hop ports by how many it already routes through each;
//  updn:   shortest paths that never turn from going down (away from the
//          roots) to going up, which keeps credit loops, and so deadlock, out;
//  ftree:  fat-tree routing: up/down paths where the up-port for a
//          destination is picked by its index digit at each level (d-mod-k),
//          so every destination gets its own top switch and the down paths of
//          distinct destinations never share a link.
enum class RoutingEngine : uint8_t { kMinHop, kUpDown, kFtree };

[[nodiscard]] const char* routing_engine_name(RoutingEngine e);

struct SubnetManagerConfig {
  RoutingEngine engine = RoutingEngine::kFtree;
  bool adaptive = false;  // switches choose among equal-cost ports per packet
  // After a link fails: until the SM has heard of it (trap + heavy sweep), and
  // until the new LFTs are computed and written to the switches.
  Time detection_delay = Time::from_us(100);
  Time compute_time = Time::from_us(500);
  // SHIELD (NVIDIA's self-healing interconnect): a switch whose LFT port is
  // down sends by another equal-cost port at once (Fast Link Fault Recovery,
  // FLFR); a switch left with no port towards some destinations tells its
  // neighbours, which stop sending it those (Fast Link Fault Notification,
  // FLFN) `flfn_delay` later. Both act long before the SM's new LFTs.
  bool shield = true;
  Time flfn_delay = Time::from_us(10);
};

// LIDs: endpoint i gets LID i + 1 (LID 0 is reserved, IBTA Vol.1 §4.1.3);
// switches get the LIDs after the endpoints. Forwarding tables are indexed by
// endpoint, which is the same thing under this assignment.
[[nodiscard]] inline int lid_of_host(int host) { return host + 1; }

// One table per topology node. Switch entries hold the LFT port first and,
// with `adaptive` or `shield`, the other equal-cost ports after it; host entries keep all
// equal-cost ports (a multi-port NIC picks among them). `down[n][i]` marks
// failed ports, which the SM routes around. Destinations a switch cannot
// reach get no entry (traffic to them is dropped and counted).
[[nodiscard]] std::vector<RouteTable> compute_lfts(const Topology& t, const SubnetManagerConfig& cfg,
                                                   const std::vector<std::vector<char>>* down = nullptr);

}  // namespace rdmasim
