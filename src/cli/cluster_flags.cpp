#include "cli/cluster_flags.h"

#include <CLI/CLI.hpp>
#include <cstdint>

#include "cli/flag_value.h"

namespace rdmasim::cli {

int64_t parse_nccl_size(const std::string& flag, const std::string& v) {
  try {
    if (!v.empty()) {
      size_t used = 0;
      const long long n = std::stoll(v, &used);
      const std::string rest = v.substr(used);
      int64_t mul = 0;
      if (rest.empty()) mul = 1;
      if (rest == "K" || rest == "k") mul = int64_t{1} << 10;
      if (rest == "M" || rest == "m") mul = int64_t{1} << 20;
      if (rest == "G" || rest == "g") mul = int64_t{1} << 30;
      if (rest == "T" || rest == "t") mul = int64_t{1} << 40;
      if (mul > 0 && n >= 0 && n <= INT64_MAX / mul) return n * mul;
    }
    return parse_bytes(v).count();
  } catch (const std::exception&) {
    throw std::invalid_argument(flag + " '" + v + "': expected a size such as 8, 128K, 1G or 64MiB");
  }
}

void add_cluster_flags(CLI::App& app, ClusterCli& o) {
  app.add_option("--fabric", o.fabric,
                 "fabric profile, as `rdmasim profiles` lists them (default " + o.fabric + ")");
  app.add_option("--topo", o.topo,
                 "rail (rail-optimized: NIC g of every server on leaf g, as DGX SuperPOD) | leaf-spine (one "
                 "leaf per server: ring traffic crosses the spines by ECMP); default " +
                     o.topo)
      ->check(CLI::IsMember({"leaf-spine", "rail"}));
  app.add_option("--oversubscription", o.oversub, "leaf down:up capacity ratio (default 1)");
  app.add_option("--servers-per-leaf", o.servers_per_leaf,
                 "rail topology: servers under one rail leaf, a scalable unit (default 32, DGX SuperPOD's); "
                 "a larger cluster has a leaf per rail per unit, every leaf linked to every spine")
      ->check(CLI::Range(1, 4096));
  app.add_option(
         "--switch-radix", o.switch_radix,
         "rail topology: ports per switch (default 64: Quantum-2 NDR, 51.2T Ethernet at 800G); a leaf "
         "needs servers-per-leaf + spines, and beyond radix rail leaves the spines form pods of "
         "radix/2 leaves joined by a core tier")
      ->check(CLI::Range(4, 4096));
  app.add_option("--rate", o.rate, "NIC and fabric link rate (default 400Gbps)");
  app.add_option(
      "--cable-delay", o.cable_delay,
      "propagation delay of every NIC and fabric cable (default 150ns: 30 m of fibre, an assumption)");
  app.add_option("--mtu", o.mtu,
                 "RDMA payload bytes per packet (default 4096, the IB/RoCE MTU NCCL runs with); on iWARP "
                 "the Ethernet MTU (default the profile's 1500)");
  app.add_option("--gpu-nic-path", o.gpu_nic_path,
                 "PCI path NCCL sees between a GPU and its NIC: pix | pxb | pxn | phb | sys (either case); "
                 "across servers NCCL's tuner picks LL128 only up to pxb (pxn on h100/b200), e.g. not in a "
                 "VM that shows the host bridge (default pxb)");
  app.add_option("--qps", o.qps, "QPs per connection, NCCL_IB_QPS_PER_CONNECTION (default 1)")
      ->check(CLI::Range(1, 64));
  app.add_option("--host-cpu", o.host_cpu,
                 "the servers' CPU vendor NCCL detects: intel | amd; across servers NCCL's tuner takes LL's "
                 "bandwidth cap and a ring's per-step proxy overhead from it (default intel)");
  app.add_option("--nccl-version", o.nccl_version,
                 "the NCCL release that runs, as NCCL_DEBUG=VERSION prints it (2.18 .. 2.30): it decides "
                 "the channels a small call runs on (enqueue.cc's rule changed in 2.22, 2.23, 2.26 and "
                 "2.29) and NVLSTree's network hop (14 us up to 2.28.7, 20.9 from 2.28.9, which 2.28 "
                 "stands for); default " +
                     o.nccl_version);
  app.add_flag("--sharp", o.sharp,
               "give the fabric in-network aggregation (fabric.sharp.enabled: true) for the sharp algorithm: "
               "models a vendor extension on Ethernet (an assumption); InfiniBand profiles have it");
  app.add_option("--background-load", o.background_load,
                 "storage traffic sharing the fabric: Poisson flows at this load per NIC (default 0: none)");
  app.add_option("--background-cdf", o.background_cdf,
                 "flow-size CDF of the background traffic (default data/cdf/alistorage2019.txt)");
  app.add_option("--background-horizon", o.background_horizon,
                 "background arrivals are generated over this much simulated time (default 100ms)");
  app.add_option("--seed", o.seed, "random seed (ECMP hashing, background traffic)")->check(seed_range());
}

}  // namespace rdmasim::cli
