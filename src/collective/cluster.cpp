#include "collective/cluster.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rdmasim {

const std::vector<GpuClass>& gpu_classes() {
  static const std::vector<GpuClass> k = {{"v100", GpuArch::kVolta, 120.0},
                                          {"a100", GpuArch::kAmpere, 240.0},
                                          {"h100", GpuArch::kHopper, 370.8},
                                          {"b200", GpuArch::kBlackwell, 721.8}};
  return k;
}

const GpuClass& gpu_class(GpuArch arch) {
  for (const GpuClass& g : gpu_classes())
    if (g.arch == arch) return g;
  return gpu_class("h100");  // unreachable: every generation has a class
}

const GpuClass& gpu_class(const std::string& name) {
  for (const GpuClass& g : gpu_classes())
    if (name == g.name) return g;
  throw std::invalid_argument("unknown GPU class '" + name + "' (known: v100, a100, h100, b200)");
}

Topology make_cluster_topology(const ClusterConfig& c) {
  if (c.servers < 1 || c.servers > 4096) throw std::invalid_argument("servers must be between 1 and 4096");
  if (c.gpus_per_server < 1 || c.gpus_per_server > 64)
    throw std::invalid_argument("gpus_per_server must be between 1 and 64");
  if (!(c.oversubscription >= 1.0) || c.oversubscription > 64)
    throw std::invalid_argument("oversubscription must be between 1 and 64 (1 = non-blocking, 2 = 2:1)");
  if (c.nvlink.rate.bps() <= 0) throw std::invalid_argument("nvlink rate must be positive");
  const int spines = cluster_spines(c);
  Topology t;
  if (c.topology == ClusterTopology::kLeafSpine) {
    // make_leaf_spine numbers hosts leaf-major: leaf l = server l.
    t = make_leaf_spine(c.servers, c.gpus_per_server, spines, 1.0, c.nic_link, c.fabric_link);
    for (int s = 0; s < c.servers; ++s)
      for (int g = 0; g < c.gpus_per_server; ++g) {
        auto& n = t.nodes[t.hosts[s * c.gpus_per_server + g]];
        n.server = s;
        n.name = "srv" + std::to_string(s) + ".gpu" + std::to_string(g);
      }
  } else {
    t = make_servers(c.servers, c.gpus_per_server, spines, c.nic_link, c.fabric_link, c.servers_per_leaf,
                     c.switch_radix);
  }
  return t;
}

int cluster_spines(const ClusterConfig& c) {
  const int rail_leaf_servers = c.servers_per_leaf > 0 ? std::min(c.servers, c.servers_per_leaf) : c.servers;
  const double per_leaf_down =
      (c.topology == ClusterTopology::kLeafSpine ? c.gpus_per_server : rail_leaf_servers) *
      static_cast<double>(c.nic_link.rate.bps());
  return std::max(
      1, static_cast<int>(std::ceil(per_leaf_down / (c.oversubscription * c.fabric_link.rate.bps()) - 1e-9)));
}

std::string sharp_unavailable(const FabricConfig& fabric, const std::string& how) {
  if (fabric.sharp.enabled) return "";
  return "fabric '" + fabric.name +
         "' has no in-network aggregation (SHARP is a feature of InfiniBand switches: ib-ndr, ib-hdr); to "
         "model a vendor extension of this fabric (an assumption), " +
         how;
}

GpuCluster::GpuCluster(const ClusterConfig& c, const FabricConfig& fabric, uint64_t seed)
    : cfg_(c),
      own_sim_(std::make_unique<Simulation>(seed)),
      own_fabric_(std::make_unique<Fabric>(*own_sim_, make_cluster_topology(c), fabric)),
      sim_(own_sim_.get()),
      fabric_(own_fabric_.get()),
      own_net_(std::make_unique<FabricNetwork>(*fabric_)),
      net_(own_net_.get()),
      nvlink_free_(c.ranks()),
      sharp_(std::make_unique<SharpManager>(fabric_->topology(), fabric_->config().sharp)) {}

GpuCluster::GpuCluster(const ClusterConfig& c, Simulation& sim, Fabric& fabric)
    : GpuCluster(c, sim, std::make_unique<FabricNetwork>(fabric), nullptr) {
  fabric_ = &fabric;
}

GpuCluster::GpuCluster(const ClusterConfig& c, Simulation& sim, CollectiveNetwork& net)
    : GpuCluster(c, sim, nullptr, &net) {}

GpuCluster::GpuCluster(const ClusterConfig& c, Simulation& sim, std::unique_ptr<FabricNetwork> own,
                       CollectiveNetwork* net)
    : cfg_(c),
      sim_(&sim),
      fabric_(nullptr),
      own_net_(std::move(own)),
      net_(own_net_ ? own_net_.get() : net),
      nvlink_free_(c.ranks()),
      sharp_(std::make_unique<SharpManager>(net_->topology(), net_->fabric_config().sharp)) {
  if (net_->topology().num_hosts() < c.ranks())
    throw std::invalid_argument("the cluster has " + std::to_string(c.ranks()) +
                                " GPUs but the fabric only " + std::to_string(net_->topology().num_hosts()) +
                                " endpoints");
}

}  // namespace rdmasim
