#include "config/misconfig.h"

#include <algorithm>
#include <string>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "fabric/parts.h"
#include "fabric/schema.h"

namespace rdmasim {
namespace {

using Kind = DeviceOverride::Kind;

// What a device may be set to otherwise, on which kinds of device, what the
// fabric must run for it to mean anything, and what it does.
struct Injectable {
  const char* key;
  bool on_switch, on_port, on_nic;
  const char* needs;  // "pfc": PFC links; "ecn": marks read by the cc; "rc": the RC transport
  const char* effect;
};

constexpr Injectable kInjectable[] = {
    {"pfc.enabled", true, true, true, "pfc",
     "false: the device neither sends PAUSE nor obeys it; a switch buffers the lossless class as a lossy one "
     "(tail drop)"},
    {"pfc.classes", true, true, false, "pfc",
     "PFC on other priorities than the traffic's: its class is lossy there, and pauses name the wrong one"},
    {"pfc.headroom", true, true, false, "pfc",
     "per-PG headroom; below what the link needs, lossless packets arriving after XOFF are dropped"},
    {"pfc.xoff", true, false, false, "pfc", "XOFF threshold: too high fills the buffer before pausing"},
    {"pfc.alpha", true, false, false, "pfc", "dynamic XOFF threshold as a share of the free buffer"},
    {"pfc.xon_offset", true, false, false, "pfc",
     "XON hysteresis: too small makes PAUSE/XON chatter, too large keeps the upstream paused"},
    {"pfc.reserved", true, false, false, "pfc", "bytes reserved per lossless PG"},
    {"ecn.enabled", true, false, false, "ecn", "false: the switch marks nothing, so senders never slow down"},
    {"ecn.kmin", true, false, false, "ecn", "RED Kmin: too low marks at shallow queues, too high marks late"},
    {"ecn.kmax", true, false, false, "ecn", "RED Kmax"},
    {"ecn.pmax", true, false, false, "ecn", "RED marking probability at Kmax"},
    {"mtu", true, true, false, "rc",
     "a switch MTU below the fabric's: frames with more payload into or out of its ports are dropped "
     "(oversize)"},
    {"data_tc", false, false, true, "pfc",
     "the NIC marks its data with another priority than the switches' lossless one (DSCP/PCP mismatch)"},
};

const Injectable* find_injectable(const std::string& key) {
  for (const Injectable& i : kInjectable)
    if (key == i.key) return &i;
  return nullptr;
}

const char* kind_word(Kind k) { return k == Kind::kSwitch ? "switch" : k == Kind::kNic ? "nic" : "port"; }

// Leaf keys of `set`, dotted, with the node and key each is located at.
struct SetKey {
  std::string dotted;
  CfgNode at;
  std::string leaf;
};
void leaves(const CfgNode& n, const std::string& prefix, std::vector<SetKey>& out) {
  for (const std::string& k : n.keys()) {
    if (n.has_map(k))
      leaves(n.child(k), prefix + k + ".", out);
    else
      out.push_back({prefix + k, n, k});
  }
}

// Why `key` cannot be injected on the fabric ("" if it can).
std::string unmet(const Injectable& i, const FabricConfig& f) {
  const std::string needs = i.needs;
  if (needs == "pfc" && link_flow_control_name(f) != "pfc")
    return "does not apply to profile '" + f.name + "': its links run " + link_flow_control_name(f) +
           ", not PFC";
  if (needs == "ecn") {
    const std::string signal = congestion_control_feedback(f);
    if (f.ib.enabled || (signal != "cnp" && signal != "ecn-echo"))
      return "does not apply to profile '" + f.name + "': its congestion control '" + f.cc +
             "' does not react to ECN marks";
  }
  if (needs == "rc" && f.transport != "rc")
    return "does not apply to profile '" + f.name + "': its transport is " + f.transport_label();
  return {};
}

const nlohmann::ordered_json* at_path(const nlohmann::ordered_json& j, const std::string& dotted) {
  const nlohmann::ordered_json* cur = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

}  // namespace

void read_misconfig(const CfgNode& root, FabricConfig& fabric, const Topology& t) {
  const std::vector<CfgNode> items = root.opt_list("misconfig");
  for (const CfgNode& e : items) {
    const int given = (e.has("switch") ? 1 : 0) + (e.has("nic") ? 1 : 0) + (e.has("port") ? 1 : 0);
    if (given != 1)
      throw e.error("", "expected exactly one of switch: <name|all>, nic: <name|all> or port: <switch:port>");
    DeviceOverride o;
    const char* where = e.has("switch") ? "switch" : e.has("nic") ? "nic" : "port";
    o.kind = e.has("switch") ? Kind::kSwitch : e.has("nic") ? Kind::kNic : Kind::kPort;
    std::string target = e.str(where);
    if (o.kind == Kind::kPort) {
      if (!parse_node_port(target, o.node, o.port))
        throw e.error(where, "expected 'switch:port', e.g. leaf0:2");
    } else if (target != "all") {
      o.node = target;
    }
    if (!o.node.empty()) {
      const auto [id, degree] = find_node(t, o.node);
      if (id < 0) throw e.error(where, "no node named '" + o.node + "' in the topology");
      const bool host = t.nodes[id].kind == TopoNodeKind::kHost;
      if (o.kind == Kind::kNic && !host)
        throw e.error(where,
                      "'" + o.node + "' is a switch: expected a host's NIC (or switch: " + o.node + ")");
      if (o.kind != Kind::kNic && host)
        throw e.error(where, "'" + o.node + "' is a host: name its NIC with nic: " + o.node);
      if (t.nodes[id].router)
        throw e.error(where,
                      "'" + o.node +
                          "' is a router between the sites: its settings are topology.router's, not the "
                          "fabric's switches'");
      if (o.kind == Kind::kPort && o.port >= degree)
        throw e.error(where, "expected a port of '" + o.node + "' below " + std::to_string(degree));
    }
    // What the device ran so far: the latest earlier entry covering it.
    const DeviceOverride* base = nullptr;
    for (const DeviceOverride& prev : fabric.misconfig) {
      const bool same_port =
          o.kind == Kind::kPort && prev.kind == Kind::kPort && prev.node == o.node && prev.port == o.port;
      const bool covers = o.kind == Kind::kPort
                              ? (same_port || prev.covers(Kind::kSwitch, o.node))
                              : prev.kind == o.kind && (prev.node.empty() || prev.node == o.node);
      if (o.kind != Kind::kPort && prev.kind == o.kind && o.node.empty() && !prev.node.empty())
        throw e.error(where, std::string("an entry for every ") + kind_word(o.kind) +
                                 " must come before those for single ones (here '" + prev.node + "')");
      if (covers) base = &prev;
    }
    const CfgNode set = e.child("set");
    if (!set.is_map() || set.keys().empty())
      throw e.error("set", "expected a map of fabric keys to set on the device, e.g. {pfc: {headroom: 2KB}}");
    std::vector<SetKey> keys;
    leaves(set, "", keys);
    for (const SetKey& k : keys) {
      const std::string block = k.dotted.substr(0, k.dotted.find('.'));
      const Injectable* inj = find_injectable(k.dotted);
      const bool cc_key =
          block == fabric.cc && k.dotted.size() > block.size() && congestion_control_has_params(fabric.cc);
      if (cc_key) {
        if (o.kind != Kind::kNic)
          throw k.at.error(k.leaf, "congestion-control parameters are the sending NIC's: set them with nic:");
        // What the switches' INT records report is the fabric's: a NIC has no say in it.
        if (k.dotted == "hpcc.int")
          throw k.at.error(k.leaf, "what INT reports is the switches' (fabric.hpcc.int), not one NIC's");
      } else if (inj == nullptr) {
        std::string known;
        for (const Injectable& i : kInjectable) known += std::string(known.empty() ? "" : ", ") + i.key;
        throw k.at.error(k.leaf, "'" + k.dotted + "' cannot be injected on one device: expected one of " +
                                     known + ", or the fabric's congestion-control block (" + fabric.cc +
                                     ".*)");
      } else {
        const bool ok = o.kind == Kind::kSwitch ? inj->on_switch
                        : o.kind == Kind::kPort ? inj->on_port
                                                : inj->on_nic;
        if (!ok) {
          std::string kinds;
          if (inj->on_switch) kinds += "switch";
          if (inj->on_port) kinds += std::string(kinds.empty() ? "" : ", ") + "port";
          if (inj->on_nic) kinds += std::string(kinds.empty() ? "" : ", ") + "nic";
          throw k.at.error(k.leaf,
                           "'" + k.dotted + "' is set on a " + kinds + ", not on a " + kind_word(o.kind));
        }
        if (const std::string why = unmet(*inj, fabric); !why.empty()) throw k.at.error(k.leaf, why);
      }
    }
    FabricConfig cfg = base != nullptr ? *base->cfg : fabric;
    cfg.misconfig.clear();
    read_device_params(set, cfg);
    set.finish();
    // A value the device already runs injects nothing.
    const nlohmann::ordered_json before = fabric_params_json(base != nullptr ? *base->cfg : fabric);
    const nlohmann::ordered_json after = fabric_params_json(cfg);
    for (const SetKey& k : keys) {
      const auto* b = at_path(before, k.dotted);
      const auto* a = at_path(after, k.dotted);
      if (a != nullptr && b != nullptr && *a == *b)
        throw k.at.error(k.leaf, "has no effect: the device already runs " + k.dotted + " = " + a->dump());
    }
    if (cfg.rc.mtu > fabric.rc.mtu)
      throw set.error("mtu", "has no effect: the fabric's frames carry at most " +
                                 std::to_string(fabric.rc.mtu) + " B, so a larger MTU drops nothing");
    if (base != nullptr) o.keys = base->keys;
    for (const SetKey& k : keys)
      if (std::find(o.keys.begin(), o.keys.end(), k.dotted) == o.keys.end()) o.keys.push_back(k.dotted);
    o.cfg = std::make_shared<const FabricConfig>(std::move(cfg));
    e.finish();
    fabric.misconfig.push_back(std::move(o));
  }
}

nlohmann::ordered_json misconfig_json(const DeviceOverride& o) {
  nlohmann::ordered_json j;
  const std::string target = o.kind == Kind::kPort ? o.node + ":" + std::to_string(o.port)
                             : o.node.empty()      ? std::string("all")
                                                   : o.node;
  j[kind_word(o.kind)] = target;
  const nlohmann::ordered_json all = fabric_params_json(*o.cfg);
  nlohmann::ordered_json set = nlohmann::ordered_json::object();
  for (const std::string& k : o.keys)
    if (const auto* v = at_path(all, k)) set[k] = *v;
  j["set"] = set;
  return j;
}

std::vector<KeyInfo> misconfig_keys() {
  std::vector<KeyInfo> keys{
      {"switch", "a switch of the topology, or all",
       "the device the entry misconfigures (one of switch, nic, port)", false, ""},
      {"nic", "a host of the topology, or all",
       "a NIC: its priority marking, PFC, congestion-control parameters", false, ""},
      {"port", "switch:port, e.g. leaf0:2", "one switch port: its PFC, headroom, MTU", false, ""},
      {"set", "map of fabric keys", "what the device runs otherwise than the fabric (keys below)", true, ""},
  };
  for (const Injectable& i : kInjectable) {
    std::string on;
    if (i.on_switch) on += "switch";
    if (i.on_port) on += std::string(on.empty() ? "" : ", ") + "port";
    if (i.on_nic) on += std::string(on.empty() ? "" : ", ") + "nic";
    keys.push_back(
        {std::string("set.") + i.key, "as fabric." + std::string(i.key) + "; on " + on, i.effect, false, ""});
  }
  keys.push_back({"set.<cc>.*", "as fabric.<cc>.*; on nic",
                  "the fabric's congestion-control parameters on one NIC (or all), e.g. dcqcn.rate_ai", false,
                  ""});
  return keys;
}

}  // namespace rdmasim
