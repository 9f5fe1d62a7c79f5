#include "workload/flow_workloads.h"

#include <utility>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/fabric.h"
#include "topo/hpcc_format.h"
#include "workload/flow_size_cdf.h"
#include "workload/generators.h"
#include "workload/poisson_flows.h"

namespace rdmasim {
namespace {

Opcode opcode_of(const std::string& op) {
  if (op == "read") return Opcode::kRead;
  if (op == "send") return Opcode::kSend;
  return Opcode::kWrite;
}

// Generates its flows in setup(); the runner does the rest.
class FlowWorkload : public Workload {
 public:
  void setup(WorkloadContext& ctx) final {
    for (auto& f : generate(ctx)) {
      FlowRecord r;
      r.spec = f;
      r.op = opcode_of(ctx.spec.op);
      r.workload = static_cast<uint16_t>(ctx.index);
      r.qps = static_cast<uint16_t>(ctx.spec.qps);
      ctx.flows.push_back(r);
    }
  }

 protected:
  virtual std::vector<FlowSpec> generate(WorkloadContext& ctx) = 0;
  // Each workload draws from its own stream, so adding one does not move another.
  static Rng rng_of(const WorkloadContext& ctx) {
    return ctx.sim.rng("workload" + std::to_string(ctx.index));
  }
  static int hosts(const WorkloadContext& ctx) { return ctx.fabric.topology().num_hosts(); }
};

class IncastWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    Rng rng = rng_of(ctx);
    return make_incast(hosts(ctx), w.senders, w.receiver, w.size, w.start, w.placement == "random", rng);
  }
};

class PermutationWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    Rng rng = rng_of(ctx);
    return make_permutation(hosts(ctx), ctx.spec.size, ctx.spec.start, rng);
  }
};

class AllToAllWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    return make_all_to_all(hosts(ctx), ctx.spec.size, ctx.spec.start);
  }
};

class SingleFlowWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    return {FlowSpec{0, w.src, w.dst, 3, 4791, w.size.count(), w.start}};
  }
};

class CdfWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    Rng rng = rng_of(ctx);
    const FlowSizeCdf cdf = FlowSizeCdf::load(w.file);
    std::vector<int> all(hosts(ctx));
    for (int i = 0; i < hosts(ctx); ++i) all[i] = i;
    // Load is a share of each host's own link rate (HPCC traffic_gen's definition).
    const Rate host_rate = ctx.fabric.nic(0).port(0).rate();
    return generate_poisson_flows(cdf, all, host_rate, w.load, w.start, w.window, rng);
  }
};

class FlowsFileWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(WorkloadContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    const Topology& topo = ctx.fabric.topology();
    // The file names topology nodes; flows run between endpoint indices.
    std::vector<int> endpoint_of(topo.nodes.size(), -1);
    for (int i = 0; i < topo.num_hosts(); ++i) endpoint_of[topo.hosts[i]] = i;
    std::vector<FlowSpec> specs = load_hpcc_flows(w.file, w.time_offset_s);
    for (auto& f : specs) {
      const bool ok = f.src >= 0 && f.dst >= 0 && static_cast<size_t>(f.src) < endpoint_of.size() &&
                      static_cast<size_t>(f.dst) < endpoint_of.size() && endpoint_of[f.src] >= 0 &&
                      endpoint_of[f.dst] >= 0;
      if (!ok)
        throw InputError(ctx.scenario.file, w.line, 0, "workload.file",
                         "flow " + std::to_string(f.id) + " in '" + w.file + "' names node " +
                             std::to_string(f.src) + " -> " + std::to_string(f.dst) +
                             ", which is not a host of the topology");
      f.src = endpoint_of[f.src];
      f.dst = endpoint_of[f.dst];
      f.start += w.start;
    }
    return specs;
  }
};

// --- Keys --------------------------------------------------------------------------------------------------

bool sized(const std::string& type) { return type != "cdf" && type != "flows-file"; }

// The keys every flow-style type reads, in the order they are read (which is
// the order unknown-key messages list them).
void parse_common(const CfgNode& w, WorkloadSpec& ws) {
  ws.start = w.time("start", Time::zero());
  ws.qps = static_cast<int>(w.integer("qps", 1, 1, 256));
  if (sized(ws.type)) {
    ws.size = w.bytes("size");
    if (ws.size.count() < 1) throw w.error("size", "expected a message size of at least 1B");
    ws.op = w.choice("op", {"write", "read", "send"}, "write");
  }
}

void parse_incast(const CfgNode& w, const Scenario&, WorkloadSpec& ws) {
  parse_common(w, ws);
  ws.senders = static_cast<int>(w.integer("senders", 1, 1 << 20));
  ws.receiver = static_cast<int>(w.integer("receiver", 0, 0, 1 << 20));
  ws.placement = w.choice("placement", {"random", "sequential"}, "random");
}

void parse_sized(const CfgNode& w, const Scenario&, WorkloadSpec& ws) { parse_common(w, ws); }

void parse_cdf(const CfgNode& w, const Scenario&, WorkloadSpec& ws) {
  parse_common(w, ws);
  ws.file = resolve_data_path(w, "cdf", w.str("cdf"));
  ws.load = w.fraction("load");
  if (!(ws.load > 0.0 && ws.load <= 1.0)) throw w.error("load", "expected a load in (0, 1], e.g. 0.3 or 30%");
  ws.window = w.time("window");
  if (ws.window <= Time::zero()) throw w.error("window", "expected a positive arrival window");
}

void parse_flow(const CfgNode& w, const Scenario&, WorkloadSpec& ws) {
  parse_common(w, ws);
  ws.src = static_cast<int>(w.integer("src", 0, 1 << 20));
  ws.dst = static_cast<int>(w.integer("dst", 0, 1 << 20));
  if (ws.dst == ws.src) throw w.error("dst", "expected a host other than src");
}

void parse_flows_file(const CfgNode& w, const Scenario&, WorkloadSpec& ws) {
  parse_common(w, ws);
  ws.file = resolve_data_path(w, "file", w.str("file"));
  ws.time_offset_s = w.time("time_offset", Time::zero()).sec();
}

void check_none(const CfgNode&, const WorkloadSpec&, const Topology&, const Scenario&) {}

void check_two_hosts(const CfgNode& item, const WorkloadSpec& w, const Topology& t, const Scenario&) {
  if (t.num_hosts() < 2) throw item.error("type", "expected a topology with at least 2 hosts for " + w.type);
}

void check_flow(const CfgNode& item, const WorkloadSpec& w, const Topology& t, const Scenario&) {
  for (const auto& [key, host] : {std::pair{"src", w.src}, std::pair{"dst", w.dst}})
    if (host >= t.num_hosts())
      throw item.error(key, "expected a host index below " + std::to_string(t.num_hosts()));
}

void check_incast(const CfgNode& item, const WorkloadSpec& w, const Topology& t, const Scenario&) {
  if (w.receiver >= t.num_hosts())
    throw item.error("receiver", "expected a host index below " + std::to_string(t.num_hosts()));
  if (w.senders > t.num_hosts() - 1)
    throw item.error("senders", "expected at most " + std::to_string(t.num_hosts() - 1) +
                                    " senders (the topology has " + std::to_string(t.num_hosts()) +
                                    " hosts)");
}

void echo(const WorkloadSpec& w, nlohmann::ordered_json& j) {
  j["start"] = format_time(w.start);
  if (sized(w.type)) {
    j["size"] = format_bytes(w.size);
    j["op"] = w.op;
  }
  j["qps"] = w.qps;
  if (w.type == "incast") {
    j["senders"] = w.senders;
    j["receiver"] = w.receiver;
    j["placement"] = w.placement;
  }
  if (w.type == "cdf") {
    j["cdf"] = w.file;
    j["load"] = w.load;
    j["window"] = format_time(w.window);
  }
  if (w.type == "flows-file") {
    j["file"] = w.file;
    j["time_offset_s"] = w.time_offset_s;
  }
}

template <class W>
std::unique_ptr<Workload> make(const WorkloadSpec&) {
  return std::make_unique<W>();
}

}  // namespace

const WorkloadType& incast_workload_type() {
  static const WorkloadType t{"incast", parse_incast, check_incast, echo, make<IncastWorkload>};
  return t;
}
const WorkloadType& permutation_workload_type() {
  static const WorkloadType t{"permutation", parse_sized, check_two_hosts, echo, make<PermutationWorkload>};
  return t;
}
const WorkloadType& all_to_all_workload_type() {
  static const WorkloadType t{"all-to-all", parse_sized, check_two_hosts, echo, make<AllToAllWorkload>};
  return t;
}
const WorkloadType& cdf_workload_type() {
  static const WorkloadType t{"cdf", parse_cdf, check_none, echo, make<CdfWorkload>};
  return t;
}
const WorkloadType& flows_file_workload_type() {
  static const WorkloadType t{"flows-file", parse_flows_file, check_none, echo, make<FlowsFileWorkload>};
  return t;
}
const WorkloadType& flow_workload_type() {
  static const WorkloadType t{"flow", parse_flow, check_flow, echo, make<SingleFlowWorkload>};
  return t;
}

}  // namespace rdmasim
