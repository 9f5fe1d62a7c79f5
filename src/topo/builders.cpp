#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>

#include "topo/topology.h"

namespace rdmasim {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

Topology make_star(int hosts, const LinkSpec& link) {
  require(hosts >= 2 && hosts <= 100000, "hosts must be between 2 and 100000");
  Topology t;
  t.description = "star of " + std::to_string(hosts) + " hosts";
  const int sw = hosts;  // hosts first, so host i is node i
  for (int i = 0; i < hosts; ++i) t.add_node(TopoNodeKind::kHost, "h" + std::to_string(i), 0);
  t.add_node(TopoNodeKind::kSwitch, "sw0", 1);
  for (int i = 0; i < hosts; ++i) t.add_link(i, sw, link);
  return t;
}

Topology make_chain(int switches, const LinkSpec& link) {
  require(switches >= 0 && switches <= 64, "switches must be between 0 and 64");
  Topology t;
  t.description = "2 hosts through " + std::to_string(switches) + " switch(es)";
  t.add_node(TopoNodeKind::kHost, "client", 0);
  t.add_node(TopoNodeKind::kHost, "server", 0);
  int prev = 0;
  for (int s = 0; s < switches; ++s) {
    const int id = t.add_node(TopoNodeKind::kSwitch, "sw" + std::to_string(s), 1);
    t.add_link(prev, id, link);
    prev = id;
  }
  t.add_link(prev, 1, link);
  return t;
}

Topology make_dumbbell(int left, int right, const LinkSpec& host_link, const LinkSpec& bottleneck) {
  require(left >= 1 && left <= 100000, "left must be between 1 and 100000");
  require(right >= 1 && right <= 100000, "right must be between 1 and 100000");
  Topology t;
  t.description = "dumbbell " + std::to_string(left) + "x" + std::to_string(right);
  for (int i = 0; i < left + right; ++i) t.add_node(TopoNodeKind::kHost, "h" + std::to_string(i), 0);
  const int s0 = t.add_node(TopoNodeKind::kSwitch, "swL", 1);
  const int s1 = t.add_node(TopoNodeKind::kSwitch, "swR", 1);
  for (int i = 0; i < left; ++i) t.add_link(i, s0, host_link);
  for (int i = left; i < left + right; ++i) t.add_link(i, s1, host_link);
  t.add_link(s0, s1, bottleneck);
  return t;
}

Topology make_leaf_spine(int leaves, int hosts_per_leaf, int spines, double oversubscription,
                         const LinkSpec& host_link, const LinkSpec& fabric_link) {
  require(leaves >= 1 && leaves <= 4096, "leaves must be between 1 and 4096");
  require(hosts_per_leaf >= 1 && hosts_per_leaf <= 4096, "hosts_per_leaf must be between 1 and 4096");
  if (spines <= 0) {
    require(oversubscription >= 1.0, "oversubscription must be >= 1 (e.g. 1 for non-blocking, 2 for 2:1)");
    const double down = static_cast<double>(hosts_per_leaf) * host_link.rate.bps();
    const double need = std::ceil(down / (oversubscription * fabric_link.rate.bps()) - 1e-9);
    require(need <= 4096, "the oversubscription ratio needs " + std::to_string(need) +
                              " spines (more than 4096): raise fabric_link.rate or the ratio");
    spines = std::max(static_cast<int>(need), 1);
  }
  require(spines <= 4096, "spines must be at most 4096");
  Topology t;
  t.description = "leaf-spine " + std::to_string(leaves) + " leaves x " + std::to_string(hosts_per_leaf) +
                  " hosts, " + std::to_string(spines) + " spines";
  for (int l = 0; l < leaves; ++l)
    for (int h = 0; h < hosts_per_leaf; ++h)
      t.add_node(TopoNodeKind::kHost, "h" + std::to_string(l * hosts_per_leaf + h), 0);
  const int first_leaf = static_cast<int>(t.nodes.size());
  for (int l = 0; l < leaves; ++l) t.add_node(TopoNodeKind::kSwitch, "leaf" + std::to_string(l), 1);
  const int first_spine = static_cast<int>(t.nodes.size());
  for (int s = 0; s < spines; ++s) t.add_node(TopoNodeKind::kSwitch, "spine" + std::to_string(s), 2);
  for (int l = 0; l < leaves; ++l) {
    for (int h = 0; h < hosts_per_leaf; ++h) t.add_link(l * hosts_per_leaf + h, first_leaf + l, host_link);
    if (leaves > 1)
      for (int s = 0; s < spines; ++s) t.add_link(first_leaf + l, first_spine + s, fabric_link);
  }
  return t;
}

Topology make_two_site(int leaves, int hosts_per_leaf, int spines, int wan_links, const LinkSpec& host_link,
                       const LinkSpec& fabric_link, const LinkSpec& wan_link, int routers) {
  require(leaves >= 1 && leaves <= 2048, "leaves must be between 1 and 2048 per site");
  require(hosts_per_leaf >= 1 && hosts_per_leaf <= 4096, "hosts_per_leaf must be between 1 and 4096");
  require(spines >= 1 && spines <= 4096, "spines must be between 1 and 4096 per site");
  require(routers >= 0 && routers <= 64, "routers must be between 0 and 64 per site");
  if (routers == 0)
    require(wan_links >= 1 && wan_links <= spines,
            "wan_links must be between 1 and spines (" + std::to_string(spines) + "): spine i meets spine i");
  else
    require(wan_links >= routers && wan_links <= 4096, "wan_links must be between routers (" +
                                                           std::to_string(routers) +
                                                           ", each router needs a long link) and 4096");
  Topology t;
  t.description = "two sites of " + std::to_string(leaves) + " leaves x " + std::to_string(hosts_per_leaf) +
                  " hosts and " + std::to_string(spines) + " spines, joined by " + std::to_string(wan_links) +
                  " long links" +
                  (routers > 0 ? " between " + std::to_string(routers) + " router(s) per site" : "");
  const int per_site = leaves * hosts_per_leaf;
  for (int h = 0; h < 2 * per_site; ++h) t.add_node(TopoNodeKind::kHost, "h" + std::to_string(h), 0);
  int first_spine[2] = {0, 0};
  for (int site = 0; site < 2; ++site) {
    const std::string tag = site == 0 ? "a_" : "b_";
    const int first_leaf = static_cast<int>(t.nodes.size());
    for (int l = 0; l < leaves; ++l) t.add_node(TopoNodeKind::kSwitch, tag + "leaf" + std::to_string(l), 1);
    first_spine[site] = static_cast<int>(t.nodes.size());
    for (int sp = 0; sp < spines; ++sp)
      t.add_node(TopoNodeKind::kSwitch, tag + "spine" + std::to_string(sp), 2);
    for (int l = 0; l < leaves; ++l) {
      for (int h = 0; h < hosts_per_leaf; ++h)
        t.add_link(site * per_site + l * hosts_per_leaf + h, first_leaf + l, host_link);
      for (int sp = 0; sp < spines; ++sp) t.add_link(first_leaf + l, first_spine[site] + sp, fabric_link);
    }
  }
  if (routers == 0) {
    for (int i = 0; i < wan_links; ++i) t.add_link(first_spine[0] + i, first_spine[1] + i, wan_link);
    return t;
  }
  int first_router[2] = {0, 0};
  const int switches_per_site = leaves + spines;
  auto site_of = [&](int n) {
    if (n < 2 * per_site) return n / per_site;
    if (n < 2 * (per_site + switches_per_site)) return (n - 2 * per_site) / switches_per_site;
    return (n - first_router[0]) / routers;
  };
  for (int site = 0; site < 2; ++site) {
    first_router[site] = static_cast<int>(t.nodes.size());
    for (int r = 0; r < routers; ++r) {
      const int id = t.add_node(TopoNodeKind::kSwitch,
                                std::string(site == 0 ? "a_" : "b_") + "router" + std::to_string(r), 3);
      t.nodes[id].router = true;
    }
    for (int sp = 0; sp < spines; ++sp)
      for (int r = 0; r < routers; ++r)
        t.add_link(first_spine[site] + sp, first_router[site] + r, fabric_link);
  }
  for (int i = 0; i < wan_links; ++i)
    t.add_link(first_router[0] + i % routers, first_router[1] + i % routers, wan_link);
  // Routers split the sites into two subnets; each long link joins a router of each.
  for (size_t n = 0; n < t.nodes.size(); ++n) t.nodes[n].subnet = site_of(static_cast<int>(n));
  return t;
}

Topology make_fat_tree(int k, const LinkSpec& host_link, const LinkSpec& fabric_link) {
  require(k >= 2 && k <= 128 && k % 2 == 0, "k must be an even number between 2 and 128");
  const int half = k / 2;
  Topology t;
  t.description = std::to_string(k) + "-ary fat-tree, " + std::to_string(k * k * k / 4) + " hosts";
  // Host h sits under edge switch h / half of pod h / (half*half).
  for (int h = 0; h < k * k * k / 4; ++h) t.add_node(TopoNodeKind::kHost, "h" + std::to_string(h), 0);
  const int first_edge = static_cast<int>(t.nodes.size());
  for (int p = 0; p < k; ++p)
    for (int e = 0; e < half; ++e)
      t.add_node(TopoNodeKind::kSwitch, "edge" + std::to_string(p) + "_" + std::to_string(e), 1);
  const int first_agg = static_cast<int>(t.nodes.size());
  for (int p = 0; p < k; ++p)
    for (int a = 0; a < half; ++a)
      t.add_node(TopoNodeKind::kSwitch, "agg" + std::to_string(p) + "_" + std::to_string(a), 2);
  const int first_core = static_cast<int>(t.nodes.size());
  for (int c = 0; c < half * half; ++c) t.add_node(TopoNodeKind::kSwitch, "core" + std::to_string(c), 3);
  for (int h = 0; h < k * k * k / 4; ++h) t.add_link(h, first_edge + h / half, host_link);
  for (int p = 0; p < k; ++p)
    for (int e = 0; e < half; ++e)
      for (int a = 0; a < half; ++a)
        t.add_link(first_edge + p * half + e, first_agg + p * half + a, fabric_link);
  // Aggregation switch a of every pod connects to cores a*half .. a*half+half-1.
  for (int p = 0; p < k; ++p)
    for (int a = 0; a < half; ++a)
      for (int c = 0; c < half; ++c)
        t.add_link(first_agg + p * half + a, first_core + a * half + c, fabric_link);
  return t;
}

Topology make_servers(int servers, int gpus_per_server, int spines, const LinkSpec& host_link,
                      const LinkSpec& fabric_link, int servers_per_leaf, int switch_radix) {
  require(servers >= 1 && servers <= 8192, "servers must be between 1 and 8192");
  require(gpus_per_server >= 1 && gpus_per_server <= 64, "gpus_per_server must be between 1 and 64");
  require(spines >= 0 && spines <= 4096, "spines must be between 0 and 4096");
  require(servers_per_leaf >= 0, "servers_per_leaf must be 0 (all) or more");
  require(switch_radix == 0 || (switch_radix >= 4 && switch_radix <= 4096 && switch_radix % 2 == 0),
          "switch_radix must be 0 (no limit) or an even port count between 4 and 4096");
  const int per_leaf = servers_per_leaf == 0 ? servers : std::min(servers, servers_per_leaf);
  const int units = (servers + per_leaf - 1) / per_leaf;  // scalable units: a leaf per rail each
  const int leaves = gpus_per_server * units;
  if (switch_radix > 0)
    require(per_leaf + spines <= switch_radix,
            "a rail leaf needs " + std::to_string(per_leaf) + " ports down and " + std::to_string(spines) +
                " up, more than switch_radix " + std::to_string(switch_radix) +
                ": fewer servers_per_leaf, or a larger radix");
  // A spine linked to every leaf needs a port per leaf. When the radix cannot
  // give that, the fabric gets a third tier as NVIDIA's SuperPOD does beyond
  // 8 units: pods of radix/2 leaves, each with its own `spines` spines (half
  // their ports down to the pod's leaves, half up), and spine j of every pod
  // joined to core plane j.
  const bool three_tier = switch_radix > 0 && spines > 0 && leaves > switch_radix;
  const int pod_leaves = three_tier ? switch_radix / 2 : leaves;
  const int pods = (leaves + pod_leaves - 1) / pod_leaves;
  // A spine's radix/2 uplinks go round the cores of its plane, so a core has
  // pods x ceil(radix/2 / cores) ports: the fewest cores that keep it within
  // the radix (pods/2 when the division is even, as in SuperPOD's table).
  int plane_cores = 0;
  if (three_tier) {
    const int up = switch_radix / 2;
    plane_cores = (pods + 1) / 2;
    while (plane_cores <= up && pods * ((up + plane_cores - 1) / plane_cores) > switch_radix) ++plane_cores;
    require(plane_cores <= up, std::to_string(leaves) + " rail leaves need " + std::to_string(pods) +
                                   " pods of " + std::to_string(pod_leaves) +
                                   ", more than a core tier of radix " + std::to_string(switch_radix) +
                                   " can join: a larger radix, or more servers_per_leaf");
  }
  Topology t;
  t.description = std::to_string(servers) + " servers x " + std::to_string(gpus_per_server) +
                  " GPUs, rail-optimized, " + std::to_string(spines * pods) + " spines";
  if (units > 1)
    t.description += ", " + std::to_string(units) + " units of " + std::to_string(per_leaf) + " servers";
  if (three_tier)
    t.description += ", " + std::to_string(pods) + " pods of " + std::to_string(pod_leaves) + " leaves, " +
                     std::to_string(spines * plane_cores) + " cores";
  for (int s = 0; s < servers; ++s)
    for (int g = 0; g < gpus_per_server; ++g)
      t.add_node(TopoNodeKind::kHost, "srv" + std::to_string(s) + ".gpu" + std::to_string(g), 0, s);
  // Rail leaves, rail-major: leaf (g, u) serves GPU g of the servers of unit
  // u. Pods take consecutive leaves, so a rail's leaves share pods and
  // same-rail traffic (most of a rail-aware collective's) stays below the cores.
  const int first_rail = static_cast<int>(t.nodes.size());
  for (int g = 0; g < gpus_per_server; ++g)
    for (int u = 0; u < units; ++u)
      t.add_node(TopoNodeKind::kSwitch,
                 "rail" + std::to_string(g) + (units > 1 ? ".su" + std::to_string(u) : std::string()), 1);
  const int first_spine = static_cast<int>(t.nodes.size());
  for (int p = 0; p < pods; ++p)
    for (int s = 0; s < spines; ++s)
      t.add_node(TopoNodeKind::kSwitch,
                 (three_tier ? "pod" + std::to_string(p) + "." : std::string()) + "spine" + std::to_string(s),
                 2);
  const int first_core = static_cast<int>(t.nodes.size());
  for (int j = 0; j < spines * plane_cores; ++j)
    t.add_node(TopoNodeKind::kSwitch,
               "core" + std::to_string(j / plane_cores) + "." + std::to_string(j % plane_cores), 3);
  for (int s = 0; s < servers; ++s)
    for (int g = 0; g < gpus_per_server; ++g)
      t.add_link(s * gpus_per_server + g, first_rail + g * units + s / per_leaf, host_link);
  for (int leaf = 0; leaf < leaves; ++leaf)
    for (int s = 0; s < spines; ++s)
      t.add_link(first_rail + leaf, first_spine + (leaf / pod_leaves) * spines + s, fabric_link);
  // Each spine's radix/2 uplinks go round the cores of its plane.
  for (int p = 0; p < pods && three_tier; ++p)
    for (int s = 0; s < spines; ++s)
      for (int k = 0; k < switch_radix / 2; ++k)
        t.add_link(first_spine + p * spines + s, first_core + s * plane_cores + k % plane_cores, fabric_link);
  return t;
}

std::string check_connected(const Topology& t) {
  if (t.hosts.empty()) return "the topology has no hosts";
  std::vector<std::vector<int>> adj(t.nodes.size());
  for (const auto& l : t.links) {
    adj[l.a].push_back(l.b);
    adj[l.b].push_back(l.a);
  }
  // Hosts do not forward, so search through switches only.
  std::vector<char> seen(t.nodes.size(), 0);
  std::queue<int> q;
  q.push(t.hosts[0]);
  seen[t.hosts[0]] = 1;
  while (!q.empty()) {
    const int n = q.front();
    q.pop();
    if (n != t.hosts[0] && t.nodes[n].kind == TopoNodeKind::kHost) continue;
    for (int m : adj[n])
      if (!seen[m]) {
        seen[m] = 1;
        q.push(m);
      }
  }
  for (int h : t.hosts)
    if (!seen[h])
      return "host '" + t.nodes[h].name + "' cannot reach host '" + t.nodes[t.hosts[0]].name +
             "' (the topology is not connected)";
  return {};
}

}  // namespace rdmasim
