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

// Unicast LIDs a subnet can give out: 0x0001-0xBFFF (IBTA Vol.1 §4.1.3).
inline constexpr int kMaxUnicastLids = 0xBFFF;

// The largest subnet's LID count, one per endpoint and one per switch or
// router (its port 0), and which subnet that is.
struct LidUse {
  int subnet = 0;
  int lids = 0;
};
[[nodiscard]] LidUse largest_subnet(const Topology& t);

// The bytes a packet between two endpoints carries for routing between
// subnets: the Global Route Header (40 B, IBTA Vol.1 §8.3), which a router
// forwards by; none within a subnet.
inline constexpr uint32_t kGrhBytes = 40;
[[nodiscard]] inline uint32_t grh_bytes(const Topology& t, int src_host, int dst_host) {
  return t.nodes[t.hosts[src_host]].subnet != t.nodes[t.hosts[dst_host]].subnet ? kGrhBytes : 0;
}

// One table per topology node. Switch entries hold the LFT port first and,
// with `adaptive` or `shield`, the other equal-cost ports after it; host entries keep all
// equal-cost ports (a multi-port NIC picks among them). `down[n][i]` marks
// failed ports, which the SM routes around. Destinations a switch cannot
// reach get no entry (traffic to them is dropped and counted).
//
// Routers (TopoNode::subnet) split a fabric into subnets, each with its own
// subnet manager: it routes its own switches to its own endpoints, and to
// another subnet's endpoints by way of one of its routers, whose long link
// takes the packet to the other subnet's router and so into that subnet's
// tables. A failure in one subnet changes only that subnet's tables.
[[nodiscard]] std::vector<RouteTable> compute_lfts(const Topology& t, const SubnetManagerConfig& cfg,
                                                   const std::vector<std::vector<char>>* down = nullptr);

}  // namespace rdmasim
