// The datapath's shared context: the simulation it runs in, the packet pool,
// the packet ledger (for conservation checks) and the nodes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/pool.h"
#include "engine/simulation.h"
#include "net/framing.h"
#include "net/int_telemetry.h"
#include "net/node.h"
#include "net/packet.h"

namespace rdmasim {

// Every packet ever created is, at any instant, exactly one of: delivered to
// an endpoint, dropped (and counted), or live (queued or on a wire).
struct PacketLedger {
  std::array<uint64_t, kNumPktTypes> created{};
  std::array<uint64_t, kNumPktTypes> delivered{};
  std::array<uint64_t, kNumPktTypes> dropped{};
  std::array<uint64_t, kNumPktTypes> live{};
  // Data packets a switch trimmed: they live on as kTrimmed headers.
  std::array<uint64_t, kNumPktTypes> retyped{};
};

// Congestion spreading: how many ports have some priority paused by their
// peer, now and at the worst moment. Counted when a port's pause state
// changes (PAUSE frames and their expiry), never per packet.
struct PauseSpread {
  uint32_t ports_paused = 0;
  uint32_t peak = 0;
  Time peak_at = Time::zero();
};

// What watches pauses (net/pfc_watch.h), told of them so that it need not
// poll a fabric that has none: woken when the first port of an idle fabric
// is paused, and told when a port re-sends XOFF (a pause that has lasted).
class PauseWatcher {
 public:
  virtual void wake() = 0;
  virtual void refreshed() = 0;

 protected:
  ~PauseWatcher() = default;
};

class Network {
 public:
  Network(Simulation& sim, Framing framing) : sim_(sim), framing_(std::move(framing)) {}
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  [[nodiscard]] Simulation& sim() { return sim_; }
  [[nodiscard]] const Framing& framing() const { return framing_; }

  Packet* new_packet(PktType t) {
    Packet* p = pool_.get();
    p->type = t;
    ++ledger_.created[static_cast<int>(t)];
    ++ledger_.live[static_cast<int>(t)];
    return p;
  }
  // The endpoint is done with `p`.
  void deliver(Packet* p) {
    if (p->int_slot != 0) int_.release(p->int_slot);
    ++ledger_.delivered[static_cast<int>(p->type)];
    --ledger_.live[static_cast<int>(p->type)];
    pool_.put(p);
  }
  void drop(Packet* p) {
    if (p->int_slot != 0) int_.release(p->int_slot);
    ++ledger_.dropped[static_cast<int>(p->type)];
    --ledger_.live[static_cast<int>(p->type)];
    pool_.put(p);
  }
  // A switch cut `p` to its headers (packet trimming): it leaves its type's
  // ledger as `retyped` and joins `t`'s as created.
  void retype(Packet* p, PktType t) {
    ++ledger_.retyped[static_cast<int>(p->type)];
    --ledger_.live[static_cast<int>(p->type)];
    p->type = t;
    ++ledger_.created[static_cast<int>(t)];
    ++ledger_.live[static_cast<int>(t)];
  }
  [[nodiscard]] IntTable& telemetry() { return int_; }
  [[nodiscard]] const IntTable& telemetry() const { return int_; }
  [[nodiscard]] const PacketLedger& ledger() const { return ledger_; }
  // Packets of every type queued or on a wire now (the ledger's live ones).
  [[nodiscard]] uint64_t packets_in_flight() const {
    uint64_t n = 0;
    for (const uint64_t live : ledger_.live) n += live;
    return n;
  }
  [[nodiscard]] size_t packets_in_pool_use() const { return pool_.live(); }
  [[nodiscard]] size_t packet_pool_capacity() const { return pool_.capacity(); }

  // A port's first priority became paused (true), or its last one resumed.
  void note_port_paused(bool paused) {
    if (!paused) {
      --spread_.ports_paused;
      return;
    }
    if (++spread_.ports_paused > spread_.peak) {
      spread_.peak = spread_.ports_paused;
      spread_.peak_at = sim_.now();
    }
    if (spread_.ports_paused == 1 && pause_watcher_ != nullptr) pause_watcher_->wake();
  }
  void note_pause_refreshed() {
    if (pause_watcher_ != nullptr) pause_watcher_->refreshed();
  }
  [[nodiscard]] const PauseSpread& pause_spread() const { return spread_; }
  void set_pause_watcher(PauseWatcher* w) { pause_watcher_ = w; }

  // Checks packet conservation; returns an empty string or what is violated.
  [[nodiscard]] std::string check_conservation() const;

  Node& add_node(std::unique_ptr<Node> n) {
    nodes_.push_back(std::move(n));
    return *nodes_.back();
  }
  [[nodiscard]] size_t num_nodes() const { return nodes_.size(); }
  [[nodiscard]] Node& node(size_t i) { return *nodes_[i]; }
  [[nodiscard]] const Node& node(size_t i) const { return *nodes_[i]; }

 private:
  Simulation& sim_;
  Framing framing_;
  Pool<Packet> pool_;
  IntTable int_;
  PacketLedger ledger_;
  PauseSpread spread_;
  PauseWatcher* pause_watcher_ = nullptr;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace rdmasim
