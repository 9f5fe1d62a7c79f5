#include "config/scenario.h"

#include <filesystem>
#include <stdexcept>

#include "config/units_parse.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "topo/hpcc_format.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

LinkSpec read_link(const CfgNode& parent, std::string_view key, LinkSpec def) {
  auto n = parent.opt_child(key);
  if (!n) return def;
  LinkSpec l;
  l.rate = n->rate("rate", def.rate);
  l.delay = n->time("delay", def.delay);
  n->finish();
  return l;
}

}  // namespace

std::string resolve_data_path(const CfgNode& n, std::string_view key, const std::string& value) {
  fs::path p(value);
  std::error_code ec;  // e.g. a name too long for the OS: not found, not an exception
  if (p.is_absolute()) {
    if (fs::exists(p, ec)) return value;
    throw n.error(key, "file not found: '" + value + "'");
  }
  const fs::path beside = fs::path(n.file()).parent_path() / p;
  if (fs::exists(beside, ec)) return beside.string();
  if (fs::exists(p, ec)) return value;
  throw n.error(key, "file not found: '" + value + "' (looked beside the scenario as '" + beside.string() +
                         "' and in the working directory)");
}

namespace {

// A list of traffic classes, e.g. [3, 4], as a bit mask.
uint8_t read_tc_list(const CfgNode& parent, std::string_view key) {
  uint8_t mask = 0;
  for (const auto& e : parent.list(key)) {
    int tc = -1;
    try {
      tc = std::stoi(e.scalar());
    } catch (...) {
    }
    if (tc < 0 || tc > 7 || std::to_string(tc) != e.scalar())
      throw e.error("", "expected a traffic class 0..7");
    mask |= static_cast<uint8_t>(1u << tc);
  }
  return mask;
}

void read_topology(const CfgNode& root, Scenario& s) {
  const CfgNode t = root.child("topology");
  TopologySpec& ts = s.topology;
  ts.line = t.line();
  ts.type = t.choice("type", {"star", "dumbbell", "leaf-spine", "fat-tree", "servers", "chain", "file"});
  ts.link = read_link(t, "link", s.fabric.link);
  if (ts.type == "star") {
    ts.hosts = static_cast<int>(t.integer("hosts", 2, 100000));
  } else if (ts.type == "dumbbell") {
    ts.left = static_cast<int>(t.integer("left", 1, 100000));
    ts.right = static_cast<int>(t.integer("right", 1, 100000));
    ts.fabric_link = read_link(t, "bottleneck", ts.link);
  } else if (ts.type == "leaf-spine") {
    ts.leaves = static_cast<int>(t.integer("leaves", 1, 4096));
    ts.hosts_per_leaf = static_cast<int>(t.integer("hosts_per_leaf", 1, 4096));
    ts.spines = static_cast<int>(t.integer("spines", 0, 0, 4096));
    ts.oversubscription = t.real("oversubscription", 1.0, 1.0, 1024.0);
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "fat-tree") {
    ts.k = static_cast<int>(t.integer("k", 2, 64));
    if (ts.k % 2 != 0)
      throw t.error("k", "expected an even k (a k-ary fat-tree needs k/2 up and k/2 down ports)");
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "servers") {
    ts.servers = static_cast<int>(t.integer("servers", 1, 8192));
    ts.gpus_per_server = static_cast<int>(t.integer("gpus_per_server", 8, 1, 64));
    ts.spines = static_cast<int>(t.integer("spines", 0, 0, 4096));
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "chain") {
    ts.switches = static_cast<int>(t.integer("switches", 1, 0, 16));
  } else {
    ts.file = resolve_data_path(t, "file", t.str("file"));
  }
  // Refuse sizes that would exhaust memory before a single event runs.
  constexpr int64_t kMaxHosts = 131072;
  int64_t hosts = 0;
  const char* key = "type";
  if (ts.type == "leaf-spine") {
    hosts = int64_t{ts.leaves} * ts.hosts_per_leaf;
    key = "hosts_per_leaf";
  } else if (ts.type == "servers") {
    hosts = int64_t{ts.servers} * ts.gpus_per_server;
    key = "servers";
  } else if (ts.type == "fat-tree") {
    hosts = int64_t{ts.k} * ts.k * ts.k / 4;
    key = "k";
  }
  if (hosts > kMaxHosts)
    throw t.error(key, "expected at most " + std::to_string(kMaxHosts) + " hosts (this topology has " +
                           std::to_string(hosts) + ")");

  // Switch hardware; the profile supplies the defaults.
  SwitchSettings& sw = s.fabric.sw;
  if (auto n = t.opt_child("switch")) {
    sw.cut_through = n->choice("forwarding", {"store-and-forward", "cut-through"},
                               sw.cut_through ? "cut-through" : "store-and-forward") == "cut-through";
    sw.latency = n->time("latency", sw.latency);
    const Bytes buf = n->bytes("buffer", Bytes(static_cast<int64_t>(sw.mmu.buffer_bytes)));
    if (buf.count() < 1500)
      throw n->error("buffer", "expected a buffer of at least one MTU-sized frame (1500B)");
    sw.mmu.buffer_bytes = static_cast<uint64_t>(buf.count());
    sw.cut_through_bytes =
        static_cast<uint32_t>(n->bytes("cut_through_bytes", Bytes(sw.cut_through_bytes)).count());
    if (sw.cut_through_bytes < 1 || sw.cut_through_bytes > 9216)
      throw n->error("cut_through_bytes", "expected between 1B and 9216B");
    n->finish();
  }
  t.finish();
}

// A small integer from a list element, e.g. a VL in [0, 7].
int list_int(const CfgNode& e, int lo, int hi, const std::string& what) {
  int v = -1;
  try {
    v = std::stoi(e.scalar());
  } catch (...) {
  }
  if (v < lo || v > hi || std::to_string(v) != e.scalar())
    throw e.error("", "expected " + what + " " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

// A VLArbitrationTable: entries "vl:weight", e.g. [0:4, 1:8].
std::vector<VlArbEntry> read_vlarb(const CfgNode& parent, std::string_view key) {
  std::vector<VlArbEntry> t;
  for (const auto& e : parent.list(key)) {
    const std::string v = e.scalar();
    const auto colon = v.find(':');
    int vl = -1, w = -1;
    try {
      if (colon != std::string::npos) {
        vl = std::stoi(v.substr(0, colon));
        w = std::stoi(v.substr(colon + 1));
        if (std::to_string(vl) + ":" + std::to_string(w) != v) vl = -1;
      }
    } catch (...) {
      vl = -1;
    }
    if (vl < 0 || vl >= kNumVls || w < 0 || w > 255)
      throw e.error("",
                    "expected a 'vl:weight' entry with vl 0..7 and weight 0..255 (64-byte units), e.g. 1:4");
    t.push_back(VlArbEntry{static_cast<uint8_t>(vl), static_cast<uint8_t>(w)});
  }
  if (t.size() > 64) throw parent.error(key, "expected at most 64 entries (IBTA Vol.1 §7.6.9)");
  return t;
}

void read_infiniband(const CfgNode& f, FabricConfig& c, const std::string& profile) {
  auto ib = f.opt_child("ib");
  if (!ib) return;
  if (!c.ib.enabled)
    throw f.error("ib", "applies to InfiniBand profiles (ib-ndr, ib-hdr), not '" + profile + "'");
  CreditConfig& cr = c.ib.credit;
  if (ib->has("vl_buffer")) {
    const std::string v = ib->str("vl_buffer");
    if (v == "auto") {
      cr.vl_buffer_bytes = 0;
    } else {
      const Bytes b = ib->bytes("vl_buffer");
      const uint32_t mtu_packet = c.framing.data_wire(c.rc.mtu, true);
      if (b.count() < mtu_packet || b.count() > (int64_t{1} << 30))
        throw ib->error("vl_buffer", "expected 'auto' or a size between one MTU packet (" +
                                         std::to_string(mtu_packet) + "B) and 1GiB");
      cr.vl_buffer_bytes = static_cast<uint32_t>(b.count());
    }
  }
  cr.update_period = ib->time("credit_update", cr.update_period);
  if (ib->has("sl2vl")) {
    const auto l = ib->list("sl2vl");
    if (l.size() != kNumSls) throw ib->error("sl2vl", "expected 16 VLs, one per SL 0..15");
    for (size_t i = 0; i < l.size(); ++i)
      cr.sl2vl[i] = static_cast<uint8_t>(list_int(l[i], 0, 7, "a data VL"));
  }
  if (ib->has("vlarb_high")) cr.vlarb_high = read_vlarb(*ib, "vlarb_high");
  if (ib->has("vlarb_low")) cr.vlarb_low = read_vlarb(*ib, "vlarb_low");
  cr.high_limit = static_cast<uint32_t>(ib->integer("high_limit", cr.high_limit, 0, 255));
  SubnetManagerConfig& sm = c.ib.sm;
  const std::string engine =
      ib->choice("routing", {"minhop", "updn", "ftree"}, routing_engine_name(sm.engine));
  sm.engine = engine == "minhop" ? RoutingEngine::kMinHop
              : engine == "updn" ? RoutingEngine::kUpDown
                                 : RoutingEngine::kFtree;
  sm.adaptive = ib->boolean("adaptive_routing", sm.adaptive);
  sm.detection_delay = ib->time("sm_detection_delay", sm.detection_delay);
  sm.compute_time = ib->time("sm_compute_time", sm.compute_time);
  ib->finish();
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
  FabricConfig& c = s.fabric;
  const Bytes mtu = f->bytes("mtu", Bytes(c.rc.mtu));
  if (mtu.count() < 64 || mtu.count() > 9000)
    throw f->error("mtu",
                   "expected a payload MTU between 64B and 9000B (got " + std::to_string(mtu.count()) + "B)");
  c.rc.mtu = static_cast<uint32_t>(mtu.count());
  c.rc.ack_interval = static_cast<uint32_t>(f->integer("ack_interval", c.rc.ack_interval, 1, 1 << 20));
  c.rc.rto = f->time("rto", c.rc.rto);
  if (c.rc.rto < Time::from_ns(100))
    throw f->error("rto", "expected a retransmission timeout of at least 100ns");
  c.rc.rto_max_backoff = static_cast<uint32_t>(f->integer("rto_max_backoff", c.rc.rto_max_backoff, 0, 20));
  c.rc.retry_limit = static_cast<uint32_t>(f->integer("retry_limit", c.rc.retry_limit, 0, 1 << 20));
  c.rc.data_tc = static_cast<uint8_t>(f->integer("data_tc", c.rc.data_tc, 0, 7));
  c.rc.ack_tc = static_cast<uint8_t>(f->integer("ack_tc", c.rc.ack_tc, 0, 7));
  c.sw.mmu.alpha = f->real("buffer_alpha", c.sw.mmu.alpha, 1.0 / 128, 1e12);
  c.sw.same_ecmp_seed =
      f->choice("ecmp_seed", {"per-switch", "same"}, c.sw.same_ecmp_seed ? "same" : "per-switch") == "same";
  c.nic.tx_latency = f->time("nic_tx_latency", c.nic.tx_latency);
  c.nic.rx_latency = f->time("nic_rx_latency", c.nic.rx_latency);
  // InfiniBand links are lossless by credits and mark FECN through ibcc:
  // Ethernet PFC and RED/ECN settings would be silent no-ops (or worse).
  for (const char* eth : {"pfc", "ecn", "buffer_alpha"})
    if (c.ib.enabled && f->has(eth))
      throw f->error(eth, "applies to Ethernet profiles; '" + profile_name +
                              "' links are lossless by credit flow control (see fabric.ib, fabric.ibcc)");
  if (auto pfc = f->opt_child("pfc")) {
    MmuConfig& m = c.sw.mmu;
    const bool on = pfc->boolean("enabled", m.lossless_mask != 0);
    uint8_t mask = m.lossless_mask != 0 ? m.lossless_mask : static_cast<uint8_t>(1u << c.rc.data_tc);
    if (pfc->has("classes")) mask = read_tc_list(*pfc, "classes");
    m.lossless_mask = on ? mask : 0;
    const std::string xoff = pfc->str(
        "xoff", m.xoff_bytes == 0 ? "dynamic" : format_bytes(Bytes(static_cast<int64_t>(m.xoff_bytes))));
    if (xoff == "dynamic") {
      m.xoff_bytes = 0;
    } else {
      try {
        m.xoff_bytes = static_cast<uint64_t>(parse_bytes(xoff).count());
      } catch (const std::invalid_argument& e) {
        throw pfc->error("xoff", std::string("expected 'dynamic' or a size, e.g. 200KB (") + e.what() + ")");
      }
      if (m.xoff_bytes == 0) throw pfc->error("xoff", "expected a positive XOFF threshold or 'dynamic'");
    }
    m.pfc_alpha = pfc->real("alpha", m.pfc_alpha, 1.0 / 1024, 64.0);
    m.xon_offset_bytes = static_cast<uint64_t>(
        pfc->bytes("xon_offset", Bytes(static_cast<int64_t>(m.xon_offset_bytes))).count());
    m.pg_reserved_bytes = static_cast<uint64_t>(
        pfc->bytes("reserved", Bytes(static_cast<int64_t>(m.pg_reserved_bytes))).count());
    const std::string hr =
        pfc->str("headroom", c.sw.pfc_headroom_bytes == 0
                                 ? "auto"
                                 : format_bytes(Bytes(static_cast<int64_t>(c.sw.pfc_headroom_bytes))));
    if (hr == "auto") {
      c.sw.pfc_headroom_bytes = 0;
    } else {
      try {
        c.sw.pfc_headroom_bytes = static_cast<uint64_t>(parse_bytes(hr).count());
      } catch (const std::invalid_argument& e) {
        throw pfc->error("headroom", std::string("expected 'auto' or a size, e.g. 40KB (") + e.what() + ")");
      }
      if (c.sw.pfc_headroom_bytes == 0)
        throw pfc->error("headroom", "expected a positive headroom or 'auto'");
    }
    c.sw.pfc_response_time = pfc->time("response_time", c.sw.pfc_response_time);
    c.sw.pfc.quanta = static_cast<uint32_t>(pfc->integer("quanta", c.sw.pfc.quanta, 1, 0xFFFF));
    c.sw.pfc.refresh_fraction = pfc->real("refresh", c.sw.pfc.refresh_fraction, 0.05, 0.95);
    pfc->finish();
  }
  if (auto ecn = f->opt_child("ecn")) {
    EcnConfig& e = c.sw.ecn;
    e.enabled = ecn->boolean("enabled", true);
    e.kmin_bytes =
        static_cast<uint64_t>(ecn->bytes("kmin", Bytes(static_cast<int64_t>(e.kmin_bytes))).count());
    e.kmax_bytes =
        static_cast<uint64_t>(ecn->bytes("kmax", Bytes(static_cast<int64_t>(e.kmax_bytes))).count());
    if (e.kmax_bytes < e.kmin_bytes)
      throw ecn->error("kmax", "expected kmax at or above kmin (kmax = kmin marks as a step at K)");
    e.pmax = ecn->real("pmax", e.pmax, 0.0, 1.0);
    e.mark_on_dequeue =
        ecn->choice("mark", {"dequeue", "enqueue"}, e.mark_on_dequeue ? "dequeue" : "enqueue") == "dequeue";
    const std::string ref =
        ecn->str("reference_rate", e.reference_rate.bps() == 0 ? "none" : format_rate(e.reference_rate));
    if (ref == "none") {
      e.reference_rate = Rate::from_bps(0);
    } else {
      try {
        e.reference_rate = parse_rate(ref);
      } catch (const std::invalid_argument& err) {
        throw ecn->error("reference_rate",
                         std::string("expected 'none' or a rate, e.g. 100Gbps (") + err.what() + ")");
      }
    }
    ecn->finish();
  }
  const std::string rec = f->choice("recovery", {"go-back-n", "go-back-0", "irn"},
                                    c.rc.recovery == LossRecovery::kIrn       ? "irn"
                                    : c.rc.recovery == LossRecovery::kGoBack0 ? "go-back-0"
                                                                              : "go-back-n");
  c.rc.recovery = rec == "irn"         ? LossRecovery::kIrn
                  : rec == "go-back-0" ? LossRecovery::kGoBack0
                                       : LossRecovery::kGoBackN;
  // IRN's window and timeouts mean nothing to go-back-N/0.
  for (const char* key : {"irn_window", "irn_rto_low", "irn_rto_high"})
    if (f->has(key) && c.rc.recovery != LossRecovery::kIrn)
      throw f->error(key,
                     "has no effect: fabric.recovery is '" + rec + "' (set fabric.recovery: irn to use it)");
  if (f->has("irn_window")) {
    const std::string w = f->str("irn_window");
    if (w == "auto") {
      c.rc.irn_window = 0;
      c.irn_window_auto = true;
    } else {
      try {
        const long long v = std::stoll(w);
        if (v < 1 || v > (1 << 24) || std::to_string(v) != w) throw std::invalid_argument(w);
        c.rc.irn_window = static_cast<uint32_t>(v);
        c.irn_window_auto = false;
      } catch (const std::exception&) {
        throw f->error("irn_window",
                       "expected 'auto' (one bandwidth-delay product) or a packet count, e.g. 128");
      }
    }
  }
  c.rc.irn_rto_low = f->time("irn_rto_low", c.rc.irn_rto_low);
  c.rc.irn_rto_high = f->time("irn_rto_high", c.rc.irn_rto_high);
  c.cc = f->choice("cc", congestion_control_names(), c.cc);
  // A parameter block of an algorithm the fabric does not run would be silently ignored.
  for (const std::string& name : congestion_control_names())
    if (name != c.cc && f->has(name))
      throw f->error(name, "has no effect: the fabric's congestion control is '" + c.cc +
                               "' (set fabric.cc: " + name + " to use it)");
  if (c.cc == "ibcc" && !c.ib.enabled)
    throw f->error("cc",
                   "'ibcc' (InfiniBand congestion control) needs an InfiniBand profile (ib-ndr, ib-hdr)");
  if (auto d = f->opt_child(c.cc)) {
    read_congestion_control_params(c, *d);  // the keys the algorithm declares (config/params.h)
    d->finish();
  }
  read_path_selection(*f, c);  // fabric.path_selection and its selector's block (fabric/parts.cpp)
  read_infiniband(*f, c, profile_name);
  if (c.ib.enabled) {
    // A VL that no arbitration table serves never sends: refuse the
    // configuration instead of letting its traffic wait forever.
    const CreditConfig& cr = c.ib.credit;
    for (const uint8_t sl : {c.rc.data_tc, c.rc.ack_tc}) {
      const uint8_t vl = cr.sl2vl[sl & 15];
      bool served = false;
      for (const auto* t : {&cr.vlarb_high, &cr.vlarb_low})
        for (const VlArbEntry& e : *t) served = served || (e.vl == vl && e.weight > 0);
      if (!served)
        throw f->error("ib", "SL " + std::to_string(sl) + " maps to VL " + std::to_string(vl) +
                                 ", which has no entry with a weight above 0 in vlarb_high or vlarb_low");
    }
  }
  if (auto sch = f->opt_child("scheduler")) {
    // strict: list of traffic classes served by strict priority; the rest DWRR.
    auto& cfg = c.sw.scheduler;
    if (sch->has("strict")) {
      const uint8_t mask = read_tc_list(*sch, "strict");
      for (int tc = 0; tc < kNumTcs; ++tc) cfg.strict[tc] = (mask >> tc) & 1u;
    }
    if (sch->has("weights")) {
      const auto w = sch->list("weights");
      if (w.size() != kNumTcs) throw sch->error("weights", "expected 8 DWRR weights, one per traffic class");
      for (size_t i = 0; i < w.size(); ++i) {
        int v = 0;
        try {
          v = std::stoi(w[i].scalar());
        } catch (...) {
        }
        if (v < 1 || v > 1000) throw w[i].error("", "expected a weight between 1 and 1000");
        cfg.weight[i] = static_cast<uint32_t>(v);
      }
    }
    sch->finish();
  }
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

void read_faults(const CfgNode& root, Scenario& s) {
  for (const CfgNode& f : root.opt_list("faults")) {
    FaultSpec fs;
    fs.line = f.line();
    fs.at = f.time("at");
    const std::string link = f.str("link");
    const auto colon = link.rfind(':');
    int port = -1;
    try {
      if (colon != std::string::npos && colon > 0) port = std::stoi(link.substr(colon + 1));
      if (colon == std::string::npos || std::to_string(port) != link.substr(colon + 1)) port = -1;
    } catch (...) {
      port = -1;
    }
    if (port < 0) throw f.error("link", "expected 'node:port', e.g. agg0_0:2");
    fs.node = link.substr(0, colon);
    fs.port = port;
    fs.up = f.choice("action", {"down", "up"}) == "up";
    f.finish();
    s.faults.push_back(fs);
  }
}

}  // namespace

Scenario load_scenario(const CfgNode& root) {
  Scenario s;
  s.file = root.file();
  s.name = root.str("name", fs::path(root.file()).stem().string());
  s.seed = static_cast<uint64_t>(root.integer("seed", 1, 0, INT64_MAX));
  s.duration = root.time("duration", Time::from_ms(10));
  if (s.duration <= Time::zero()) throw root.error("duration", "expected a positive simulated duration");
  read_fabric(root, s);  // first: the profile provides topology.switch defaults
  read_topology(root, s);
  read_workloads(root, s);
  read_faults(root, s);
  if (auto o = root.opt_child("output")) {
    s.output.dir = o->str("dir", "out/" + s.name);
    s.output.flows_csv = o->boolean("flows_csv", true);
    s.output.ports_csv = o->boolean("ports_csv", true);
    if (auto ts = o->opt_child("timeseries")) {
      s.output.timeseries_interval = ts->time("interval");
      if (s.output.timeseries_interval < Time::from_ns(10))
        throw ts->error("interval", "expected a sampling interval of at least 10ns");
      s.output.timeseries_start = ts->time("start", Time::zero());
      ts->finish();
    }
    o->finish();
  } else {
    s.output.dir = "out/" + s.name;
  }
  root.finish();
  // Semantic checks that need the topology.
  const Topology t = build_topology(s);
  if (!s.faults.empty()) {
    const auto faults = root.list("faults");
    std::vector<int> degree(t.nodes.size(), 0);
    for (const auto& l : t.links) {
      ++degree[l.a];
      ++degree[l.b];
    }
    for (size_t i = 0; i < s.faults.size(); ++i) {
      const FaultSpec& fs = s.faults[i];
      int id = -1;
      for (size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].name == fs.node) id = static_cast<int>(n);
      if (id < 0) throw faults[i].error("link", "no node named '" + fs.node + "' in the topology");
      if (fs.port >= degree[id])
        throw faults[i].error("link",
                              "expected a port of '" + fs.node + "' below " + std::to_string(degree[id]));
    }
  }
  const auto items = root.list("workload");
  for (size_t i = 0; i < s.workloads.size(); ++i)
    find_workload_type(s.workloads[i].type)->check(items[i], s.workloads[i], t, s);
  return s;
}

namespace {

void apply_overrides(CfgNode& root, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("<--set>", 0, 0, o, "expected key=value, e.g. --set topology.k=8");
    apply_override(root, o.substr(0, eq), o.substr(eq + 1));
  }
}

}  // namespace

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
    else if (ts.type == "fat-tree")
      t = make_fat_tree(ts.k, ts.link, ts.fabric_link);
    else if (ts.type == "servers")
      t = make_servers(ts.servers, ts.gpus_per_server, ts.spines, ts.link, ts.fabric_link);
    else if (ts.type == "chain")
      t = make_chain(ts.switches, ts.link);
    else
      t = topology_from_edge_list(load_edge_list_topology(ts.file));
  } catch (const std::invalid_argument& e) {
    throw InputError(s.file, ts.line, 0, "topology", e.what());
  }
  const std::string why = check_connected(t);
  if (!why.empty()) throw InputError(s.file, ts.line, 0, "topology", why);
  return t;
}

}  // namespace rdmasim
