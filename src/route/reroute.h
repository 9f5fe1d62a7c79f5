// How an Ethernet (IP-routed, ECMP) fabric works around a failed link: the
// switches at either end notice the loss of signal and drop the port from
// their ECMP next-hop groups (local repair); every other switch learns of it
// when BGP has withdrawn and re-advertised the routes (reconvergence). A gray
// failure, where frames vanish but the signal stays, is noticed only when
// BFD misses `bfd_multiplier` hellos in a row.
#pragma once

#include <vector>

#include "engine/units.h"
#include "route/route_table.h"

namespace rdmasim {

struct RerouteConfig {
  // Loss of signal until the port is operationally down at both ends (no
  // link debounce timer, the switch OS default; see fabric/profiles.cpp).
  Time link_detect = Time::from_us(100);
  // Port down until the switch's ECMP groups skip it.
  Time local_repair = Time::from_ms(1);
  // BFD hello interval and the hellos missed before a neighbour is declared down.
  Time bfd_interval = Time::from_ms(50);
  int bfd_multiplier = 3;
  // Detection until every switch forwards by routes recomputed without the link.
  Time bgp_convergence = Time::from_ms(50);

  [[nodiscard]] Time bfd_detect() const { return bfd_interval * bfd_multiplier; }
};

// `t` with the ports marked in `down` removed from every group. A group whose
// ports are all down is kept as it was: until the routing protocol withdraws
// the destination, its packets die on the dead link (and are counted there).
[[nodiscard]] RouteTable without_ports(const RouteTable& t, const std::vector<char>& down);

}  // namespace rdmasim
