#include "fabric/memory_estimate.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "fabric/fabric.h"

namespace rdmasim {

MemoryEstimate estimate_build_memory(const Topology& t, const FabricConfig& cfg) {
  const uint64_t hosts = static_cast<uint64_t>(t.num_hosts());
  const uint64_t switches = t.nodes.size() - hosts;
  const uint64_t ports = 2 * static_cast<uint64_t>(t.links.size());
  // Measured (peak RSS of one-flow runs, fat-tree k = 8, 16, 24, 32): the
  // process itself ~5.5 MiB; each switch keeps one 4-byte route entry per
  // destination host; each port its queues, buffer accounting and counters,
  // ~1.7 KiB, plus ~0.9 KiB of per-VL credit state on InfiniBand.
  constexpr uint64_t kProcess = 5'500'000;
  constexpr uint64_t kRouteEntry = 4;
  const uint64_t per_port = cfg.ib.enabled ? 2'600 : 1'700;
  MemoryEstimate e;
  e.bytes = kProcess + kRouteEntry * switches * hosts + per_port * ports;
  e.reason = fmt::format("{} switches x {} hosts of routes, {} ports", switches, hosts, ports);
  return e;
}

MemoryEstimate estimate_flow_memory(uint64_t qps) {
  constexpr uint64_t kPerQp = 2'760;
  return MemoryEstimate{kPerQp * qps, fmt::format("{} queue pairs", qps)};
}

uint64_t memory_budget(uint64_t limit_bytes) {
  if (limit_bytes != 0) return limit_bytes;
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    uint64_t kib = 0;
    if (ss >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace rdmasim
