#include "workload/flow_workloads.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/fabric.h"
#include "topo/hpcc_format.h"
#include "workload/flow_size_cdf.h"
#include "workload/generators.h"
#include "workload/poisson_flows.h"
#include "workload/workload_keys.h"

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
    const FlowGenContext g{ctx.scenario, ctx.spec, ctx.index, ctx.fabric.topology(),
                           ctx.fabric.nic(0).port(0).rate()};
    append_records(g, generate(g), ctx.flows);
  }
  virtual std::vector<FlowSpec> generate(const FlowGenContext& ctx) = 0;

  static void append_records(const FlowGenContext& ctx, const std::vector<FlowSpec>& specs,
                             std::vector<FlowRecord>& out) {
    for (const auto& f : specs) {
      FlowRecord r;
      r.spec = f;
      r.op = opcode_of(ctx.spec.op);
      r.workload = static_cast<uint16_t>(ctx.index);
      r.qps = static_cast<uint16_t>(ctx.spec.qps);
      out.push_back(r);
    }
  }

 protected:
  // Each workload draws from its own stream, so adding one does not move
  // another (the stream Simulation::rng gives the same name).
  static Rng rng_of(const FlowGenContext& ctx) {
    return Rng(ctx.scenario.seed, "workload" + std::to_string(ctx.index));
  }
  static int hosts(const FlowGenContext& ctx) { return ctx.topology.num_hosts(); }
};

class IncastWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    Rng rng = rng_of(ctx);
    return make_incast(hosts(ctx), w.senders, w.receiver, w.size, w.start, w.placement == "random", rng);
  }
};

class PermutationWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    Rng rng = rng_of(ctx);
    return make_permutation(hosts(ctx), ctx.spec.size, ctx.spec.start, rng);
  }
};

class AllToAllWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    return make_all_to_all(hosts(ctx), ctx.spec.size, ctx.spec.start);
  }
};

class SingleFlowWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    return {FlowSpec{0, w.src, w.dst, 3, 4791, w.size.count(), w.start}};
  }
};

class CdfWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    Rng rng = rng_of(ctx);
    const FlowSizeCdf cdf = FlowSizeCdf::load(w.file);
    std::vector<int> all(hosts(ctx));
    for (int i = 0; i < hosts(ctx); ++i) all[i] = i;
    // Load is a share of each host's own link rate (HPCC traffic_gen's definition).
    const Rate host_rate = ctx.host_rate;
    return generate_poisson_flows(cdf, all, host_rate, w.load, w.start, w.window, rng);
  }
};

class FlowsFileWorkload final : public FlowWorkload {
  std::vector<FlowSpec> generate(const FlowGenContext& ctx) override {
    const WorkloadSpec& w = ctx.spec;
    const Topology& topo = ctx.topology;
    // The file names topology nodes; flows run between endpoint indices.
    std::vector<int> endpoint_of(topo.nodes.size(), -1);
    for (int i = 0; i < topo.num_hosts(); ++i) endpoint_of[topo.hosts[i]] = i;
    std::vector<FlowSpec> specs = load_hpcc_flows(w.file, w.time_offset.sec());
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

// The keys every flow-style type declares first.
template <class V>
void visit_common(V& v, WorkloadSpec& ws) {
  v.time({"start", "when the flows start (added to a flow file's own start times)"}, ws.start);
  if (sized(ws.type)) {
    v.size(Key{"size", "bytes each flow carries (one message, striped over its QPs)", kRequired}, ws.size,
           std::numeric_limits<int64_t>::max(), "expected a message size of at least 1B");
    v.choice({"op", "the RDMA verb each flow posts"}, ws.op, {"write", "read", "send"});
  }
  v.count({"qps", "QPs each flow is striped over, as NCCL stripes a connection"}, ws.qps, 1, 256);
}

struct IncastKeys {
  static constexpr std::string_view kName = "incast";
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
    v.count(Key{"senders", "hosts sending one flow each to the receiver at the same time", kRequired},
            ws.senders, 1, 1 << 20);
    v.count({"receiver", "host index the flows converge on"}, ws.receiver, 0, 1 << 20);
    v.choice({"placement", "which hosts send: drawn at random (seeded) or the next host indices"},
             ws.placement, {"random", "sequential"});
  }
  static uint64_t flows(const WorkloadSpec& ws, int) { return static_cast<uint64_t>(ws.senders); }
};

struct PermutationKeys {
  static constexpr std::string_view kName = "permutation";
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
  }
  static uint64_t flows(const WorkloadSpec&, int hosts) { return static_cast<uint64_t>(hosts); }
};

struct AllToAllKeys {
  static constexpr std::string_view kName = "all-to-all";
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
  }
  static uint64_t flows(const WorkloadSpec&, int hosts) {
    return static_cast<uint64_t>(hosts) * static_cast<uint64_t>(std::max(hosts - 1, 0));
  }
};

struct CdfKeys {
  static constexpr std::string_view kName = "cdf";
  static void prepare(const Scenario*, WorkloadSpec& ws) { ws.window = Time::zero(); }
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
    v.path(
        Key{"cdf", "flow-size distribution (HPCC traffic_gen format: size and cumulative percent per line)",
            kRequired},
        ws.file);
    v.fraction(Key{"load", "offered load as a share of each host's link rate (Poisson arrivals)", kRequired},
               ws.load);
    v.check(ws.load > 0.0, "load", "expected a load in (0, 1], e.g. 0.3 or 30%");
    v.time(Key{"window", "how long new flows keep arriving", kRequired}, ws.window);
    v.check(ws.window > Time::zero(), "window", "expected a positive arrival window");
  }
};

struct FlowsFileKeys {
  static constexpr std::string_view kName = "flows-file";
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
    // The priority and dport columns are range-checked, not used: every flow
    // travels in the fabric's data class and is hashed by its QP. The shipped
    // flow lists give every flow priority 3, the RoCE profiles' data class.
    v.path(
        Key{"file",
            "flow list in HPCC's flow.txt format (src dst priority dport size start_s per line; priority and "
            "dport are checked, not used: flows travel in fabric.data_tc)",
            kRequired},
        ws.file);
    v.time({"time_offset", "subtracted from the file's start times (HPCC's files start at 2s)"},
           ws.time_offset);
  }
};

struct FlowKeys {
  static constexpr std::string_view kName = "flow";
  template <class V>
  static void visit(V& v, WorkloadSpec& ws) {
    visit_common(v, ws);
    v.count(Key{"src", "sending host index", kRequired}, ws.src, 0, 1 << 20);
    v.count(Key{"dst", "receiving host index", kRequired}, ws.dst, 0, 1 << 20);
    v.check(ws.dst != ws.src, "dst", "expected a host other than src");
  }
  static uint64_t flows(const WorkloadSpec&, int) { return 1; }
};

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

template <class W>
std::unique_ptr<Workload> make(const WorkloadSpec&) {
  return std::make_unique<W>();
}

}  // namespace

const WorkloadType& incast_workload_type() {
  static const WorkloadType t = keyed_type<IncastKeys>(check_incast, make<IncastWorkload>);
  return t;
}
const WorkloadType& permutation_workload_type() {
  static const WorkloadType t = keyed_type<PermutationKeys>(check_two_hosts, make<PermutationWorkload>);
  return t;
}
const WorkloadType& all_to_all_workload_type() {
  static const WorkloadType t = keyed_type<AllToAllKeys>(check_two_hosts, make<AllToAllWorkload>);
  return t;
}
const WorkloadType& cdf_workload_type() {
  static const WorkloadType t = keyed_type<CdfKeys>(check_none, make<CdfWorkload>);
  return t;
}
const WorkloadType& flows_file_workload_type() {
  static const WorkloadType t = keyed_type<FlowsFileKeys>(check_none, make<FlowsFileWorkload>);
  return t;
}
const WorkloadType& flow_workload_type() {
  static const WorkloadType t = keyed_type<FlowKeys>(check_flow, make<SingleFlowWorkload>);
  return t;
}

bool generate_flows(const FlowGenContext& ctx, std::vector<FlowRecord>& out) {
  const WorkloadType* type = find_workload_type(ctx.spec.type);
  if (type == nullptr) return false;
  const std::unique_ptr<Workload> w = type->make(ctx.spec);
  auto* flows = dynamic_cast<FlowWorkload*>(w.get());
  if (flows == nullptr) return false;
  FlowWorkload::append_records(ctx, flows->generate(ctx), out);
  return true;
}

}  // namespace rdmasim
