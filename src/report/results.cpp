#include "report/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "config/misconfig.h"
#include "config/units_parse.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "metrics/distribution.h"
#include "report/atomic_file.h"
#include "report/operator_views.h"

namespace rdmasim {
namespace {

using json = nlohmann::ordered_json;

// A distribution of nothing (no flow completed, an empty size bin) has no
// minimum, mean or percentile: null, not 0, which would read as an instant
// flow and drag a mean taken across runs.
json dist_json(const Distribution& d) {
  if (d.count == 0)
    return json{{"count", 0},       {"min", nullptr}, {"mean", nullptr},  {"stdev", nullptr},
                {"p50", nullptr},   {"p90", nullptr}, {"p95", nullptr},   {"p99", nullptr},
                {"p99.9", nullptr}, {"max", nullptr}, {"jitter", nullptr}};
  return json{{"count", d.count}, {"min", d.min}, {"mean", d.mean},    {"stdev", d.stdev},
              {"p50", d.p50},     {"p90", d.p90}, {"p95", d.p95},      {"p99", d.p99},
              {"p99.9", d.p999},  {"max", d.max}, {"jitter", d.jitter}};
}

const char* op_name(Opcode op) {
  switch (op) {
    case Opcode::kRead:
      return "read";
    case Opcode::kSend:
      return "send";
    default:
      return "write";
  }
}

double slowdown(const FlowRecord& f) {
  return static_cast<double>(f.fct().ps()) / static_cast<double>(std::max<int64_t>(1, f.ideal.ps()));
}

// ps as ns with exactly three decimals: exact and locale-free.
std::string ns3(Time t) {
  const int64_t ps = t.ps();
  return fmt::format("{}{}.{:03d}", ps < 0 ? "-" : "", std::abs(ps) / 1000, std::abs(ps) % 1000);
}

struct SizeBin {
  const char* name;
  int64_t lo, hi;
};
constexpr SizeBin kBins[] = {{"<10KB", 0, 10'000},
                             {"10KB-100KB", 10'000, 100'000},
                             {"100KB-1MB", 100'000, 1'000'000},
                             {">=1MB", 1'000'000, INT64_MAX}};

json opt_us(const std::optional<Time>& t) { return t ? json(t->us()) : json(nullptr); }

// What an operator writes up after an outage: per fault, how long until the
// fabric noticed and routed around it, how deep the throughput dip went and
// how long until traffic was back, and what was lost meanwhile.
json incident_json(const Experiment& e) {
  json events = json::array();
  for (const RecoveryEvent& ev : e.fabric().recovery_log()) {
    json x = {{"at_us", ev.at.us()}, {"event", ev.what}};
    if (!ev.link.empty()) x["link"] = ev.link;
    events.push_back(std::move(x));
  }
  json faults = json::array();
  for (const FaultImpact& f : e.fault_impacts())
    faults.push_back({{"fault", f.what},
                      {"at_us", f.at.us()},
                      {"detected_after_us", opt_us(f.detected_after)},
                      {"repaired_after_us", opt_us(f.repaired_after)},
                      {"rerouted_after_us", opt_us(f.rerouted_after)},
                      {"pre_fault_gbps", f.pre_fault_gbps ? json(*f.pre_fault_gbps) : json(nullptr)},
                      {"busy_connections_at_fault", f.busy_at_fault},
                      {"min_gbps", f.pre_fault_gbps ? json(f.min_gbps) : json(nullptr)},
                      {"dip_percent", f.pre_fault_gbps && *f.pre_fault_gbps > 0 && f.busy_at_fault > 0
                                          ? json(100.0 * (1.0 - f.min_gbps / *f.pre_fault_gbps))
                                          : json(nullptr)},
                      {"recovered_after_us", opt_us(f.recovered_after)},
                      {"retransmitted_bytes", f.retransmitted_bytes},
                      {"link_fault_drops", f.fault_drops},
                      {"lossless_drops", f.lossless_drops},
                      {"peak_ports_paused", f.peak_ports_paused}});
  size_t stalled_workloads = 0;
  for (const auto& w : e.workloads()) stalled_workloads += w->finished() ? 0 : 1;
  size_t stalled_flows = 0;
  // As flows.unfinished counts them: a flow that never started is unfinished too.
  for (const auto& f : e.flows()) stalled_flows += f.finished() ? 0 : 1;
  const IncidentMonitor& m = *e.incident();
  return {{"bin_us", m.first_bin().us()},
          {"bin_doubles_every", m.doubles_every() > 0 ? json(m.doubles_every()) : json(nullptr)},
          {"recovered_means",
           "delivered throughput back to >= 90% of its mean over the 10 bins before the fault; with fewer "
           "connections busy than at the fault (less left to send), a stall (nothing delivered) is the dip "
           "and delivering again the recovery"},
          {"faults", faults},
          {"flows_unfinished", stalled_flows},
          {"workloads_unfinished", stalled_workloads},
          {"events", events},
          {"series", "incident.csv"}};
}

}  // namespace

namespace {

// What a run with injected misconfigurations found: the label it carries,
// and the losses that only a misconfiguration causes (they are its finding,
// not a broken invariant): drops where the class is lossless, drops of the
// fabric's lossless classes anywhere (also where a misconfigured port
// buffers them as lossy), frames above a port's MTU.
json misconfig_findings(const Experiment& e) {
  const Fabric& fab = e.fabric();
  const uint8_t mask = fab.config().sw.mmu.lossless_mask;
  uint64_t lossless = 0, lossless_class = 0, oversize = 0;
  for (const Switch* sw : fab.switches()) {
    lossless += sw->counters().lossless_drops;
    oversize += sw->counters().oversize_drops;
    for (size_t i = 0; i < sw->num_ports(); ++i)
      for (int tc = 0; tc < kNumTcs; ++tc)
        if (((mask >> tc) & 1u) != 0) lossless_class += sw->port(i).counters().drop_packets[tc];
  }
  json injected = json::array();
  for (const DeviceOverride& o : fab.config().misconfig) {
    std::string keys;
    for (const std::string& k : o.keys) keys += (keys.empty() ? "" : ", ") + k;
    injected.push_back(o.target() + ": " + keys);
  }
  return {{"label", "misconfigured"},
          {"injected", injected},
          {"lossless_drops", lossless},
          {"lossless_class_drops", lossless_class},
          {"oversize_drops", oversize}};
}

}  // namespace

json scenario_json(const Scenario& s) {
  const TopologySpec& t = s.topology;
  const FabricConfig& f = s.fabric;
  json topo = topology_json(t);
  topo["switch"] = switch_params_json(f.sw);
  if (t.routers > 0) topo["router"] = router_params_json(f);
  json fabric{{"profile", s.profile}, {"framing", f.framing.name}};
  fabric.update(fabric_params_json(f));  // every key the fabric's parts declare, in declaration order
  json cites = json::array();
  for (const auto& d : profile_defaults(find_profile(s.profile))) {
    json c{{"key", d.key}, {"default", d.value}, {"source", d.source}};
    if (!d.low.empty()) c["range"] = {{"low", d.low}, {"high", d.high}, {"why", d.range_why}};
    cites.push_back(std::move(c));
  }
  fabric["profile_defaults"] = cites;
  json wl = json::array();
  for (const auto& w : s.workloads) {
    json j{{"type", w.type}};
    find_workload_type(w.type)->echo(w, j);
    wl.push_back(j);
  }
  json out{{"name", s.name},   {"file", s.file},   {"seed", s.seed}, {"duration", format_time(s.duration)},
           {"topology", topo}, {"fabric", fabric}, {"workload", wl}};
  if (!s.faults.empty()) {
    json faults = json::array();
    for (const FaultSpec& fs : s.faults) faults.push_back(fault_json(fs));
    out["faults"] = faults;
  }
  if (!s.fabric.misconfig.empty()) {
    json mis = json::array();
    for (const DeviceOverride& o : s.fabric.misconfig) mis.push_back(misconfig_json(o));
    out["misconfig"] = mis;
  }
  if (!s.links.empty()) {
    json links = json::array();
    for (const LinkSettingSpec& l : s.links) links.push_back(link_setting_json(l));
    out["links"] = links;
  }
  return out;
}

namespace {
// Congestion spreading and the PFC watchdog, on a PFC fabric.
json pfc_json(const Experiment& e, const PfcWatch& w) {
  const Network& net = e.fabric().net();
  const PauseSpread& sp = net.pause_spread();
  uint64_t ever = 0, switch_ever = 0;
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
      bool paused = false;
      for (int tc = 0; tc < kNumTcs; ++tc)
        paused = paused || net.node(n).port(i).counters().pfc_paused_ps[tc] > 0;
      ever += paused ? 1 : 0;
      switch_ever += paused && net.node(n).kind() == NodeKind::kSwitch ? 1 : 0;
    }
  json j = {{"ports_paused_peak", sp.peak},
            {"ports_paused_peak_at_us", sp.peak_at.us()},
            {"ports_paused_at_end", sp.ports_paused},
            {"ports_ever_paused", ever},
            {"switch_ports_ever_paused", switch_ever}};
  const PfcWatchdogConfig& wd = w.config().watchdog;
  if (!wd.enabled) return j;
  uint64_t storms = 0, restores = 0, drops = 0;
  json queues = json::array();  // per port and priority, where the watchdog acted
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i)
      for (int tc = 0; tc < kNumTcs; ++tc) {
        const PortCounters& c = net.node(n).port(i).counters();
        storms += c.pfc_wd_storms[tc];
        restores += c.pfc_wd_restores[tc];
        drops += c.pfc_wd_drop_packets[tc];
        if (c.pfc_wd_storms[tc] != 0)
          queues.push_back({{"port", net.node(n).name() + ":" + std::to_string(i)},
                            {"priority", tc},
                            {"storms", c.pfc_wd_storms[tc]},
                            {"restores", c.pfc_wd_restores[tc]},
                            {"dropped_packets", c.pfc_wd_drop_packets[tc]}});
      }
  json events = json::array();
  for (const WatchdogEvent& ev : w.watchdog_log()) {
    json x = {{"at_us", ev.at.us()},
              {"port", ev.port},
              {"priority", ev.tc},
              {"event", ev.storm ? "storm" : "restored"}};
    if (ev.storm) {
      x["paused_since_us"] = ev.paused_since.us();
      x["detected_after_us"] = (ev.at - ev.paused_since).us();
    }
    events.push_back(x);
  }
  j["watchdog"] = {
      {"storms_detected", storms}, {"storms_restored", restores},
      {"dropped_packets", drops},  {"queues", queues},
      {"events", events},          {"events_not_kept", storms + restores - w.watchdog_log().size()}};
  return j;
}
}  // namespace

FlowTables flow_tables(const std::vector<FlowRecord>& flows, uint64_t data_packet_hops) {
  std::vector<double> fct, sd, tput;
  int64_t bytes_total = 0, bytes_done = 0;
  Time first_start = Time::never(), last_end = Time::zero();
  for (const auto& f : flows) {
    bytes_total += f.spec.size_bytes;
    if (!f.finished()) continue;
    bytes_done += f.spec.size_bytes;
    fct.push_back(f.fct().ns());
    sd.push_back(slowdown(f));
    tput.push_back(static_cast<double>(f.spec.size_bytes) * 8.0 / f.fct().sec() / 1e9);
    first_start = std::min(first_start, f.spec.start);
    last_end = std::max(last_end, f.end);
  }
  json bins = json::array();
  for (const auto& b : kBins) {
    std::vector<double> s, c;
    for (const auto& f : flows)
      if (f.finished() && f.spec.size_bytes >= b.lo && f.spec.size_bytes < b.hi) {
        s.push_back(slowdown(f));
        c.push_back(f.fct().ns());
      }
    bins.push_back(
        {{"sizes", b.name}, {"slowdown", dist_json(summarize(s))}, {"fct_ns", dist_json(summarize(c))}});
  }
  const double makespan_s =
      last_end > first_start && first_start != Time::never() ? (last_end - first_start).sec() : 0;
  size_t completed = 0;
  for (const auto& f : flows) completed += f.finished() ? 1 : 0;
  FlowTables t;
  t.flows = {{"total", flows.size()},
             {"completed", completed},
             {"unfinished", flows.size() - completed},
             {"bytes_total", bytes_total},
             {"bytes_completed", bytes_done},
             {"fct_ns", dist_json(summarize(fct))},
             {"slowdown", dist_json(summarize(sd))},
             {"throughput_gbps", dist_json(summarize(tput))},
             {"by_size", bins}};
  t.throughput = {
      {"goodput_gbps", makespan_s > 0 ? static_cast<double>(bytes_done) * 8 / makespan_s / 1e9 : 0.0},
      {"makespan_ns", makespan_s * 1e9},
      {"data_packet_hops", data_packet_hops}};
  return t;
}

namespace {

// The FCPs of every credit port as the packet ledger counts packets.
json fcp_ledger(const Network& net) {
  uint64_t sent = 0, received = 0, lost = 0;
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i)
      if (const CreditState* cs = net.node(n).port(i).credit()) {
        sent += cs->ctr.fcp_sent;
        received += cs->ctr.fcp_received;
        lost += cs->ctr.fcp_lost;
      }
  return {
      {"created", sent + lost}, {"delivered", received}, {"dropped", lost}, {"in_flight", sent - received}};
}

}  // namespace

json results_json(const Experiment& e) {
  const Fabric& fab = e.fabric();
  const auto& flows = e.flows();
  FlowTables tables = flow_tables(flows, e.data_packet_hops());

  const auto& led = fab.net().ledger();
  static constexpr const char* kTypes[] = {"data", "ack",     "nak",   "read_request", "pfc",
                                           "cnp",  "trimmed", "grant", "sharp"};
  json pk;
  for (int t = 0; t < kNumPktTypes; ++t) {
    // InfiniBand FCPs are timed updates, not packets (link/credit.h): their
    // entry comes from the ports' credit counters.
    if (t == static_cast<int>(PktType::kTrimmed)) pk["credit"] = fcp_ledger(fab.net());
    // Trimmed headers and RCCC grants exist only on UET fabrics, SHARP's
    // packets only where a collective ran in the network: no entry elsewhere.
    const auto type = static_cast<PktType>(t);
    if ((type == PktType::kTrimmed || type == PktType::kGrant || type == PktType::kSharp) &&
        led.created[t] == 0)
      continue;
    pk[kTypes[t]] = {{"created", led.created[t]},
                     {"delivered", led.delivered[t]},
                     {"dropped", led.dropped[t]},
                     {"in_flight", led.live[t]}};
    if (led.retyped[t] != 0) pk[kTypes[t]]["trimmed"] = led.retyped[t];
  }
  const QpStats rc = e.fabric().verbs().total_stats();
  const uint64_t cnps = rc.cnps_sent;
  uint64_t buffer_drops = 0, no_route = 0, peak_buffer = 0, lossless_drops = 0, ecn_marked = 0, xoff = 0,
           xon = 0;
  for (const Switch* sw : fab.switches()) {
    buffer_drops += sw->counters().buffer_drops;
    no_route += sw->counters().no_route_drops;
    lossless_drops += sw->counters().lossless_drops;
    ecn_marked += sw->counters().ecn_marked;
    xoff += sw->counters().pfc_xoff_sent;
    xon += sw->counters().pfc_xon_sent;
    peak_buffer = std::max(peak_buffer, sw->mmu().peak());
  }
  // Losses on the wire: to failed links and to corrupted frames.
  uint64_t fault_drops = 0, corrupt_drops = 0;
  for (size_t n = 0; n < fab.net().num_nodes(); ++n)
    for (size_t i = 0; i < fab.net().node(n).num_ports(); ++i) {
      const Port& p = fab.net().node(n).port(i);
      fault_drops += p.counters().fault_drop_packets;  // on InfiniBand, the credit view's included
      corrupt_drops += p.counters().corrupt_drop_packets;
    }
  // Paused time summed over every port (switch and NIC) and priority.
  double paused_us = 0;
  for (size_t n = 0; n < fab.net().num_nodes(); ++n)
    for (size_t i = 0; i < fab.net().node(n).num_ports(); ++i)
      for (int tc = 0; tc < kNumTcs; ++tc)
        paused_us += fab.net().node(n).port(i).paused_time(static_cast<uint8_t>(tc), e.sim().now()).us();
  const std::string& inv = e.invariant_error();
  json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["generator"] = "rdmasim 0.1.0";
  j["scenario"] = scenario_json(e.scenario());
  // The values the fabric resolved from "auto" (HPCC's base RTT, IRN's and
  // DCTCP's one-BDP windows): with the echo, every setting that ran.
  {
    const json ran_echo = fabric_params_json(fab.config());
    const auto given = flatten_params(fabric_params_json(e.scenario().fabric), "fabric");
    const auto ran = flatten_params(ran_echo, "fabric");
    json resolved = json::object();
    for (size_t i = 0; i < ran.size() && i < given.size(); ++i)
      if (ran[i].first == given[i].first && ran[i].second != given[i].second) {
        std::string path = ran[i].first.substr(6);  // "fabric.hpcc.base_rtt" -> "/hpcc/base_rtt"
        for (char& c : path)
          if (c == '.') c = '/';
        resolved[ran[i].first] = ran_echo.at(json::json_pointer(path));
      }
    if (!resolved.empty()) j["resolved"] = resolved;
  }
  j["topology"] = {{"description", fab.topology().description},
                   {"hosts", fab.topology().num_hosts()},
                   {"switches", fab.topology().num_switches()},
                   {"links", fab.topology().links.size()}};
  if (e.timeseries() != nullptr)
    j["timeseries"] = {{"file", "timeseries.csv"},
                       {"interval", format_time(e.scenario().output.timeseries_interval)},
                       {"samples", e.timeseries()->samples()},
                       {"rows_dropped_over_cap", e.timeseries()->dropped_rows()}};
  if (const PcapCapture* c = e.capture(); c != nullptr) {
    j["pcap"] = {
        {"file", "capture.pcap"},
        {"link_type", c->link_type() == FrameBuilder::kLinkTypeErf ? "erf (infiniband)" : "ethernet"},
        {"ports", c->ports().size()},
        {"packets", c->packets()},
        {"packets_over_cap", c->over_cap()}};
    if (c->link_type() == FrameBuilder::kLinkTypeErf)
      j["pcap"]["flow_control_packets_not_recorded"] = c->link_packets_skipped();
  }
  if (const TransportSeries* ts = e.transport_series(); ts != nullptr)
    j["timeseries"]["transport"] = {{"file", ts->table().file},
                                    {"samples", ts->samples()},
                                    {"samples_dropped_over_cap", ts->dropped_samples()}};
  j["run"] = {{"simulated_end_ps", e.sim().now().ps()},
              {"simulated_end", format_time(e.sim().now())},
              {"events", e.sim().events_processed()},
              {"interrupted", e.interrupted()},
              {"all_flows_completed", e.completed() == flows.size()}};
  if (!e.warnings().empty()) j["run"]["warnings"] = e.warnings();
  // A deadlocked fabric would only have timed out: say what stopped it.
  if (const DeadlockReport* d = e.deadlock(); d != nullptr) {
    j["run"]["status"] = "deadlock";
    j["deadlock"] = {{"detected_at_us", d->at.us()}, {"cycle", d->cycle}, {"text", d->text()}};
  }
  j["invariants"] = {{"ok", inv.empty()},
                     {"packet_conservation_and_buffer_accounting", inv.empty() ? "ok" : inv}};
  j["flows"] = std::move(tables.flows);
  j["throughput"] = std::move(tables.throughput);
  j["network"] = {{"packets", pk},
                  {"switch_buffer_drops", buffer_drops},
                  {"lossless_drops", lossless_drops},
                  {"ecn_marked_packets", ecn_marked},
                  {"cnps", cnps},
                  {"pfc_xoff_frames", xoff},
                  {"pfc_xon_frames", xon},
                  {"pfc_paused_port_us", paused_us},
                  {"no_route_drops", no_route},
                  {"link_fault_drops", fault_drops},
                  {"corruption_drops", corrupt_drops},
                  {"peak_switch_buffer_bytes", peak_buffer},
                  {"retransmitted_packets", rc.retransmitted_packets},
                  {"retransmitted_bytes", rc.retransmitted_bytes},
                  {"timeouts", rc.timeouts},
                  {"naks", rc.naks_sent},
                  {"out_of_order_discards", rc.out_of_order_discards}};
  if (const PfcWatch* w = e.fabric().pfc_watch(); w != nullptr) j["network"]["pfc"] = pfc_json(e, *w);
  // What the non-flow workloads measured (collective, training, background);
  // absent when every workload reports through flows.
  json measured = json::array();
  for (const auto& w : e.workloads()) {
    json m = json::object();
    w->report(m);
    measured.push_back(m);
  }
  bool any = false;
  for (const auto& m : measured) any = any || !m.empty();
  if (any) j["workload_results"] = measured;
  e.fabric().verbs().report(j);
  if (e.fabric().config().ib.enabled) {
    double wait_us = 0;
    uint64_t fcps = 0, fault = 0;
    const Network& net = e.fabric().net();
    for (size_t n = 0; n < net.num_nodes(); ++n)
      for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
        const Port& p = net.node(n).port(i);
        wait_us += p.xmit_wait(e.sim().now()).us();
        fcps += p.credit()->ctr.fcp_sent;
        fault += p.credit()->ctr.fault_drop_packets;
      }
    const SmStats& sm = e.fabric().sm_stats();
    json installs = json::array();
    for (const Time t : sm.installs) installs.push_back(t.us());
    j["network"]["infiniband"] = {{"port_xmit_wait_us", wait_us},
                                  {"flow_control_packets", fcps},
                                  {"fault_drops", fault},
                                  {"routing", routing_engine_name(e.fabric().config().ib.sm.engine)},
                                  {"adaptive_routing", e.fabric().config().ib.sm.adaptive},
                                  {"sm_sweeps", sm.sweeps},
                                  {"lft_installs_us", installs}};
    if (!sm.sweeps_by_subnet.empty()) j["network"]["infiniband"]["sm_sweeps_by_subnet"] = sm.sweeps_by_subnet;
    if (e.fabric().config().ib.sm.shield) {
      j["network"]["infiniband"]["shield"] = true;
      j["network"]["infiniband"]["flfn_notices"] = sm.flfn_notices;
    }
  }
  if (e.incident() != nullptr) j["incident"] = incident_json(e);
  if (!e.fabric().config().misconfig.empty()) j["misconfig"] = misconfig_findings(e);
  return j;
}

std::string flows_csv(const Experiment& e) {
  const Verbs verbs = e.fabric().verbs();
  return flows_csv(e.flows(), [&](const FlowRecord& f) {
    uint64_t retx = 0;
    for (uint32_t q = 0; q < f.qps; ++q) retx += verbs.qp(f.conn + q).stats().retransmitted_packets;
    return retx;
  });
}

std::string flows_csv(const std::vector<FlowRecord>& flows,
                      const std::function<uint64_t(const FlowRecord&)>& retransmitted) {
  std::string out =
      "id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,op,workload,path_links,retransmitted_"
      "packets\n";
  for (const auto& f : flows) {
    const bool done = f.finished();
    const uint64_t retx = f.started ? retransmitted(f) : 0;
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", f.spec.id, f.spec.src, f.spec.dst,
                    f.spec.size_bytes, ns3(f.spec.start), done ? ns3(f.fct()) : "",
                    !f.started                 ? ""
                    : f.ideal == Time::never() ? "inf"
                                               : ns3(f.ideal),
                    done ? fmt::format("{:.6f}", slowdown(f)) : "", op_name(f.op), f.workload, f.links, retx);
  }
  return out;
}

std::string ports_csv(const Experiment& e) {
  std::string out =
      "node,port,peer,rate_gbps,tx_packets,tx_bytes,rx_packets,rx_bytes,tx_payload_bytes,drop_packets,drop_"
      "bytes,"
      "queue_watermark_bytes,utilization,pfc_tx_frames,pfc_rx_frames,pfc_paused_us,ecn_marked,lossless_"
      "drops";
  // Watchdog columns only where it runs: other runs' tables stay as they were.
  const PfcWatch* w = e.fabric().pfc_watch();
  const bool wd = w != nullptr && w->config().watchdog.enabled;
  out += wd ? ",pfc_wd_storms,pfc_wd_restores,pfc_wd_drops\n" : "\n";
  const Network& net = e.fabric().net();
  const double t = e.sim().now().sec();
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      const PortCounters& c = p.counters();
      uint64_t dp = 0, db = 0, wm = 0, ptx = 0, prx = 0, ecn = 0, lld = 0;
      double paused_us = 0;
      for (int tc = 0; tc < kNumTcs; ++tc) {
        dp += c.drop_packets[tc];
        db += c.drop_bytes[tc];
        wm = std::max(wm, c.queue_watermark_bytes[tc]);
        ptx += c.pfc_tx_frames[tc];
        prx += c.pfc_rx_frames[tc];
        ecn += c.ecn_marked_packets[tc];
        lld += c.lossless_drop_packets[tc];
        paused_us += p.paused_time(static_cast<uint8_t>(tc), e.sim().now()).us();
      }
      // A frame counts its whole serialisation when it starts: the part past
      // the run's end (one cut off by its duration) is not busy time of the run.
      const uint64_t past_end =
          static_cast<uint64_t>(std::max<int64_t>(0, (p.wire_free_at() - e.sim().now()).ps()));
      const uint64_t busy = c.busy_ps - std::min(c.busy_ps, past_end);
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{},{},{:.3f},{},{}", node.name(), i,
                         p.peer()->name(), p.rate().gbps(), c.tx_packets, c.tx_bytes, c.rx_packets,
                         c.rx_bytes, c.tx_data_payload_bytes, dp, db, wm,
                         t > 0 ? static_cast<double>(busy) / 1e12 / t : 0.0, ptx, prx, paused_us, ecn, lld);
      if (wd) {
        uint64_t storms = 0, restores = 0, drops = 0;
        for (int tc = 0; tc < kNumTcs; ++tc) {
          storms += c.pfc_wd_storms[tc];
          restores += c.pfc_wd_restores[tc];
          drops += c.pfc_wd_drop_packets[tc];
        }
        out += fmt::format(",{},{},{}", storms, restores, drops);
      }
      out += "\n";
    }
  }
  return out;
}

std::string ib_ports_csv(const Experiment& e) {
  std::string out =
      "node,port,peer,vl,PortXmitData,PortRcvData,PortXmitPkts,PortRcvPkts,PortVLXmitWait_us,PortXmitWait_us,"
      "fcp_sent,fcp_received,SymbolErrorCounter,LinkErrorRecoveryCounter,LinkDownedCounter,fault_drops\n";
  const Network& net = e.fabric().net();
  const Time now = e.sim().now();
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      const CreditState* cs = p.credit();
      if (cs == nullptr) continue;
      const IbPortCounters& c = cs->ctr;
      for (int vl = 0; vl < kNumVls; ++vl) {
        const CreditLane& l = cs->lane[vl];
        if (l.xmit_pkts == 0 && l.rcv_pkts == 0 && vl != 0) continue;
        out += fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.3f},{},{},{},{},{},{}\n", node.name(), i,
                           p.peer()->name(), vl, l.xmit_data_bytes / 4, l.rcv_data_bytes / 4, l.xmit_pkts,
                           l.rcv_pkts, p.vl_xmit_wait(vl, now).us(), p.xmit_wait(now).us(), c.fcp_sent,
                           c.fcp_received, c.symbol_errors, c.link_error_recovery, c.link_downed,
                           c.fault_drop_packets);
      }
    }
  }
  return out;
}

namespace {

std::string after(const json& v) {
  return v.is_null() ? std::string("never") : fmt::format("+{:.1f} us", v.get<double>());
}

std::string incident_text(const json& inc) {
  std::string s;
  for (const auto& f : inc["faults"]) {
    s += fmt::format("incident   {} at {:.3f} us: detected {}, repaired {}, rerouted {}\n",
                     f["fault"].get<std::string>(), f["at_us"].get<double>(), after(f["detected_after_us"]),
                     after(f["repaired_after_us"]), after(f["rerouted_after_us"]));
    const std::string dip =
        f["pre_fault_gbps"].is_null()
            ? std::string("throughput before it not measured (it came before the first bin closed)")
        : f["pre_fault_gbps"].get<double>() <= 0 ? std::string("no traffic before it, so no dip measured")
        : f["dip_percent"].is_null()
            ? std::string("no connection had work left at it, so no dip measured")
            : fmt::format("throughput {:.1f} -> {:.1f} Gb/s (dip {:.0f}%), back to 90% {}",
                          f["pre_fault_gbps"].get<double>(), f["min_gbps"].get<double>(),
                          f["dip_percent"].get<double>(), after(f["recovered_after_us"]));
    s += fmt::format(
        "           {}; {} B retransmitted, {} lost on failed links, {} lossless drops, peak {} ports "
        "paused\n",
        dip, f["retransmitted_bytes"].get<uint64_t>(), f["link_fault_drops"].get<uint64_t>(),
        f["lossless_drops"].get<uint64_t>(), f["peak_ports_paused"].get<uint32_t>());
  }
  const std::string doubling =
      inc["bin_doubles_every"].is_null()
          ? std::string()
          : fmt::format(", doubling every {} bins", inc["bin_doubles_every"].get<int>());
  s += fmt::format(
      "           {} flows and {} workloads unfinished at the end; incident.csv every {:g} us{}\n",
      inc["flows_unfinished"].get<size_t>(), inc["workloads_unfinished"].get<size_t>(),
      inc["bin_us"].get<double>(), doubling);
  return s;
}

}  // namespace

std::string flow_summary_lines(const json& j) {
  const auto& fl = j["flows"];
  std::string s;
  s += fmt::format("flows      {} completed of {}\n", fl["completed"].get<size_t>(),
                   fl["total"].get<size_t>());
  // No completed flow has no FCT: zeros would read as instant ones.
  if (fl["completed"].get<size_t>() == 0) {
    s += "FCT us     n/a (no flow completed)\n";
  } else {
    s += fmt::format("FCT us     p50 {:.2f}  p99 {:.2f}  max {:.2f}\n",
                     fl["fct_ns"]["p50"].get<double>() / 1e3, fl["fct_ns"]["p99"].get<double>() / 1e3,
                     fl["fct_ns"]["max"].get<double>() / 1e3);
    s += fmt::format("slowdown   p50 {:.2f}  p95 {:.2f}  p99 {:.2f}\n", fl["slowdown"]["p50"].get<double>(),
                     fl["slowdown"]["p95"].get<double>(), fl["slowdown"]["p99"].get<double>());
  }
  s += fmt::format("goodput    {:.2f} Gb/s aggregate\n", j["throughput"]["goodput_gbps"].get<double>());
  return s;
}

std::string summary_text(const Experiment& e) {
  const json j = results_json(e);
  const auto& nw = j["network"];
  std::string s;
  s += fmt::format("scenario   {}  ({}, profile {})\n", e.scenario().name, e.fabric().topology().description,
                   e.scenario().profile);
  s += fmt::format("simulated  {:.3f} us  events {}{}\n", e.sim().now().ps() / 1e6,
                   j["run"]["events"].get<uint64_t>(), e.interrupted() ? "  (INTERRUPTED)" : "");
  s += fmt::format("memory     {} MiB estimated (network and flows)\n", e.memory_estimate() >> 20);
  if (j.contains("misconfig")) {
    const auto& m = j["misconfig"];
    for (const auto& what : m["injected"]) s += fmt::format("MISCONFIGURED {}\n", what.get<std::string>());
    s += fmt::format(
        "misconfig  found: lossless-class drops {} ({} where the class was lossless), oversize drops {}; "
        "every figure below is of the misconfigured fabric\n",
        m["lossless_class_drops"].get<uint64_t>(), m["lossless_drops"].get<uint64_t>(),
        m["oversize_drops"].get<uint64_t>());
  }
  // A run of collectives or training alone has no flows to describe.
  const bool flow_lines =
      !e.flows().empty() || e.workloads().empty() || e.workloads().front()->summary().empty();
  if (flow_lines) s += flow_summary_lines(j);
  // Every cause of loss, so a lossless fabric that dropped says why. Buffer
  // drops include the lossless class's (shown beside them, not added twice).
  const uint64_t fault = nw["link_fault_drops"].get<uint64_t>();
  const uint64_t corrupt = nw["corruption_drops"].get<uint64_t>();
  const uint64_t buffer = nw["switch_buffer_drops"].get<uint64_t>();
  const uint64_t lossless = nw["lossless_drops"].get<uint64_t>();
  const uint64_t no_route = nw["no_route_drops"].get<uint64_t>();
  // UET's switches trim a packet to its header instead of dropping it: no
  // drop, but a resend, which the line would otherwise leave unexplained.
  const auto& data = nw["packets"]["data"];
  const std::string trimmed = data.contains("trimmed")
                                  ? fmt::format(" ({} trimmed)", data["trimmed"].get<uint64_t>())
                                  : std::string();
  s += fmt::format(
      "drops      {} packets (buffer {}, lossless class {}, no route {}, link fault {}, corruption {})  "
      "retransmitted {}{}  timeouts {}\n",
      buffer + no_route + fault + corrupt, buffer, lossless, no_route, fault, corrupt,
      nw["retransmitted_packets"].get<uint64_t>(), trimmed, nw["timeouts"].get<uint64_t>());
  if (j.contains("tcp")) {
    const auto& t = j["tcp"];
    s += fmt::format(
        "tcp        {} segments, {} resent (fast {}, {} RTOs), recoveries {} SACK / {} Reno, RTT "
        "{:.2f}-{:.2f} "
        "us\n",
        t["segments_sent"].get<uint64_t>(), t["retransmitted_segments"].get<uint64_t>(),
        t["fast_retransmits"].get<uint64_t>(), t["timeouts"].get<uint64_t>(),
        t["sack_recoveries"].get<uint64_t>(), t["reno_recoveries"].get<uint64_t>(),
        t["min_rtt_us"].get<double>(), t["max_rtt_us"].get<double>());
  }
  for (const auto& w : e.workloads()) s += w->summary();
  if (j.contains("incident")) s += incident_text(j["incident"]);
  // Spreading is worth a line where pauses were the point: a watchdog or a stuck receiver.
  bool stuck = false;
  for (const FaultSpec& f : e.scenario().faults) stuck = stuck || f.action == FaultSpec::Action::kStuck;
  if (nw.contains("pfc") && (stuck || nw["pfc"].contains("watchdog"))) {
    const auto& pf = nw["pfc"];
    s +=
        fmt::format("pfc        ports paused: peak {} at {:.3f} us, {} at the end, {} ever ({} switch ports)",
                    pf["ports_paused_peak"].get<uint64_t>(), pf["ports_paused_peak_at_us"].get<double>(),
                    pf["ports_paused_at_end"].get<uint64_t>(), pf["ports_ever_paused"].get<uint64_t>(),
                    pf["switch_ports_ever_paused"].get<uint64_t>());
    if (pf.contains("watchdog"))
      s += fmt::format("; watchdog {} storms, {} restored, {} packets dropped",
                       pf["watchdog"]["storms_detected"].get<uint64_t>(),
                       pf["watchdog"]["storms_restored"].get<uint64_t>(),
                       pf["watchdog"]["dropped_packets"].get<uint64_t>());
    s += "\n";
  }
  if (const DeadlockReport* d = e.deadlock(); d != nullptr)
    s +=
        fmt::format("status     DEADLOCK at {:.3f} us: cyclic buffer dependency {}\n", d->at.us(), d->text());
  s += fmt::format("invariants {}\n", j["invariants"]["ok"].get<bool>() ? "ok" : e.invariant_error());
  return s;
}

const std::vector<std::string>& run_output_names() {
  static const std::vector<std::string> k = {"results.json",     "flows.csv",    "ports.csv",
                                             "ib_ports.csv",     "counters.txt", "ibdiagnet.txt",
                                             "timeseries.csv",   "incident.csv", "capture.pcap",
                                             "ports_paused.csv", "tcp.csv",      "tcp_timeseries.csv"};
  return k;
}

std::vector<std::string> remove_stale_outputs(const std::string& dir,
                                              const std::vector<std::string>& written) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  for (const std::string& name : run_output_names()) {
    if (std::find(written.begin(), written.end(), name) != written.end()) continue;
    const fs::path p = fs::path(dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && fs::remove(p, ec)) removed.push_back(name);
  }
  return removed;
}

std::vector<std::string> write_outputs(const Experiment& e, const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  auto put = [&](const char* name, const std::string& text) {
    // A name the stale-output sweep does not know would be left behind by
    // the next run into this folder.
    if (std::find(run_output_names().begin(), run_output_names().end(), name) == run_output_names().end())
      throw std::logic_error(std::string("output ") + name + " is missing from run_output_names()");
    write_file_atomic((fs::path(dir) / name).string(), text);
    written.emplace_back(name);
  };
  put("results.json", results_json(e).dump(2) + "\n");
  if (e.scenario().output.flows_csv) put("flows.csv", flows_csv(e));
  if (e.scenario().output.ports_csv) put("ports.csv", ports_csv(e));
  if (e.scenario().output.ports_csv && e.fabric().config().ib.enabled) put("ib_ports.csv", ib_ports_csv(e));
  if (e.scenario().output.ports_csv) put("counters.txt", operator_counters(e));
  if (e.scenario().output.ports_csv && e.fabric().config().ib.enabled)
    put("ibdiagnet.txt", ibdiagnet_report(e));
  if (e.timeseries() != nullptr) put("timeseries.csv", e.timeseries()->csv());
  if (e.incident() != nullptr) put("incident.csv", e.incident()->csv());
  if (e.capture() != nullptr) put("capture.pcap", e.capture()->file());
  if (e.timeseries() != nullptr && e.fabric().pfc_watch() != nullptr)
    put("ports_paused.csv", e.timeseries()->ports_paused_csv());
  if (e.scenario().output.flows_csv) {
    const Transport::Table t = e.fabric().verbs().connection_table();
    if (!t.file.empty()) put(t.file.c_str(), t.csv);
  }
  if (const TransportSeries* ts = e.transport_series(); ts != nullptr)
    put(ts->table().file.c_str(), ts->table().csv);
  remove_stale_outputs(dir, written);
  return written;
}

}  // namespace rdmasim
