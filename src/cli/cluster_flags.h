// The flags nccl-tests and train share: the fabric profile and cluster shape
// the job runs on, and the storage traffic that shares the fabric with it.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "collective/background.h"
#include "collective/cluster.h"
#include "config/shipped_path.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "workload/flow_size_cdf.h"

namespace CLI {
class App;
}

namespace rdmasim::cli {

// nccl-tests sizes: a byte count with an optional K/M/G/T suffix (binary
// multiples, as nccl-tests' parsesize), or any unit parse_bytes accepts.
// Throws std::invalid_argument naming `flag`.
[[nodiscard]] int64_t parse_nccl_size(const std::string& flag, const std::string& v);

// Registers --fabric, --topo, --oversubscription, --servers-per-leaf,
// --switch-radix, --rate, --cable-delay, --mtu,
// --gpu-nic-path, --qps, --sharp, --background-*, --seed on a subcommand.
void add_cluster_flags(CLI::App& app, ClusterCli& o);

// Applies them to a run's options (NcclTestsOptions or TrainingRunOptions:
// both hold cluster, fabric, comm, seed, background and background_cdf).
// Throws std::invalid_argument naming the flag that is wrong.
template <class RunOptions>
void apply_cluster_flags(const ClusterCli& c, RunOptions& o) {
  o.cluster.topology = c.topo == "rail" ? ClusterTopology::kRail : ClusterTopology::kLeafSpine;
  // Written so that nan fails too.
  if (!(c.oversub >= 1 && c.oversub <= 64))
    throw std::invalid_argument("--oversubscription must be between 1 and 64 (1 = non-blocking, 2 = 2:1)");
  o.cluster.oversubscription = c.oversub;
  if (o.cluster.topology == ClusterTopology::kRail) {
    o.cluster.servers_per_leaf = c.servers_per_leaf > 0 ? c.servers_per_leaf : 32;
    o.cluster.switch_radix = c.switch_radix > 0 ? c.switch_radix : 64;
    if (o.cluster.switch_radix % 2 != 0)
      throw std::invalid_argument("--switch-radix must be even (a spine gives half its ports to each side)");
  } else if (c.servers_per_leaf > 0 || c.switch_radix > 0) {
    throw std::invalid_argument(
        std::string(c.servers_per_leaf > 0 ? "--servers-per-leaf" : "--switch-radix") +
        " has no effect: --topo leaf-spine gives every server its own leaf");
  }
  try {
    o.cluster.gpu_nic_path = pci_path_from_name(c.gpu_nic_path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--gpu-nic-path: ") + e.what());
  }
  if (!c.rate.empty()) {
    try {
      o.cluster.nic_link.rate = o.cluster.fabric_link.rate = parse_rate(c.rate);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--rate: ") + e.what());
    }
  }
  if (!c.cable_delay.empty()) {
    try {
      o.cluster.nic_link.delay = o.cluster.fabric_link.delay = parse_time(c.cable_delay);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--cable-delay: ") + e.what());
    }
    if (o.cluster.nic_link.delay < Time::zero()) throw std::invalid_argument("--cable-delay must be >= 0");
  }
  try {
    o.fabric = find_profile(c.fabric).config;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--fabric: ") + e.what());
  }
  // Unset: RC runs at NCCL's 4096 B, iWARP at its profile's Ethernet MTU.
  if (!c.mtu.empty())
    o.fabric.set_mtu(parse_nccl_size("--mtu", c.mtu));
  else if (o.fabric.transport != "iwarp")
    o.fabric.set_mtu(4096);
  if (c.sharp) {
    if (o.fabric.sharp.enabled)
      throw std::invalid_argument("--sharp has no effect: '" + c.fabric +
                                  "' already has in-network aggregation (SHARP)");
    o.fabric.sharp.enabled = true;
  }
  o.comm.qps_per_conn = c.qps;
  try {
    o.comm.nccl_minor = parse_nccl_version(c.nccl_version);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--nccl-version: ") + e.what());
  }
  try {
    o.comm.host_cpu = host_cpu_from_name(c.host_cpu);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--host-cpu: ") + e.what());
  }
  o.seed = static_cast<uint64_t>(c.seed);
  if (!(c.background_load >= 0 && c.background_load <= 1))
    throw std::invalid_argument("--background-load must be between 0 and 1");
  if (c.background_load == 0) {
    // No background traffic runs: its shape would be read (a missing file
    // passed) and do nothing.
    if (!c.background_cdf.empty())
      throw std::invalid_argument("--background-cdf has no effect without --background-load");
    if (!c.background_horizon.empty())
      throw std::invalid_argument("--background-horizon has no effect without --background-load");
    return;
  }
  o.background.load = c.background_load;
  try {
    o.background.horizon = parse_time(c.background_horizon.empty() ? "100ms" : c.background_horizon);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--background-horizon: ") + e.what());
  }
  try {
    o.background_cdf = FlowSizeCdf::load(
        find_shipped(c.background_cdf.empty() ? "data/cdf/alistorage2019.txt" : c.background_cdf));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("--background-cdf: ") + e.what());
  }
}

}  // namespace rdmasim::cli
