// Anything a link ends at: a host NIC or a switch. A packet arrives as an
// event on the node (kind kArrive, arg = Packet*), already past the node's
// ingress pipeline latency.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/event_queue.h"
#include "engine/units.h"
#include "net/packet.h"
#include "net/port.h"

namespace rdmasim {

class Network;

enum class NodeKind : uint8_t { kHost, kSwitch };

class Node : public EventHandler {
 public:
  static constexpr uint32_t kArrive = 0;

  Node(Network& net, int id, NodeKind kind, std::string name)
      : net_(net), id_(id), kind_(kind), name_(std::move(name)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  [[nodiscard]] int id() const { return id_; }
  [[nodiscard]] NodeKind kind() const { return kind_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] size_t num_ports() const { return ports_.size(); }
  [[nodiscard]] Port& port(size_t i) { return *ports_[i]; }
  [[nodiscard]] const Port& port(size_t i) const { return *ports_[i]; }
  Port& add_port(std::unique_ptr<Port> p) {
    ports_.push_back(std::move(p));
    return *ports_.back();
  }

  // How packets enter this node: after `ingress_latency` (switch pipeline),
  // either once `cut_through_bytes` have arrived (cut-through) or the whole
  // packet (store-and-forward; cut_through_bytes == 0). Set before the node
  // has ports: a peer's port copies both when it connects (Port::connect).
  [[nodiscard]] Time ingress_latency() const { return ingress_latency_; }
  [[nodiscard]] uint32_t cut_through_bytes() const { return cut_through_bytes_; }
  void set_forwarding(Time latency, uint32_t cut_through_bytes) {
    assert(ports_.empty());
    ingress_latency_ = latency;
    cut_through_bytes_ = cut_through_bytes;
  }

 protected:
  Network& net_;
  std::vector<std::unique_ptr<Port>> ports_;

 private:
  int id_;
  NodeKind kind_;
  std::string name_;
  Time ingress_latency_;
  uint32_t cut_through_bytes_ = 0;
};

}  // namespace rdmasim
