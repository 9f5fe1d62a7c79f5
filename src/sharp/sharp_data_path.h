// SHARP streaming aggregation at packet level (Graham et al., COMHPC 2016;
// NVIDIA SHARP's streaming aggregation trees). An operation reduces `bytes`
// from each of a set of hosts: every host's NIC streams its data, cut into
// MTU-sized packets, to its leaf switch; each switch of the tree waits for
// chunk k from all its children, reduces it in its aggregation unit (an ALU
// that works at `aggregation_efficiency` x the port rate, after
// `switch_latency`) and sends one packet up; the root's result is
// multicast back down the tree, one copy per child, to every host.
//
// Everything moves as packets through the same ports, queues, credits and
// PAUSE as the rest of the traffic: a host's SHARP stream takes turns with
// its QPs in the NIC's round robin (NicOffload), the switches' results queue
// at their egress ports behind whatever else is there, and background load
// on the tree's links slows the operation down (and is slowed by it).
//
// Flow control: a host may have `window` bytes of its operation outstanding
// (sent, result not yet back), SHARP's outstanding transactions (OSTs). That
// bounds what each switch's aggregation buffer holds per operation to one
// window, which is how the switch's limited aggregation buffer is shared.
// A failed link: NVIDIA SHARP stops a job whose tree uses a link that went
// down (SHARP 3.2.0 release notes, ref. 3236363: "a SHARP job utilizing the
// link has to be stopped"; other jobs are unaffected), and NCCL's CollNet
// reports the error rather than falling back mid-operation. Here every
// operation whose tree crosses the link stops when the subnet manager hears
// of the failure (fabric.ib.sm.detection_delay; that the aggregation manager
// acts on the SM's trap at once is an assumption): its hosts send no more,
// what is still in flight is discarded, its collective never completes, and
// the stop is logged as a recovery step ("sharp_job_stopped") and named in
// the collective's result. Stated approximation: results leave the
// aggregation unit's own buffer, never the switch's shared buffer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/event_queue.h"
#include "engine/units.h"
#include "net/aggregation_node.h"
#include "nic/nic.h"
#include "sharp/sharp.h"

namespace rdmasim {

class Fabric;
class Switch;

struct SharpCounters {
  uint64_t operations = 0;    // started
  uint64_t packets_sent = 0;  // by hosts, up the tree
  uint64_t reductions = 0;    // chunks a switch reduced and sent on
  uint64_t results = 0;       // result packets delivered to hosts
};

class SharpDataPath final : public AggregationNode, public NicOffload, public EventHandler {
 public:
  // Installs itself as the aggregation unit of every switch and the offload
  // of every NIC of `fabric`.
  explicit SharpDataPath(Fabric& fabric);
  SharpDataPath(const SharpDataPath&) = delete;
  SharpDataPath& operator=(const SharpDataPath&) = delete;
  ~SharpDataPath() = default;

  // Starts one reduction of `bytes` per host over endpoints `hosts` (a
  // subset of `g`'s) on `g`'s tree: its leaves, and `g`'s root when the hosts
  // hang off more than one leaf. When every host holds the whole result it
  // schedules done->on_event(kind, arg) at that instant. Throws
  // std::invalid_argument for a host outside the group.
  void start(const SharpGroup& g, const std::vector<int>& hosts, int64_t bytes, EventHandler* done,
             uint32_t kind, uint64_t arg);
  [[nodiscard]] const SharpCounters& counters() const { return ctr_; }
  // Operations started and not yet complete.
  [[nodiscard]] size_t active() const { return ops_.size() - free_.size(); }
  // Packets each host may have outstanding per operation (the window in MTUs).
  [[nodiscard]] uint32_t window_packets() const { return window_; }

  // The link at port `port` of topology node `node` (named `link` in the
  // reports) went down now. Every operation whose tree crosses it, running
  // or started while it stays down, stops at `reported` (see above) or at
  // its start if later.
  void on_link_down(int node, uint16_t port, const std::string& link, Time reported);
  // Why the operations reporting to `done` stopped: when, and the link.
  struct Stop {
    Time at;
    std::string link;
    const EventHandler* done = nullptr;
  };
  [[nodiscard]] const Stop* stopped(const EventHandler* done) const;
  [[nodiscard]] const std::vector<Stop>& stops() const { return stops_; }

  void on_packet(Switch& sw, Port& in, Packet* p) override;
  Packet* next_packet(Nic& nic, uint16_t port, bool& more) override;
  void on_packet(Nic& nic, Packet* p) override;
  [[nodiscard]] uint8_t traffic_class() const override { return tc_; }
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  static constexpr uint32_t kReduced = 0;  // arg: the reduced packet, aux = its tree switch
  static constexpr uint32_t kStop = 1;     // arg: generation << 32 | operation
  static constexpr uint32_t kDown = 0x80000000u;
  static constexpr uint32_t kIndex = 0x7fffffffu;

  struct TreeSwitch {
    Switch* sw = nullptr;
    int parent_port = -1;               // -1: the root
    uint32_t parent = 0;                // the parent's tree index
    std::vector<uint16_t> child_ports;  // towards each child
    std::vector<uint32_t> child_index;  // per child: its tree index, or the host's slot
    std::vector<uint16_t> arrived;      // per window slot: children whose chunk is in
    Rate alu;                           // reduction rate (port rate x efficiency)
    Time* alu_free = nullptr;           // when the switch's unit for this group is next free
  };
  struct HostSlot {
    int host = -1;
    uint16_t port = 0;  // the NIC port towards its leaf
    uint32_t leaf = 0;  // tree index of its leaf
    uint32_t sent = 0;  // packets sent up
    uint32_t got = 0;   // result packets received
  };
  struct Op {
    std::vector<TreeSwitch> tree;
    std::vector<HostSlot> hosts;
    uint32_t packets = 0;  // per host
    int64_t bytes = 0;
    size_t hosts_done = 0;
    EventHandler* done = nullptr;
    uint32_t done_kind = 0;
    uint64_t done_arg = 0;
    uint32_t generation = 0;  // bumps when the slot is reused: a pending stop names its operation
    bool stopped = false;     // its slot is never reused: packets of it may still arrive
    std::string stop_link;    // the failed link, once a stop is pending
  };
  struct HostEntry {
    uint32_t op;
    uint32_t slot;
  };

  [[nodiscard]] uint32_t payload_of(const Op& op, uint32_t k) const;
  [[nodiscard]] bool can_send(const Op& op, const HostSlot& h) const {
    return h.sent < op.packets && h.sent - h.got < window_;
  }
  // Puts h's host in its NIC's round robin unless it is there. `doorbell`:
  // a newly posted operation waits the NIC's tx latency; a window that
  // reopens as results return streams on at once.
  void wake(HostSlot& h, bool doorbell);
  // Sends `p` (a result at tree switch `t`) down to every child of `t`.
  void multicast(uint32_t op, TreeSwitch& t, Packet* p);
  void finish(uint32_t op);
  void stop(uint32_t op);
  struct DownLink {
    int node, far;
    uint16_t port, far_port;
    std::string link;
    Time reported;
  };
  // Whether `op`'s tree crosses link `d` (named at either end).
  [[nodiscard]] bool crosses(const Op& op, const DownLink& d) const;
  // Stops `op` at d.reported, or now if that has passed.
  void stop_for(uint32_t op, const DownLink& d);

  Fabric& fab_;
  SharpConfig cfg_;
  uint8_t tc_ = 0;
  uint32_t mtu_ = 0;
  uint32_t window_ = 1;
  std::vector<Op> ops_;
  std::vector<uint32_t> free_;
  std::vector<std::vector<HostEntry>> host_ops_;  // per endpoint: its operations, oldest first
  std::vector<uint8_t> in_ring_;                  // per endpoint: its NIC's round robin holds it
  std::vector<int> leaf_of_;                      // per endpoint: the switch (topology id) it hangs off
  // Per tree (its switches), per topology node: when that switch's
  // aggregation unit for the tree is next free. Operations on one tree (a
  // communicator's channels and chunks) share one unit per switch; other
  // trees have their own, as Quantum-2 runs one streaming tree per port in
  // parallel.
  std::map<std::vector<int>, std::vector<Time>> alu_free_;
  SharpCounters ctr_;
  std::vector<Stop> stops_;
  std::vector<DownLink> down_;  // links that went down, in order (one may since be up again)
};

}  // namespace rdmasim
