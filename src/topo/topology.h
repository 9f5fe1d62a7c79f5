// A topology is a plain graph description: nodes (hosts and switches) and
// bidirectional links with a rate and a propagation delay. Builders produce
// it; the network layer instantiates it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/units.h"

namespace rdmasim {

enum class TopoNodeKind { kHost, kSwitch };

struct TopoNode {
  TopoNodeKind kind = TopoNodeKind::kHost;
  std::string name;
  int tier = 0;     // 0 host, 1 leaf/ToR/edge, 2 spine/aggregation, 3 core
  int server = -1;  // multi-GPU servers: the server this GPU endpoint sits in
  // A routed L3 hop (Ethernet) or an IB router between two sites: a switch
  // the fabric builds with its router settings (FabricConfig::router).
  bool router = false;
  // The layer-2 domain the node stands in: on InfiniBand its subnet, whose
  // own subnet manager routes it. Only routers split a fabric (a two-site
  // topology with routers: site a is 0, site b is 1); otherwise all are 0.
  int subnet = 0;
};

// One kind of link in a builder's plan: what every link of a tier gets.
struct LinkSpec {
  LinkSpec() = default;
  LinkSpec(Rate r, Time d, std::string c = {}) : rate(r), delay(d), cable(std::move(c)) {}

  Rate rate = Rate::from_gbps(100);
  Time delay = Time::from_ns(1000);
  // The cable or optic class named in the scenario (link.cable, e.g. "dr4"),
  // empty when none is: the simulation has already folded what it does into
  // the delay; the class is kept for what a link costs (evaluate's TCO).
  std::string cable;
};

struct TopoLink {
  int a = 0;
  int b = 0;
  Rate rate;
  Time delay;
  double error_rate = 0.0;  // probability a frame is corrupted on the wire (the receiver discards it)
  std::string cable;        // as LinkSpec::cable
};

struct Topology {
  std::string description;
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;
  std::vector<int> hosts;  // node ids of endpoints; endpoint i is nodes[hosts[i]]

  int add_node(TopoNodeKind kind, std::string name, int tier, int server = -1) {
    nodes.push_back(TopoNode{kind, std::move(name), tier, server});
    const int id = static_cast<int>(nodes.size()) - 1;
    if (kind == TopoNodeKind::kHost) hosts.push_back(id);
    return id;
  }
  void add_link(int a, int b, Rate rate, Time delay, double error_rate = 0.0) {
    links.push_back(TopoLink{a, b, rate, delay, error_rate, {}});
  }
  void add_link(int a, int b, const LinkSpec& l) {
    links.push_back(TopoLink{a, b, l.rate, l.delay, 0.0, l.cable});
  }
  [[nodiscard]] int num_hosts() const { return static_cast<int>(hosts.size()); }
  [[nodiscard]] int num_switches() const { return static_cast<int>(nodes.size() - hosts.size()); }
};

// Builders. Each throws std::invalid_argument with a message naming the
// offending parameter when the parameters cannot make a valid topology.
Topology make_star(int hosts, const LinkSpec& link);
// Two hosts joined through `switches` switches in a line (0: back to back).
Topology make_chain(int switches, const LinkSpec& link);
// `left` senders and `right` receivers behind two switches joined by `bottleneck`.
Topology make_dumbbell(int left, int right, const LinkSpec& host_link, const LinkSpec& bottleneck);
// Two-tier Clos. When spines == 0 the spine count follows from the
// oversubscription ratio: hosts_per_leaf*host_rate / (spines*fabric_rate) = ratio.
Topology make_leaf_spine(int leaves, int hosts_per_leaf, int spines, double oversubscription,
                         const LinkSpec& host_link, const LinkSpec& fabric_link);
// Two leaf-spine sites of `leaves` x `hosts_per_leaf` hosts and `spines`
// spines each (site a's hosts first), joined by `wan_links` long links:
// spine i of site a to spine i of site b. With `routers` > 0 the sites meet
// through routed hops instead: each site has that many routers
// (a_router0...), every spine of a site links to each of its routers (on
// fabric_link), and long link i joins router i % routers of each site.
Topology make_two_site(int leaves, int hosts_per_leaf, int spines, int wan_links, const LinkSpec& host_link,
                       const LinkSpec& fabric_link, const LinkSpec& wan_link, int routers = 0);
// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, k^3/4 hosts.
Topology make_fat_tree(int k, const LinkSpec& host_link, const LinkSpec& fabric_link);
// Multi-GPU servers, rail-optimized: GPU g of every server attaches (through
// its own NIC) to rail leaf g; every leaf connects to every spine.
// `servers_per_leaf` > 0 splits each rail into leaves of that many servers
// (scalable units, as DGX SuperPOD's 32-server SUs on 64-port leaves), every
// leaf linked once to every spine; 0: one leaf per rail for all servers.
// `switch_radix` > 0 bounds every switch's ports: when more leaves exist than
// a spine has ports, `spines` becomes the spines of each pod of radix/2
// leaves and a core tier joins the pods (SuperPOD's 16+ units); 0: no bound.
Topology make_servers(int servers, int gpus_per_server, int spines, const LinkSpec& host_link,
                      const LinkSpec& fabric_link, int servers_per_leaf = 0, int switch_radix = 0);

// Empty string when every host can reach every other host; otherwise a
// sentence naming a pair that cannot.
std::string check_connected(const Topology& t);

}  // namespace rdmasim
