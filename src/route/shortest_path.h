// Static shortest-path routing with every equal-cost next hop kept (ECMP).
#pragma once

#include <vector>

#include "route/route_table.h"
#include "topo/topology.h"

namespace rdmasim {

// For node n, entry i is (peer node, peer's port index) of n's port i. Ports
// are numbered in the order links appear in the topology; the network layer
// creates them in the same order.
std::vector<std::vector<std::pair<int, int>>> port_adjacency(const Topology& t);

// One table per node (hosts included: a multi-port NIC picks among its ports).
// Paths never transit a host. `down[n][i]` (optional) marks port i of node n
// as failed.
std::vector<RouteTable> shortest_path_routes(const Topology& t,
                                             const std::vector<std::vector<char>>* down = nullptr);

// Hop count (links) from every endpoint to every endpoint is not stored; this
// gives the path length between two endpoints (-1 if unreachable).
int path_links(const Topology& t, int src_host, int dst_host);

}  // namespace rdmasim
