// A packet switch: route lookup (LFT/ECMP), buffer admission, egress queueing.
#pragma once

#include <cstdint>

#include "net/mmu.h"
#include "net/node.h"
#include "route/route_table.h"

namespace rdmasim {

struct SwitchCounters {
  uint64_t no_route_drops = 0;
  uint64_t buffer_drops = 0;
};

class Switch final : public Node {
 public:
  Switch(Network& net, int id, std::string name, const MmuConfig& mmu_cfg, size_t num_ports_hint,
         uint64_t ecmp_seed)
      : Node(net, id, NodeKind::kSwitch, std::move(name)),
        mmu_(mmu_cfg, num_ports_hint),
        ecmp_seed_(ecmp_seed) {}

  void on_event(uint32_t kind, uint64_t arg) override;
  void set_routes(RouteTable t) { routes_ = std::move(t); }
  [[nodiscard]] const RouteTable& routes() const { return routes_; }
  [[nodiscard]] Mmu& mmu() { return mmu_; }
  [[nodiscard]] const Mmu& mmu() const { return mmu_; }
  [[nodiscard]] const SwitchCounters& counters() const { return ctr_; }
  [[nodiscard]] uint64_t ecmp_seed() const { return ecmp_seed_; }

 private:
  void receive(Packet* p);

  Mmu mmu_;
  RouteTable routes_;
  SwitchCounters ctr_;
  uint64_t ecmp_seed_;
};

}  // namespace rdmasim
