// The flow-level run of a scenario (fabric.model: flow): each flow is a
// fluid that crosses the links its packets would cross (flow/fluid_network.h)
// at its max-min fair share of them (flow/max_min.h); arrivals and
// completions are the only events. For what-ifs far beyond what packets can
// reach (100,000 endpoints), validated against the packet level where both
// run (docs/FLOW_LEVEL.md, `rdmasim validate` H.1).
//
// What it keeps from the packet level: the topology, the flows every
// flow-style workload generates (same seed, same flows), the QP numbering,
// hence the ECMP hash and path of every QP, the framing (wire bytes per
// payload byte, ACK bytes on the reverse links) and the unloaded completion
// time a flow's slowdown is measured against. What it drops: queues,
// buffers, PFC, ECN, congestion control, loss and its recovery. A lone flow
// completes at exactly its ideal time; flows that share a link split it as
// max-min fairness says, from the instant they start.
//
// Collectives and training iterations run on it too: the same Communicator
// as at packet level (its
// plan, GPU and proxy step costs, NVLink and slots) on a simulation of its
// own for those events, with every RDMA WRITE it posts a fluid "transfer"
// that arrives (on_receive) when its last byte would: the fluid's drain
// plus the unloaded pipeline to the receiver, no ACK wait. Transfers share
// links with the workloads' flows but are not flows: flows.csv and the FCT
// tables keep to the flows, and each collective reports as at packet level
// (workload_results). SHARP is not modelled here.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collective/cluster.h"
#include "config/scenario.h"
#include "engine/simulation.h"
#include "flow/fluid_network.h"
#include "flow/max_min.h"
#include "topo/topology.h"
#include "workload/workload.h"

namespace rdmasim {

class FlowLevelRun final : private CollectiveNetwork, private EventHandler {
 public:
  // Builds the topology and every workload's flows. Throws InputError for
  // what only now shows (a flow with no route, no flows at all).
  explicit FlowLevelRun(Scenario s);
  FlowLevelRun(const FlowLevelRun&) = delete;
  FlowLevelRun& operator=(const FlowLevelRun&) = delete;

  // Runs to the last completion or the duration. `progress` is called now
  // and then; `interrupt` is polled, and a stop marks the results interrupted.
  void run(const std::function<void(const FlowLevelRun&)>& progress = {},
           const std::atomic<bool>* interrupt = nullptr);

  [[nodiscard]] const Scenario& scenario() const { return s_; }
  [[nodiscard]] const Topology& topology() const override { return topo_; }
  [[nodiscard]] const std::vector<FlowRecord>& flows() const { return flows_; }
  // The GPU jobs (collective and training workloads), in workload order;
  // their results and summaries are as at packet level.
  [[nodiscard]] const std::vector<std::unique_ptr<Workload>>& jobs() const { return jobs_; }
  // WRITEs the collectives posted (fluid transfers) and those that arrived.
  [[nodiscard]] size_t transfers() const { return transfers_posted_; }
  [[nodiscard]] size_t transfers_done() const { return transfers_done_; }
  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] size_t completed() const { return completed_; }
  [[nodiscard]] bool interrupted() const { return interrupted_; }
  // Arrival and completion instants processed, and rate recomputations.
  [[nodiscard]] uint64_t events() const { return events_; }
  [[nodiscard]] uint64_t solves() const { return solves_; }
  [[nodiscard]] size_t peak_active() const { return peak_active_; }
  // Σ over completed flows of packets × links, as the packet level counts it.
  [[nodiscard]] uint64_t data_packet_hops() const;
  [[nodiscard]] size_t memory_bytes() const;

 private:
  struct Part {            // one QP of a flow
    uint32_t flow = 0;     // a flow's index, or kTransfer | a transfer's
    uint32_t id = 0;       // stable while its index in parts_ moves
    double remaining = 0;  // wire bytes still to send, as of `updated`
    double rate = 0;       // bytes per ps
    Time updated;
    Time fixed;          // the ideal time less the drain at the bottleneck rate
    uint32_t begin = 0;  // its links in the arena: data links first, then ACK links
    uint32_t data_end = 0;
    uint32_t end = 0;
    uint32_t version = 0;  // bumps when its finish time changes: older heap entries are stale
  };
  struct Finish {
    Time at;
    uint32_t id;
    uint32_t version;
    bool operator>(const Finish& o) const { return at > o.at || (at == o.at && id > o.id); }
  };
  static constexpr uint32_t kTransfer = 0x80000000u;
  [[nodiscard]] FlowRecord& record(uint32_t ref) {
    return (ref & kTransfer) != 0 ? transfers_[ref & ~kTransfer].record : flows_[ref];
  }
  [[nodiscard]] Time& latest_end(uint32_t ref) {
    return (ref & kTransfer) != 0 ? transfers_[ref & ~kTransfer].latest_end : latest_end_[ref];
  }
  void start_flow(uint32_t ref);
  [[nodiscard]] bool jobs_done() const;
  // CollectiveNetwork: the collectives' connections and WRITEs.
  QpId connect(int src, int dst, CompletionSink* sink) override;
  void post_write(QpId qp, int64_t bytes, uint64_t wr_id) override;
  [[nodiscard]] std::pair<int, int> endpoints(QpId qp) const override {
    return {conns_[qp].src, conns_[qp].dst};
  }
  [[nodiscard]] const FabricConfig& fabric_config() const override { return s_.fabric; }
  [[nodiscard]] SharpDataPath* sharp() override { return nullptr; }
  // A transfer (arg) has arrived: its sink hears of it.
  void on_event(uint32_t kind, uint64_t arg) override;
  void solve();
  // Between solves (flow_epoch > 0) a new part starts at once at an
  // estimate of its share: on each of its data links the larger of what is
  // left and an equal share with the flows already there.
  void provisional_rate(Part& p);
  void set_rate(Part& p, double rate);
  void finish_part(size_t k);
  void compact_arena();
  [[nodiscard]] bool next_finish(Time& at);
  // Wire bytes of data packet i of a `bytes` message (a READ's: of its response).
  [[nodiscard]] uint32_t data_wire(Opcode op, int64_t bytes, uint64_t i) const;
  // Unloaded completion time of `bytes` over `fwd` (data; a READ's request)
  // and `rev` (ACK; a READ's response); `arrival`: until the last byte is at
  // the receiver instead (a WRITE's, without its ACK).
  [[nodiscard]] Time ideal(const std::vector<uint32_t>& fwd, const std::vector<uint32_t>& rev, Opcode op,
                           int64_t bytes, bool arrival = false) const;
  [[nodiscard]] Time pipeline(const std::vector<uint32_t>& path, uint64_t n, uint32_t first, uint32_t middle,
                              uint32_t last) const;

  Scenario s_;
  Topology topo_;
  std::unique_ptr<FluidNetwork> net_;
  std::unique_ptr<MaxMinSolver> solver_;
  std::vector<FlowRecord> flows_;
  std::vector<Time> latest_end_;    // per flow: the latest of its parts' ends so far
  std::vector<Part> parts_;         // active parts
  std::vector<uint32_t> index_of_;  // by part id: its index in parts_ (kGone once finished)
  std::vector<Finish> finishes_;    // min-heap of the parts' finish times
  std::vector<double> rate_;        // solver output, aligned with parts_
  std::vector<LinkUse> uses_;       // aligned with parts_
  std::vector<double> load_;        // per link: Σ coefficient x rate of the active parts
  std::vector<uint32_t> count_;     // per link: active parts whose data crosses it
  std::vector<uint32_t> arena_link_;
  std::vector<float> arena_coef_;
  uint64_t arena_live_ = 0;
  std::vector<uint32_t> fwd_, rev_;  // scratch paths
  float ack_coef_ = 0;
  uint32_t route_header_ = 0;  // the flow being started: GRH bytes on its every packet
  uint32_t next_qp_ = 0;
  Time now_;
  Time last_solve_ = Time::never();
  size_t completed_ = 0;
  bool interrupted_ = false;
  uint64_t events_ = 0;
  uint64_t solves_ = 0;
  size_t peak_active_ = 0;

  Simulation sim_;  // the GPU jobs' own events
  std::vector<std::unique_ptr<Workload>> jobs_;
  std::vector<GpuJob*> job_of_;  // jobs_[i] as a GpuJob
  // A connection is one RC QP: its WRITEs leave one after the other, so a
  // transfer posted while another drains waits for it.
  struct Connection {
    int src, dst;
    CompletionSink* sink;
    bool busy = false;
    std::deque<uint32_t> waiting;  // transfers posted behind the draining one
  };
  std::vector<Connection> conns_;
  // Per transfer slot (reused once its arrival is told: memory follows the
  // transfers in flight, not all a collective posts).
  struct Transfer {
    FlowRecord record;
    Time latest_end;  // as latest_end_ for a flow
    uint64_t wr_id = 0;
  };
  std::vector<Transfer> transfers_;
  std::vector<uint32_t> free_transfers_;
  size_t transfers_posted_ = 0, transfers_done_ = 0;
  std::vector<QpId> released_;  // connections whose transfer just drained: the next one starts
};

// results.json of a flow-level run: the scenario's echo, the model and what
// it leaves out, the topology, the run, and the same "flows" and
// "throughput" tables as a packet-level run.
[[nodiscard]] nlohmann::ordered_json flow_level_results_json(const FlowLevelRun& r);
[[nodiscard]] std::string flow_level_summary(const FlowLevelRun& r);
// Writes results.json and (if asked) flows.csv into `dir`, atomically;
// returns the names written.
std::vector<std::string> write_flow_level_outputs(const FlowLevelRun& r, const std::string& dir);

}  // namespace rdmasim
