#include "route/reroute.h"

namespace rdmasim {

RouteTable without_ports(const RouteTable& t, const std::vector<char>& down) {
  RouteTable out;
  out.reset(static_cast<int>(t.destinations()));
  std::vector<uint16_t> group;
  for (int d = 0; d < static_cast<int>(t.destinations()); ++d) {
    const auto ports = t.ports(d);
    group.clear();
    for (const uint16_t p : ports)
      if (p >= down.size() || down[p] == 0) group.push_back(p);
    if (group.empty()) group.assign(ports.begin(), ports.end());
    out.set(d, group);
  }
  out.freeze();
  return out;
}

}  // namespace rdmasim
