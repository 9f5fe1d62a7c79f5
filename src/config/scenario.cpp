#include "config/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include "config/misconfig.h"
#include "config/units_parse.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "route/subnet_manager.h"
#include "topo/hpcc_format.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxHosts = 131072;  // beyond this a build exhausts memory before a single event runs

// Light in silica fibre: group index 1.4682 at 1550 nm (Corning SMF-28),
// 4.897 us/km one way ("one kilometer of single-mode fiber adds roughly 4.9
// us", mapyourtech.com, The 5-microsecond rule). Picoseconds per metre:
constexpr double kFibrePsPerMetre = 1.4682 / 299'792'458.0 * 1e12;
// The longest link a length may describe: a transcontinental span.
constexpr double kMaxLengthMetres = 20'000'000;

// A length with its unit ("300m", "40km"), in metres; -1 if it is not one.
double metres_of(const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    const std::string unit = text.substr(used);
    if (unit == "km") return v * 1000;
    if (unit == "m") return v;
  } catch (const std::exception&) {
  }
  return -1;
}

// A length key's value in metres, refused unless it has a unit and fits a planet.
double read_length(const CfgNode& n, const char* key) {
  const std::string text = n.str(key);
  const double metres = metres_of(text);
  if (!(metres >= 0))
    throw n.error(key, "expected a length with its unit, e.g. 300m or 40km (got \"" + text + "\")");
  if (metres > kMaxLengthMetres) throw n.error(key, "expected at most 20000km (got \"" + text + "\")");
  return metres;
}

Time fibre_delay(double metres) {
  return Time::from_ps(static_cast<int64_t>(std::llround(metres * kFibrePsPerMetre)));
}

// link.length: a cable or fibre length, e.g. 300m or 40km; sets the delay.
struct LinkLengthCodec {
  static void read(const CfgNode& n, const char* key, LinkSpec& l) {
    if (n.has("delay"))
      throw n.error(key, "expected either delay or length (which sets the delay from the fibre), not both");
    l.delay = fibre_delay(read_length(n, key));
  }
  static nlohmann::ordered_json echo(const LinkSpec&) { return nullptr; }
  static std::string form() { return "length, e.g. 300m or 40km (sets delay at 4.897 us/km)"; }
};

// What carries a link: its reach bounds the length, a coherent DSP adds to
// the delay, an extender bounds the rate. Reaches at 400G (docs/DISTANCE.md).
struct CableClass {
  const char* name;
  double reach_m;
  Time added;       // one way, on top of the fibre or copper (module DSP)
  double max_gbps;  // 0: any rate
  const char* source;
};
constexpr CableClass kCables[] = {
    {"dac", 3, Time(), 0, "NVIDIA LinkX 100G-PAM4 passive DAC: up to 3 m (IEEE 802.3ck CR: 2 m)"},
    {"acc", 5, Time(), 0, "NVIDIA LinkX linear active copper: 3, 4 and 5 m"},
    {"aoc", 100, Time(), 0, "NVIDIA LinkX AOCs: 3 m to about 100 m"},
    {"sr8", 100, Time(), 0, "IEEE 802.3cm 400GBASE-SR8: 100 m on OM4"},
    {"sr4", 100, Time(), 0, "IEEE 802.3db 400GBASE-SR4: 100 m on OM4"},
    {"dr4", 500, Time(), 0, "IEEE 802.3bs 400GBASE-DR4: 500 m"},
    {"fr4", 2000, Time(), 0, "IEEE 802.3cu 400GBASE-FR4: 2 km"},
    {"lr4", 6000, Time(), 0, "IEEE 802.3cu 400GBASE-LR4-6: 6 km"},
    {"lr8", 10000, Time(), 0, "IEEE 802.3bs 400GBASE-LR8: 10 km"},
    {"zr", 120000, Time::from_us(2), 0,
     "OIF 400ZR / IEEE 802.3cw: 80 km (vendors: 120 km) of amplified DWDM; the coherent DSP and FEC "
     "add 2 us each way (assumption: no figure is published)"},
    {"zr-plus", 1000000, Time::from_us(3), 0,
     "OpenZR+ MSA: the line system sets the reach (vendors: over 1000 km at lower rates; 1000 km "
     "assumed); 3 us each way (assumption: no figure is published)"},
    {"metrox-3", 40000, Time(), 200,
     "NVIDIA MetroX-3 XC InfiniBand extender: 40 km over 2 x 100G DWDM, 200 Gb/s per pair; its added "
     "latency is not published (not modelled)"},
};

const CableClass* find_cable(std::string_view name) {
  for (const CableClass& k : kCables)
    if (name == k.name) return &k;
  return nullptr;
}

// The class named at `key`, or an error listing the classes.
const CableClass& read_cable(const CfgNode& n, const char* key) {
  const std::string name = n.str(key);
  if (const CableClass* c = find_cable(name)) return *c;
  std::string names;
  for (const CableClass& k : kCables) names += (names.empty() ? "" : ", ") + std::string(k.name);
  throw n.error(key, "expected one of: " + names + " (got \"" + name + "\")");
}

std::string reach_text(const CableClass& c) {
  return c.reach_m >= 1000 ? fmt::format("{:g} km", c.reach_m / 1000) : fmt::format("{:g} m", c.reach_m);
}

// link.cable: the class of cable or optic, checked against the length (and,
// for an extender, the rate) the link block gives.
struct CableCodec {
  static void read(const CfgNode& n, const char* key, LinkSpec& l) {
    const CableClass& c = read_cable(n, key);
    if (n.has("length")) {
      const double m = metres_of(n.str("length"));
      if (m > c.reach_m)
        throw n.error("length", fmt::format("a {} link reaches {} ({}), not {}", c.name, reach_text(c),
                                            c.source, n.str("length")));
    }
    // An unset rate is the profile's, not known yet: an extender needs it said.
    if (c.max_gbps > 0 && (!n.has("rate") || l.rate.gbps() > c.max_gbps))
      throw n.error(key, fmt::format("{} carries at most {:g} Gb/s ({}): set the link's rate to at most that",
                                     c.name, c.max_gbps, c.source));
    l.delay = l.delay + c.added;
    l.cable = c.name;
  }
  static nlohmann::ordered_json echo(const LinkSpec&) { return nullptr; }
  static std::string form() {
    std::string names;
    for (const CableClass& k : kCables) names += (names.empty() ? "" : " | ") + std::string(k.name);
    return names;
  }
};

// links[i].cable: the class that carries the entry's new length.
struct LinkSettingCableCodec {
  static void read(const CfgNode& n, const char* key, std::string& cable) {
    if (!n.has("length"))
      throw n.error(key, "expected beside a length: a cable class names what carries the link's new length");
    cable = read_cable(n, key).name;
  }
  static nlohmann::ordered_json echo(const std::string& cable) { return cable; }
  static std::string form() { return CableCodec::form(); }
};

// links[i].length: one link's fibre (every link's with link: all).
struct LinkSettingLengthCodec {
  static void read(const CfgNode& n, const char* key, double& metres) { metres = read_length(n, key); }
  static nlohmann::ordered_json echo(double metres) { return fmt::format("{:g}m", metres); }
  static std::string form() { return "length, e.g. 300m or 40km (sets the link's delay at 4.897 us/km)"; }
};

template <class V>
void visit_link(V& v, LinkSpec& l) {
  v.rate({"rate", "line rate of each link"}, l.rate);
  v.time({"delay", "one-way propagation delay of each link"}, l.delay);
  // The echo shows the delay the length set; the length itself is input only.
  if constexpr (!std::is_same_v<V, ParamEcho>)
    v.custom({"length", "instead of delay: the fibre's length, its delay from the group index (4.897 us/km)"},
             l, LinkLengthCodec{});
  if constexpr (!std::is_same_v<V, ParamEcho>)
    v.custom({"cable",
              "cable or optic class: its reach bounds length, a coherent module (zr, zr-plus) adds its DSP "
              "latency to the delay, an extender (metrox-3) bounds the rate; evaluate prices the link by it. "
              "Named per block (fabric_link and wan_link do not take link's)"},
             l, CableCodec{});
}

// topology: the keys of the chosen type, then its links. topology.switch
// belongs to the fabric's switch part (read_switch_params).
template <class V>
void visit_topology(V& v, TopologySpec& ts) {
  v.choice(Key{"type", "how the hosts and switches are wired", kRequired}, ts.type,
           {"star", "dumbbell", "leaf-spine", "two-site", "fat-tree", "servers", "chain", "file"});
  const std::string& t = ts.type;
  if (t == "star") {
    v.count(Key{"hosts", "hosts on the one switch", kRequired}, ts.hosts, 2, 100000);
  } else if (t == "dumbbell") {
    v.count(Key{"left", "hosts on the left switch", kRequired}, ts.left, 1, 100000);
    v.count(Key{"right", "hosts on the right switch", kRequired}, ts.right, 1, 100000);
  } else if (t == "leaf-spine") {
    v.count(Key{"leaves", "leaf (top-of-rack) switches", kRequired}, ts.leaves, 1, 4096);
    v.count(Key{"hosts_per_leaf", "hosts under each leaf", kRequired}, ts.hosts_per_leaf, 1, 4096);
    v.count_or({"spines", "spine switches, each linked to every leaf; auto: from oversubscription"},
               ts.spines, "auto", 1, 4096);
    // The spine count either is given or follows from the ratio: both would
    // build one network and record another.
    if (ts.spines == 0)
      v.real({"oversubscription", "leaf downlink to uplink capacity ratio that sets the spine count"},
             ts.oversubscription, 1.0, 1024.0);
    else
      v.refuse("oversubscription",
               "has no effect when spines is given (the ratio follows from it): give one of the two");
  } else if (t == "two-site") {
    v.count(Key{"leaves", "leaf switches per site", kRequired}, ts.leaves, 1, 2048);
    v.count(Key{"hosts_per_leaf", "hosts under each leaf", kRequired}, ts.hosts_per_leaf, 1, 4096);
    v.count(Key{"spines", "spine switches per site, each linked to every leaf of its site", kRequired},
            ts.spines, 1, 4096);
    v.count({"wan_links",
             "long links between the sites: spine i of site a to spine i of site b, or with routers, router "
             "i % routers of each site"},
            ts.wan_links, 1, 4096);
    // Echoed only when set: results of runs before the key stay byte-identical.
    if (!std::is_same_v<V, ParamEcho> || ts.routers > 0)
      v.count({"routers",
               "routed hops between the sites: this many routers per site, each linked to every spine of its "
               "site, the long links between them (topology.router: their latency, buffer, PFC); 0: spines "
               "joined directly (one L2 fabric / IB subnet)"},
              ts.routers, 0, 64);
    if (ts.routers == 0)
      v.check(ts.wan_links <= ts.spines, "wan_links",
              "expected at most one long link per spine (at most spines), or routers");
    else
      v.check(ts.wan_links >= ts.routers, "wan_links",
              "expected at least one long link per router (at least routers)");
  } else if (t == "fat-tree") {
    v.count(Key{"k", "switch radix of a k-ary fat-tree (k^3/4 hosts, 5k^2/4 switches)", kRequired}, ts.k, 2,
            128);
    v.check(ts.k % 2 == 0, "k", "expected an even k (a k-ary fat-tree needs k/2 up and k/2 down ports)");
  } else if (t == "servers") {
    v.count(Key{"servers", "GPU servers, one NIC per GPU, NIC g on rail leaf g", kRequired}, ts.servers, 1,
            8192);
    v.count({"gpus_per_server", "GPUs (and rails) per server"}, ts.gpus_per_server, 1, 64);
    v.count(
        {"spines",
         "spines joining the rails; 0: none, for one GPU per server on one leaf (every host must reach every "
         "other over the fabric)"},
        ts.spines, 0, 4096);
    // Echoed only when set: results of runs before the key stay byte-identical.
    if (!std::is_same_v<V, ParamEcho> || ts.servers_per_leaf > 0)
      v.count(
          {"servers_per_leaf",
           "servers under one rail leaf (a scalable unit: DGX SuperPOD's is 32 servers on 64-port leaves), "
           "each leaf linked to every spine; 0: all servers on one leaf per rail"},
          ts.servers_per_leaf, 0, 8192);
    if (!std::is_same_v<V, ParamEcho> || ts.switch_radix > 0)
      v.count({"switch_radix",
               "ports per switch (64 on NDR InfiniBand and 51.2T Ethernet at 800G, 128 on 51.2T at 400G): "
               "a leaf needs servers_per_leaf + spines; when a spine cannot reach every leaf, `spines` is "
               "per pod of radix/2 leaves and a core tier joins the pods; 0: no bound"},
              ts.switch_radix, 0, 4096);
  } else if (t == "chain") {
    v.count({"switches", "switches in a row between the two hosts"}, ts.switches, 0, 16);
  } else {
    v.path(
        Key{"file", "topology in HPCC's ns-3 format (nodes, switch ids, then one link per line)", kRequired},
        ts.file);
  }
  // Refuse sizes that would exhaust memory before a single event runs.
  int64_t hosts = 0;
  const char* at = "type";
  if (t == "leaf-spine") {
    hosts = int64_t{ts.leaves} * ts.hosts_per_leaf;
    at = "hosts_per_leaf";
  } else if (t == "two-site") {
    hosts = 2 * int64_t{ts.leaves} * ts.hosts_per_leaf;
    at = "hosts_per_leaf";
  } else if (t == "servers") {
    hosts = int64_t{ts.servers} * ts.gpus_per_server;
    at = "servers";
  } else if (t == "fat-tree") {
    hosts = int64_t{ts.k} * ts.k * ts.k / 4;
    at = "k";
  }
  v.check(hosts <= kMaxHosts, at,
          "expected at most " + std::to_string(kMaxHosts) + " hosts (this topology has " +
              std::to_string(hosts) + ")");
  if (t == "servers") {
    // Every rail leaf links to every spine: bound the links, not only the hosts.
    const int64_t per_leaf = ts.servers_per_leaf > 0 ? std::min(ts.servers, ts.servers_per_leaf) : ts.servers;
    const int64_t leaves = int64_t{ts.gpus_per_server} * ((ts.servers + per_leaf - 1) / per_leaf);
    v.check(leaves * ts.spines <= kMaxHosts * 8, "spines",
            "expected at most " + std::to_string(kMaxHosts * 8) + " leaf-spine links (this topology has " +
                std::to_string(leaves) + " rail leaves x " + std::to_string(ts.spines) +
                " spines): fewer spines, or more servers_per_leaf");
    if (ts.switch_radix > 0) {
      v.check(ts.switch_radix >= 4 && ts.switch_radix % 2 == 0, "switch_radix",
              "expected an even port count of at least 4 (a spine gives half its ports to each side)");
      v.check(per_leaf + ts.spines <= ts.switch_radix, "switch_radix",
              "expected at least servers_per_leaf + spines = " + std::to_string(per_leaf + ts.spines) +
                  " ports (a rail leaf's links down and up)");
    }
  }
  if (t == "file") {
    v.refuse("link", "has no effect: a topology file gives every link its own rate and delay");
    return;
  }
  v.block({"link", "host links (the fabric profile's by default)"}, [&](auto& b) { visit_link(b, ts.link); });
  // A class is named per block: a fabric or WAN link is rarely the host
  // link's cable, and a length set below would not be checked against it.
  if constexpr (V::kReads) {
    ts.fabric_link = ts.link;
    ts.fabric_link.cable.clear();
  }
  if (t == "dumbbell")
    v.block({"bottleneck", "the link between the two switches (default: as link)"},
            [&](auto& b) { visit_link(b, ts.fabric_link); });
  else if (t == "leaf-spine" || t == "fat-tree" || t == "servers" || t == "two-site")
    v.block({"fabric_link", "switch-to-switch links (default: as link)"},
            [&](auto& b) { visit_link(b, ts.fabric_link); });
  if (t == "two-site") {
    if constexpr (V::kReads) {
      ts.wan_link = ts.fabric_link;
      ts.wan_link.cable.clear();
    }
    v.block({"wan_link", "the long links between the sites, e.g. {length: 40km} (default: as fabric_link)"},
            [&](auto& b) { visit_link(b, ts.wan_link); });
  }
}

}  // namespace

std::vector<CableClassInfo> cable_classes() {
  std::vector<CableClassInfo> out;
  for (const CableClass& k : kCables) out.push_back({k.name, k.reach_m});
  return out;
}

// 'node:port' as written, e.g. agg0_0:2: false unless `text` has that form.
bool parse_node_port(const std::string& text, std::string& node, int& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  const std::string digits = text.substr(colon + 1);
  try {
    port = std::stoi(digits);
  } catch (...) {
    return false;
  }
  if (port < 0 || std::to_string(port) != digits) return false;
  node = text.substr(0, colon);
  return true;
}

namespace {

// faults[i].link: 'node:port' as written, e.g. agg0_0:2.
struct FaultLinkCodec {
  static void read(const CfgNode& n, const char* key, FaultSpec& f) {
    if (!parse_node_port(n.str(key), f.node, f.port))
      throw n.error(key, "expected 'node:port', e.g. agg0_0:2");
  }
  static nlohmann::ordered_json echo(const FaultSpec& f) {
    if (f.whole_node()) return nullptr;
    return f.node + ":" + std::to_string(f.port);
  }
  static std::string form() { return "node:port, e.g. agg0_0:2"; }
};

// faults[i].node: a switch or host named in the topology.
struct FaultNodeCodec {
  static void read(const CfgNode& n, const char* key, FaultSpec& f) {
    if (n.has("link"))
      throw n.error(key, "expected either link (one link) or node (all its links), not both");
    f.node = n.str(key);
    f.port = -1;
  }
  static nlohmann::ordered_json echo(const FaultSpec& f) {
    if (!f.whole_node()) return nullptr;
    return f.node;
  }
  static std::string form() { return "a node of the topology, e.g. leaf0 or host3"; }
};

template <class V>
void visit_fault(V& v, FaultSpec& f) {
  using A = FaultSpec::Action;
  v.time(Key{"at", "when the fault starts", kRequired}, f.at);
  v.custom(Key{"link", "one end of the link: a topology node and its port index (in link order)"}, f,
           FaultLinkCodec{});
  v.custom(Key{"node", "instead of link: a whole switch or NIC, every link of which the fault hits"}, f,
           FaultNodeCodec{});
  v.choice(Key{"action",
               "down, up (it comes back), degrade (keeps running at `rate`), flap (down for `down_for` "
               "every `every`, `times` times); stuck / unstuck: the NIC at this end stops / resumes draining "
               "its receive side, holding PFC XOFF toward its switch (PFC fabrics)",
               kRequired},
           f.action,
           {{"down", A::kDown},
            {"up", A::kUp},
            {"degrade", A::kDegrade},
            {"flap", A::kFlap},
            {"stuck", A::kStuck},
            {"unstuck", A::kUnstuck}});
  v.flag({"silent",
          "down/flap: a gray failure, frames vanish without loss of signal, so Ethernet switches notice it "
          "only by BFD (fabric.reroute.bfd_*)"},
         f.silent);
  v.rate({"rate", "degrade: the link's new speed, e.g. 200Gbps"}, f.rate);
  v.time({"down_for", "flap: how long each outage lasts"}, f.down_for);
  v.time({"every", "flap: time from one outage's start to the next"}, f.every);
  v.count({"times", "flap: how many outages"}, f.times, 0, 100000);
  if constexpr (V::kReads) {
    v.check(f.node.empty() == false, "link", "expected 'link: node:port' or 'node: name'");
    v.check(f.action != A::kDegrade || f.rate > Rate::from_bps(0), "rate",
            "action degrade needs the link's new speed, e.g. rate: 200Gbps");
    v.check(f.action == A::kDegrade || f.rate == Rate::from_bps(0), "rate",
            "applies to action: degrade only");
    v.check(f.action == A::kDown || f.action == A::kFlap || !f.silent, "silent",
            "applies to action: down or flap only");
    const bool flap = f.action == A::kFlap;
    v.check(!flap || (f.times >= 1 && f.down_for > Time::zero() && f.every > f.down_for), "times",
            "action flap needs times >= 1, down_for > 0 and every > down_for");
    v.check(flap || (f.times == 0 && f.down_for == Time::zero() && f.every == Time::zero()),
            f.times != 0 ? "times" : (f.down_for != Time::zero() ? "down_for" : "every"),
            "applies to action: flap only");
  }
}

// links[i].link: 'all', or 'node:port' as a fault names a link.
struct LinkTargetCodec {
  static void read(const CfgNode& n, const char* key, LinkSettingSpec& l) {
    const std::string text = n.str(key);
    l.node.clear();
    l.port = 0;
    if (text != "all" && !parse_node_port(text, l.node, l.port))
      throw n.error(key, "expected 'all' or 'node:port', e.g. agg0_0:2");
  }
  static nlohmann::ordered_json echo(const LinkSettingSpec& l) {
    return l.node.empty() ? std::string("all") : l.node + ":" + std::to_string(l.port);
  }
  static std::string form() { return "all | node:port, e.g. agg0_0:2"; }
};

template <class V>
void visit_link_setting(V& v, LinkSettingSpec& l) {
  using D = LinkSettingSpec::Direction;
  v.custom({"link",
            "every link, or the one with this end: a topology node and its port index (in link order), as "
            "faults name it"},
           l, LinkTargetCodec{});
  v.fraction(Key{"loss",
                 "share of the frames lost on the wire, drawn per frame from the link's own seeded stream: "
                 "data, ACKs and control frames alike; the receiving port discards them (corruption_drops). "
                 "Lossy links only"},
             l.loss);
  v.real({"ber",
          "bit-error rate: a frame of n bits is corrupted with probability 1-(1-ber)^n and discarded by the "
          "receiving port (corruption_drops, rx_crc_errors_phy, SymbolErrorCounter); every link type, PAUSE "
          "and credit frames spared"},
         l.ber, 0.0, 1e-3);
  // Echoed only when set: results of runs before the key stay byte-identical.
  if (!std::is_same_v<V, ParamEcho> || l.length_m >= 0)
    v.custom({"length",
              "this link's fibre length, which sets its delay (4.897 us/km) before the fabric is built: PFC "
              "headroom and InfiniBand credit buffers follow it"},
             l.length_m, LinkSettingLengthCodec{});
  if (!std::is_same_v<V, ParamEcho> || !l.cable.empty())
    v.custom({"cable",
              "with length: the cable or optic class carrying it (as topology.link.cable); without it the "
              "link keeps its class, whose reach must cover the new length"},
             l.cable, LinkSettingCableCodec{});
  v.choice({"direction",
            "which way frames are lost: both, only those the named end sends (out), or only "
            "those it receives (in)"},
           l.direction, {{"both", D::kBoth}, {"out", D::kOut}, {"in", D::kIn}});
  v.check(l.direction == D::kBoth || !l.node.empty(), "direction",
          "expected both with link: all (out and in are seen from a named end, node:port)");
}

// output.pcap.ports: 'all', one 'node:port', or a list of them, as faults
// name link ends. A scalar is accepted besides the list so that
// `--set output.pcap.ports=leaf0:2` works.
struct PcapPortsCodec {
  static void read(const CfgNode& n, const char* key, PcapSpec& p) {
    p.ports.clear();
    const char* expected = "expected 'all', 'node:port' or a list of 'node:port', e.g. [leaf0:2, host3:0]";
    std::vector<CfgNode> items;
    try {
      items = n.list(key);
    } catch (const InputError&) {
      const std::string text = n.str(key);
      if (text == "all") return;
      std::pair<std::string, int> np;
      if (!parse_node_port(text, np.first, np.second)) throw n.error(key, expected);
      p.ports.push_back(np);
      return;
    }
    if (items.empty()) throw n.error(key, expected);
    for (const CfgNode& e : items) {
      std::pair<std::string, int> np;
      if (!parse_node_port(e.scalar(), np.first, np.second)) throw e.error("", expected);
      p.ports.push_back(np);
    }
  }
  static nlohmann::ordered_json echo(const PcapSpec& p) {
    if (p.ports.empty()) return "all";
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& [node, port] : p.ports) a.push_back(node + ":" + std::to_string(port));
    return a;
  }
  static std::string form() { return "all | node:port | list of node:port, e.g. [leaf0:2]"; }
};

template <class V>
void visit_pcap(V& v, PcapSpec& p) {
  if constexpr (V::kReads) p.enabled = true;
  v.custom(
      {"ports", "whose transmitted frames to keep: every port, or the named link ends (as faults name them)"},
      p, PcapPortsCodec{});
  v.time({"start", "keep frames whose first bit leaves at or after this"}, p.start);
  // end: 0s would be an empty window (end must follow start, which is at
  // least 0), not "the end of the run": time_or refuses it. start: 0s is
  // time zero, honoured as written (time(), the default).
  v.time_or({"end", "and before this"}, p.end, "end");
  v.check(p.end == Time::zero() || p.end > p.start, "end", "expected an end after start");
  v.count({"max_packets", "keep at most this many frames (the first ones in the window)"}, p.max_packets, 1,
          10000000);
  v.count({"snaplen", "bytes of each frame stored; the record keeps the frame's full length"}, p.snaplen, 64,
          262144);
}

template <class V>
void visit_output(V& v, OutputSpec& o) {
  v.text({"dir", "folder the run writes to (default out/<name>; `run -o` overrides)"}, o.dir);
  v.flag({"flows_csv", "write flows.csv, one line per flow"}, o.flows_csv);
  v.flag({"ports_csv",
          "write ports.csv, one line per switch port, and the operator views counters.txt (ethtool / SONiC "
          "names) and, on InfiniBand, ib_ports.csv and ibdiagnet.txt"},
         o.ports_csv);
  v.block({"timeseries", "sample every port's queue and rate into timeseries.csv"}, [&](auto& b) {
    b.time(Key{"interval", "sampling interval", kRequired}, o.timeseries_interval);
    b.check(o.timeseries_interval >= Time::from_ns(10), "interval",
            "expected a sampling interval of at least 10ns");
    b.time({"start", "first sample"}, o.timeseries_start);
  });
  // A zero-width bin is no bin: time_or refuses 0s rather than read it as auto.
  v.time_or({"incident_interval",
             "runs with faults: the bin of incident.csv and of the incident report's throughput (auto: "
             "the duration / 1000, or a tenth of the first fault's time if less, but at least the duration / "
             "20,000 unless that leaves fewer than two bins before the fault; doubling every 20,000 bins)"},
            o.incident_interval, "auto");
  v.block({"pcap",
           "record the frames ports transmit into capture.pcap (Wireshark): RoCEv2, PFC, InfiniBand or "
           "iWARP headers built from each packet's fields"},
          [&](auto& b) { visit_pcap(b, o.pcap); });
}

// The scenario's own keys (topology, fabric, workload and faults are visited by their parts).
template <class V>
void visit_run(V& v, Scenario& s) {
  v.text({"name", "names the run and its output folder (default: the file's stem)"}, s.name);
  // The name becomes a folder under the output directory and a JSON string:
  // a path separator, "..", or a byte JSON cannot hold would write elsewhere
  // or fail after the whole simulation.
  const bool safe_chars = std::all_of(s.name.begin(), s.name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == '+';
  });
  v.check(
      !s.name.empty() && s.name.size() <= 128 && safe_chars && s.name != "." && s.name != "..", "name",
      "expected a name of 1-128 letters, digits, '-', '_', '.' or '+' (it names the output folder), got '" +
          s.name + "'");
  v.count({"seed", "seeds every random stream; the same seed gives the same bytes"}, s.seed, 0, INT64_MAX);
  v.time({"duration", "simulated time the run may take; flows unfinished by then are reported as such"},
         s.duration);
  v.check(s.duration > Time::zero(), "duration", "expected a positive simulated duration");
}

void read_topology(const CfgNode& root, Scenario& s) {
  const CfgNode t = root.child("topology");
  TopologySpec& ts = s.topology;
  ts.line = t.line();
  ts.link = s.fabric.link;
  ts.spines = 0;
  ParamReader r(t);
  visit_topology(r, ts);
  // Switch hardware; the profile supplies the defaults.
  if (auto n = t.opt_child("switch")) {
    read_switch_params(*n, s.fabric.sw);
    n->finish();
  }
  // Looked at only on two-site, so other topologies refuse it as unknown.
  if (ts.type == "two-site" && ts.routers == 0 && t.has("router"))
    throw t.error("router", "has no effect: no routers in this topology (a two-site topology's routers)");
  if (auto n = ts.routers > 0 ? t.opt_child("router") : std::nullopt) {
    read_router_params(*n, s.fabric);
    n->finish();
  }
  // auto, resolved here so results.json records what ran.
  if (ts.routers > 0) s.fabric.router.latency = router_latency(s.fabric);
  t.finish();
}

// fabric.model: flow runs flow-style workloads on a fluid network: what
// only packets have (buffers, faults, loss, misconfiguration, per-port
// outputs) would have no effect there, so a scenario that sets it is refused.
void check_flow_model(const CfgNode& root, const Scenario& s) {
  const std::string why = "has no effect in the flow-level model (fabric.model: flow)";
  if (auto sw = root.child("topology").opt_child("switch"); sw && sw->has("buffer"))
    throw sw->error("buffer", why + ": it has no queues (use fabric.model: packet)");
  for (const char* key : {"faults", "misconfig"})
    if (root.has(key))
      throw root.error(key,
                       why + ": links and devices do not fail or misbehave there (use fabric.model: packet)");
  for (const LinkSettingSpec& l : s.links)
    if (l.loss > 0 || l.ber > 0)
      throw InputError(s.file, l.line, 0, "links", why + ": it loses nothing (give only lengths there)");
  if (auto out = root.opt_child("output"))
    for (const char* key : {"timeseries", "pcap", "ports_csv"})
      if (out->has(key)) throw out->error(key, why + ": there are no packets or queues to record");
  static constexpr std::string_view kFlowTypes[] = {"incast",     "permutation", "all-to-all", "cdf",
                                                    "flows-file", "flow",        "collective", "training"};
  for (const WorkloadSpec& w : s.workloads) {
    bool modelled = false;
    for (const std::string_view t : kFlowTypes) modelled = modelled || w.type == t;
    if (!modelled)
      throw InputError(s.file, w.line, 0, "workload.type",
                       "'" + w.type +
                           "' is not modelled at flow level: expected incast, permutation, "
                           "all-to-all, cdf, flows-file, flow, collective or training (use fabric.model: "
                           "packet)");
  }
}

void read_fabric(const CfgNode& root, Scenario& s) {
  auto f = root.opt_child("fabric");
  const std::string profile_name = f ? f->str("profile", "ethernet-lossy") : "ethernet-lossy";
  try {
    s.fabric = find_profile(profile_name).config;
  } catch (const std::invalid_argument& e) {
    throw f->error("profile", e.what());
  }
  s.profile = profile_name;
  if (!f) return;
  read_fabric_params(*f, s.fabric);  // the keys its parts declare (fabric/schema.cpp)
  f->finish();
}

void read_workloads(const CfgNode& root, Scenario& s) {
  const auto items = root.list("workload");
  if (items.empty()) throw root.error("workload", "expected at least one workload");
  for (const CfgNode& w : items) {
    WorkloadSpec ws;
    ws.line = w.line();
    ws.type = w.choice("type", workload_type_names());
    find_workload_type(ws.type)->parse(w, s, ws);
    w.finish();
    s.workloads.push_back(ws);
  }
}

void read_links(const CfgNode& root, Scenario& s) {
  for (const CfgNode& l : root.opt_list("links")) {
    LinkSettingSpec ls;
    ls.line = l.line();
    if (l.is_map() && !l.has("loss") && !l.has("ber") && !l.has("length"))
      throw l.error(
          "loss",
          "missing: expected loss (a share of frames), ber (a bit-error rate) or length (the fibre), "
          "or several");
    // A length is the link's build; loss and bit errors are set on the built
    // fabric, where a later entry overrides an earlier one: kept apart so
    // that a length entry never resets a loss.
    if (l.is_map() && l.has("length"))
      for (const char* key : {"loss", "ber", "direction"})
        if (l.has(key))
          throw l.error(key, "expected a length entry to give only link and length: give " +
                                 std::string(key) + " in an entry of its own");
    ParamReader r(l);
    visit_link_setting(r, ls);
    l.finish();
    s.links.push_back(ls);
  }
}

}  // namespace

// The topology node `name` names and the number of ports it has, or -1.
std::pair<int, int> find_node(const Topology& t, const std::string& name) {
  int id = -1, degree = 0;
  for (size_t n = 0; n < t.nodes.size() && id < 0; ++n)
    if (t.nodes[n].name == name) id = static_cast<int>(n);
  if (id >= 0)
    for (const auto& l : t.links) degree += (l.a == id ? 1 : 0) + (l.b == id ? 1 : 0);
  return {id, degree};
}

namespace {

void read_faults(const CfgNode& root, Scenario& s) {
  for (const CfgNode& f : root.opt_list("faults")) {
    FaultSpec fs;
    fs.line = f.line();
    ParamReader r(f);
    visit_fault(r, fs);
    f.finish();
    s.faults.push_back(fs);
  }
}

// The topology links a fault names: its one link (port p of a node is the
// p-th link that touches it, as the fabric numbers ports), or all its node's.
std::vector<size_t> fault_links(const Topology& t, int id, const FaultSpec& fs) {
  std::vector<size_t> out;
  int port = 0;
  for (size_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    if (l.a != id && l.b != id) continue;
    if (fs.whole_node() || port == fs.port) out.push_back(i);
    ++port;
  }
  return out;
}

// An `up` that finds every link it names up changes nothing (the fabric
// ignores a change to the state a link is in), as a degrade to the link's
// own speed would not: refused. The links' states follow the faults in the
// order the run applies them: by time, then as listed (a flap's outages and
// returns in turn).
void check_up_faults(const Topology& t, const Scenario& s, const std::vector<CfgNode>& items) {
  using A = FaultSpec::Action;
  struct Change {
    Time at;
    size_t fault;
    bool up;
  };
  std::vector<Change> changes;
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& fs = s.faults[i];
    if (fs.action == A::kDown || fs.action == A::kUp) changes.push_back({fs.at, i, fs.action == A::kUp});
    if (fs.action == A::kFlap)
      for (int k = 0; k < fs.times; ++k) {
        changes.push_back({fs.at + fs.every * k, i, false});
        changes.push_back({fs.at + fs.every * k + fs.down_for, i, true});
      }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& x, const Change& y) { return x.at < y.at; });
  std::vector<char> down(t.links.size(), 0);
  for (const Change& c : changes) {
    const FaultSpec& fs = s.faults[c.fault];
    const std::vector<size_t> links = fault_links(t, find_node(t, fs.node).first, fs);
    if (c.up && fs.action == A::kUp &&
        std::none_of(links.begin(), links.end(), [&](size_t l) { return down[l] != 0; }))
      throw items[c.fault].error(
          "action", "up at " + format_time(fs.at) + " on " +
                        (fs.whole_node() ? "'" + fs.node + "', whose links are" : "a link that is") +
                        " up then (no earlier fault takes " + (fs.whole_node() ? "them" : "it") +
                        " down): it would change nothing");
    for (const size_t l : links) down[l] = c.up ? 0 : 1;
  }
}

// A switch buffer without a limit (profile ideal, or topology.switch.buffer:
// unlimited) admits every packet without the per-queue and per-PG accounts
// (net/mmu.cpp): no lossy queue meets its alpha threshold and no PG reaches
// XOFF, so the keys that shape those limits would be read and do nothing.
// PFC itself stays meaningful where a stuck receiver (faults[].action:
// stuck) sends PAUSE; without one, turning it on changes nothing either.
void check_unlimited_buffer(const CfgNode& root, const Scenario& s) {
  if (!s.fabric.sw.mmu.unlimited || s.fabric.ib.enabled) return;
  const auto f = root.opt_child("fabric");
  if (!f) return;
  const auto sw = root.child("topology").opt_child("switch");
  const std::string unlimited =
      "has no effect: the switch buffer is unlimited (" +
      std::string(sw && sw->has("buffer") ? "topology.switch.buffer: unlimited"
                                          : "profile '" + s.fabric.name + "' has no buffer limit") +
      "), so ";
  if (f->has("buffer_alpha"))
    throw f->error("buffer_alpha", unlimited + "no queue is ever held to alpha x the free buffer");
  const auto pfc = f->opt_child("pfc");
  if (!pfc || s.fabric.sw.mmu.lossless_mask == 0) return;
  for (const char* key : {"xoff", "alpha", "xon_offset", "reserved", "headroom", "response_time"})
    if (pfc->has(key)) throw pfc->error(key, unlimited + "no priority group fills toward XOFF");
  const bool stuck = std::any_of(s.faults.begin(), s.faults.end(),
                                 [](const FaultSpec& x) { return x.action == FaultSpec::Action::kStuck; });
  if (pfc->has("enabled") && !stuck)
    throw pfc->error("enabled",
                     unlimited +
                         "switches never send PAUSE (only a stuck receiver would, faults[].action: "
                         "stuck); give the switches a buffer size to run PFC");
}

template <class V>
std::vector<KeyInfo> schema_of(V visit) {
  ParamSchema schema;
  visit(schema);
  return schema.keys;
}

}  // namespace

Scenario load_scenario(const CfgNode& root) {
  Scenario s;
  s.file = root.file();
  s.name = fs::path(root.file()).stem().string();
  ParamReader r(root);
  visit_run(r, s);
  read_fabric(root, s);  // first: the profile provides topology.switch defaults
  read_topology(root, s);
  read_workloads(root, s);
  read_faults(root, s);
  read_links(root, s);
  s.output.dir = "out/" + s.name;
  r.block("output", [&](ParamReader& b) { visit_output(b, s.output); });
  (void)root.opt_list("misconfig");  // read below, once the topology names its devices
  root.finish();
  if (s.output.incident_interval != Time::zero()) {
    if (s.faults.empty())
      throw root.child("output").error("incident_interval",
                                       "applies to runs with faults (the scenario schedules none)");
    if (s.output.incident_interval < Time::from_ns(100) || s.output.incident_interval > s.duration)
      throw root.child("output").error("incident_interval",
                                       "expected 'auto' or a time between 100ns and the duration");
  }
  if (s.fabric.model == "flow") check_flow_model(root, s);
  check_unlimited_buffer(root, s);
  // Semantic checks that need the topology.
  const Topology t = build_topology(s);
  read_misconfig(root, s.fabric, t);
  // Loss on the wire is modelled on lossy links only: on a PFC link a lost
  // PAUSE frame lets the upstream overrun the headroom (lossless drops the
  // run would report as a broken invariant), and on a credit link a lost
  // packet takes its credits with it (IB's FCTBS/ABR resynchronisation that
  // recovers them is not modelled). Refused rather than half-modelled.
  const std::string flow_control = link_flow_control_name(s.fabric);
  const std::string lossless_why =
      flow_control == "credit"
          ? "link loss is not modelled on InfiniBand credit links (credits lost with a frame are not "
            "resynchronised): expected 0, or a lossy Ethernet profile"
          : "link loss is not modelled on PFC links (a lost PAUSE frame would let the upstream overrun the "
            "headroom): expected 0, a lossy Ethernet profile, or fabric.pfc.enabled: false";
  if (flow_control != "lossy")
    for (const TopoLink& l : t.links)
      if (l.error_rate > 0.0)
        throw root.child("topology").error("file", "column 5 (error rate): " + lossless_why);
  if (!s.faults.empty()) {
    const auto faults = root.list("faults");
    for (size_t i = 0; i < s.faults.size(); ++i) {
      const FaultSpec& fs = s.faults[i];
      const char* where = fs.whole_node() ? "node" : "link";
      const auto [id, degree] = find_node(t, fs.node);
      if (id < 0) throw faults[i].error(where, "no node named '" + fs.node + "' in the topology");
      if (fs.port >= degree)
        throw faults[i].error("link", "expected a port of '" + fs.node + "' below " + std::to_string(degree));
      if (fs.at >= s.duration)
        throw faults[i].error("at", "the fault starts at or after the end of the run (duration " +
                                        format_time(s.duration) + ")");
      if (fs.action == FaultSpec::Action::kFlap && fs.at + fs.every * (fs.times - 1) >= s.duration)
        throw faults[i].error("times", "the last outage starts at or after the end of the run (duration " +
                                           format_time(s.duration) + ")");
      if (fs.silent && s.fabric.ib.enabled)
        throw faults[i].error("silent",
                              "gray failures are modelled on Ethernet fabrics (found by BFD); an InfiniBand "
                              "port reports its errors to the subnet manager");
      if (fs.action == FaultSpec::Action::kDegrade) {
        int port = 0;
        for (const TopoLink& l : t.links) {
          if (l.a != id && l.b != id) continue;
          if ((fs.whole_node() || port == fs.port) && fs.rate >= l.rate)
            throw faults[i].error("rate", "a degraded link runs below its speed: expected less than " +
                                              format_rate(l.rate) + " on '" + fs.node + ":" +
                                              std::to_string(port) + "'");
          ++port;
        }
      }
      if (fs.action != FaultSpec::Action::kStuck && fs.action != FaultSpec::Action::kUnstuck) continue;
      if (t.nodes[id].kind != TopoNodeKind::kHost)
        throw faults[i].error(
            where, "a stuck receiver is a NIC: name a host's port, not the switch '" + fs.node + "'");
      if (flow_control != "pfc")
        throw faults[i].error("action", "a stuck receiver pauses its link with PFC, and profile '" +
                                            s.fabric.name + "' runs " + flow_control +
                                            " links: expected a lossless RoCE profile (fabric.pfc.enabled)");
    }
    check_up_faults(t, s, faults);
  }
  if (!s.links.empty()) {
    const auto links = root.list("links");
    for (size_t i = 0; i < s.links.size(); ++i) {
      const LinkSettingSpec& ls = s.links[i];
      if (ls.loss > 0.0 && flow_control != "lossy") throw links[i].error("loss", lossless_why);
      if (ls.node.empty()) continue;
      const auto [id, degree] = find_node(t, ls.node);
      if (id < 0) throw links[i].error("link", "no node named '" + ls.node + "' in the topology");
      if (ls.port >= degree)
        throw links[i].error("link", "expected a port of '" + ls.node + "' below " + std::to_string(degree));
    }
  }
  if (s.output.pcap.enabled) {
    const CfgNode pc = root.child("output").child("pcap");
    if (s.fabric.transport == "uet")
      throw root.child("output").error("pcap",
                                       "UET frames are not written to captures yet (RoCEv2, PFC, InfiniBand "
                                       "and iWARP are): remove output.pcap for '" +
                                           s.fabric.name + "'");
    for (const auto& [node, port] : s.output.pcap.ports) {
      const auto [id, degree] = find_node(t, node);
      if (id < 0) throw pc.error("ports", "no node named '" + node + "' in the topology");
      if (port >= degree)
        throw pc.error("ports", "expected a port of '" + node + "' below " + std::to_string(degree));
    }
    // A window the run never reaches would write an empty capture after the
    // whole simulation: refused before it starts.
    if (s.output.pcap.start >= s.duration)
      throw pc.error("start",
                     "expected a start before the end of the run (duration " + format_time(s.duration) + ")");
    if (s.output.pcap.end > s.duration)
      throw pc.error("end", "expected an end at or before the end of the run (duration " +
                                format_time(s.duration) + "), or 'end'");
  }
  // As the capture's: a first sample the run never reaches would write a
  // header-only timeseries.csv after the whole simulation.
  if (s.output.timeseries_interval > Time::zero() && s.output.timeseries_start >= s.duration)
    throw root.child("output")
        .child("timeseries")
        .error("start",
               "expected a start before the end of the run (duration " + format_time(s.duration) + ")");
  const auto items = root.list("workload");
  for (size_t i = 0; i < s.workloads.size(); ++i)
    find_workload_type(s.workloads[i].type)->check(items[i], s.workloads[i], t, s);
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  CfgNode root = CfgNode::load_file(path);
  apply_overrides(root, overrides);
  return load_scenario(root);
}

Scenario load_scenario_text(const std::string& text, const std::string& pseudo_file,
                            const std::vector<std::string>& overrides) {
  CfgNode root = CfgNode::load_string(text, pseudo_file);
  apply_overrides(root, overrides);
  return load_scenario(root);
}

Topology build_topology(const Scenario& s) {
  const TopologySpec& ts = s.topology;
  Topology t;
  try {
    if (ts.type == "star")
      t = make_star(ts.hosts, ts.link);
    else if (ts.type == "dumbbell")
      t = make_dumbbell(ts.left, ts.right, ts.link, ts.fabric_link);
    else if (ts.type == "leaf-spine")
      t = make_leaf_spine(ts.leaves, ts.hosts_per_leaf, ts.spines, ts.oversubscription, ts.link,
                          ts.fabric_link);
    else if (ts.type == "two-site")
      t = make_two_site(ts.leaves, ts.hosts_per_leaf, ts.spines, ts.wan_links, ts.link, ts.fabric_link,
                        ts.wan_link, ts.routers);
    else if (ts.type == "fat-tree")
      t = make_fat_tree(ts.k, ts.link, ts.fabric_link);
    else if (ts.type == "servers")
      t = make_servers(ts.servers, ts.gpus_per_server, ts.spines, ts.link, ts.fabric_link,
                       ts.servers_per_leaf, ts.switch_radix);
    else if (ts.type == "chain")
      t = make_chain(ts.switches, ts.link);
    else
      t = topology_from_edge_list(load_edge_list_topology(ts.file));
  } catch (const std::invalid_argument& e) {
    throw InputError(s.file, ts.line, 0, "topology", e.what());
  }
  const std::string why = check_connected(t);
  if (!why.empty() && ts.type == "servers" && ts.spines == 0)
    // A rail-only network, whose cross-rail traffic NVLink carries, is not
    // modelled: every host must reach every other over the fabric.
    throw InputError(s.file, ts.line, 0, "topology.spines",
                     "0 leaves the rails (and the leaves of one rail) unjoined, so " + why +
                         ": expected at least one spine; 0 suits one GPU per server on one leaf");
  if (!why.empty()) throw InputError(s.file, ts.line, 0, "topology", why);
  if (s.fabric.ib.enabled) {
    const LidUse use = largest_subnet(t);
    if (use.lids > kMaxUnicastLids)
      throw InputError(s.file, ts.line, 0, "topology",
                       "an InfiniBand subnet has at most " + std::to_string(kMaxUnicastLids) +
                           " unicast LIDs (IBTA Vol.1 4.1.3), one per endpoint and one per switch; " +
                           (use.subnet > 0 ? "subnet " + std::to_string(use.subnet) + " of " : "") +
                           "this topology needs " + std::to_string(use.lids) +
                           ": routers split a fabric into subnets (two-site, routers)");
  }
  // links[i].length, in order (a later entry wins). A node or port the
  // topology lacks is refused where the scenario is checked.
  // The link's class (the entry's, or the one it had) must reach the new
  // length, and a coherent module keeps adding its DSP latency.
  for (size_t i = 0; i < s.links.size(); ++i) {
    const LinkSettingSpec& ls = s.links[i];
    if (ls.length_m < 0) continue;
    const auto stretch = [&](TopoLink& l) {
      const std::string& cable = ls.cable.empty() ? l.cable : ls.cable;
      const CableClass* c = find_cable(cable);
      const std::string where = "links[" + std::to_string(i) + "].length";
      if (c != nullptr && ls.length_m > c->reach_m)
        throw InputError(
            s.file, ls.line, 0, where,
            fmt::format("a {} link reaches {} ({}), not {:g} m{}", c->name, reach_text(*c), c->source,
                        ls.length_m, ls.cable.empty() ? ": name the class that carries it (cable)" : ""));
      if (c != nullptr && c->max_gbps > 0 && l.rate.gbps() > c->max_gbps)
        throw InputError(s.file, ls.line, 0, "links[" + std::to_string(i) + "].cable",
                         fmt::format("{} carries at most {:g} Gb/s ({}), and the link runs at {:g} Gb/s",
                                     c->name, c->max_gbps, c->source, l.rate.gbps()));
      l.delay = fibre_delay(ls.length_m) + (c != nullptr ? c->added : Time());
      l.cable = cable;
    };
    int node = -1;
    for (size_t n = 0; n < t.nodes.size() && node < 0 && !ls.node.empty(); ++n)
      if (t.nodes[n].name == ls.node) node = static_cast<int>(n);
    int port = 0;  // a node's ports are its links in link order
    for (TopoLink& l : t.links) {
      if (ls.node.empty()) {
        stretch(l);
      } else if (l.a == node || l.b == node) {
        if (port++ == ls.port) stretch(l);
      }
    }
  }
  return t;
}

namespace {

// The echo of `x` (a copy: the visits take mutable references; echo only reads).
template <class T, class Visit>
nlohmann::ordered_json echo_of(T x, Visit visit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ParamEcho e(j);
  visit(e, x);
  return j;
}

}  // namespace

nlohmann::ordered_json topology_json(const TopologySpec& ts) {
  return echo_of(ts, [](ParamEcho& e, TopologySpec& t) { visit_topology(e, t); });
}

nlohmann::ordered_json fault_json(const FaultSpec& f) {
  nlohmann::ordered_json j = echo_of(f, [](ParamEcho& e, FaultSpec& x) { visit_fault(e, x); });
  // Only the keys the fault's action reads: a down fault has no rate.
  using A = FaultSpec::Action;
  j.erase(f.whole_node() ? "link" : "node");
  if (f.action != A::kDown && f.action != A::kFlap) j.erase("silent");
  if (f.action != A::kDegrade) j.erase("rate");
  if (f.action != A::kFlap)
    for (const char* k : {"down_for", "every", "times"}) j.erase(k);
  return j;
}

nlohmann::ordered_json link_setting_json(const LinkSettingSpec& l) {
  return echo_of(l, [](ParamEcho& e, LinkSettingSpec& x) { visit_link_setting(e, x); });
}

std::vector<KeyInfo> run_keys() {
  Scenario s;
  s.name = "x";
  return schema_of([&](ParamSchema& v) {
    visit_run(v, s);
    v.block({"output", "what the run writes besides results.json"},
            [&](ParamSchema& b) { visit_output(b, s.output); });
  });
}

nlohmann::ordered_json run_defaults() {
  Scenario s;
  s.name = "<file stem>";
  s.output.dir = "out/<name>";
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ParamEcho e(j);
  visit_run(e, s);
  e.block("output", [&](ParamEcho& b) { visit_output(b, s.output); });
  return j;
}

std::vector<std::string> topology_type_names() {
  return {"star", "dumbbell", "leaf-spine", "two-site", "fat-tree", "servers", "chain", "file"};
}

std::vector<KeyInfo> topology_keys(const std::string& type) {
  TopologySpec ts;
  ts.type = type;
  ts.spines = 0;
  return schema_of([&](ParamSchema& v) { visit_topology(v, ts); });
}

nlohmann::ordered_json topology_defaults(const std::string& type, const LinkSpec& link) {
  TopologySpec ts;
  ts.type = type;
  ts.spines = 0;
  ts.link = link;
  ts.fabric_link = link;
  ts.wan_link = link;
  return topology_json(ts);
}

std::vector<KeyInfo> fault_keys() {
  FaultSpec f;
  return schema_of([&](ParamSchema& v) { visit_fault(v, f); });
}

std::vector<KeyInfo> link_setting_keys() {
  LinkSettingSpec l;
  return schema_of([&](ParamSchema& v) { visit_link_setting(v, l); });
}

nlohmann::ordered_json link_setting_defaults() { return link_setting_json(LinkSettingSpec{}); }

}  // namespace rdmasim
